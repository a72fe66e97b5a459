package lookup

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/public"
)

// rfcFixture is a public side holding released captures of http://a.example.org/ at the given
// 14-digit times: the archive of RFC 7089's examples, its mementos at their datetimes.
func rfcFixture(t *testing.T, stamps ...string) *Server {
	t.Helper()
	f := newFixture(t)
	for i, ts := range stamps {
		at, err := time.Parse(public.Timestamp14, ts)
		if err != nil {
			t.Fatal(err)
		}
		f.release(public.CDXJ{URL: "http://a.example.org/", Mime: "text/html", Status: 200, Digest: fmt.Sprintf("sha256:%04d", i),
			ID: fmt.Sprintf("<urn:uuid:rfc%d>", i), Time: at.Format(time.RFC3339), ReleaseAt: at.Add(time.Hour).Format(time.RFC3339)},
			"text/html", "state "+ts)
	}
	f.commit()
	return f.server(testNow)
}

// TestRFC7089TimegateExample is the TimeGate example of RFC 7089 (section 4.2.1, Pattern 2.1:
// a remote TimeGate, 302-style negotiation), its archive's mementos on this lookup: HEAD
// /timegate/http://a.example.org/ with "Accept-Datetime: Tue, 11 Sep 2001 20:35:00 GMT" answers
// 302, "Vary: accept-datetime", Location the memento of 20010911203610, no body, and a Link with
// the original resource and the TimeMap (type application/link-format, from 15 Sep 2000 11:28:26
// GMT, until "Wed, 20 Jan 2010 09:34:33 GMT"), as the RFC's answer has them (its "from" says
// "Tue", but 15 Sep 2000 was a Friday: an HTTP-date's weekday is the date's); the mementos around
// the one chosen are linked too.
func TestRFC7089TimegateExample(t *testing.T) {
	t.Parallel()
	s := rfcFixture(t, "20000915112826", "20010911203610", "20100120093433")
	rec := do(t, s, http.MethodHead, "/timegate/http://a.example.org/", map[string]string{"Accept-Datetime": "Tue, 11 Sep 2001 20:35:00 GMT"})
	orig := "http://a.example.org/"
	if rec.Code != http.StatusFound || rec.Header().Get("Vary") != "accept-datetime" || rec.Body.Len() != 0 {
		t.Fatalf("%d Vary %q, %d body bytes; want 302, accept-datetime, none", rec.Code, rec.Header().Get("Vary"), rec.Body.Len())
	}
	if loc := rec.Header().Get("Location"); loc != mementoOf(orig, "20010911203610") {
		t.Errorf("Location %s, want the memento of 20010911203610", loc)
	}
	ls := links(t, rec.Header().Get("Link"))
	if ls[orig]["rel"] != "original" {
		t.Errorf("original: %v", ls[orig])
	}
	want := map[string]string{"rel": "timemap", "type": "application/link-format", "from": "Fri, 15 Sep 2000 11:28:26 GMT", "until": "Wed, 20 Jan 2010 09:34:33 GMT"}
	if tm := ls[base+"/timemap/link/"+orig]; fmt.Sprint(tm) != fmt.Sprint(want) {
		t.Errorf("timemap link %v, want %v", tm, want)
	}
	for ts, rel := range map[string]string{"20000915112826": "first prev memento", "20010911203610": "memento", "20100120093433": "next last memento"} {
		if l := ls[mementoOf(orig, ts)]; l["rel"] != rel || l["datetime"] != stampDate(t, ts) {
			t.Errorf("memento %s: %v, want rel %q datetime %q", ts, l, rel, stampDate(t, ts))
		}
	}
}

// TestRFC7089TimemapExample is the TimeMap example of RFC 7089 (section 5.1.1), its archive's
// mementos on this lookup: the link-format TimeMap of http://a.example.org/ holds the same
// relation set, entry for entry: original, self (type application/link-format, from "Tue, 20 Jun
// 2000 18:02:59 GMT", until the last memento's datetime: the RFC's example shows part of a
// longer TimeMap), timegate, "first memento" at 20000620180259, "memento" at 20000621011731 and
// 20000621044156, "last memento" at 20091027204954, each with its datetime; and nothing else.
func TestRFC7089TimemapExample(t *testing.T) {
	t.Parallel()
	s := rfcFixture(t, "20000620180259", "20000621011731", "20000621044156", "20091027204954")
	orig := "http://a.example.org/"
	rec := do(t, s, http.MethodGet, "/timemap/link/"+orig, nil)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/link-format" {
		t.Fatalf("%d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	// link-format (RFC 6690) separates links with "," and allows line breaks between them.
	got := links(t, strings.ReplaceAll(strings.TrimSuffix(rec.Body.String(), "\n"), "\n", " "))
	want := map[string]map[string]string{
		orig:                              {"rel": "original"},
		base + "/timemap/link/" + orig:    {"rel": "self", "type": "application/link-format", "from": "Tue, 20 Jun 2000 18:02:59 GMT", "until": "Tue, 27 Oct 2009 20:49:54 GMT"},
		base + "/timegate/" + orig:        {"rel": "timegate"},
		mementoOf(orig, "20000620180259"): {"rel": "first memento", "datetime": "Tue, 20 Jun 2000 18:02:59 GMT"},
		mementoOf(orig, "20000621011731"): {"rel": "memento", "datetime": "Wed, 21 Jun 2000 01:17:31 GMT"},
		mementoOf(orig, "20000621044156"): {"rel": "memento", "datetime": "Wed, 21 Jun 2000 04:41:56 GMT"},
		mementoOf(orig, "20091027204954"): {"rel": "last memento", "datetime": "Tue, 27 Oct 2009 20:49:54 GMT"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("TimeMap:\n%s\nreads as %v,\nwant %v", rec.Body, got, want)
	}
}

// stampDate is a 14-digit timestamp as an HTTP-date.
func stampDate(t *testing.T, ts string) string {
	at, err := time.Parse(public.Timestamp14, ts)
	if err != nil {
		t.Fatal(err)
	}
	return at.Format(http.TimeFormat)
}
