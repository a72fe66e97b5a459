package cdxscale

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"
)

// probe is one request of the mix the tests make: a CDX query, a TimeGate or a TimeMap.
type probe struct {
	kind   string // cdx, timegate, timemap/link or timemap/json
	cdx    cdxReq
	url    string // the memento routes' URL
	accept string // Accept-Datetime of a TimeGate request; none when empty
}

// target is the request URI of p.
func (p probe) target() string {
	if p.kind == "cdx" {
		return p.cdx.target()
	}
	return "/" + p.kind + "/" + p.url
}

func (p probe) String() string {
	if p.accept != "" {
		return p.target() + " (Accept-Datetime: " + p.accept + ")"
	}
	return p.target()
}

// do asks base for p and copies the answer's body to body; it returns the answer, its body read.
func (p probe) do(client *http.Client, base string, body io.Writer) (*http.Response, int64, error) {
	req, err := http.NewRequest(http.MethodGet, base+p.target(), nil)
	if err != nil {
		return nil, 0, err
	}
	if p.accept != "" {
		req.Header.Set("Accept-Datetime", p.accept)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(body, resp.Body)
	return resp, n, err
}

// prober makes random probes over the URLs of the reference's hosts.
type prober struct {
	rng  *rand.Rand
	urls []string // URLs on the reference's hosts
	ref  *reference
}

// filters are the filter expressions the probes draw from.
var filters = []string{
	"statuscode:200", "!statuscode:200", "=statuscode:404", "mimetype:text/html", "!mimetype:image/png",
	"=mimetype:warc/revisit", "!=mimetype:warc/revisit", "~mimetype:text/", "!~mimetype:text/",
	`~original:https://www\.host[0-9]+\.example/section/1`, `original:.*page-[0-9]*1\.html`, "statuscode:30[0-9]",
}

// next is a random probe: a quarter exact CDX queries with options, prefix, host and domain
// queries, closest, filters, TimeGates and TimeMaps.
func (g *prober) next() probe {
	u := g.urls[g.rng.IntN(len(g.urls))]
	if g.rng.IntN(20) == 0 {
		u += "-absent"
	}
	switch k := g.rng.IntN(20); {
	case k < 5:
		q := cdxReq{url: u}
		g.options(&q)
		return probe{kind: "cdx", cdx: q}
	case k < 8:
		q := g.wide(u)
		g.options(&q)
		return probe{kind: "cdx", cdx: q}
	case k < 11:
		q := cdxReq{url: u, sort: "closest", closest: g.timestamp(10, 14)}
		if m, ok := g.midpoint(u); ok && g.rng.IntN(4) == 0 {
			q.closest = m.Format(ts14)
		}
		if g.rng.IntN(2) == 0 {
			q.limit = 1 + g.rng.IntN(3)
		}
		if g.rng.IntN(3) == 0 {
			q.filters = g.filters()
		}
		return probe{kind: "cdx", cdx: q}
	case k < 13:
		q := cdxReq{url: u, filters: g.filters()}
		if g.rng.IntN(2) == 0 {
			q = g.wide(u)
			q.filters = g.filters()
		}
		return probe{kind: "cdx", cdx: q}
	case k < 17:
		p := probe{kind: "timegate", url: u}
		if g.rng.IntN(5) > 0 {
			t, _ := time.Parse(ts14, g.timestamp(14, 14))
			if m, ok := g.midpoint(u); ok && g.rng.IntN(4) == 0 {
				t = m
			}
			p.accept = t.Format(httpDate)
		}
		return p
	case k < 19:
		return probe{kind: "timemap/link", url: u}
	default:
		return probe{kind: "timemap/json", url: u}
	}
}

// wide is a prefix, host or domain query around u.
func (g *prober) wide(u string) cdxReq {
	rest := strings.TrimPrefix(u, "https://")
	host, p, _ := strings.Cut(rest, "/")
	dir := p[:max(0, strings.LastIndexByte(p, '/'))]
	switch g.rng.IntN(6) {
	case 0:
		return cdxReq{url: "https://" + host + "/" + dir + "/", matchType: "prefix"}
	case 1:
		return cdxReq{url: host + "/" + dir + "*"} // siblings too: section/1, section/10, …
	case 2:
		return cdxReq{url: "https://" + host + "/" + p[:g.rng.IntN(len(p)+1)] + "*"}
	case 3:
		return cdxReq{url: host, matchType: "host"}
	case 4:
		return cdxReq{url: "*." + strings.TrimPrefix(host, "www.")}
	}
	return cdxReq{url: "https://" + host + "/", matchType: "prefix"}
}

// options adds from/to, a limit, reverse order, filters and text output at random.
func (g *prober) options(q *cdxReq) {
	if g.rng.IntN(3) == 0 {
		q.from = g.timestamp(4, 14)
	}
	if g.rng.IntN(3) == 0 {
		q.to = g.timestamp(4, 14)
	}
	if g.rng.IntN(4) == 0 {
		q.limit = 1 + g.rng.IntN(5)
		if g.rng.IntN(2) == 0 {
			q.limit = -q.limit
		}
	}
	if g.rng.IntN(5) == 0 && q.limit >= 0 {
		q.sort = "reverse"
	}
	if g.rng.IntN(4) == 0 {
		q.filters = g.filters()
	}
	q.text = g.rng.IntN(4) == 0
}

func (g *prober) filters() []string {
	out := []string{filters[g.rng.IntN(len(filters))]}
	if g.rng.IntN(3) == 0 {
		out = append(out, filters[g.rng.IntN(len(filters))])
	}
	return out
}

// timestamp is a time near a random capture's (within a few of its neighbours' 13 s), cut to
// between lo and hi digits.
func (g *prober) timestamp(lo, hi int) string {
	c := &g.ref.caps[g.rng.IntN(len(g.ref.caps))]
	ts := c.at.Add(time.Duration(g.rng.IntN(120)-60) * time.Second).UTC().Format(ts14)
	return ts[:lo+g.rng.IntN(hi-lo+1)]
}

// midpoint is the instant halfway between two mementos of u next to each other, when u has two:
// a tie, which the earlier wins.
func (g *prober) midpoint(u string) (time.Time, bool) {
	key, err := surtOf(u)
	if err != nil {
		return time.Time{}, false
	}
	ms := g.ref.mementos(key)
	if len(ms) < 2 {
		return time.Time{}, false
	}
	i := g.rng.IntN(len(ms) - 1)
	return ms[i].at.Add(ms[i+1].at.Sub(ms[i].at) / 2), true
}

// status is the status an answer to p has.
func (r *reference) status(p probe) int {
	if p.kind == "cdx" {
		return http.StatusOK
	}
	key, err := surtOf(p.url)
	switch {
	case err != nil:
		return http.StatusBadRequest
	case r.newest[key] == "":
		return http.StatusNotFound
	case len(r.mementos(key)) == 0:
		return http.StatusUnavailableForLegalReasons
	case p.kind == "timegate":
		return http.StatusFound
	}
	return http.StatusOK
}

// check compares the answer to p with the reference's, field by field.
func (r *reference) check(client *http.Client, base string, p probe) error {
	var buf bytes.Buffer
	resp, _, err := p.do(client, base, &buf)
	if err != nil {
		return err
	}
	body := buf.Bytes()
	if want := r.status(p); resp.StatusCode != want {
		return fmt.Errorf("status %d, want %d: %.200s", resp.StatusCode, want, body)
	}
	if resp.StatusCode >= 400 {
		return nil
	}
	key, _ := surtOf(p.url)
	switch p.kind {
	case "cdx":
		return r.checkCDX(p.cdx, resp, body)
	case "timegate":
		ms := r.mementos(key)
		sel := len(ms) - 1
		if p.accept != "" {
			t, _ := time.Parse(httpDate, p.accept)
			sel = closest(ms, t)
		}
		if got, want := resp.Header.Get("Location"), recordURI(base, ms[sel]); got != want {
			return fmt.Errorf("Location %s, want %s", got, want)
		}
		if v := resp.Header.Get("Vary"); !strings.EqualFold(v, "accept-datetime") {
			return fmt.Errorf("Vary %q, want accept-datetime", v)
		}
		got, err := parseLinks(resp.Header.Get("Link"))
		if err != nil {
			return fmt.Errorf("Link: %w", err)
		}
		orig := r.newest[key]
		want := append([]link{{uri: orig, rel: "original"},
			{uri: base + "/timemap/link/" + orig, rel: "timemap", params: fmt.Sprintf(`type="application/link-format"; from=%q; until=%q`,
				ms[0].at.UTC().Format(httpDate), ms[len(ms)-1].at.UTC().Format(httpDate))}}, mementoLinks(base, ms, sel)...)
		return sameLinks("Link", got, want, false)
	case "timemap/link":
		if ct := resp.Header.Get("Content-Type"); ct != "application/link-format" {
			return fmt.Errorf("Content-Type %q", ct)
		}
		got, err := parseLinks(string(body))
		if err != nil {
			return fmt.Errorf("TimeMap: %w", err)
		}
		return sameLinks("TimeMap", got, r.timemapLinks(base, key), true)
	default:
		return r.checkTimemapJSON(base, key, body)
	}
}

// checkCDX compares a CDX answer's lines with the reference's rows.
func (r *reference) checkCDX(q cdxReq, resp *http.Response, body []byte) error {
	want, err := r.cdx(q)
	if err != nil {
		return err
	}
	var got [][]string
	if q.text {
		for l := range strings.SplitSeq(strings.TrimSuffix(string(body), "\n"), "\n") {
			if l != "" {
				got = append(got, strings.Split(l, " "))
			}
		}
	} else {
		if err := json.Unmarshal(body, &got); err != nil {
			return fmt.Errorf("%w: %.200s", err, body)
		}
		if len(got) > 0 {
			if !slices.Equal(got[0], fields) {
				return fmt.Errorf("header row %q, want %q", got[0], fields)
			}
			got = got[1:]
		}
	}
	r.rows += len(want)
	if len(got) != len(want) {
		return fmt.Errorf("%d lines, the CDXJ says %d:\ngot  %q\nwant %q", len(got), len(want), got, want)
	}
	for i := range want {
		for j := range want[i] {
			if j >= len(got[i]) || got[i][j] != want[i][j] {
				return fmt.Errorf("line %d field %s: got %q, the CDXJ says %q (got %q, want %q)", i, fields[j], at(got[i], j), want[i][j], got[i], want[i])
			}
		}
		if len(got[i]) != len(want[i]) {
			return fmt.Errorf("line %d: %d fields, want %d", i, len(got[i]), len(want[i]))
		}
	}
	return nil
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// sameLinks compares links, in order when ordered, else as sets.
func sameLinks(what string, got, want []link, ordered bool) error {
	if !ordered {
		less := func(a, b link) int { return strings.Compare(a.uri+a.rel, b.uri+b.rel) }
		got, want = slices.Clone(got), slices.Clone(want)
		slices.SortFunc(got, less)
		slices.SortFunc(want, less)
	}
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d links, want %d:\ngot  %v\nwant %v", what, len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("%s: link %d is %+v, want %+v", what, i, got[i], want[i])
		}
	}
	return nil
}

