// Command fidelity measures capture completeness and replay fidelity on a corpus of real example
// pages nobody here wrote (corpus/, see corpus/SOURCES.md): each page is loaded live in headless
// Chromium with every request it makes recorded; the same seeds are crawled by `archivectl
// crawl`, `archivectl crawl --browser` and `wget -r -p -H`; a page's completeness is the share of
// what Chromium loaded live that the archive holds. With -replay, the archivectl captures are
// released, exported as WACZ, replayed in ReplayWeb.page (the replaywebpage npm package) and
// photographed at the live viewport, and the screenshots compared. See README.md.
//
//	go run ./bench/fidelity [-replay] [-wget=false] [-work DIR] [-bin archivectl] [PAGE...]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

func main() {
	var opt options
	flag.StringVar(&opt.Corpus, "corpus", "", "the corpus directory (default: bench/fidelity/corpus, or corpus in that directory)")
	flag.StringVar(&opt.Bin, "bin", "", "the archivectl binary (default: built now from this checkout)")
	flag.StringVar(&opt.Work, "work", "", "directory for the archives, crawl logs, screenshots (shots/) and report.json (default: a new temporary one, kept)")
	flag.BoolVar(&opt.Wget, "wget", true, "crawl with wget -r -p -H too")
	flag.BoolVar(&opt.Replay, "replay", false, "replay in ReplayWeb.page and compare screenshots (needs ARCHIVECTL_REPLAY_NODE_DIR)")
	flag.Parse()
	opt.Pages = flag.Args()
	if err := main1(&opt); err != nil {
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(1)
	}
}

func main1(opt *options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if opt.Corpus == "" {
		for _, d := range []string{"bench/fidelity/corpus", "corpus"} {
			if _, err := os.Stat(filepath.Join(d, "pages.txt")); err == nil {
				opt.Corpus = d
				break
			}
		}
		if opt.Corpus == "" {
			return fmt.Errorf("no corpus here: run from the repository's root or pass -corpus")
		}
	}
	if opt.Work == "" {
		d, err := os.MkdirTemp("", "fidelity-")
		if err != nil {
			return err
		}
		opt.Work = d
	}
	if opt.Bin == "" {
		opt.Bin = filepath.Join(opt.Work, "archivectl")
		gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if p, err := exec.LookPath("go"); err == nil {
			gobin = p
		}
		if out, err := exec.Command(gobin, "build", "-o", opt.Bin, "github.com/archivectl/archivectl/cmd/archivectl").CombinedOutput(); err != nil {
			return fmt.Errorf("build archivectl: %w: %s", err, out)
		}
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("fidelity: work %s, load average before: %s\n", opt.Work, strings.Join(strings.Fields(string(load))[:3], " "))
	rep, err := run(ctx, *opt, log)
	if err != nil {
		return err
	}
	writeReport(os.Stdout, rep, opt.Replay)
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(opt.Work, "report.json"), js, 0o644); err != nil {
		return err
	}
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Printf("load average after: %s\n", strings.Join(strings.Fields(string(load))[:3], " "))
	return nil
}
