package release

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/robfig/cron/v3"
)

// Daemon runs release passes on a cron schedule (robfig/cron, UTC). A run that would overlap
// the previous one is skipped; a panicking pass is recovered and the schedule goes on.
type Daemon struct {
	r      *Releaser
	c      *cron.Cron
	now    func() time.Time
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
	id     cron.EntryID
	first  sync.WaitGroup // the pass Start runs at once
}

// cronParser reads 5-field specs, an optional leading seconds field and descriptors (@hourly, @every 1m).
var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// CheckSchedule reports whether NewDaemon takes spec: a cron spec of 5 fields (6 with seconds
// first) or a descriptor. cron runs "@every D" at least a second apart, in whole seconds, so a
// shorter or fractional D is an error here rather than a different schedule.
func CheckSchedule(spec string) error {
	if d, ok := strings.CutPrefix(strings.TrimSpace(spec), "@every "); ok {
		if every, err := time.ParseDuration(strings.TrimSpace(d)); err == nil && (every < time.Second || every%time.Second != 0) {
			return errors.New("@every takes whole seconds, at least 1s (e.g. \"@every 30s\", \"@every 1h\")")
		}
	}
	if _, err := cronParser.Parse(spec); err != nil {
		return fmt.Errorf("not a cron spec (e.g. \"@hourly\", \"*/15 * * * *\"): %w", err)
	}
	return nil
}

// nextTime is a next release time for a log line: "none" when nothing waits.
func nextTime(t time.Time) any {
	if t.IsZero() {
		return "none"
	}
	return t
}

// NewDaemon prepares a daemon that runs r.Pass(now()) on spec; a bad spec is an error here, at start-up.
func NewDaemon(r *Releaser, spec string, now func() time.Time, logger *slog.Logger) (*Daemon, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	if err := CheckSchedule(spec); err != nil {
		return nil, fmt.Errorf("release schedule %q: %w", spec, err)
	}
	cl := cronLogger{logger}
	d := &Daemon{r: r, now: now, log: logger}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	d.c = cron.New(cron.WithParser(cronParser), cron.WithLocation(time.UTC), cron.WithLogger(cl),
		// SkipIfStillRunning outermost, Recover inside it: the other order leaks the skip token
		// on a panic and the job never runs again (robfig/cron#366, docs/architecture.md#release-daemon).
		cron.WithChain(cron.SkipIfStillRunning(cl), cron.Recover(cl)))
	var err error
	if d.id, err = d.c.AddFunc(spec, d.run); err != nil {
		return nil, fmt.Errorf("release schedule %q: %w", spec, err)
	}
	return d, nil
}

// run is one scheduled pass; a busy index is logged and retried at the next tick.
func (d *Daemon) run() {
	now := d.now()
	_, err := d.r.Pass(d.ctx, now)
	switch {
	case errors.Is(err, lockfile.ErrBusy):
		d.log.Warn("release pass skipped: index busy; retrying at the next tick", "now", now.UTC(), "err", err)
	case err != nil:
		d.log.Error("release pass failed", "now", now.UTC(), "err", err)
	}
}

// Start runs one pass at once (so a restarted daemon does not leave due captures waiting for the
// first tick) and then schedules passes, all in the background and through the same skip/recover chain.
func (d *Daemon) Start() {
	d.c.Start()
	d.first.Add(1)
	go func() {
		defer d.first.Done()
		d.c.Entry(d.id).WrappedJob.Run()
	}()
}

// Stop stops scheduling and waits for a running pass to finish. When ctx ends first, the pass
// is cancelled (its commit is rolled back or forward by the next pass) and ctx's error returned.
func (d *Daemon) Stop(ctx context.Context) error {
	var stopped context.Context
	d.once.Do(func() { stopped = d.c.Stop() })
	if stopped == nil {
		return nil
	}
	done := make(chan struct{})
	go func() { <-stopped.Done(); d.first.Wait(); close(done) }()
	select {
	case <-done:
		d.cancel()
		return nil
	case <-ctx.Done():
		d.cancel()
		<-done
		return fmt.Errorf("release daemon: stopped before the running pass finished: %w", ctx.Err())
	}
}

// cronLogger sends cron's logs to slog.
type cronLogger struct{ l *slog.Logger }

// Info logs cron's routine events at Debug, and a skipped tick as a warning.
func (c cronLogger) Info(msg string, kv ...any) {
	if msg == "skip" {
		c.l.Warn("release pass still running: this tick is skipped", kv...)
		return
	}
	c.l.Debug("cron: "+msg, kv...)
}

// Error logs cron's errors, recovered panics included.
func (c cronLogger) Error(err error, msg string, kv ...any) {
	c.l.Error("cron: "+msg, append(kv, "err", err)...)
}