// checkTimemapJSON compares a JSON TimeMap with the reference's mementos.
func (r *reference) checkTimemapJSON(base, key string, body []byte) error {
	type memento struct{ Datetime, URI string }
	var got struct {
		OriginalURI string            `json:"original_uri"`
		TimegateURI string            `json:"timegate_uri"`
		TimemapURI  map[string]string `json:"timemap_uri"`
		Mementos    struct {
			First, Last memento
			List        []memento
		}
	}
	if err := json.Unmarshal(body, &got); err != nil {
		return fmt.Errorf("%w: %.200s", err, body)
	}
	orig := r.newest[key]
	if got.OriginalURI != orig || got.TimegateURI != base+"/timegate/"+orig ||
		got.TimemapURI["link_format"] != base+"/timemap/link/"+orig || got.TimemapURI["json_format"] != base+"/timemap/json/"+orig {
		return fmt.Errorf("TimeMap URIs %q %q %v, want original %s", got.OriginalURI, got.TimegateURI, got.TimemapURI, orig)
	}
	var want []memento
	for _, m := range r.mementos(key) {
		want = append(want, memento{m.at.UTC().Format(time.RFC3339), recordURI(base, m)})
	}
	if !slices.Equal(got.Mementos.List, want) || got.Mementos.First != want[0] || got.Mementos.Last != want[len(want)-1] {
		return fmt.Errorf("mementos %+v (first %+v, last %+v), want %+v", got.Mementos.List, got.Mementos.First, got.Mementos.Last, want)
	}
	return nil
}
