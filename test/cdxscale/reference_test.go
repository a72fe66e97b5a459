package cdxscale

import (
	"bufio"
	"cmp"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
)

// The reference: what the public CDXJ says a query should answer, computed the plain way (every
// line of the chosen hosts in a slice, each query a scan of it) from the CDXJ files alone, not
// from the public index the lookup reads.

// ts14 is the layout of 14-digit timestamps.
const ts14 = "20060102150405"

// refCapture is one released capture as its CDXJ line states it.
type refCapture struct {
	key, ts                string
	url, mime, status      string
	digest, length, offset string
	filename               string
	at                     time.Time
	id                     string
}

// fields are the CDX fields the tests ask for (fl=), in order, with the capture's values.
var fields = []string{"urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length", "offset", "filename"}

func (c *refCapture) field(name string) string {
	switch name {
	case "urlkey":
		return c.key
	case "timestamp":
		return c.ts
	case "original", "url":
		return c.url
	case "mimetype", "mime":
		return c.mime
	case "statuscode", "status":
		return c.status
	case "digest":
		return c.digest
	case "length":
		return c.length
	case "offset":
		return c.offset
	case "filename":
		return c.filename
	}
	panic("unknown field " + name)
}

func (c *refCapture) row() []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = c.field(f)
	}
	return out
}

// reference holds the released captures of some hosts, in CDX order (key, then time).
type reference struct {
	hosts  map[string]bool   // SURT hosts, port included
	caps   []refCapture      // released captures of those hosts
	newest map[string]string // key → the URL of its newest line, released or tombstone
	lines  int               // CDXJ lines read in all
	rows   int               // CDX lines compared
}

// hostOf is the SURT host (and port) of a key: what comes before ")".
func hostOf(key string) string {
	h, _, _ := strings.Cut(key, ")")
	return h
}

// loadReference reads every CDXJ file of the public side pub (but the index's own) and keeps
// the lines of hosts. A capture is released when a line states so; its tombstone lines (one of an
// earlier pass, say) add nothing to what the CDX API lists.
func loadReference(pub string, hosts map[string]bool) (*reference, error) {
	ref := &reference{hosts: hosts, newest: map[string]string{}}
	newestAt := map[string]string{}
	seen := map[string]bool{}
	err := filepath.WalkDir(pub, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == pubindex.Dir:
			return fs.SkipDir
		case d.IsDir() || !strings.HasSuffix(p, ".cdxj"):
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, public.MaxLineBytes)
		for sc.Scan() {
			ref.lines++
			b := sc.Bytes()
			sp := strings.IndexByte(string(b[:min(len(b), 512)]), ')')
			if sp < 0 || !hosts[string(b[:sp])] {
				continue
			}
			l, err := public.ParseLine(b)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			if l.Timestamp >= newestAt[l.SURT] {
				newestAt[l.SURT], ref.newest[l.SURT] = l.Timestamp, l.URL
			}
			if l.State != public.StateReleased || seen[l.SURT+" "+l.Timestamp+" "+l.ID] {
				continue
			}
			seen[l.SURT+" "+l.Timestamp+" "+l.ID] = true
			at, err := time.Parse(time.RFC3339Nano, l.Time)
			if err != nil {
				return fmt.Errorf("%s: time %q: %w", p, l.Time, err)
			}
			mime := l.Mime
			if l.Revisit {
				mime = "warc/revisit" // what replay tools expect of a revisit, whatever the line says
			}
			ref.caps = append(ref.caps, refCapture{key: l.SURT, ts: l.Timestamp, url: l.URL, mime: mime,
				status: strconv.Itoa(l.Status), digest: l.Digest, length: strconv.FormatInt(l.Length, 10),
				offset: strconv.FormatInt(l.Offset, 10), filename: path.Base(public.PathOf(l.Filename)), at: at, id: l.ID})
		}
		return sc.Err()
	})
	slices.SortFunc(ref.caps, func(a, b refCapture) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.ts, b.ts), cmp.Compare(a.filename, b.filename), cmp.Compare(a.offset, b.offset))
	})
	return ref, err
}

// cdxReq is one CDX API query the tests make.
type cdxReq struct {
	url       string // as sent: a trailing * or leading *. is a matchType
	matchType string
	from, to  string
	limit     int
	sort      string // "", reverse or closest
	closest   string
	filters   []string
	text      bool // output=text with the default fields, else output=json with fl=fields
}

// kind names what q selects, for the latency report: exact, prefix, host, domain or closest.
func (q cdxReq) kind() string {
	switch {
	case q.sort == "closest":
		return "closest"
	case q.matchType != "":
		return q.matchType
	case strings.HasPrefix(q.url, "*."):
		return "domain"
	case strings.HasSuffix(q.url, "*"):
		return "prefix"
	}
	return "exact"
}

