package release

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/archivectl/archivectl/embargo"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
	"github.com/archivectl/archivectl/store"
)

// Verify checks the public side of dataDir against the sealed repository and the audit log:
// every public WARC record parses strictly and is byte-equal to its sealed source; every CDXJ
// line points at its record and agrees with the index; every capture is released at most
// once; every tombstone is well-formed and free of body bytes; nothing public has a release
// time after the pass that published it; the public index holds exactly the CDXJ lines; the
// embargo access rules count the index's tombstoned captures; no capture due at the last pass is
// held back by a damaged sealed record (ErrDamaged). It returns one line per problem.
func Verify(ctx context.Context, dataDir string) ([]string, error) {
	v := &verifier{dir: dataDir, logged: map[memberKey]logRef{}, released: map[string]string{}}
	if _, err := os.Stat(layout.Public(dataDir)); errors.Is(err, os.ErrNotExist) {
		return nil, nil // nothing public yet
	}
	if _, err := os.Stat(layout.ReleaseJournal(dataDir)); err == nil {
		v.problem("a release commit is pending in %s: run archivectl release to finish it", layout.ReleaseJournal(dataDir))
	}
	ix, err := store.OpenIndex(layout.Index(dataDir), lockfile.DefaultTimeout)
	if err != nil {
		return nil, fmt.Errorf("release verify: %w", err)
	}
	if v.state, err = readStatus(dataDir); err != nil {
		return nil, err
	}
	if err := v.readLog(); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(v.logged))
	for _, ref := range v.logged {
		ids = append(ids, ref.e.ID)
	}
	if v.entries, err = ix.GetMany(ids); err != nil { // one read of index.db, not one per record
		return nil, fmt.Errorf("release verify: %w", err)
	}
	for _, sub := range []string{layout.ShardsDir, layout.TombstonesDir} {
		names, err := filepath.Glob(filepath.Join(layout.Public(dataDir), sub, "*.warc.gz"))
		if err != nil {
			return nil, err
		}
		sort.Strings(names)
		for _, name := range names {
			if err := ctx.Err(); err != nil {
				return v.problems, err
			}
			rel := sub + "/" + filepath.Base(name)
			if err := v.checkFile(rel, sub == layout.ShardsDir); err != nil {
				return v.problems, err
			}
		}
	}
	if err := v.checkAccess(ix); err != nil {
		return v.problems, fmt.Errorf("release verify: %w", err)
	}
	for k, ref := range v.logged {
		if !ref.seen {
			v.problem("%s: the audit log lists capture %s at offset %d, but no such record is there", k.file, ref.e.ID, k.off)
		}
	}
	if len(v.logged) > 0 && v.state.Generation == 0 {
		v.problem("%s is missing or has generation 0 although records are public: the lookup service may never load them", layout.State(dataDir))
	}
	c, err := ix.Counts(v.state.LastPass)
	if err != nil {
		return v.problems, fmt.Errorf("release verify: %w", err)
	}
	if err := v.checkHeldBack(ctx, ix); err != nil {
		return v.problems, err
	}
	if c.Released != len(v.released) {
		v.problem("index.db counts %d released captures, public/shards holds %d", c.Released, len(v.released))
	}
	ps, err := pubindex.Verify(os.DirFS(layout.Public(dataDir)))
	if err != nil {
		return v.problems, fmt.Errorf("release verify: %w", err)
	}
	for _, p := range ps {
		v.problem("%s", p)
	}
	if m, found, err := pubindex.ReadManifest(os.DirFS(layout.Public(dataDir))); err == nil && found && m.Generation != v.state.Generation {
		v.problem("public/%s/%s is of generation %d, %s of %d: the next release pass rebuilds it, or run archivectl reindex-public",
			pubindex.Dir, pubindex.ManifestFile, m.Generation, layout.StateFile, v.state.Generation)
	}
	return v.problems, nil
}

// memberKey names one gzip member of a public file.
type memberKey struct {
	file string
	off  int64
}

// logRef is the audit-log entry that accounts for a public member, and which member it is.
type logRef struct {
	e    public.LogEntry
	kind string // "request", "response", "metadata" or "tombstone"
	seen bool
}

type verifier struct {
	dir      string
	state    public.Status
	logged   map[memberKey]logRef
	released map[string]string      // capture id → the shard that released it
	entries  map[string]store.Entry // the index entries of every capture the audit log names
	problems []string
}

func (v *verifier) problem(format string, args ...any) {
	v.problems = append(v.problems, fmt.Sprintf(format, args...))
}

// readLog indexes the audit log by the public members it accounts for.
func (v *verifier) readLog() error {
	err := public.ReadLog(os.DirFS(layout.Public(v.dir)), func(e public.LogEntry) error {
		add := func(kind string, l public.Location) {
			k := memberKey{l.File, l.Offset}
			if old, dup := v.logged[k]; dup {
				v.problem("audit log: %s offset %d is claimed by both %s and %s", l.File, l.Offset, old.e.ID, e.ID)
			}
			v.logged[k] = logRef{e: e, kind: kind}
		}
		switch e.Event {
		case public.EventReleased:
			add("response", public.Location{File: e.File, Offset: e.Offset, Length: e.Length})
			if e.Request != nil {
				add("request", *e.Request)
			}
			if e.Metadata != nil {
				add("metadata", *e.Metadata)
			}
		case public.EventTombstoned:
			add("tombstone", public.Location{File: e.File, Offset: e.Offset, Length: e.Length})
		default:
			v.problem("audit log: capture %s has unknown event %q", e.ID, e.Event)
		}
		if e.Event == public.EventReleased && !embargo.Releasable(e.ReleaseAt, e.Pass) {
			v.problem("%s: capture %s was released by the pass at %s before its release time %s", e.File, e.ID, e.Pass.Format(time.RFC3339), e.ReleaseAt.Format(time.RFC3339))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return nil
}

// checkHeldBack reports every capture due at the last pass and not released because a sealed
// record of it is damaged: the pass holds it back (ErrDamaged) and says so only in its log.
func (v *verifier) checkHeldBack(ctx context.Context, ix *store.Index) error {
	if v.state.LastPass.IsZero() {
		return nil
	}
	sealed := &sealedFiles{dir: layout.Sealed(v.dir)}
	defer sealed.close()
	err := ix.Due(v.state.LastPass, func(e store.Entry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := checkCapture(sealed, e); errors.Is(err, ErrDamaged) {
			v.problem("%v: the release pass holds it back (it stays unreleased); restore the sealed file from a copy, or leave it out of the public archive", err)
		} else if err != nil {
			v.problem("capture %s is due but its sealed records cannot be read: %v", e.ID, err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("release verify: %w", err)
	}
	return nil
}
