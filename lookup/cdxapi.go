package lookup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
)

// The CDX server API (docs/formats.md#cdx-api): GET /cdx and GET /api/v1/cdx answer the
// captures a URL query selects as CDX lines, in the manner of pywb's CDX server and the Wayback
// CDX server. The answer is written while the public index is read, in CDX order (SURT key, then
// capture time, oldest first): memory stays bounded by the few answers that must be held
// (sort=reverse, sort=closest, a negative limit: at most cdxMaxHeld lines).

// CDX API limits.
const (
	cdxMaxHeld         = 100_000 // lines held by sort=reverse, sort=closest and a negative limit
	cdxDefaultPageSize = 1000    // captures per page of the pagination API
	cdxMaxPageSize     = 100_000
	cdxMaxFilters      = 16
	cdxMaxPattern      = 256 // bytes of one filter expression
)

// cdxField is one field of a CDX line.
type cdxField int

const (
	fURLKey cdxField = iota
	fTimestamp
	fOriginal
	fMime
	fStatus
	fDigest
	fLength
	fOffset
	fFilename
	fState
	fReleaseAt
	numFields
)

// cdxFields names the fields, Wayback's names and pywb's alike.
var cdxFields = map[string]cdxField{
	"urlkey": fURLKey, "timestamp": fTimestamp, "original": fOriginal, "url": fOriginal,
	"mimetype": fMime, "mime": fMime, "statuscode": fStatus, "status": fStatus, "digest": fDigest,
	"length": fLength, "offset": fOffset, "filename": fFilename, "state": fState, "release_at": fReleaseAt,
}

// waybackNames and pywbNames are the fields' names in text and json answers (Wayback's) and in
// cdxj and ndjson answers (pywb's, the public CDXJ's).
var (
	waybackNames = [numFields]string{"urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length", "offset", "filename", "state", "release_at"}
	pywbNames    = [numFields]string{"urlkey", "timestamp", "url", "mime", "status", "digest", "length", "offset", "filename", "state", "release_at"}
)

// cdxQuery is a validated CDX API request.
type cdxQuery struct {
	raw           string // the url as asked, without its wildcard
	key           string // its SURT
	matchType     string // exact, prefix, host or domain
	from, to      string // 14 digits, padded low and high; "" for none
	limit         int    // 0: none; negative: the last -limit
	reverse       bool
	closest       int64 // Unix seconds, with sortClosest
	sortClosest   bool
	filters       []cdxFilter
	fields        []cdxField
	names         []string // the header row's names, one per field
	output        string   // text, json, cdxj or ndjson
	collapse      *cdxCollapse
	showEmbargoed bool
	showNumPages  bool
	page          int // -1 when not paged
	pageSize      int
}

// cdxFilter is one filter=[!][=|~]field:expression.
type cdxFilter struct {
	field  cdxField
	negate bool
	exact  []byte         // the = form: the field is this value
	re     *regexp.Regexp // the others
}

// cdxCollapse is collapse=field[:N]: a line whose field (its first N bytes) equals the previous
// line's is left out.
type cdxCollapse struct {
	field cdxField
	n     int // 0: the whole field
	last  []byte
	seen  bool
}

