package release

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
)

// ErrStateDamaged is the error (errors.Is) of a public/state.json that does not parse. A release
// pass rebuilds it (rebuildStatus); verify reports it with that remedy.
var ErrStateDamaged = errors.New("state.json is damaged")

// stateDamagedError is a state.json that does not parse: its path and the parse error.
type stateDamagedError struct {
	path string
	err  error
}

func (e *stateDamagedError) Error() string {
	return fmt.Sprintf("%s is damaged (%v): run archivectl release, which rebuilds it from public/%s and the public index", e.path, e.err, layout.ReleaseLogFile)
}

func (e *stateDamagedError) Unwrap() error { return e.err }

// Is makes errors.Is(err, ErrStateDamaged) true.
func (e *stateDamagedError) Is(target error) bool { return target == ErrStateDamaged }

// readStatus reads public/state.json under dataDir; a missing file is the zero Status, one that
// does not parse an error wrapping ErrStateDamaged.
func readStatus(dataDir string) (public.Status, error) {
	s, err := public.ReadStatus(os.DirFS(layout.Public(dataDir)))
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var parse *time.ParseError
	if errors.As(err, &syntax) || errors.As(err, &typ) || errors.As(err, &parse) {
		return s, &stateDamagedError{path: layout.State(dataDir), err: err}
	}
	if err != nil {
		return s, err
	}
	return s, nil
}

// repairStatus rebuilds a damaged state.json (ErrStateDamaged) from what else is public: the
// counts and the last pass from the audit log, the generation from the public index's manifest
// (the generation of the last commit; a manifest that is missing or damaged gives the number of
// passes the log names, and the pass rebuilds the index to it). The next release and
// ahead_of_clock are the pass's own to set. It runs under the pass's lock, after recovery.
func repairStatus(dataDir string, log *slog.Logger) error {
	_, err := readStatus(dataDir)
	if !errors.Is(err, ErrStateDamaged) {
		return nil // sound, missing (nothing public yet), or unreadable: the pass reports that
	}
	fsys := os.DirFS(layout.Public(dataDir))
	var st public.Status
	passes := map[time.Time]bool{}
	lerr := public.ReadLog(fsys, func(e public.LogEntry) error {
		switch e.Event {
		case public.EventReleased:
			st.Released++
		case public.EventTombstoned:
			st.Tombstoned++
		}
		if e.Pass.After(st.LastPass) {
			st.LastPass = e.Pass
		}
		passes[e.Pass.UTC()] = true
		return nil
	})
	if lerr != nil {
		return fmt.Errorf("%w; and it cannot be rebuilt from the audit log: %w", err, lerr)
	}
	st.Generation = int64(len(passes))
	if m, found, merr := pubindex.ReadManifest(fsys); merr == nil && found && m.Generation >= st.Generation {
		st.Generation = m.Generation
	}
	b, merr := public.MarshalStatus(st)
	if merr != nil {
		return merr
	}
	path := layout.State(dataDir)
	if werr := durable.ReplaceFile(path, b, publicFileMode); werr != nil {
		return werr
	}
	log.Warn("rebuilt a damaged state.json from the audit log and the public index", "file", path, "damage", err,
		"generation", st.Generation, "released", st.Released, "tombstoned", st.Tombstoned, "last_pass", st.LastPass)
	return nil
}
