package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/cmd/archivectl/demoweb"
	"github.com/archivectl/archivectl/crawler/robots"
	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// TestEndToEnd drives the built binary through crawl → release at several --now → serve → API
// over the multi-origin demo web, and checks every promise from the outside: politeness from the
// servers' own log, the exact released set at each pass, no embargoed body anywhere under
// public/ or in an API answer, tombstones present, verify clean.
func TestEndToEnd(t *testing.T) {
	exe := archivectlBinary(t)
	const delay = 60 * time.Millisecond
	site, err := demoweb.StartWith(demoweb.Options{Latency: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	seeds := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(seeds, []byte("# the demo web\n"+strings.Join(site.Seeds(), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	mustRun(t, exe, "crawl", "--data", data, "--delay", delay.String(), seeds)
	reqs := site.Requests()
	checkPoliteness(t, site, reqs, delay)

	// What the archive must make of each capture, computed from the server side alone.
	want := expectedReleases(t, site, reqs)
	withheldFor(t, data, want)
	if len(want) < 20 {
		t.Fatalf("only %d captures expected from the request log; the crawl did not get far", len(want))
	}

	t0 := time.Now().UTC().Truncate(time.Second).Add(time.Second)
	addr := freeAddr(t)
	serve := exec.Command(exe, "serve", "--data", data, "--listen", addr)
	serve.Stderr = io.Discard
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { serve.Process.Signal(os.Interrupt); serve.Wait() }()

	for _, days := range []int{0, 8, 32, 91} {
		now := t0.Add(time.Duration(days) * 24 * time.Hour)
		t.Run(fmt.Sprintf("pass+%dd", days), func(t *testing.T) {
			mustRun(t, exe, "release", "--data", data, "--now", now.Format(time.RFC3339))
			seen := publicState(t, filepath.Join(data, "public"))
			blob := publicBytes(t, filepath.Join(data, "public"))
			blocked := embargoBlocks(t, data)
			for u, w := range want {
				due := !w.releaseAt.After(now)
				got, ok := seen[u]
				switch {
				case w.withheld && !due: // no tombstone, no access rule: nothing names it (docs/rules.md#d27)
					if ok {
						t.Errorf("%s: %s at %s, want nothing public: withheld for its page until %s", u, got.State, now.Format(time.RFC3339), w.releaseAt.Format(time.RFC3339))
					}
				case !ok:
					t.Errorf("%s: nothing public, want a %s", u, map[bool]string{true: "release", false: "tombstone"}[due])
				case due && got.State != public.StateReleased:
					t.Errorf("%s: %s at %s, want released (release at %s)", u, got.State, now.Format(time.RFC3339), w.releaseAt.Format(time.RFC3339))
				case !due && got.State != public.StateTombstone:
					t.Errorf("%s: %s at %s, want a tombstone until %s", u, got.State, now.Format(time.RFC3339), w.releaseAt.Format(time.RFC3339))
				}
				if key, _ := surt.Key(u); blocked[key] == (due || w.withheld) {
					t.Errorf("%s: pywb's access rules block it: %v; want %v (release at %s)", u, blocked[key], !due && !w.withheld, w.releaseAt.Format(time.RFC3339))
				}
				if w.marker == "" {
					continue
				}
				if leaked := bytes.Contains(blob, []byte(w.marker)); leaked && !due {
					t.Errorf("%s: embargoed until %s, but its body marker is under public/", u, w.releaseAt.Format(time.RFC3339))
				} else if !leaked && due && w.status == http.StatusOK {
					t.Errorf("%s: released, but its body marker is not under public/", u)
				}
			}
			mustRun(t, exe, "verify", "--data", data)
			checkAPI(t, addr, want, now)
		})
	}

	resp, err := http.Get("http://" + addr + "/api/v1/captures?url=" + url.QueryEscape(site.Seeds()[0]+"never-crawled"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown URL: status %d, want 404", resp.StatusCode)
	}
}

// expected is what one capture must become.
type expected struct {
	releaseAt time.Time
	marker    string
	status    int
	withheld  bool // sealed for the page embedding it (docs/rules.md#d27): no tombstone before its release
}

// withheldFor marks the captures of want the store withheld for the page embedding them, and
// takes their release time from the index: the later of their own and that page's
// (docs/rules.md#d27).
func withheldFor(t *testing.T, data string, want map[string]expected) {
	t.Helper()
	ix, err := store.OpenIndex(layout.Index(data), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = ix.Each(func(e store.Entry) error {
		if w, ok := want[e.URL]; ok && e.EmbargoSource == store.SourceRequisite {
			if e.ReleaseAt.Before(w.releaseAt.Add(-time.Second)) { // the model counts from the request's start, the store from its capture time
				t.Errorf("%s: withheld until %s, before its own release time %s", e.URL, e.ReleaseAt, w.releaseAt)
			}
			w.withheld, w.releaseAt = true, e.ReleaseAt
			want[e.URL] = w
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Errorf("no capture withheld for its page: the demo web's embedded images and stylesheets should be")
	}
}

// expectedReleases derives each capture's release time from the server's log and site data:
// min(Last-Modified, time of the request) + the origin's embargo.
func expectedReleases(t *testing.T, site *demoweb.Site, reqs []demoweb.Request) map[string]expected {
	t.Helper()
	pages := map[string]demoweb.Page{}
	for _, p := range site.Pages() {
		pages[p.Origin+" "+p.Path] = p
	}
	want := map[string]expected{}
	for _, r := range reqs {
		o, _ := site.Origin(r.Origin)
		if r.Path == "/robots.txt" || r.Status == 0 || r.Path == "/sitemap.xml" && r.Status != http.StatusOK {
			continue // a missing /sitemap.xml is not archived
		}
		p, ok := pages[r.Origin+" "+r.Path]
		lm, _ := embargo.LastModified(p.Header.Values("Last-Modified"), r.Start)
		period := embargo.Period(o.EmbargoDays)
		u := o.URL + r.Path
		if _, dup := want[u]; dup {
			t.Errorf("%s requested twice", u)
		}
		e := expected{releaseAt: embargo.ReleaseAt(lm, r.Start, period), status: r.Status}
		if ok {
			e.marker = p.Marker
		}
		want[u] = e
	}
	return want
}

// checkPoliteness asserts from the servers' own log: robots.txt first, one request at a time per
// origin, at least delay between request starts, nothing robots.txt disallows ever requested.
func checkPoliteness(t *testing.T, site *demoweb.Site, reqs []demoweb.Request, delay time.Duration) {
	t.Helper()
	byOrigin := map[string][]demoweb.Request{}
	for _, r := range reqs {
		byOrigin[r.Origin] = append(byOrigin[r.Origin], r)
	}
	for name, rs := range byOrigin {
		o, _ := site.Origin(name)
		if rs[0].Path != "/robots.txt" {
			t.Errorf("%s: first request %s, want /robots.txt", name, rs[0].Path)
		}
		if n := demoweb.MaxInFlight(rs); n > 1 {
			t.Errorf("%s: %d requests in flight at once", name, n)
		}
		for i := 1; i < len(rs); i++ {
			if gap := rs[i].Start.Sub(rs[i-1].Start); gap < delay {
				t.Errorf("%s: %s then %s only %s apart, want ≥ %s", name, rs[i-1].Path, rs[i].Path, gap, delay)
			}
		}
		policy := robotsPolicy(t, o.URL)
		for _, r := range rs[1:] {
			if policy == nil {
				t.Errorf("%s: %s requested although robots.txt is unreachable", name, r.Path)
				continue
			}
			if d := policy.Evaluate("archivectl", r.Path); !d.Allowed {
				t.Errorf("%s: %s requested although robots.txt disallows it (%+v)", name, r.Path, d.Rule)
			}
		}
	}
}

// robotsPolicy fetches an origin's robots.txt: nil when unreachable (5xx), empty when absent.
func robotsPolicy(t *testing.T, origin string) *robots.Policy {
	t.Helper()
	resp, err := http.Get(origin + "/robots.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	switch {
	case resp.StatusCode >= 500:
		return nil
	case resp.StatusCode >= 400:
		return robots.NewPolicy(nil)
	}
	return robots.NewPolicy(body)
}

// embargoBlocks reads public/access/, every .aclj there as pywb's acl_paths does: the URL keys
// they block.
func embargoBlocks(t *testing.T, data string) map[string]bool {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(layout.Access(data), "*"+public.ACLExt))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]bool{}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rules, err := public.ParseEmbargoACL(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, r := range rules {
			m[r.Key] = true
		}
	}
	return m
}

// publicState reads every CDXJ line under public/: URL → its line, released over embargoed.
func publicState(t *testing.T, dir string) map[string]public.Line {
	t.Helper()
	lines, err := publicLines(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]public.Line{}
	for _, l := range lines {
		if old, ok := m[l.URL]; !ok || old.State != public.StateReleased {
			m[l.URL] = l
		}
	}
	return m
}

// publicBytes is every byte under public/, with each gzip file also decompressed.
func publicBytes(t *testing.T, public string) []byte {
	t.Helper()
	var all bytes.Buffer
	err := filepath.WalkDir(public, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		all.Write(b)
		if strings.HasSuffix(path, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if _, err := io.Copy(&all, zr); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return all.Bytes()
}

// checkAPI asks the running lookup service about every capture and compares with the expectation.
func checkAPI(t *testing.T, addr string, want map[string]expected, now time.Time) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	urls := slices.Sorted(func(yield func(string) bool) {
		for u := range want {
			if !yield(u) {
				return
			}
		}
	})
	// The service reloads within a second of a pass; poll until it shows this pass. It states
	// what the pass made public, although the passes at now + N days run ahead of its clock.
	deadline := time.Now().Add(10 * time.Second)
	for _, u := range urls {
		w := want[u]
		for {
			wantState := "embargoed"
			switch {
			case !w.releaseAt.After(now):
				wantState = "released"
			case w.withheld:
				wantState = "status 404" // withheld for its page: not named (docs/rules.md#d27)
			}
			state, body := apiState(t, client, addr, u)
			if state == wantState {
				if w.marker != "" && bytes.Contains(body, []byte(w.marker)) {
					t.Errorf("%s: the API answer holds the body marker", u)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("API %s: state %q, want %q\n%s", u, state, wantState, body)
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// apiState returns the state of the newest capture the API lists for u, and the raw answer.
func apiState(t *testing.T, client *http.Client, addr, u string) (string, []byte) {
	t.Helper()
	resp, err := client.Get("http://" + addr + "/api/v1/captures?url=" + url.QueryEscape(u))
	if err != nil {
		return "unreachable: " + err.Error(), nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprintf("status %d", resp.StatusCode), body
	}
	var ans struct {
		Captures []struct {
			State     string `json:"state"`
			ReleaseAt string `json:"release_at"`
		} `json:"captures"`
	}
	if err := json.Unmarshal(body, &ans); err != nil || len(ans.Captures) == 0 {
		return "unparseable", body
	}
	return ans.Captures[len(ans.Captures)-1].State, body
}

// mustRun runs the binary and fails the test, with its output, when it exits non-zero.
func mustRun(t *testing.T, exe string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, exe, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("archivectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
