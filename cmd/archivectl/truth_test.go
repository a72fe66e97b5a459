//go:build unix

package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/cmd/archivectl/demoweb"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
)

// TestPublicTruth drives the built binary over the demo web: crawl, then release passes at
// +1 h, +8, +32 and +91 days, each ahead of the real clock, and after each `serve --now` with a
// lookup clock an hour before the pass's now and one at the next pass's now. Every view must
// report what the public side holds as the last pass left it, whatever the lookup's clock: every
// capture's state in the API (exact and prefix), its record's status, its card and its row in
// the prefix list; the counts on the page, in /api/v1/calendar and in /metrics; and captures
// whose release time has passed on the lookup's clock without a pass releasing them are due.
// Last, a pass with nothing to do moves the last pass, and a pass back in time is refused.
func TestPublicTruth(t *testing.T) {
	exe := archivectlBinary(t)
	site, err := demoweb.StartWith(demoweb.Options{Latency: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	seeds := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(seeds, []byte(strings.Join(site.Seeds(), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, exe, "crawl", "--data", data, "--delay", "0s", seeds)
	want := expectedReleases(t, site, site.Requests())
	withheldFor(t, data, want)
	if len(want) < 20 {
		t.Fatalf("only %d captures expected; the crawl did not get far", len(want))
	}

	t0 := time.Now().UTC().Truncate(time.Second)
	passes := []time.Duration{time.Hour, 8 * day, 32 * day, 91 * day}
	for k, at := range passes {
		now := t0.Add(at)
		mustRun(t, exe, "release", "--data", data, "--now", now.Format(time.RFC3339))
		next := now.Add(day)
		if k+1 < len(passes) {
			next = t0.Add(passes[k+1])
		}
		for i, clock := range []time.Time{now.Add(-time.Hour), next} {
			t.Run(fmt.Sprintf("pass+%s/clock%+dh", at, int(clock.Sub(now).Hours())), func(t *testing.T) {
				due := checkTruth(t, exe, data, want, now, clock, true)
				if i == 1 && k+1 < len(passes) && due == 0 {
					t.Errorf("no capture due at the next pass's now: the test shows nothing of due captures")
				}
			})
		}
	}

	// A later pass with nothing to publish is on record: the last pass moves, nothing else.
	last := t0.Add(passes[len(passes)-1])
	later := last.Add(time.Hour)
	mustRun(t, exe, "release", "--data", data, "--now", later.Format(time.RFC3339))
	t.Run("a pass with nothing to do", func(t *testing.T) { checkTruth(t, exe, data, want, later, later, true) })
	// A pass back in time is refused and changes nothing.
	before := publicFiles(t, data)
	if _, stderr, code := runCmd(t, exe, "release", "--data", data, "--now", last.Format(time.RFC3339)); code != 1 ||
		!strings.Contains(stderr, "passes only move forward") {
		t.Errorf("a pass back in time: exit %d, stderr %q; want 1 saying passes only move forward", code, stderr)
	}
	for name, b := range publicFiles(t, data) {
		if string(before[name]) != string(b) {
			t.Errorf("the refused pass changed public/%s", name)
		}
	}
}

// checkTruth starts `serve --now clock` over data after a pass at now and checks every view.
// It returns how many captures the views count as due.
func checkTruth(t *testing.T, exe, data string, want map[string]expected, now, clock time.Time, ahead bool) int {
	t.Helper()
	srv := startServe(t, exe, "--data", data, "--now", clock.Format(time.RFC3339))
	base := srv.base
	// What the public CDXJ says (released lines over tombstones): the counts must agree with it.
	lines := publicState(t, filepath.Join(data, "public"))
	released, embargoed, dueByDay := 0, 0, 0
	today := clock.UTC().Truncate(day)
	for _, l := range lines {
		if l.State == public.StateReleased {
			released++
			continue
		}
		embargoed++
		if r, err := time.Parse(time.RFC3339Nano, l.ReleaseAt); err == nil && r.Before(today) {
			dueByDay++
		}
	}
	for u, w := range want {
		isReleased := !w.releaseAt.After(now)
		due := !isReleased && !w.releaseAt.After(clock)
		if got := lines[u]; (got.State == public.StateReleased) != isReleased {
			t.Fatalf("%s: the public CDXJ says %s after the pass at %s; want released %v", u, got.State, now, isReleased)
		}
		if w.withheld && !isReleased {
			checkWithheld(t, base, u)
			continue
		}
		state, recordCode := "embargoed", http.StatusUnavailableForLegalReasons
		if isReleased {
			state, recordCode = "released", http.StatusOK
		}
		for _, q := range []string{"/api/v1/captures?url=" + url.QueryEscape(u), "/api/v1/captures?matchType=prefix&limit=1&url=" + url.QueryEscape(u)} {
			var ans struct {
				Captures []struct {
					URL   string          `json:"url"`
					State string          `json:"state"`
					Due   bool            `json:"due"`
					WARC  json.RawMessage `json:"warc"`
				} `json:"captures"`
			}
			code, body := fetch(t, base+q)
			if err := json.Unmarshal(body, &ans); code != 200 || err != nil || len(ans.Captures) == 0 || ans.Captures[0].URL != u {
				t.Errorf("%s: status %d, %s", q, code, body)
				continue
			}
			if c := ans.Captures[0]; c.State != state || c.Due != due || (c.WARC != nil) != isReleased {
				t.Errorf("%s: state %q due %v (warc %s), want %q due %v", q, c.State, c.Due, c.WARC, state, due)
			}
		}
		if code, body := fetch(t, base+"/api/v1/record?url="+url.QueryEscape(u)); code != recordCode {
			t.Errorf("%s: record status %d, want %d: %.200s", u, code, recordCode, body)
		}
		_, card := fetch(t, base+"/?url="+url.QueryEscape(u))
		page := string(card)
		countdown := "in "
		switch {
		case isReleased:
			countdown = "released"
		case due:
			countdown = "due now: public after the next release pass"
		}
		if !strings.Contains(page, `<span class="badge `+state+`">`) || strings.Contains(page, `<span class="badge due">`) != due ||
			!strings.Contains(page, `<span class="countdown">`+countdown) || strings.Contains(page, "/api/v1/record?") != isReleased {
			t.Errorf("%s: the card does not show it %s (due %v, %q)", u, state, due, countdown)
		}
		if !strings.Contains(page, "ahead of the clock of the machine that ran it") {
			t.Errorf("%s: the card's page does not say that the last pass ran ahead of its clock", u)
		}
	}

	_, body := fetch(t, base+"/")
	home := string(body)
	tiles := regexp.MustCompile(`<span class="label">(Released|Under embargo)</span><strong>(\d+)</strong>`).FindAllStringSubmatch(home, -1)
	if len(tiles) != 2 || tiles[0][2] != strconv.Itoa(released) || tiles[1][2] != strconv.Itoa(embargoed) {
		t.Errorf("home page tiles %v, want %d released and %d under embargo, as the public CDXJ", tiles, released, embargoed)
	}
	if has := strings.Contains(home, fmt.Sprintf("; %d due, waiting for the next release pass", dueByDay)); has != (dueByDay > 0) ||
		strings.Contains(home, "due: public after the next release pass") != (dueByDay > 0) ||
		strings.Contains(home, "past their release day, waiting for the next release pass") != (dueByDay > 0) {
		t.Errorf("home page: want %d due counted, listed among the next releases and on the calendar", dueByDay)
	}
	if !strings.Contains(home, now.Format("2 Jan 2006 15:04 UTC")) {
		t.Errorf("home page does not show the last pass, %s", now)
	}
	var cal struct{ Released, Embargoed, Due int }
	_, body = fetch(t, base+"/api/v1/calendar")
	if err := json.Unmarshal(body, &cal); err != nil || cal.Released != released || cal.Embargoed != embargoed || cal.Due != dueByDay {
		t.Errorf("calendar %s, want %d released, %d embargoed, %d due", body, released, embargoed, dueByDay)
	}
	_, body = fetch(t, base+"/metrics")
	for name, want := range map[string]float64{
		`archivectl_lookup_captures_loaded{state="released"}`:  float64(released),
		`archivectl_lookup_captures_loaded{state="embargoed"}`: float64(embargoed),
		"archivectl_lookup_captures_due":                       float64(dueByDay),
		"archivectl_release_last_pass_timestamp_seconds":       float64(now.Unix()),
	} {
		if got, ok := metric(string(body), name); !ok || got != want {
			t.Errorf("/metrics %s = %v (found %v), want %v", name, got, ok, want)
		}
	}
	var st public.Status
	b, _ := os.ReadFile(filepath.Join(data, "public", "state.json"))
	if err := json.Unmarshal(b, &st); err != nil || !st.LastPass.Equal(now) || st.AheadOfClock != ahead {
		t.Errorf("state.json %s: want last_pass %s, ahead_of_clock %v", b, now.Format(time.RFC3339), ahead)
	}
	return dueByDay
}

// checkWithheld checks that no view names u, a capture withheld for its page before its release:
// no tombstone, no record, no prefix line (docs/rules.md#d27).
func checkWithheld(t *testing.T, base, u string) {
	t.Helper()
	if code, body := fetch(t, base+"/api/v1/captures?url="+url.QueryEscape(u)); code != http.StatusNotFound {
		t.Errorf("%s, withheld: captures status %d, want 404: %.200s", u, code, body)
	}
	var ans struct {
		Captures []struct {
			URL string `json:"url"`
		} `json:"captures"`
	}
	code, body := fetch(t, base+"/api/v1/captures?matchType=prefix&limit=1&url="+url.QueryEscape(u))
	if err := json.Unmarshal(body, &ans); code != http.StatusOK || err != nil || len(ans.Captures) > 0 && ans.Captures[0].URL == u {
		t.Errorf("%s, withheld: prefix answer %d names it: %.200s", u, code, body)
	}
	if code, body := fetch(t, base+"/api/v1/record?url="+url.QueryEscape(u)); code != http.StatusNotFound {
		t.Errorf("%s, withheld: record status %d, want 404: %.200s", u, code, body)
	}
}

// fetch GETs u and returns the status and body.
func fetch(t *testing.T, u string) (int, []byte) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// metric finds one sample of the Prometheus text exposition.
func metric(text, name string) (float64, bool) {
	for l := range strings.SplitSeq(text, "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// TestTwoLineTruth is the smallest reproduction of a lookup that contradicted the public CDXJ: a
// tombstone line and the released line of the same capture (same id and time, release_at a week
// after the capture, as a `release --now` a week ahead of the clock leaves them), the public
// index rebuilt with `reindex-public`, and `serve` asked at a clock before release_at — this
// machine's, and a --now a day before it. The capture is released in every view, its record served.
func TestTwoLineTruth(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	data := t.TempDir()
	pub := filepath.Join(data, "public")
	captured := time.Now().UTC().Truncate(time.Second).Add(time.Hour) // ahead of the clock: release_at is too
	releaseAt := captured.Add(7 * day)
	const u, body = "https://example.com/news/vote.html", "<p>the vote</p>"
	httpPart := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	c := public.CDXJ{URL: u, Mime: "text/html", Status: 200, Digest: sha256Label(body), ID: "<urn:uuid:7f1c0a52-9d1e-4b7e-8c39-0d3f1e2a4b5c>",
		Time: captured.Format(time.RFC3339), ReleaseAt: releaseAt.Format(time.RFC3339)}
	record := "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: " + c.ID + "\r\nWARC-Target-URI: " + u + "\r\nWARC-Date: " + c.Time +
		"\r\nContent-Type: application/http;msgtype=response\r\nWARC-Block-Digest: " + sha256Label(httpPart) +
		"\r\nWARC-Payload-Digest: " + c.Digest + "\r\nContent-Length: " + strconv.Itoa(len(httpPart)) + "\r\n\r\n" + httpPart + "\r\n\r\n"
	var member bytes.Buffer
	zw := gzip.NewWriter(&member)
	zw.Write([]byte(record))
	zw.Close()
	key, err := surt.Key(u)
	if err != nil {
		t.Fatal(err)
	}
	tomb, rel := c, c
	tomb.State, tomb.Filename, tomb.Length = public.StateTombstone, "TOMBSTONES-20261201000000-00001.warc.gz", 100
	rel.State, rel.Filename, rel.Length = public.StateReleased, "PUBLIC-20261208000000-00001.warc.gz", int64(member.Len())
	for path, b := range map[string][]byte{
		"tombstones/TOMBSTONES-20261201000000-00001.cdxj": mustLine(t, key, captured, tomb),
		"shards/PUBLIC-20261208000000-00001.cdxj":         mustLine(t, key, captured, rel),
		"shards/PUBLIC-20261208000000-00001.warc.gz":      member.Bytes(),
		"state.json": fmt.Appendf(nil, `{"generation": 2, "last_pass": %q, "next_release": null, "released": 1, "tombstoned": 1}`,
			captured.Add(8*day).Format(time.RFC3339)),
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(pub, path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pub, path), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, code := runCmd(t, exe, "reindex-public", "--data", data); code != 0 {
		t.Fatalf("reindex-public: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"this machine's clock", nil},
		{"a day before release_at", []string{"--now", releaseAt.Add(-day).Format(time.RFC3339)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServe(t, exe, append([]string{"--data", data}, tc.args...)...)
			var ans struct {
				Captures []struct {
					State string `json:"state"`
					Due   bool   `json:"due"`
				} `json:"captures"`
			}
			if code, b := srv.get(t, "/api/v1/captures?url="+url.QueryEscape(u), &ans); code != 200 || len(ans.Captures) != 1 ||
				ans.Captures[0].State != "released" || ans.Captures[0].Due {
				t.Errorf("captures: %d %s; want one capture, released", code, b)
			}
			if code, b := srv.get(t, "/api/v1/record?format=payload&url="+url.QueryEscape(u), nil); code != 200 || b != body {
				t.Errorf("record: %d %q; want 200 and the archived page", code, b)
			}
			var cal struct{ Released, Embargoed, Due int }
			if srv.get(t, "/api/v1/calendar", &cal); cal.Released != 1 || cal.Embargoed != 0 || cal.Due != 0 {
				t.Errorf("calendar counts %+v, want 1 released, none embargoed", cal)
			}
			_, card := srv.get(t, "/?url="+url.QueryEscape(u), nil)
			_, home := srv.get(t, "/", nil)
			if !strings.Contains(card, `<span class="badge released">`) || strings.Contains(card, `<span class="badge embargoed">`) ||
				!strings.Contains(home, `<span class="label">Released</span><strong>1</strong>`) ||
				!strings.Contains(home, `<span class="label">Under embargo</span><strong>0</strong>`) {
				t.Errorf("the card or the home page does not show the capture released")
			}
		})
	}
}

// mustLine is one CDXJ line.
func mustLine(t *testing.T, key string, at time.Time, c public.CDXJ) []byte {
	t.Helper()
	b, err := public.FormatLine(key, at, c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sha256Label is the WARC digest of s, "sha256:<hex>".
func sha256Label(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}
