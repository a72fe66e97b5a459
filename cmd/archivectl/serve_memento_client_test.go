package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mementoScript runs test/replay/memento.mjs with args and decodes its JSON answer into v.
func mementoScript(t *testing.T, engines string, v any, args ...string) {
	t.Helper()
	cmd := exec.Command("node", append([]string{filepath.Join("..", "..", "test", "replay", "memento.mjs")}, args...)...)
	cmd.Env = append(os.Environ(), "ARCHIVECTL_REPLAY_NODE_DIR="+engines)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("memento.mjs %v: %v\n%s", args, err, stderr.String())
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("memento.mjs %v: %v\n%s", args, err, out)
	}
}

// negotiated is what memento.mjs negotiate prints.
type negotiated struct {
	Status          int    `json:"status"`
	URL             string `json:"url"`
	MementoDatetime string `json:"memento_datetime"`
	Link            string `json:"link"`
	Requests        []struct {
		URL            string `json:"url"`
		AcceptDatetime string `json:"accept_datetime"`
	} `json:"requests"`
}

// TestServeMementoClients drives the built serve's TimeGate and TimeMap with Memento client code
// from npm (test/replay/memento.mjs): Comunica's ActorHttpMemento, asked for an original resource
// whose Link names archivectl's TimeGate (RFC 7089 section 4.2), follows it with Accept-Datetime
// to the released memento (Memento-Datetime the capture's time, Link rel="original" the archived
// URL), and gets 451 for the embargoed site; asked at the TimeGate itself, it lands on the same
// memento. wayback-machine's TimeMap parser reads /timemap/link/ as /timemap/json/ says it.
func TestServeMementoClients(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	engines := replayEngines(t)
	data, embargoed, open := crawledAndReleased(t)
	s := startServe(t, exe, "--data", data)
	var tm struct {
		Mementos struct {
			List []struct {
				Datetime string `json:"datetime"`
				URI      string `json:"uri"`
			} `json:"list"`
		} `json:"mementos"`
	}
	if code, body := s.get(t, "/timemap/json/"+open, &tm); code != 200 || len(tm.Mementos.List) == 0 {
		t.Fatalf("/timemap/json/%s: %d %s", open, code, body)
	}
	m := tm.Mementos.List[len(tm.Mementos.List)-1]
	at, err := time.Parse(time.RFC3339, m.Datetime)
	if err != nil {
		t.Fatal(err)
	}

	// The original resources: each names its TimeGate in archivectl, as RFC 7089 Pattern 2 has it.
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := map[string]string{"/open": open, "/embargoed": embargoed}[r.URL.Path]
		w.Header().Set("Link", "<"+s.base+"/timegate/"+target+`>; rel="timegate"`)
		io.WriteString(w, "the live resource, not a memento")
	}))
	defer origin.Close()
	accept := at.Add(time.Hour).Format(http.TimeFormat)

	for _, tc := range []struct {
		name, input string
		hops        int // requests the actor makes: the original, then its TimeGate
	}{
		{"from the original resource", origin.URL + "/open", 2},
		{"at the TimeGate", s.base + "/timegate/" + open, 1},
	} {
		var got negotiated
		mementoScript(t, engines, &got, "negotiate", tc.input, accept)
		t.Logf("%s: %d %s, Memento-Datetime %s, after %+v", tc.name, got.Status, got.URL, got.MementoDatetime, got.Requests)
		if got.Status != 200 || got.URL != m.URI || got.MementoDatetime != at.Format(http.TimeFormat) {
			t.Errorf("%s: %d at %s, Memento-Datetime %q; want 200 at %s, %s", tc.name, got.Status, got.URL, got.MementoDatetime, m.URI, at.Format(http.TimeFormat))
		}
		if !strings.Contains(got.Link, "<"+open+`>; rel="original"`) {
			t.Errorf("%s: the memento's Link %q has no rel=\"original\" for %s", tc.name, got.Link, open)
		}
		if len(got.Requests) != tc.hops || got.Requests[len(got.Requests)-1].URL != s.base+"/timegate/"+open {
			t.Errorf("%s: requests %+v, want %d ending at the TimeGate", tc.name, got.Requests, tc.hops)
		}
		for _, r := range got.Requests {
			if r.AcceptDatetime != accept {
				t.Errorf("%s: %s asked with Accept-Datetime %q, want %q", tc.name, r.URL, r.AcceptDatetime, accept)
			}
		}
	}
	var emb negotiated
	mementoScript(t, engines, &emb, "negotiate", origin.URL+"/embargoed", accept)
	if emb.Status != http.StatusUnavailableForLegalReasons || emb.MementoDatetime != "" || len(emb.Requests) != 2 {
		t.Errorf("the embargoed site: %d, Memento-Datetime %q after %+v; want 451 from its TimeGate", emb.Status, emb.MementoDatetime, emb.Requests)
	}

	var parsed struct {
		Original, Timegate string
		First, Last        struct{ URL, Time string }
		Mementos           []struct{ URL, Time string }
	}
	mementoScript(t, engines, &parsed, "timemap", s.base+"/timemap/link/"+open)
	t.Logf("wayback-machine's TimeMap: %+v", parsed)
	if parsed.Original != open || parsed.Timegate != s.base+"/timegate/"+open || len(parsed.Mementos) != len(tm.Mementos.List) ||
		parsed.Last.URL != m.URI || !sameInstant(parsed.Last.Time, m.Datetime) || parsed.First.URL != tm.Mementos.List[0].URI {
		t.Errorf("wayback-machine reads the TimeMap as %+v; /timemap/json/ says %+v", parsed, tm.Mementos.List)
	}
	for i, pm := range parsed.Mementos {
		if i < len(tm.Mementos.List) && (pm.URL != tm.Mementos.List[i].URI || !sameInstant(pm.Time, tm.Mementos.List[i].Datetime)) {
			t.Errorf("memento %d: %+v, want %+v", i, pm, tm.Mementos.List[i])
		}
	}
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit %d after SIGTERM; stderr:\n%s", code, s.stderr)
	}
}

// sameInstant reports whether two RFC 3339 times name the same instant.
func sameInstant(a, b string) bool {
	ta, errA := time.Parse(time.RFC3339, a)
	tb, errB := time.Parse(time.RFC3339, b)
	return errA == nil && errB == nil && ta.Equal(tb)
}
