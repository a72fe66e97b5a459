package release

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"time"

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
	if err == nil && r.opt.Publish != nil { // the publish stage, once the pass has released its locks
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

// pass is what one pass holds fixed from its start to its end: its now and what it derives from
// it, the index and the sealed files it reads. Nothing changes it once begin has made it. A pass
// runs as stages (docs/architecture.md#release-pass), each a function that takes what the one
// before returned and returns its own result:
//
//	begin                 finish an interrupted commit, repair, read the public side  ─► published
//	releaseDue            batch after batch, until nothing due is left:
//	  scanDue             due scan                                                    ─► []store.Entry
//	  plan                sealed order, revisits held back                            ─► []store.Entry
//	  copyCaptures        copy stage, damaged captures held back                      ─► *staged
//	  commit              journaled commit (docs/architecture.md#release-commit)      ─► published
//	tombstoneEmbargoed    batch after batch, until every embargoed capture has one:
//	  scanEmbargoed       tombstones' scan                                            ─► []store.Entry
//	  tombstones          tombstones stage                                            ─► *staged
//	  commit              journaled commit                                            ─► published
//	recordPass            state.json, when no commit recorded the pass
//	publish               Options.Publish, in Pass, once the pass has released its locks
type pass struct {
	r      *Releaser
	ix     *store.Index
	now    time.Time
	ahead  bool       // now is ahead of the wall clock (public.Ahead)
	next   *time.Time // the next release time after now; nil when nothing waits
	sealed *sealedFiles
}

// published is the public side as the last commit left it, what the next commit starts from: each
// commit takes one and returns the next. A function that takes a published returns the one to go
// on from, with an error too: its index is the one open, which the pass closes.
type published struct {
	state   public.Status  // state.json
	logSize int64          // release-log.jsonl's size
	serial  map[string]int // the next serial of the public files of each prefix
	index   *pubindex.Set  // the public index, open
	rules   *accessRules   // pywb's view of what is under embargo (public/access/, public/embargoed/), once a commit has read it (nil before)
}

// staged is what the copy or the tombstones stage wrote for one commit: its files under
// release-tmp/, not yet synced, the index marks of its captures with the entries as index.db holds
// them before the commit, and the commit's audit-log lines.
type staged struct {
	files                fileSet
	entries              []store.Entry // the captures of marks, in the same order
	marks                []store.Mark
	log                  bytes.Buffer
	released, tombstoned int // marks of each state
	captures             int // the captures of the batch, held back ones included (as a full disk's error counts them)
}

// newStaged starts what a stage writes for a batch of n captures, to commit after pub.
func newStaged(pub published, n int) *staged {
	return &staged{files: fileSet{serial: maps.Clone(pub.serial)}, captures: n}
}

// add stages the mark m of capture e.
func (s *staged) add(e store.Entry, m store.Mark) {
	s.entries = append(s.entries, e)
	s.marks = append(s.marks, m)
	if m.State == store.Released {
		s.released++
	} else {
		s.tombstoned++
	}
}

// unstage deletes the files of a stage that failed with err, and returns err: a *diskFullError when
// the disk is full.
func (p *pass) unstage(s *staged, err error) error {
	s.files.abort()
	return diskFull(err, s.captures, false, p.r.dir)
}

// cancelled is the error of a pass whose context is done, or nil.
func cancelled(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("pass cancelled: %w", err)
	}
	return nil
}

// pass runs the stages of one pass at now (all but publish) under the release lock, and returns
// its summary and the backlog left (-1 with an error).
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
	p, pub, err := r.begin(ctx, ix, now)
	if err != nil {
		return s, -1, err
	}
	defer func() { pub.index.Close() }()
	defer p.sealed.close()
	if p.next != nil {
		s.Next = *p.next
	}
	pub, rel, err := p.releaseDue(ctx, pub)
	if err != nil {
		return s, -1, err
	}
	s.Released, s.Deferred, s.Damaged = rel.Released, rel.Deferred, rel.Damaged
	if pub, s.Tombstoned, err = p.tombstoneEmbargoed(ctx, pub); err != nil {
		return s, -1, err
	}
	if s.Released+s.Tombstoned == 0 && pub.state.Generation > 0 {
		if pub, err = p.commitAccess(pub); err != nil {
			return s, -1, err
		}
	}
	if err := p.recordPass(pub.state); err != nil {
		return s, -1, err
	}
	os.Remove(layout.ReleaseTmp(r.dir)) // empty after every commit; a failed pass leaves it for the next to clean
	c, err := ix.Counts(now)
	if err != nil {
		return s, -1, err
	}
	return s, c.Backlog, nil
}