// target is the request URI of q.
func (q cdxReq) target() string {
	v := url.Values{"url": {q.url}}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("matchType", q.matchType)
	set("from", q.from)
	set("to", q.to)
	if q.limit != 0 {
		v.Set("limit", strconv.Itoa(q.limit))
	}
	set("sort", q.sort)
	set("closest", q.closest)
	v["filter"] = q.filters
	if q.text {
		v.Set("output", "text")
	} else {
		v.Set("output", "json")
		v.Set("fl", strings.Join(fields, ","))
	}
	return "/cdx?" + v.Encode()
}

// surtOf is the key of a query's URL, without its wildcards, https:// when it has no scheme.
func surtOf(raw string) (string, error) {
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	return surt.Key(raw)
}

// cdx is the answer to q: its rows (fields, or the default fields for text).
func (r *reference) cdx(q cdxReq) ([][]string, error) {
	raw, mt := q.url, q.matchType
	switch {
	case strings.HasPrefix(raw, "*."):
		raw, mt = raw[2:], cmp.Or(mt, "domain")
	case strings.HasSuffix(raw, "*"):
		raw, mt = strings.TrimSuffix(raw, "*"), cmp.Or(mt, "prefix")
	}
	k, err := surtOf(raw)
	if err != nil {
		return nil, err
	}
	if !r.hosts[hostOf(k)] {
		return nil, fmt.Errorf("%s: a host the reference does not hold", raw)
	}
	var selects func(string) bool
	switch mt {
	case "", "exact":
		selects = func(c string) bool { return c == k }
	case "prefix":
		p := raw
		if i := strings.IndexAny(p, "?#"); i >= 0 {
			p = p[:i]
		}
		if strings.HasSuffix(p, "/") && !strings.HasSuffix(k, ")/") { // itself and below
			selects = func(c string) bool {
				return c == k || strings.HasPrefix(c, k+"/") || strings.HasPrefix(c, k+"?")
			}
		} else {
			selects = func(c string) bool { return strings.HasPrefix(c, k) }
		}
	case "host":
		selects = func(c string) bool { return hostOf(c) == hostOf(k) }
	case "domain":
		h, _, _ := strings.Cut(hostOf(k), ":")
		selects = func(c string) bool {
			ch, _, _ := strings.Cut(hostOf(c), ":")
			return ch == h || strings.HasPrefix(ch, h+",")
		}
	default:
		return nil, fmt.Errorf("matchType %q", mt)
	}
	from, to := pad(q.from, "10000101000000"), pad(q.to, "99991231235959")
	keep, err := filterFuncs(q.filters)
	if err != nil {
		return nil, err
	}
	var sel []*refCapture
	for i := range r.caps {
		c := &r.caps[i]
		if !selects(c.key) || from != "" && c.ts < from || to != "" && c.ts > to || !keep(c) {
			continue
		}
		sel = append(sel, c)
	}
	switch q.sort {
	case "reverse":
		slices.Reverse(sel)
	case "closest":
		t, err := time.Parse(ts14, pad(q.closest, "10000101000000"))
		if err != nil {
			return nil, err
		}
		dist := func(c *refCapture) int64 { return abs(c.at.Unix() - t.Unix()) }
		slices.SortStableFunc(sel, func(a, b *refCapture) int { return cmp.Compare(dist(a), dist(b)) })
	}
	switch {
	case q.limit > 0 && len(sel) > q.limit:
		sel = sel[:q.limit]
	case q.limit < 0 && len(sel) > -q.limit:
		sel = sel[len(sel)+q.limit:]
	}
	rows := make([][]string, 0, len(sel))
	for _, c := range sel {
		row := c.row()
		if q.text {
			row = row[:7] // urlkey timestamp original mimetype statuscode digest length
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func pad(ts, with string) string {
	if ts == "" {
		return ""
	}
	return ts + with[len(ts):]
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// filterFuncs reads filter=[!][=|~]field:expr: = an exact value, ~ a regular expression from the
// field's start, neither a regular expression of the whole field; ! negates. All must pass.
func filterFuncs(specs []string) (func(*refCapture) bool, error) {
	var fs []func(*refCapture) bool
	for _, s := range specs {
		neg := strings.HasPrefix(s, "!")
		s = strings.TrimPrefix(s, "!")
		mode := ""
		if strings.HasPrefix(s, "=") || strings.HasPrefix(s, "~") {
			mode, s = s[:1], s[1:]
		}
		name, expr, _ := strings.Cut(s, ":")
		var match func(string) bool
		switch mode {
		case "=":
			match = func(v string) bool { return v == expr }
		case "~":
			re, err := regexp.Compile("^(?:" + expr + ")")
			if err != nil {
				return nil, err
			}
			match = re.MatchString
		default:
			re, err := regexp.Compile("^(?:" + expr + ")$")
			if err != nil {
				return nil, err
			}
			match = re.MatchString
		}
		fs = append(fs, func(c *refCapture) bool { return match(c.field(name)) != neg })
	}
	return func(c *refCapture) bool {
		for _, f := range fs {
			if !f(c) {
				return false
			}
		}
		return true
	}, nil
}

// mementos are the released captures of key, oldest first.
func (r *reference) mementos(key string) []*refCapture {
	i, _ := slices.BinarySearchFunc(r.caps, key, func(c refCapture, k string) int { return cmp.Compare(c.key, k) })
	var out []*refCapture
	for ; i < len(r.caps) && r.caps[i].key == key; i++ {
		out = append(out, &r.caps[i])
	}
	return out
}

// closest is the index in ms (oldest first) of the memento nearest t, the earlier on a tie.
func closest(ms []*refCapture, t time.Time) int {
	best := 0
	for i, m := range ms {
		if abs(m.at.Sub(t).Nanoseconds()) < abs(ms[best].at.Sub(t).Nanoseconds()) {
			best = i
		}
	}
	return best
}

// recordURI is the memento URI of c on base.
func recordURI(base string, c *refCapture) string {
	return base + "/api/v1/record?url=" + url.QueryEscape(c.url) + "&timestamp=" + c.at.UTC().Format(ts14)
}

// link is one link of a Link field or link-format TimeMap.
type link struct {
	uri string
	rel string
	// params but rel, as `k="v"` in the order given
	params string
}

// mementoLinks are the memento links a TimeGate answer (or a memento) names around ms[sel]:
// first, prev, the selected, next and last, the words of one memento combined.
func mementoLinks(base string, ms []*refCapture, sel int) []link {
	var out []link
	for i, m := range ms {
		var words []string
		if i == 0 {
			words = append(words, "first")
		}
		if i == sel-1 {
			words = append(words, "prev")
		}
		if i == sel+1 {
			words = append(words, "next")
		}
		if i == len(ms)-1 {
			words = append(words, "last")
		}
		if len(words) == 0 && i != sel {
			continue
		}
		out = append(out, link{uri: recordURI(base, m), rel: strings.Join(append(words, "memento"), " "),
			params: fmt.Sprintf(`datetime=%q`, m.at.UTC().Format(httpDate))})
	}
	return out
}

// httpDate is the layout of an HTTP-date.
const httpDate = "Mon, 02 Jan 2006 15:04:05 GMT"

// timemapLinks are the links of the link-format TimeMap of key on base.
func (r *reference) timemapLinks(base, key string) []link {
	ms := r.mementos(key)
	orig := r.newest[key]
	out := []link{
		{uri: orig, rel: "original"},
		{uri: base + "/timemap/link/" + orig, rel: "self", params: fmt.Sprintf(`type="application/link-format"; from=%q; until=%q`,
			ms[0].at.UTC().Format(httpDate), ms[len(ms)-1].at.UTC().Format(httpDate))},
		{uri: base + "/timegate/" + orig, rel: "timegate"},
	}
	for i, m := range ms {
		rel := "memento"
		switch {
		case len(ms) == 1:
			rel = "first last memento"
		case i == 0:
			rel = "first memento"
		case i == len(ms)-1:
			rel = "last memento"
		}
		out = append(out, link{uri: recordURI(base, m), rel: rel, params: fmt.Sprintf(`datetime=%q`, m.at.UTC().Format(httpDate))})
	}
	return out
}

// parseLinks reads a Link field value or a link-format body: `<uri>; k="v"; …` separated by
// commas (and newlines). Parameters other than rel are kept as given, in order.
func parseLinks(s string) ([]link, error) {
	var out []link
	s = strings.TrimSpace(s)
	for s != "" {
		if s[0] != '<' {
			return nil, fmt.Errorf("link does not start with <: %.60q", s)
		}
		end := strings.IndexByte(s, '>')
		if end < 0 {
			return nil, fmt.Errorf("link without >: %.60q", s)
		}
		l := link{uri: s[1:end]}
		s = s[end+1:]
		var params []string
		for {
			s = strings.TrimLeft(s, " \n")
			if s == "" || s[0] == ',' {
				s = strings.TrimLeft(strings.TrimPrefix(s, ","), " \n")
				break
			}
			if s[0] != ';' {
				return nil, fmt.Errorf("link %s: want ; or , at %.60q", l.uri, s)
			}
			s = strings.TrimLeft(s[1:], " ")
			eq := strings.IndexByte(s, '=')
			if eq < 0 || len(s) < eq+2 || s[eq+1] != '"' {
				return nil, fmt.Errorf("link %s: parameter without a quoted value at %.60q", l.uri, s)
			}
			q := strings.IndexByte(s[eq+2:], '"')
			if q < 0 {
				return nil, fmt.Errorf("link %s: unterminated value at %.60q", l.uri, s)
			}
			name, val := s[:eq], s[eq+2:eq+2+q]
			s = s[eq+3+q:]
			if name == "rel" {
				l.rel = val
			} else {
				params = append(params, fmt.Sprintf("%s=%q", name, val))
			}
		}
		l.params = strings.Join(params, "; ")
		out = append(out, l)
	}
	return out, nil
}