// parseCDXQuery validates the parameters of a CDX API request.
func parseCDXQuery(r *http.Request) (cdxQuery, error) {
	q := cdxQuery{page: -1, pageSize: cdxDefaultPageSize, output: "text"}
	if len(r.URL.RawQuery) > maxQuery {
		return q, fmt.Errorf("the query string is longer than %d bytes; shorten it", maxQuery)
	}
	v, err := queryValues(r.URL.RawQuery)
	if err != nil {
		return q, err
	}
	raw := strings.TrimSpace(v.Get("url"))
	switch {
	case raw == "":
		return q, errors.New("the url parameter is missing; ask for /cdx?url=example.com/*")
	case len(raw) > maxURL:
		return q, fmt.Errorf("the url is longer than %d bytes; shorten it", maxURL)
	}
	q.matchType = v.Get("matchType")
	switch {
	case strings.HasPrefix(raw, "*."):
		raw, q.matchType = raw[2:], orDefault(q.matchType, "domain")
	case strings.HasSuffix(raw, "*"):
		raw, q.matchType = strings.TrimSuffix(raw, "*"), orDefault(q.matchType, "prefix")
	}
	switch q.matchType {
	case "":
		q.matchType = "exact"
	case "exact", "prefix", "host", "domain":
	default:
		return q, fmt.Errorf("matchType %q is unknown; use exact, prefix, host or domain", q.matchType)
	}
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	if err := checkURL(raw); err != nil {
		return q, err
	}
	if q.key, err = surt.Key(raw); err != nil {
		return q, fmt.Errorf("%q is not an absolute http(s) URL; give one like example.com/page", raw)
	}
	q.raw = raw
	if q.from, err = padTimestamp(v.Get("from"), "10000101000000"); err != nil {
		return q, fmt.Errorf("from: %w", err)
	}
	if q.to, err = padTimestamp(v.Get("to"), "99991231235959"); err != nil {
		return q, fmt.Errorf("to: %w", err)
	}
	if l := v.Get("limit"); l != "" {
		if q.limit, err = strconv.Atoi(l); err != nil || q.limit == 0 {
			return q, fmt.Errorf("limit %q is not a number other than 0 (a negative one asks for the last lines)", l)
		}
	}
	switch sort := v.Get("sort"); sort {
	case "", "default", "regular":
	case "reverse":
		q.reverse = true
	case "closest":
		ts, err := padTimestamp(v.Get("closest"), "10000101000000")
		if err != nil || ts == "" {
			return q, errors.New("sort=closest needs closest=TIMESTAMP (1 to 14 digits)")
		}
		t, err := time.Parse(public.Timestamp14, ts)
		if err != nil {
			return q, fmt.Errorf("closest %q is not a time: %w", v.Get("closest"), err)
		}
		if q.matchType != "exact" {
			return q, errors.New("sort=closest is for matchType=exact only")
		}
		q.sortClosest, q.closest = true, t.Unix()
	default:
		return q, fmt.Errorf("sort %q is unknown; use reverse or closest", sort)
	}
	if n := abs(q.limit); n > cdxMaxHeld && (q.reverse || q.sortClosest || q.limit < 0) {
		return q, fmt.Errorf("limit %d: sort=reverse, sort=closest and a negative limit hold at most %d lines", q.limit, cdxMaxHeld)
	}
	fs := v["filter"]
	if len(fs) > cdxMaxFilters {
		return q, fmt.Errorf("%d filters: at most %d", len(fs), cdxMaxFilters)
	}
	for _, f := range fs {
		cf, err := parseCDXFilter(f)
		if err != nil {
			return q, err
		}
		q.filters = append(q.filters, cf)
	}
	switch q.output = orDefault(v.Get("output"), "text"); q.output {
	case "text", "json", "cdxj", "ndjson":
	default:
		return q, fmt.Errorf("output %q is unknown; use text, json, cdxj or ndjson", q.output)
	}
	q.showEmbargoed = v.Get("showEmbargoed") == "true"
	if fl := v.Get("fl"); fl != "" {
		for name := range strings.SplitSeq(fl, ",") {
			name = strings.TrimSpace(name)
			f, ok := cdxFields[name]
			if !ok {
				return q, fmt.Errorf("fl: field %q is unknown; fields are urlkey, timestamp, original, mimetype, statuscode, digest, length, offset, filename, state, release_at", name)
			}
			q.fields, q.names = append(q.fields, f), append(q.names, name)
		}
	} else {
		q.fields = []cdxField{fURLKey, fTimestamp, fOriginal, fMime, fStatus, fDigest, fLength}
		if q.output == "cdxj" || q.output == "ndjson" {
			q.fields = append(q.fields, fOffset, fFilename)
		}
		if q.showEmbargoed {
			q.fields = append(q.fields, fState, fReleaseAt)
		}
		names := waybackNames
		if q.output == "cdxj" || q.output == "ndjson" {
			names = pywbNames
		}
		for _, f := range q.fields {
			q.names = append(q.names, names[f])
		}
	}
	switch cs := v["collapse"]; len(cs) {
	case 0:
	case 1:
		name, n, _ := strings.Cut(cs[0], ":")
		f, ok := cdxFields[name]
		if !ok {
			return q, fmt.Errorf("collapse: field %q is unknown", name)
		}
		q.collapse = &cdxCollapse{field: f}
		if n != "" {
			if q.collapse.n, err = strconv.Atoi(n); err != nil || q.collapse.n < 1 {
				return q, fmt.Errorf("collapse %q: N is not a positive number", cs[0])
			}
		}
	default:
		return q, errors.New("collapse is given more than once; give one collapse=field[:N]")
	}
	q.showNumPages = v.Get("showNumPages") == "true"
	if ps := v.Get("pageSize"); ps != "" {
		if q.pageSize, err = strconv.Atoi(ps); err != nil || q.pageSize < 1 || q.pageSize > cdxMaxPageSize {
			return q, fmt.Errorf("pageSize %q is not a number from 1 to %d", ps, cdxMaxPageSize)
		}
	}
	if p := v.Get("page"); p != "" {
		if q.page, err = strconv.Atoi(p); err != nil || q.page < 0 {
			return q, fmt.Errorf("page %q is not a number from 0", p)
		}
	}
	return q, nil
}

