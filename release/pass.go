package release

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
	"github.com/archivectl/archivectl/store"
)

// DefaultShardSize is the rotation size of public shards when Options set none.
const DefaultShardSize = 1 << 30

// Options tune a Releaser; zero values take the defaults.
type Options struct {
	ShardSize   int64         // public shard rotation size in bytes (default 1 GiB)
	LockTimeout time.Duration // how long a pass waits for index.db or another pass before giving up (default lockfile.DefaultTimeout, 5 s)
	Logger      *slog.Logger  // default slog.Default()
	Software    string        // written into every warcinfo record (default "archivectl")
	// Publish, when set, runs after every successful pass, once the pass has released its
	// locks: it copies public/ where it is shared (package publish). Its error is the pass's.
	Publish func(ctx context.Context) error
	// Clock is the wall clock a pass compares its now with, to record in state.json whether it
	// ran ahead of it (public.Status.AheadOfClock); default time.Now.
	Clock func() time.Time
}

// ErrNowBeforeLastPass is the error (errors.Is) of a pass whose now is before the now of the last
// pass recorded in public/state.json: passes only move forward. Nothing is changed. The error
// itself is a *NowBeforeLastPassError.
var ErrNowBeforeLastPass = errors.New("now is before the last pass")

// NowBeforeLastPassError is a pass refused because its now is before the last pass's.
type NowBeforeLastPassError struct {
	Now, LastPass time.Time
}

func (e *NowBeforeLastPassError) Error() string {
	return fmt.Sprintf("now %s is before the last pass's now %s (public/%s): passes only move forward; run the pass at %s or later",
		e.Now.UTC().Format(time.RFC3339), e.LastPass.UTC().Format(time.RFC3339), layout.StateFile, e.LastPass.UTC().Format(time.RFC3339))
}

// Is makes errors.Is(err, ErrNowBeforeLastPass) true.
func (e *NowBeforeLastPassError) Is(target error) bool { return target == ErrNowBeforeLastPass }

// Releaser runs release passes over one data directory.
type Releaser struct {
	dir string
	opt Options
	met *metrics
}

// Summary is what one pass did.
type Summary struct {
	Released   int           // captures byte-copied into public shards
	Tombstoned int           // tombstones published
	Deferred   int           // due revisits held back because their original is not public yet
	Damaged    int           // due captures held back because a sealed record of theirs is damaged (ErrDamaged)
	Next       time.Time     // the next release time after now; zero when nothing waits
	Duration   time.Duration // wall time of the pass
}

// maxBatch is how many captures one commit holds at most; a pass makes as many commits as it
// needs. A variable only so that tests can make passes of several commits.
var maxBatch = 10000

