package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// options are a run's settings.
type options struct {
	Corpus string   // the corpus directory (pages.txt and the pages)
	Bin    string   // the archivectl binary
	Work   string   // where the archives, the screenshots and report.json go
	Pages  []string // only these paths of pages.txt (all when empty)
	Wget   bool     // crawl with wget too
	Replay bool     // replay the archivectl captures in ReplayWeb.page and compare screenshots
}

// pageResult is one page's figures.
type pageResult struct {
	Path       string
	URL        string
	Live       []string            // what Chromium loaded live
	Settled    bool                // the live load's network went idle in time
	Missing    map[string][]string // tool -> live URLs its archive lacks
	Similarity map[string]float64  // tool -> replay similarity (plain, browser)
	ReplayErr  map[string]string   // tool -> why the replay failed
}

// Completeness is the share of the live URLs that tool's archive holds.
func (p *pageResult) Completeness(tool string) float64 {
	if len(p.Live) == 0 {
		return 1
	}
	return float64(len(p.Live)-len(p.Missing[tool])) / float64(len(p.Live))
}

// report is a run's result.
type report struct {
	Tools     []string
	Pages     []*pageResult
	Usage     map[string]usage
	MaxFlight map[string]map[string]int // tool -> origin -> most requests answered at once
	Chromium  map[string]int            // tool -> requests the origins got from a browser itself
}

// run serves the corpus, loads every page live in Chromium, crawls the seeds with each tool,
// and compares.
func run(ctx context.Context, opt options, log *slog.Logger) (*report, error) {
	pages, err := readPages(opt.Corpus)
	if err != nil {
		return nil, err
	}
	if len(opt.Pages) > 0 {
		pages = slices.DeleteFunc(pages, func(p page) bool { return !slices.Contains(opt.Pages, p.Path) })
		if len(pages) != len(opt.Pages) {
			return nil, fmt.Errorf("pages %v: not all are in pages.txt", opt.Pages)
		}
	}
	chromium, err := chromiumPath()
	if err != nil {
		return nil, err
	}
	s, err := startSite(opt.Corpus)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	b, err := startBrowser(ctx, chromium)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	shots := filepath.Join(opt.Work, "shots")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		return nil, err
	}

	rep := &report{Tools: []string{"plain", "browser"}, Usage: map[string]usage{}, MaxFlight: map[string]map[string]int{}, Chromium: map[string]int{}}
	if opt.Wget {
		rep.Tools = append(rep.Tools, "wget")
	}
	var seeds strings.Builder
	for _, p := range pages {
		u := s.URL(p)
		l, err := b.load(u)
		if err != nil {
			return nil, err
		}
		log.Info("live", "page", p.Path, "resources", len(l.URLs), "settled", l.Settled)
		if err := os.WriteFile(filepath.Join(shots, shotName(p.Path, "live")), l.Shot, 0o644); err != nil {
			return nil, err
		}
		rep.Pages = append(rep.Pages, &pageResult{Path: p.Path, URL: u, Live: l.URLs, Settled: l.Settled,
			Missing: map[string][]string{}, Similarity: map[string]float64{}, ReplayErr: map[string]string{}})
		fmt.Fprintln(&seeds, u)
	}
	seedsFile := filepath.Join(opt.Work, "seeds.txt")
	if err := os.WriteFile(seedsFile, []byte(seeds.String()), 0o644); err != nil {
		return nil, err
	}

	rep.Chromium["live"] = s.ChromiumRequests() // the live loads: the check below can see Chromium
	runs := map[string]toolRun{}
	for _, tool := range rep.Tools {
		s.ResetStats()
		var r toolRun
		switch tool {
		case "plain", "browser":
			r = crawlArchivectl(opt.Bin, opt.Work, seedsFile, tool == "browser")
		case "wget":
			r = crawlWget(opt.Work, seedsFile)
		}
		if r.Err != nil {
			return nil, r.Err
		}
		log.Info("crawled", "tool", tool, "urls", len(r.URLs), "wall", r.Usage.Wall, "cpu", r.Usage.CPU, "peak_pss_mib", r.Usage.PeakPSS>>20)
		runs[tool], rep.Usage[tool], rep.MaxFlight[tool], rep.Chromium[tool] = r, r.Usage, s.MaxInFlight(), s.ChromiumRequests()
		for _, p := range rep.Pages {
			for _, u := range p.Live {
				if _, ok := r.URLs[key(u)]; !ok {
					p.Missing[tool] = append(p.Missing[tool], u)
				}
			}
		}
	}

	if !opt.Replay {
		return rep, nil
	}
	pkg, err := replayWebPage()
	if err != nil {
		return nil, err
	}
	rp, err := startReplayer(pkg, map[string]string{"plain": runs["plain"].WACZ, "browser": runs["browser"].WACZ})
	if err != nil {
		return nil, err
	}
	defer rp.Close()
	for _, p := range rep.Pages {
		live, err := os.ReadFile(filepath.Join(shots, shotName(p.Path, "live")))
		if err != nil {
			return nil, err
		}
		for _, tool := range []string{"plain", "browser"} {
			ts, ok := runs[tool].URLs[key(p.URL)]
			if !ok {
				p.ReplayErr[tool] = "the page is not in the archive"
				continue
			}
			shot, err := b.replayShot(rp, tool, p.URL, ts)
			if err == nil {
				err = os.WriteFile(filepath.Join(shots, shotName(p.Path, tool)), shot, 0o644)
			}
			if err == nil {
				p.Similarity[tool], err = similarity(live, shot)
			}
			if err != nil {
				if ctx.Err() != nil {
					return nil, errors.Join(err, ctx.Err())
				}
				p.ReplayErr[tool] = err.Error()
				log.Warn("replay", "tool", tool, "page", p.Path, "err", err)
				continue
			}
			log.Info("replayed", "tool", tool, "page", p.Path, "similarity", p.Similarity[tool])
		}
	}
	return rep, nil
}