// padTimestamp pads a timestamp of 1 to 14 digits with the rest of pad: from pads low
// (10000101000000), to pads high (99991231235959), as pywb does. The result compares as a
// string with a capture's 14 digits.
func padTimestamp(ts, pad string) (string, error) {
	if ts == "" {
		return "", nil
	}
	if len(ts) > 14 || strings.Trim(ts, "0123456789") != "" {
		return "", fmt.Errorf("%q is not a timestamp of 1 to 14 digits (YYYYMMDDhhmmss, or a leading part of it)", ts)
	}
	return ts + pad[len(ts):], nil
}

// parseCDXFilter reads filter=[!][=|~]field:expression: = is an exact match, ~ a regular
// expression matching the start of the field (pywb), and without either a regular expression
// matching the whole field (the Wayback CDX server; a plain value is an exact match).
func parseCDXFilter(s string) (cdxFilter, error) {
	var f cdxFilter
	spec := s
	if strings.HasPrefix(spec, "!") {
		f.negate, spec = true, spec[1:]
	}
	mode := byte(0)
	if spec != "" && (spec[0] == '=' || spec[0] == '~') {
		mode, spec = spec[0], spec[1:]
	}
	name, expr, ok := strings.Cut(spec, ":")
	field, known := cdxFields[name]
	switch {
	case !ok:
		return f, fmt.Errorf("filter %q is not [!][=|~]field:expression", s)
	case !known:
		return f, fmt.Errorf("filter %q: field %q is unknown", s, name)
	case len(expr) > cdxMaxPattern:
		return f, fmt.Errorf("filter %q: the expression is longer than %d bytes", trunc(s, 60), cdxMaxPattern)
	}
	f.field = field
	var err error
	switch mode {
	case '=':
		f.exact = []byte(expr)
	case '~':
		f.re, err = regexp.Compile(`^(?:` + expr + `)`)
	default:
		f.re, err = regexp.Compile(`^(?:` + expr + `)$`)
	}
	if err != nil {
		return f, fmt.Errorf("filter %q: %w", s, err)
	}
	return f, nil
}