// New returns a Releaser for the data directory (sealed/, index.db, public/).
func New(dataDir string, opt Options) *Releaser {
	if opt.ShardSize <= 0 {
		opt.ShardSize = DefaultShardSize
	}
	if opt.LockTimeout <= 0 {
		opt.LockTimeout = lockfile.DefaultTimeout
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Software == "" {
		opt.Software = "archivectl"
	}
	if opt.Clock == nil {
		opt.Clock = time.Now
	}
	return &Releaser{dir: dataDir, opt: opt, met: newMetrics()}
}

// Pass releases every capture due at now and publishes a tombstone for every capture not yet
// due that has none. It is idempotent: a second pass at the same now changes no byte under
// public/; a later pass with nothing to publish rewrites only state.json (its last_pass, next
// release and ahead_of_clock), so that every pass is on record. A now before the last pass's is
// refused with an error wrapping ErrNowBeforeLastPass. A pass interrupted anywhere is completed
// or rolled back by the next one. A busy
// index.db (or another pass) gives an error wrapping lockfile.ErrBusy after LockTimeout. Pass logs
// a successful pass at Info; errors are the caller's to report.
func (r *Releaser) Pass(ctx context.Context, now time.Time) (Summary, error) {
	start := time.Now()
	s, backlog, err := r.pass(ctx, now.UTC())
	if err == nil && r.opt.Publish != nil {
		err = r.opt.Publish(ctx)
	}
	s.Duration = time.Since(start)
	r.met.observe(now, s, backlog, err)
	if err == nil {
		r.opt.Logger.Info("release pass", "now", now.UTC(), "released", s.Released, "tombstoned", s.Tombstoned,
			"deferred", s.Deferred, "damaged", s.Damaged, "next", nextTime(s.Next), "duration", s.Duration)
	}
	return s, err
}

// pass is the state of one running pass.
type pass struct {
	r       *Releaser
	ix      *store.Index
	now     time.Time
	ahead   bool          // now is ahead of the wall clock (public.Ahead)
	state   public.Status // state.json as of the last commit
	next    *time.Time
	logSize int64
	serial  map[string]int // next serial per file prefix
	sealed  *sealedFiles
	index   *pubindex.Set   // the public index as of the last commit, open
	rules   *accessRules    // pywb's view of what is under embargo (public/access/, public/embargoed/), read at the first commit
	checks  *checks         // the checks of the sealed records of the batch being released
	damaged map[string]bool // captures held back: a sealed record is damaged
}

func (r *Releaser) pass(ctx context.Context, now time.Time) (s Summary, backlog int, err error) {
	lock, err := lockfile.Acquire(layout.ReleaseLock(r.dir), r.opt.LockTimeout)
	if err != nil {
		return s, -1, err
	}
	defer lock.Release()
	ix, err := store.OpenIndex(layout.Index(r.dir), r.opt.LockTimeout)
	if err != nil {
		return s, -1, err
	}
	if err := r.recover(ix); err != nil {
		return s, -1, err
	}
	if err := prepareDirs(r.dir); err != nil {
		return s, -1, err
	}
	if err := repairStatus(r.dir, r.opt.Logger); err != nil {
		return s, -1, err
	}
	index, err := r.ensureIndex(ctx)
	if err != nil {
		return s, -1, err
	}
	p := &pass{r: r, ix: ix, now: now, ahead: public.Ahead(now, r.opt.Clock()), serial: map[string]int{}, sealed: &sealedFiles{dir: layout.Sealed(r.dir)}, index: index, damaged: map[string]bool{}}
	defer func() { p.index.Close() }()
	defer p.sealed.close()
	if p.state, err = readStatus(r.dir); err != nil {
		return s, -1, err
	}
	if now.Before(p.state.LastPass) {
		return s, -1, &NowBeforeLastPassError{Now: now, LastPass: p.state.LastPass.UTC()}
	}
	if p.logSize, err = repairLogTail(layout.ReleaseLog(r.dir), r.opt.Logger); err != nil {
		return s, -1, err
	}
	next, ok, err := ix.Next(now)
	if err != nil {
		return s, -1, err
	}
	if ok {
		next = next.UTC()
		s.Next, p.next = next, &next
	}
	if p.serial[shardPrefix], err = nextSerial(layout.Shards(r.dir), shardPrefix); err != nil {
		return s, -1, err
	}
	if p.serial[tombPrefix], err = nextSerial(layout.Tombstones(r.dir), tombPrefix); err != nil {
		return s, -1, err
	}

	// A revisit is due no earlier than its original, so it is held back only when its original
	// comes in a later batch of this pass (or is missing): a second round releases it then.
	var deferred map[string]bool
	for round := 0; round < 2; round++ {
		deferred = map[string]bool{}
		released := 0
		for {
			batch, err := collect(ix.Due, now, deferred, p.damaged)
			if err != nil {
				return s, -1, err
			}
			if len(batch) == 0 {
				break
			}
			if batch, err = p.order(batch, deferred); err != nil {
				return s, -1, err
			}
			if len(batch) == 0 {
				continue // all held back; the next scan skips them
			}
			n, err := p.releaseBatch(ctx, batch)
			if err != nil {
				return s, -1, err
			}
			released += n
		}
		s.Released += released
		if len(deferred) == 0 || released == 0 {
			break
		}
	}
	s.Deferred, s.Damaged = len(deferred), len(p.damaged)
	for {
		batch, err := collect(ix.Embargoed, now)
		if err != nil {
			return s, -1, err
		}
		if len(batch) == 0 {
			break
		}
		if err := p.tombstone(ctx, batch); err != nil {
			return s, -1, err
		}
		s.Tombstoned += len(batch)
	}
	if s.Released+s.Tombstoned == 0 && p.state.Generation > 0 {
		if err := p.commitAccess(); err != nil {
			return s, -1, err
		}
	}
	if err := p.recordPass(); err != nil {
		return s, -1, err
	}
	os.Remove(layout.ReleaseTmp(r.dir)) // empty after every commit; a failed pass leaves it for the next to clean
	c, err := ix.Counts(now)
	if err != nil {
		return s, -1, err
	}
	return s, c.Backlog, nil
}

// errBatchFull stops a scan once a batch is full.
var errBatchFull = errors.New("batch full")

// collect reads up to maxBatch entries from an index scan, skipping ids in any of skip.
func collect(scan func(time.Time, func(store.Entry) error) error, now time.Time, skip ...map[string]bool) ([]store.Entry, error) {
	var out []store.Entry
	err := scan(now, func(e store.Entry) error {
		for _, m := range skip {
			if m[e.ID] {
				return nil
			}
		}
		if e.Robots && !embargo.RobotsExempt(e.URL) {
			return nil // a robots.txt capture at another URL, sealed before docs/rules.md#d23: held back, reported by verify
		}
		out = append(out, e)
		if len(out) == maxBatch {
			return errBatchFull
		}
		return nil
	})
	if errors.Is(err, errBatchFull) {
		err = nil
	}
	return out, err
}

// recordPass writes state.json anew when the pass made no commit at a later now than the last
// pass's: its last_pass, next release and ahead_of_clock, generation and counts as they were
// (nothing new is public, so the public index keeps its generation). A pass at the same now as
// the last one writes nothing, so that it changes no byte under public/; so does a pass over a
// data directory that has published nothing yet (no state.json to bring forward).
func (p *pass) recordPass() error {
	if p.state.Generation == 0 || p.state.LastPass.Equal(p.now) {
		return nil
	}
	st := p.state
	st.LastPass, st.NextRelease, st.AheadOfClock, st.Software = p.now, p.next, p.ahead, p.r.opt.Software
	b, err := public.MarshalStatus(st)
	if err != nil {
		return err
	}
	state := layout.State(p.r.dir)
	if err := durable.WriteFile(state+".tmp", b, publicFileMode); err != nil {
		return err
	}
	if err := durable.Rename(state+".tmp", state); err != nil {
		return err
	}
	p.state = st
	return nil
}