// shotName is the file name of a page's screenshot by one tool.
func shotName(pagePath, tool string) string {
	return strings.NewReplacer("/", "_", ".html", "").Replace(pagePath) + "." + tool + ".png"
}

// writeReport prints the table per page and the summary.
func writeReport(w io.Writer, rep *report, replay bool) {
	fmt.Fprintf(w, "| page | live | %s |", strings.Join(rep.Tools, " | "))
	if replay {
		fmt.Fprint(w, " replay plain | replay --browser |")
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|---:|"+strings.Repeat("---:|", len(rep.Tools)))
	if replay {
		fmt.Fprint(w, "---:|---:|")
	}
	fmt.Fprintln(w)
	for _, p := range rep.Pages {
		fmt.Fprintf(w, "| %s | %d |", p.Path, len(p.Live))
		for _, t := range rep.Tools {
			fmt.Fprintf(w, " %.1f %% |", 100*p.Completeness(t))
		}
		if replay {
			for _, t := range []string{"plain", "browser"} {
				if e, ok := p.ReplayErr[t]; ok {
					fmt.Fprintf(w, " failed: %.60s |", e)
				} else {
					fmt.Fprintf(w, " %.3f |", p.Similarity[t])
				}
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	n := len(rep.Pages)
	for _, t := range rep.Tools {
		var cs []float64
		full := 0
		for _, p := range rep.Pages {
			c := p.Completeness(t)
			cs = append(cs, c)
			if c >= 0.99 {
				full++
			}
		}
		slices.Sort(cs)
		u := rep.Usage[t]
		fmt.Fprintf(w, "%-7s  pages ≥ 99 %%: %d/%d (%.0f %%)  median completeness %.1f %%  %.2f pages/s  %.0f ms CPU/page  peak memory %d MiB  most requests at once per origin %v  from a browser itself %d\n",
			t, full, n, 100*float64(full)/float64(n), 100*median(cs), float64(n)/u.Wall.Seconds(),
			float64(u.CPU.Milliseconds())/float64(n), u.PeakPSS>>20, rep.MaxFlight[t], rep.Chromium[t])
	}
	if replay {
		for _, t := range []string{"plain", "browser"} {
			var ss []float64
			match := 0
			for _, p := range rep.Pages {
				if _, failed := p.ReplayErr[t]; failed {
					ss = append(ss, 0)
					continue
				}
				ss = append(ss, p.Similarity[t])
				if p.Similarity[t] >= matchAt {
					match++
				}
			}
			slices.Sort(ss)
			fmt.Fprintf(w, "replay %-7s  median similarity %.3f  pages matching (≥ %.2f of pixels within %d/255 per channel): %d/%d\n",
				t, median(ss), matchAt, tolerance, match, n)
		}
	}
	fmt.Fprintln(w)
	for _, p := range rep.Pages {
		for _, t := range rep.Tools {
			if len(p.Missing[t]) > 0 && t == "browser" {
				fmt.Fprintf(w, "%s misses on %s: %s\n", t, p.Path, strings.Join(p.Missing[t], " "))
			}
		}
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}