// keep reports whether the filter lets a line with this field value through.
func (f *cdxFilter) keep(v []byte) bool {
	var m bool
	if f.re != nil {
		m = f.re.Match(v)
	} else {
		m = bytes.Equal(v, f.exact)
	}
	return m != f.negate
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// cdxRow is one capture's CDX fields, rendered into one buffer.
type cdxRow struct {
	buf  []byte
	end  [numFields]int
	time int64 // Unix seconds
}

// fill renders c's fields. A revisit's mime is warc/revisit, as in pywb's and Wayback's indexes;
// a tombstone has no record to locate: its length, offset and filename are empty.
func (r *cdxRow) fill(c *pubindex.Capture) {
	f := &c.Block
	released := c.Released()
	t := time.Unix(0, c.Time).UTC()
	r.time = t.Unix()
	b := append(r.buf[:0], c.Key...)
	r.end[fURLKey] = len(b)
	b = t.AppendFormat(b, public.Timestamp14)
	r.end[fTimestamp] = len(b)
	b = append(b, f.URL...)
	r.end[fOriginal] = len(b)
	if f.Revisit {
		b = append(b, "warc/revisit"...)
	} else {
		b = append(b, f.Mime...)
	}
	r.end[fMime] = len(b)
	if f.Status > 0 {
		b = strconv.AppendInt(b, f.Status, 10)
	}
	r.end[fStatus] = len(b)
	b = append(b, f.Digest...)
	r.end[fDigest] = len(b)
	if released {
		b = strconv.AppendInt(b, f.Length, 10)
	}
	r.end[fLength] = len(b)
	if released {
		b = strconv.AppendInt(b, f.Offset, 10)
	}
	r.end[fOffset] = len(b)
	if released {
		b = append(b, path.Base(public.PathOf(string(f.Filename)))...)
	}
	r.end[fFilename] = len(b)
	if released {
		b = append(b, public.StateReleased...)
	} else {
		b = append(b, public.StateEmbargoed...)
	}
	r.end[fState] = len(b)
	b = time.Unix(0, c.ReleaseAt).UTC().AppendFormat(b, time.RFC3339)
	r.end[fReleaseAt] = len(b)
	r.buf = b
}

// get returns one field's value.
func (r *cdxRow) get(f cdxField) []byte {
	start := 0
	if f > 0 {
		start = r.end[f-1]
	}
	return r.buf[start:r.end[f]]
}

// appendRow appends the row as one line (or array element) of the query's output, without its
// separator.
func (q *cdxQuery) appendRow(b []byte, r *cdxRow) []byte {
	switch q.output {
	case "text":
		for i, f := range q.fields {
			if i > 0 {
				b = append(b, ' ')
			}
			if v := r.get(f); len(v) > 0 {
				b = appendCDXText(b, v)
			} else {
				b = append(b, '-')
			}
		}
	case "json":
		b = append(b, '[')
		for i, f := range q.fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, string(r.get(f)))
		}
		b = append(b, ']')
	case "cdxj":
		b = append(b, r.get(fURLKey)...)
		b = append(b, ' ')
		b = append(b, r.get(fTimestamp)...)
		b = append(b, " {"...)
		n := 0
		for i, f := range q.fields {
			if f == fURLKey || f == fTimestamp {
				continue
			}
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = appendString(b, q.names[i])
			b = append(b, ':')
			b = appendString(b, string(r.get(f)))
		}
		b = append(b, '}')
	case "ndjson":
		b = append(b, '{')
		for i, f := range q.fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, q.names[i])
			b = append(b, ':')
			b = appendString(b, string(r.get(f)))
		}
		b = append(b, '}')
	}
	return b
}

// appendCDXText appends a value for a space-separated line: a space or newline in it (a URL
// never has one; a mime type might) is percent-encoded.
func appendCDXText(b, v []byte) []byte {
	if !bytes.ContainsAny(v, " \n\r\t") {
		return append(b, v...)
	}
	for _, c := range v {
		switch c {
		case ' ', '\n', '\r', '\t':
			b = fmt.Appendf(b, "%%%02X", c)
		default:
			b = append(b, c)
		}
	}
	return b
}

// contentType is the answer's media type.
func (q *cdxQuery) contentType() string {
	switch q.output {
	case "json":
		return "application/json"
	case "ndjson":
		return "application/x-ndjson"
	case "cdxj":
		return "text/x-cdxj; charset=utf-8"
	}
	return "text/plain; charset=utf-8"
}

// cdxOut writes the answer: the status line at the first byte that leaves the buffer.
type cdxOut struct {
	w         http.ResponseWriter
	committed bool
}

func (o *cdxOut) Write(p []byte) (int, error) {
	o.committed = true
	n, err := o.w.Write(p)
	if err != nil {
		return n, fmt.Errorf("%w: %w", errClientGone, err)
	}
	return n, nil
}

// cdxWriters are the answers' buffers, used again.
var cdxWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 32<<10) }}

// cdxEmitter turns rows into the answer: written at once, or held (reverse, closest, the last N).
type cdxEmitter struct {
	q     *cdxQuery
	bw    *bufio.Writer
	lines int    // written so far
	line  []byte // scratch
	held  [][]byte
	first int // ring start in held, when held is a ring
	ring  bool
	want  int // lines wanted when held is a ring or a head
	times []int64
	done  bool // the answer is complete: stop reading the index

	share *heldShare // the held lines' bytes, counted against the held-bytes budget (held.go)
}

// hold counts n more bytes held (and the line's slice header and time).
func (e *cdxEmitter) hold(n int) error { return e.share.add(int64(n) + 32) }

// newEmitter sets up the emitter of q.
func newEmitter(q *cdxQuery, bw *bufio.Writer) *cdxEmitter {
	e := &cdxEmitter{q: q, bw: bw}
	switch {
	case q.sortClosest:
	case q.reverse && q.limit > 0, !q.reverse && q.limit < 0:
		e.ring, e.want = true, abs(q.limit)
	case q.reverse && q.limit == 0:
		e.ring, e.want = true, cdxMaxHeld
	case q.reverse && q.limit < 0:
		e.want = -q.limit
	}
	return e
}

