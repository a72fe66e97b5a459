package main

import (
	"io"
	"sync"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress draws a crawl's live progress bar on a terminal; elsewhere it does nothing and logs
// go straight out. It is the crawl's crawler.Progress.
type progress struct {
	out   io.Writer
	mu    sync.Mutex
	p     *mpb.Progress // nil when not on a terminal or stopped
	bar   *mpb.Bar
	total int64
}

func newProgress(out io.Writer, terminal bool) *progress {
	pr := &progress{out: out}
	if !terminal {
		return pr
	}
	pr.p = mpb.New(mpb.WithOutput(out), mpb.WithWidth(40))
	pr.bar = pr.p.AddBar(0,
		mpb.PrependDecorators(decor.Name("crawl "), decor.CountersNoUnit("%d / %d URLs")),
		mpb.AppendDecorators(decor.AverageSpeed(nil, " %.1f URLs/s"), decor.Elapsed(decor.ET_STYLE_GO, decor.WC{W: 8})),
	)
	return pr
}

// Queued grows the total by n URLs discovered.
func (pr *progress) Queued(n int) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.bar != nil {
		pr.total += int64(n)
		pr.bar.SetTotal(pr.total, false)
	}
}

// Settled counts one URL done with: sealed, disallowed, skipped or failed.
func (pr *progress) Settled() {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.bar != nil {
		pr.bar.Increment()
	}
}

// stop removes the display; later writes go straight out.
func (pr *progress) stop() {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.p == nil {
		return
	}
	pr.bar.SetTotal(pr.bar.Current(), true)
	pr.p.Wait()
	pr.p, pr.bar = nil, nil
}

// writer is where log lines go: above the bar while it is drawn.
func (pr *progress) writer() io.Writer { return logWriter{pr} }

type logWriter struct{ pr *progress }

func (w logWriter) Write(b []byte) (int, error) {
	w.pr.mu.Lock()
	p := w.pr.p
	w.pr.mu.Unlock()
	if p != nil {
		if n, err := p.Write(b); err == nil {
			return n, nil
		}
	}
	return w.pr.out.Write(b)
}
