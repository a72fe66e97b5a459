package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/internal/testkit"
)

// TestFidelity runs the measurement on three pages of the corpus whose data only scripts load —
// an image fetched from another origin (basic-fetch), JSON fetched from another origin and
// listed by script (fetch-json, heroes-finished) — so that the tool cannot rot: Chromium loads
// each page live; the plain crawl misses what the scripts fetch and `crawl --browser` captures
// all of it, each origin answering one request at a time and none from Chromium itself. With ARCHIVECTL_REPLAY_NODE_DIR set
// (test/replay/install.sh; CI sets it) the captures are also replayed in ReplayWeb.page, and the
// --browser replay must match the live render by the run's measure while the plain one does not.
func TestFidelity(t *testing.T) {
	testkit.ChromiumPath(t)
	opt := options{
		Corpus: "corpus",
		Bin:    testkit.Archivectl(t),
		Work:   t.TempDir(),
		Pages: []string{"dom-examples/fetch/basic-fetch/index.html", "dom-examples/fetch/fetch-json/index.html",
			"learning-area/javascript/oojs/json/heroes-finished.html"},
	}
	if _, err := exec.LookPath("wget"); err == nil {
		opt.Wget = true
	}
	if _, err := replayWebPage(); err == nil {
		opt.Replay = true
	} else if os.Getenv("CI") != "" {
		t.Fatalf("CI is set but %v", err)
	} else {
		t.Logf("no replay: %v", err)
	}
	rep, err := run(context.Background(), opt, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	writeReport(&out, rep, opt.Replay)
	t.Log("\n" + out.String())

	for _, p := range rep.Pages {
		// What each page's script loads: an image or a JSON file, on an origin of its own.
		scripted := 0
		for _, u := range p.Live {
			if strings.HasSuffix(u, "/flowers.jpg") || strings.HasSuffix(u, ".json") {
				scripted++
			}
		}
		if scripted != 1 || len(p.Live) < 2 {
			t.Errorf("%s: Chromium loaded %v live, want the page and what its script fetches", p.Path, p.Live)
		}
		if c := p.Completeness("browser"); c != 1 {
			t.Errorf("%s: crawl --browser holds %.0f %% of what Chromium loaded; missing %v", p.Path, 100*c, p.Missing["browser"])
		}
		if c := p.Completeness("plain"); c == 1 {
			t.Errorf("%s: the plain crawl holds all Chromium loaded, %v: the page's script fetched nothing the HTML does not name?", p.Path, p.Live)
		}
		if opt.Replay {
			if e, ok := p.ReplayErr["browser"]; ok {
				t.Errorf("%s: no replay of the --browser capture: %s", p.Path, e)
			} else if s := p.Similarity["browser"]; s < matchAt {
				t.Errorf("%s: the --browser replay matches %.3f of the live render's pixels, want ≥ %.2f", p.Path, s, matchAt)
			}
			if s := p.Similarity["plain"]; s >= matchAt {
				t.Errorf("%s: the plain capture's replay matches %.3f of the live render, without what the script fetched", p.Path, s)
			}
		}
	}
	if rep.Chromium["live"] == 0 {
		t.Error("the origins saw no request from Chromium in the live loads: the check of its User-Agent sees nothing")
	}
	for _, tool := range []string{"plain", "browser"} {
		if n := rep.Chromium[tool]; n != 0 {
			t.Errorf("%s: the origins got %d requests from Chromium itself: the browser touched the network", tool, n)
		}
		for o, n := range rep.MaxFlight[tool] {
			if n != 1 {
				t.Errorf("%s: origin %s answered %d requests at once", tool, o, n)
			}
		}
	}
}

// TestSimilarity checks the screenshot measure on images whose difference is known.
func TestSimilarity(t *testing.T) {
	t.Parallel()
	// The live screenshots the corpus run keeps are not in the repository; build two images.
	a := solid(t, 10, 10, 0, 200)
	for _, tc := range []struct {
		name string
		b    []byte
		want float64
	}{
		{"same", solid(t, 10, 10, 0, 200), 1},
		{"within tolerance", solid(t, 10, 10, 0, 200+tolerance), 1},
		{"beyond tolerance", solid(t, 10, 10, 0, 200+tolerance+1), 0},
		{"half the rows differ", solid(t, 10, 10, 5, 200), 0.5},
		{"shorter", solid(t, 10, 5, 0, 200), 0.5},
	} {
		got, err := similarity(a, tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s: similarity %v, want %v", tc.name, got, tc.want)
		}
	}
	if _, err := similarity(a, []byte("not a png")); err == nil {
		t.Error("a screenshot that is no PNG compared without error")
	}
}