// add takes one row that passed the filters.
func (e *cdxEmitter) add(r *cdxRow) error {
	q := e.q
	switch {
	case q.sortClosest:
		e.held = append(e.held, q.appendRow(nil, r))
		e.times = append(e.times, r.time)
		return e.hold(len(e.held[len(e.held)-1]) + 8)
	case e.ring:
		if len(e.held) < e.want {
			e.held = append(e.held, q.appendRow(nil, r))
			return e.hold(len(e.held[len(e.held)-1]))
		}
		slot := e.first
		e.held[slot] = q.appendRow(e.held[slot][:0], r)
		e.first = (e.first + 1) % e.want
	case q.reverse: // the first -limit lines, reversed at the end
		e.held = append(e.held, q.appendRow(nil, r))
		e.done = len(e.held) == e.want
		return e.hold(len(e.held[len(e.held)-1]))
	default:
		e.line = q.appendRow(e.line[:0], r)
		if err := e.write(e.line); err != nil {
			return err
		}
		e.done = q.limit > 0 && e.lines == q.limit
	}
	return nil
}

// write writes one line with its separator.
func (e *cdxEmitter) write(line []byte) error {
	if e.q.output == "json" {
		if e.lines == 0 {
			e.bw.WriteString("[[")
			for i, n := range e.q.names {
				if i > 0 {
					e.bw.WriteByte(',')
				}
				e.bw.Write(appendString(nil, n))
			}
			e.bw.WriteString("]")
		}
		e.bw.WriteString(",\n")
	}
	e.lines++
	e.bw.Write(line)
	if e.q.output != "json" {
		e.bw.WriteByte('\n')
	}
	_, err := e.bw.Write(nil) // bufio keeps the first error of the writer beneath
	return err
}

// finish writes what was held, and closes a JSON array.
func (e *cdxEmitter) finish() error {
	q := e.q
	switch {
	case q.sortClosest:
		order := make([]int, len(e.held))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			return int(sign(absInt64(e.times[a]-q.closest) - absInt64(e.times[b]-q.closest)))
		})
		if q.limit > 0 && len(order) > q.limit {
			order = order[:q.limit]
		}
		for _, i := range order {
			if err := e.write(e.held[i]); err != nil {
				return err
			}
		}
	case e.ring:
		n := len(e.held)
		for k := range n {
			i := (e.first + k) % n
			if q.reverse {
				i = (e.first + n - 1 - k) % n
			}
			if err := e.write(e.held[i]); err != nil {
				return err
			}
		}
	case q.reverse:
		for i := len(e.held) - 1; i >= 0; i-- {
			if err := e.write(e.held[i]); err != nil {
				return err
			}
		}
	}
	if q.output == "json" {
		if e.lines == 0 {
			e.bw.WriteString("[]\n")
		} else {
			e.bw.WriteString("]\n")
		}
	}
	return e.bw.Flush()
}

