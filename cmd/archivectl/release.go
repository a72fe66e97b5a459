package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/archivectl/archivectl/export"
	"github.com/archivectl/archivectl/objectstore/publish"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/release"
)

// earliestNow bounds --now: no capture, and so no release, is older than 1970.
var earliestNow = time.Unix(0, 0)

// ahead says how far t is after wall: in minutes up to two days, in days beyond (a
// time.Duration tops out at 292 years; --now may be in 9999).
func ahead(t, wall time.Time) string {
	if d := t.Sub(wall); d < 48*time.Hour {
		return d.Round(time.Minute).String()
	}
	return fmt.Sprintf("%d days", (t.Unix()-wall.Unix())/(24*60*60))
}

// runRelease runs one release pass at --now (default: the current time) and prints what it did.
func runRelease(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var nowFlag string
	var asJSON bool
	cfg, pos, code, ok := cli{
		name:   "release",
		usage:  "usage: archivectl release [--now T] [--json] [--public URL] [--node NAME] [--data DIR] [--config FILE]\n",
		config: true,
		flags: func(fs *flagSet, c *Config) {
			sharedFlags(fs, c)
			fs.StringVar(&nowFlag, "now", "", "release as of this instant: RFC 3339, or a date YYYY-MM-DD (its midnight, UTC), as export's --from and --to (default: the current time)")
			fs.BoolVar(&asJSON, "json", false, "print the summary as one JSON object")
		},
	}.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		fmt.Fprintf(stderr, "archivectl release: unexpected argument %q; see archivectl release -h\n", pos[0])
		return 2
	}
	now := time.Now().UTC()
	if nowFlag != "" {
		t, err := export.ParseTime(nowFlag)
		if err != nil {
			fmt.Fprintf(stderr, "archivectl release: --now %q: %v\n", nowFlag, err)
			return 2
		}
		now = t.UTC()
		if now.Before(earliestNow) {
			fmt.Fprintf(stderr, "archivectl release: --now %s is before 1970, before any capture; give the instant to release as of, e.g. 2026-03-01T12:00:00Z\n", nowFlag)
			return 2
		}
	}
	shared, err := sharedStore(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "archivectl release: %v\n", err)
		return 1
	}
	if err := releasable(cfg.Data); err != nil {
		fmt.Fprintf(stderr, "archivectl release: %v\n", err)
		return 1
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if wall := time.Now(); public.Ahead(now, wall) {
		logger.Warn("--now is ahead of this machine's clock: captures embargoed until then become public now (state.json records it: ahead_of_clock)",
			"now", now.Format(time.RFC3339), "ahead", ahead(now, wall))
	}
	opt := releaseOptions(cfg)
	opt.Logger = logger
	var published *publish.Result
	if shared != nil {
		opt.Publish = publisher(cfg, shared, logger, func(r publish.Result) { published = &r })
	}
	r := release.New(cfg.Data, opt)
	s, err := r.Pass(ctx, now)
	var behind *release.NowBeforeLastPassError
	if errors.As(err, &behind) {
		fmt.Fprintf(stderr, "archivectl release: --now %s is before the last pass's, %s (public/state.json): release passes only move forward, so nothing was done; give a --now at or after it\n",
			now.Format(time.RFC3339), behind.LastPass.Format(time.RFC3339))
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "archivectl release: %v\n", err)
		return 1
	}
	if asJSON {
		out := struct {
			Now         time.Time  `json:"now"`
			Released    int        `json:"released"`
			Tombstoned  int        `json:"tombstoned"`
			Deferred    int        `json:"deferred"`
			NextRelease *time.Time `json:"next_release"`
			DurationMS  float64    `json:"duration_ms"`
			Published   *int64     `json:"published_generation,omitempty"` // with --public: the node's generation in the store
		}{Now: now, Released: s.Released, Tombstoned: s.Tombstoned, Deferred: s.Deferred,
			DurationMS: float64(s.Duration.Microseconds()) / 1000}
		if published != nil {
			out.Published = &published.Generation
		}
		if !s.Next.IsZero() {
			out.NextRelease = &s.Next
		}
		json.NewEncoder(stdout).Encode(out)
		return 0
	}
	next := "none (nothing is waiting)"
	if !s.Next.IsZero() {
		next = s.Next.Format(time.RFC3339)
	}
	fmt.Fprintf(stdout, "release pass at %s\n  released:     %d\n  tombstoned:   %d\n", now.Format(time.RFC3339), s.Released, s.Tombstoned)
	if s.Deferred > 0 {
		fmt.Fprintf(stdout, "  deferred:     %d (revisits waiting for their original)\n", s.Deferred)
	}
	fmt.Fprintf(stdout, "  next release: %s\n", next)
	if published != nil {
		fmt.Fprintf(stdout, "  published:    generation %d of node %s in %s (%d objects, %d bytes uploaded)\n",
			published.Generation, nodeName(cfg), describe(shared), published.Uploaded, published.Bytes)
	}
	return 0
}
