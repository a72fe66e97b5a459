package robots

import "strings"

// ValidAgent reports whether token is a valid product token: one or more of [A-Za-z_-] (RFC 9309 §2.2.1).
func ValidAgent(token string) bool {
	return token != "" && agentPrefix(token) == len(token)
}

// agentPrefix is the length of the leading run of [A-Za-z_-] in s.
func agentPrefix(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-') {
			return i
		}
	}
	return len(s)
}

// agentValue reads a user-agent value (docs/rules.md#d5): global is true for "*", alone or followed by
// whitespace; otherwise token is the leading run of [A-Za-z_-] ("ExampleBot/1.0" gives
// "ExampleBot"), empty when there is none, and an empty token matches no crawler.
func agentValue(v string) (token string, global bool) {
	if v == "*" || strings.HasPrefix(v, "* ") || strings.HasPrefix(v, "*\t") {
		return "", true
	}
	return v[:agentPrefix(v)], false
}