func absInt64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func sign(n int64) int64 {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// cdxSelect calls fn with every capture the query's url and matchType select, in CDX order
// (SURT key, then capture time, oldest first), until fn returns false. Exact queries read the
// key's captures from the key table; the others scan the key range, so the cost is that of the
// captures the range holds.
func (ix *index) cdxSelect(q *cdxQuery, fn func(c *pubindex.Capture) (bool, error)) error {
	if ix.set == nil {
		return nil
	}
	each := func(cs []pubindex.Capture) (bool, error) {
		for i := len(cs) - 1; i >= 0; i-- { // the index holds a key's captures newest first
			if more, err := fn(&cs[i]); err != nil || !more {
				return false, err
			}
		}
		return true, nil
	}
	if q.matchType == "exact" {
		return ix.set.Captures(q.key, func(cs []pubindex.Capture) error {
			_, err := each(cs)
			return err
		})
	}
	from, match := q.keyRange()
	return ix.set.Scan(from, func(key []byte, lines [][]byte) (bool, error) {
		k := string(key)
		if !strings.HasPrefix(k, from) {
			return false, nil
		}
		if !match(k) {
			return true, nil
		}
		return each(pubindex.Merge(lines))
	})
}

// keyRange is where the keys of a prefix, host or domain query begin, and which keys from
// there on (while they start with from) it selects.
func (q *cdxQuery) keyRange() (from string, match func(string) bool) {
	host, _, _ := strings.Cut(q.key, ")")
	switch q.matchType {
	case "host":
		from = host + ")"
		return from, func(string) bool { return true }
	case "domain":
		from, _, _ = strings.Cut(host, ":")
		return from, func(k string) bool {
			rest := k[len(from):]
			return rest == "" || rest[0] == ')' || rest[0] == ',' || rest[0] == ':'
		}
	}
	m := query{raw: q.raw, key: q.key}.matcher() // prefix: as /api/v1/captures?matchType=prefix
	return m.from, m.match
}

// handleCDX answers GET /cdx and GET /api/v1/cdx.
func (s *Server) handleCDX(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q, err := parseCDXQuery(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ix := s.ix.Load()
	listed := func(c *pubindex.Capture) bool { return q.showEmbargoed || c.Released() }
	if q.showNumPages || q.page >= 0 {
		n := 0
		err := ix.cdxSelect(&q, func(c *pubindex.Capture) (bool, error) {
			if listed(c) {
				n++
			}
			return true, nil
		})
		if err != nil {
			s.indexFailed(w, err)
			return
		}
		pages := max(1, (n+q.pageSize-1)/q.pageSize)
		if q.showNumPages {
			if q.output == "text" {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				fmt.Fprintf(w, "%d\n", pages)
				return
			}
			writeJSON(w, http.StatusOK, map[string]int{"pages": pages, "pageSize": q.pageSize, "blocks": n})
			return
		}
		if q.page >= pages {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("page %d is past the last page, %d (showNumPages=true counts them)", q.page, pages-1))
			return
		}
	}
	w.Header().Set("Content-Type", q.contentType())
	out := &cdxOut{w: newDeadlineWriter(w, s.opt.WriteStall, start)}
	bw := cdxWriters.Get().(*bufio.Writer)
	bw.Reset(out)
	defer func() { bw.Reset(nil); cdxWriters.Put(bw) }()
	e := newEmitter(&q, bw)
	e.share = s.share(r)
	defer e.share.release()
	var row cdxRow
	skip, left := 0, -1
	if q.page >= 0 {
		skip, left = q.page*q.pageSize, q.pageSize
	}
	err = ix.cdxSelect(&q, func(c *pubindex.Capture) (bool, error) {
		if !listed(c) {
			return true, nil
		}
		if skip > 0 {
			skip--
			return true, nil
		}
		if left == 0 {
			return false, nil
		}
		left--
		row.fill(c)
		if ts := row.get(fTimestamp); q.from != "" && string(ts) < q.from || q.to != "" && string(ts) > q.to {
			return true, nil
		}
		for i := range q.filters {
			if f := &q.filters[i]; !f.keep(row.get(f.field)) {
				return true, nil
			}
		}
		if cl := q.collapse; cl != nil {
			v := row.get(cl.field)
			if cl.n > 0 && len(v) > cl.n {
				v = v[:cl.n]
			}
			if cl.seen && bytes.Equal(v, cl.last) {
				return true, nil
			}
			cl.last, cl.seen = append(cl.last[:0], v...), true
		}
		if err := e.add(&row); err != nil {
			return false, err
		}
		return !e.done, nil
	})
	e.share.built() // what is held is all held now
	if err == nil {
		err = e.finish()
	}
	switch {
	case err == nil:
	case errors.Is(err, errClientGone):
		s.log.Debug("CDX answer cut short by the client", "err", err)
	case errors.Is(err, errBusy) && !out.committed:
		w.Header().Del("Content-Type")
		s.busy(w, "cdx")
	case !out.committed:
		s.indexFailed(w, err)
	default:
		s.log.Error("public index read failed while a CDX answer was streamed; connection aborted", "url", q.raw, "err", err)
		panic(http.ErrAbortHandler)
	}
}

// cdxRoutes registers the CDX API: exact patterns, so that no path cleaning applies (the url
// travels in the query, which ServeMux leaves alone).
func (s *Server) cdxRoutes(mux *http.ServeMux) {
	h := s.metrics.route("cdx", s.handleCDX)
	mux.Handle("GET /cdx", h)
	mux.Handle("GET /api/v1/cdx", h)
}
