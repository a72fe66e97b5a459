package embargo

import "net/url"

// RobotsExempt reports whether a capture of rawURL may be archived as robots.txt evidence, outside
// every embargo: its URL is an http(s) origin's "/robots.txt" with no query. A body reached through a
// robots.txt redirect at any other URL is a resource of its own origin, never exempt
// (docs/rules.md#d23).
func RobotsExempt(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" || u.User != nil {
		return false
	}
	return (u.Scheme == "http" || u.Scheme == "https") && u.EscapedPath() == "/robots.txt" && u.RawQuery == "" && !u.ForceQuery
}
