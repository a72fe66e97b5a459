package release

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/internal/testkit"
)

func TestNewDaemonSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, spec string
		ok         bool
	}{
		{"descriptor", "@hourly", true},
		{"every", "@every 90s", true},
		{"five fields", "*/15 * * * *", true},
		{"six fields with seconds", "30 0 3 * * *", true},
		{"time zone", "CRON_TZ=Europe/Oslo 0 3 * * *", true},
		{"empty", "", false},
		{"words", "every hour", false},
		{"minute out of range", "61 * * * *", false},
		{"too many fields", "* * * * * * *", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewDaemon(New(t.TempDir(), Options{Logger: testkit.QuietLogger()}), tc.spec, nil, testkit.QuietLogger())
			if (err == nil) != tc.ok {
				t.Errorf("NewDaemon(%q) error = %v, want ok %v", tc.spec, err, tc.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "cron spec") {
				t.Errorf("error %q does not say what a spec looks like", err)
			}
		})
	}
}

// events is a slog handler that forwards each record's message to a channel.
type events struct{ ch chan string }

func (e *events) Enabled(context.Context, slog.Level) bool { return true }
func (e *events) Handle(_ context.Context, r slog.Record) error {
	select {
	case e.ch <- r.Message:
	default:
	}
	return nil
}
func (e *events) WithAttrs([]slog.Attr) slog.Handler { return e }
func (e *events) WithGroup(string) slog.Handler      { return e }

// waitFor reads messages until one contains want, failing after a generous deadline.
func waitFor(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m := <-ch:
			if strings.Contains(m, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no %q logged in 10 s", want)
		}
	}
}

// TestDaemon runs scheduled passes with an injected clock, skips a tick while the index is
// busy (logging it), and stops cleanly.
func TestDaemon(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 8)
	ev := &events{ch: make(chan string, 64)}
	logger := slog.New(ev)
	r := New(a.dir, Options{LockTimeout: 50 * time.Millisecond, Logger: logger})
	now := t0.Add(time.Hour)
	d, err := NewDaemon(r, "* * * * * *", func() time.Time { return now }, logger)
	if err != nil {
		t.Fatal(err)
	}
	held, err := lockfile.Acquire(filepath.Join(a.dir, "release.lock"), 0)
	if err != nil {
		t.Fatal(err)
	}
	d.Start()
	waitFor(t, ev.ch, "index busy")
	held.Release()
	waitFor(t, ev.ch, "release pass")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	st, err := readStatus(a.dir)
	if err != nil || !st.LastPass.Equal(now) {
		t.Errorf("state.json last_pass = %v (%v), want the injected now %v", st.LastPass, err, now)
	}
	mustVerify(t, a.dir)
}

// TestDaemonStopWaitsForPass stops the daemon while a pass is inside its commit: Stop returns
// only after the commit is complete. Not parallel: it sets the package's crash hook.
func TestDaemonStopWaitsForPass(t *testing.T) {
	a := buildArchive(t, t.TempDir(), 6)
	entered, proceed := make(chan struct{}), make(chan struct{})
	var once bool
	crashHook = func(step string) {
		if step == "journal" && !once {
			once = true
			close(entered)
			<-proceed
		}
	}
	defer func() { crashHook = nil }()
	r := New(a.dir, Options{Logger: testkit.QuietLogger()})
	d, err := NewDaemon(r, "* * * * * *", func() time.Time { return t0.Add(time.Hour) }, testkit.QuietLogger())
	if err != nil {
		t.Fatal(err)
	}
	d.Start()
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("no pass started in 10 s")
	}
	stopped := make(chan error)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stopped <- d.Stop(ctx)
	}()
	close(proceed)
	if err := <-stopped; err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if st, err := readStatus(a.dir); err != nil || st.Generation == 0 {
		t.Errorf("Stop returned before the running pass committed: state %+v, %v", st, err)
	}
	mustVerify(t, a.dir)
}

// TestDaemonSurvivesPanic: a pass that panics (here inside its commit) is recovered, and the next
// tick runs again and finishes the interrupted commit — SkipIfStillRunning must not leak its
// token (robfig/cron#366). Not parallel: it sets the package's crash hook.
func TestDaemonSurvivesPanic(t *testing.T) {
	a := buildArchive(t, t.TempDir(), 6)
	var panicked bool
	crashHook = func(step string) {
		if step == "synced" && !panicked {
			panicked = true
			panic("injected failure inside a commit")
		}
	}
	defer func() { crashHook = nil }()
	ev := &events{ch: make(chan string, 64)}
	logger := slog.New(ev)
	r := New(a.dir, Options{Logger: logger})
	d, err := NewDaemon(r, "* * * * * *", func() time.Time { return t0.Add(time.Hour) }, logger)
	if err != nil {
		t.Fatal(err)
	}
	d.Start()
	waitFor(t, ev.ch, "panic")
	waitFor(t, ev.ch, "finishing an interrupted release commit")
	waitFor(t, ev.ch, "release pass")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	released, embargoed := publicLines(t, a.dir)
	for _, e := range a.entries {
		if released[e.ID]+embargoed[e.ID] != 1 {
			t.Errorf("capture %s: %d released, %d tombstones; want exactly one line", e.ID, released[e.ID], embargoed[e.ID])
		}
	}
	mustVerify(t, a.dir)
}

func TestCheckSchedule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec string
		want string // in the error; "" for none
	}{
		{"@hourly", ""},
		{"*/15 * * * *", ""},
		{"30 */15 * * * *", ""},
		{"@every 1s", ""},
		{"@every 90m", ""},
		{"@every 1ms", "@every takes whole seconds, at least 1s"},
		{"@every 0s", "@every takes whole seconds"},
		{"@every 1500ms", "@every takes whole seconds"},
		{"@every fast", "not a cron spec"},
		{"every tuesday", "not a cron spec"},
		{"", "not a cron spec"},
	}
	for _, tc := range tests {
		err := CheckSchedule(tc.spec)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckSchedule(%q) = %v, want %q", tc.spec, err, tc.want)
		}
	}
	if _, err := NewDaemon(New(t.TempDir(), Options{}), "@every 1ms", nil, nil); err == nil {
		t.Error("NewDaemon took @every 1ms, which cron runs every second")
	}
}