// begin readies a pass at now: it finishes a commit an interrupted pass left (recover), repairs
// what a crash or damage left of the public side (state.json, the public index, the audit log's
// tail), refuses a now before the last pass's, and returns the pass and the public side as the
// last commit left it, its index open.
func (r *Releaser) begin(ctx context.Context, ix *store.Index, now time.Time) (_ *pass, pub published, err error) {
	if err := r.recover(ix); err != nil {
		return nil, pub, err
	}
	if err := prepareDirs(r.dir); err != nil {
		return nil, pub, err
	}
	if err := repairStatus(r.dir, r.opt.Logger); err != nil {
		return nil, pub, err
	}
	if pub.index, err = r.ensureIndex(ctx); err != nil {
		return nil, pub, err
	}
	defer func() {
		if err != nil {
			pub.index.Close()
		}
	}()
	p := &pass{r: r, ix: ix, now: now, ahead: public.Ahead(now, r.opt.Clock()), sealed: &sealedFiles{dir: layout.Sealed(r.dir)}}
	if pub.state, err = readStatus(r.dir); err != nil {
		return nil, pub, err
	}
	if now.Before(pub.state.LastPass) {
		return nil, pub, &NowBeforeLastPassError{Now: now, LastPass: pub.state.LastPass.UTC()}
	}
	if pub.logSize, err = repairLogTail(layout.ReleaseLog(r.dir), r.opt.Logger); err != nil {
		return nil, pub, err
	}
	next, ok, err := ix.Next(now)
	if err != nil {
		return nil, pub, err
	}
	if ok {
		next = next.UTC()
		p.next = &next
	}
	pub.serial = map[string]int{}
	if pub.serial[shardPrefix], err = nextSerial(layout.Shards(r.dir), shardPrefix); err != nil {
		return nil, pub, err
	}
	if pub.serial[tombPrefix], err = nextSerial(layout.Tombstones(r.dir), tombPrefix); err != nil {
		return nil, pub, err
	}
	return p, pub, nil
}

// prepareDirs creates public/ (world-readable) and an empty release-tmp/.
func prepareDirs(dataDir string) error {
	for _, d := range []string{layout.Public(dataDir), layout.Shards(dataDir), layout.Tombstones(dataDir), filepath.Join(layout.Public(dataDir), pubindex.Dir), layout.Access(dataDir), layout.Embargoed(dataDir)} {
		if err := durable.MkdirAll(d, publicDirMode); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(layout.ReleaseTmp(dataDir), 0o700); err != nil {
		return err
	}
	return nil
}

// releaseDue releases what is due: the due scan, the plan, the copy stage and a commit, batch
// after batch, until no capture due at now is left but those held back. It returns the public
// side as the last commit left it and how many captures it released, deferred and held back
// damaged (a Summary's Released, Deferred and Damaged).
func (p *pass) releaseDue(ctx context.Context, pub published) (_ published, s Summary, err error) {
	// A revisit is due no earlier than its original, so it is held back only when its original
	// comes in a later batch of this pass (or is missing): a second round releases it then.
	damaged := map[string]bool{}
	var deferred map[string]bool
	for round := 0; round < 2; round++ {
		deferred = map[string]bool{}
		released := 0
		for {
			due, err := p.scanDue(deferred, damaged)
			if err != nil {
				return pub, s, err
			}
			if len(due) == 0 {
				break
			}
			batch, held, err := p.plan(due)
			if err != nil {
				return pub, s, err
			}
			for _, id := range held {
				deferred[id] = true
			}
			if len(batch) == 0 {
				continue // all held back; the next scan skips them
			}
			var copied *staged
			if copied, damaged, err = p.copyCaptures(ctx, pub, batch, damaged); err != nil {
				return pub, s, err
			}
			if pub, err = p.commit(pub, copied); err != nil {
				return pub, s, err
			}
			released += len(copied.marks)
		}
		s.Released += released
		if len(deferred) == 0 || released == 0 {
			break
		}
	}
	s.Deferred, s.Damaged = len(deferred), len(damaged)
	return pub, s, nil
}

// tombstoneEmbargoed publishes the tombstones: the tombstones' scan, the tombstones stage and a
// commit, batch after batch, until every capture still under embargo has one. It returns the
// public side as the last commit left it and how many tombstones it published.
func (p *pass) tombstoneEmbargoed(ctx context.Context, pub published) (_ published, n int, err error) {
	for {
		batch, err := p.scanEmbargoed()
		if err != nil {
			return pub, n, err
		}
		if len(batch) == 0 {
			return pub, n, nil
		}
		tombs, err := p.tombstones(ctx, pub, batch)
		if err != nil {
			return pub, n, err
		}
		if pub, err = p.commit(pub, tombs); err != nil {
			return pub, n, err
		}
		n += len(batch)
	}
}

// recordPass writes state.json anew, from st as the last commit left it, when the pass made no
// commit at a later now than the last pass's: its last_pass, next release and ahead_of_clock,
// generation and counts as they were (nothing new is public, so the public index keeps its
// generation). A pass at the same now as
// the last one writes nothing, so that it changes no byte under public/; so does a pass over a
// data directory that has published nothing yet (no state.json to bring forward).
func (p *pass) recordPass(st public.Status) error {
	if st.Generation == 0 || st.LastPass.Equal(p.now) {
		return nil
	}
	st.LastPass, st.NextRelease, st.AheadOfClock, st.Software = p.now, p.next, p.ahead, p.r.opt.Software
	b, err := public.MarshalStatus(st)
	if err != nil {
		return err
	}
	return durable.ReplaceFile(layout.State(p.r.dir), b, publicFileMode)
}
