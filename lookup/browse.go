package lookup

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// pageBrowseLimit is how many captures one page of the prefix view lists unless ?limit= says.
const pageBrowseLimit = 50

// browseData is one page of the prefix view: the captures under a URL, in SURT order.
type browseData struct {
	Under    string // the URL asked for
	Captures []pageCapture
	Up       []link // the same view one directory up, and at the site's root
	Next     string // the next page, when there is one
	First    string // the first page, when this is a later one
}

// browse lists a page of the captures below q (a prefix query), due ones marked as of now, with links
// to the next page (its cursor) and to the directories above. The error is the public index's,
// or share's (errBusy: the held-bytes budget stayed full).
func (s *Server) browse(ix *index, q query, share *heldShare, defaultLimit bool, now time.Time) (*browseData, error) {
	if defaultLimit {
		q.limit = pageBrowseLimit
	}
	page, more, err := ix.prefixHeld(q.matcher(), q.after, q.limit, share)
	if err != nil {
		return nil, err
	}
	b := &browseData{Under: q.raw, Up: shorter(q.raw)}
	base := "/?matchType=prefix&url=" + url.QueryEscape(q.raw)
	if !defaultLimit {
		base += "&limit=" + strconv.Itoa(q.limit)
	}
	if more {
		b.Next = base + "&cursor=" + cursorAfter(&page[len(page)-1]).String()
	}
	if q.after.key != "" {
		b.First = base
	}
	page, passes := markDue(page, now), s.passes(ix)
	for i := range page {
		p := toPage(&page[i], now)
		passes.fill(&p, &page[i]) // "public since", when the release log's tail knows the pass
		b.Captures = append(b.Captures, p)
	}
	return b, nil
}

// shorter returns the prefix views that hold what lies near raw: its directory (for a URL that
// ends in "/", the one above) and its site's root, each once and never raw itself.
func shorter(raw string) []link {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	var out []link
	seen := map[string]bool{raw: true}
	for _, p := range []string{path[:strings.LastIndexByte(path, '/')+1], "/"} {
		v := *u
		v.RawPath, v.Path = "", ""
		target := v.String() + p
		if p == "" || seen[target] {
			continue
		}
		seen[target] = true
		out = append(out, link{Href: "/?matchType=prefix&url=" + url.QueryEscape(target), Text: target})
	}
	return out
}
