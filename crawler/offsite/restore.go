package offsite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/objectstore"
)

// ErrNotEmpty is returned by Restore for a data directory that holds a crawl already.
var ErrNotEmpty = errors.New("the data directory holds a crawl already (index.db or frontier.db): restore needs an empty one")

// ErrRestoring is returned for a data directory holding a restore cut short (its marker
// DATA/checkpoints/restoring) by anything but Restore, which finishes it.
var ErrRestoring = errors.New("the data directory holds a restore cut short (checkpoints/restoring): run crawl --restore again to finish it")

// restoringFile, in DATA/checkpoints, marks a restore under way: written first, removed last.
const restoringFile = "restoring"

// ErrNoCheckpoint is returned by Restore when the store holds no checkpoint.
var ErrNoCheckpoint = errors.New("the store holds no checkpoint")

// Restored is what Restore did.
type Restored struct {
	Manifest Manifest
	Later    int // sealed files in the store uploaded after the checkpoint: not restored
}

// Restore rebuilds dataDir from the last checkpoint in s: every sealed file it lists, then
// frontier.db, then index.db, each checked against the size and SHA-256 of the manifest. A
// sealed file uploaded after the checkpoint is left in the store (its captures are fetched
// again, as the frontier of the checkpoint has them to fetch). dataDir must hold neither
// index.db nor frontier.db, unless it holds a restore cut short (the marker
// DATA/checkpoints/restoring, written durably first and removed last): that one is run again
// (files already in place and whole are kept, temporary files of the cut one removed).
func Restore(ctx context.Context, s objectstore.Store, dataDir string) (Restored, error) {
	var r Restored
	if HoldsCrawl(dataDir) && !Restoring(dataDir) {
		return r, ErrNotEmpty
	}
	last, err := LastCheckpoint(ctx, s)
	if err != nil {
		return r, err
	}
	if last == "" {
		return r, fmt.Errorf("%s: %w", s, ErrNoCheckpoint)
	}
	b, err := readAll(ctx, s, manifestName(last))
	if err != nil {
		return r, err
	}
	if r.Manifest, err = parseManifest(b); err != nil {
		return r, fmt.Errorf("%s: %s: %w", s, manifestName(last), err)
	}
	m := r.Manifest
	sealed, checkpoints := layout.Sealed(dataDir), layout.Checkpoints(dataDir)
	for _, dir := range []string{sealed, checkpoints} {
		if err := durable.MkdirAll(dir, 0o700); err != nil {
			return r, err
		}
	}
	marker := filepath.Join(checkpoints, restoringFile)
	if err := durable.ReplaceFile(marker, []byte(m.Seq+"\n"), 0o600); err != nil {
		return r, err
	}
	if err := removeTemporary(dataDir, sealed); err != nil {
		return r, err
	}
	listed := map[string]bool{}
	var record bytes.Buffer
	for _, o := range m.Sealed {
		name := strings.TrimPrefix(o.Name, SealedPrefix)
		listed[name] = true
		if err := download(ctx, s, o, filepath.Join(sealed, name)); err != nil {
			return r, err
		}
		fmt.Fprintf(&record, "%s %d %s\n", name, o.Size, o.SHA256)
	}
	// The store's record of the uploads: they need not be put again.
	if err := durable.ReplaceFile(filepath.Join(checkpoints, uploadedFile), record.Bytes(), 0o600); err != nil {
		return r, err
	}
	if err := download(ctx, s, m.Frontier, layout.Frontier(dataDir)); err != nil {
		return r, err
	}
	if err := download(ctx, s, m.Index, layout.Index(dataDir)); err != nil {
		return r, err
	}
	if err := os.Remove(marker); err != nil {
		return r, err
	}
	if err := durable.SyncDir(checkpoints); err != nil {
		return r, err
	}
	later, err := s.List(ctx, SealedPrefix)
	if err != nil {
		return r, err
	}
	for _, o := range later {
		if !listed[strings.TrimPrefix(o.Name, SealedPrefix)] {
			r.Later++
		}
	}
	return r, nil
}

// HoldsCrawl reports whether dataDir holds a crawl's state (index.db or frontier.db).
func HoldsCrawl(dataDir string) bool {
	for _, p := range []string{layout.Index(dataDir), layout.Frontier(dataDir)} {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// LastCheckpoint is the SEQ of the last checkpoint in s, "" when it holds none.
func LastCheckpoint(ctx context.Context, s objectstore.Store) (string, error) {
	objs, err := s.List(ctx, CheckpointPrefix)
	if err != nil {
		return "", err
	}
	last := ""
	for _, o := range objs {
		if seq, ok := seqFromManifest(o.Name); ok && seq > last {
			last = seq
		}
	}
	return last, nil
}

// Restoring reports whether dataDir holds a restore cut short: only Restore may use it.
func Restoring(dataDir string) bool {
	_, err := os.Stat(filepath.Join(layout.Checkpoints(dataDir), restoringFile))
	return err == nil
}

// removeTemporary removes the temporary files a restore cut short left in dirs (download's,
// named by durable.WriteAtomically ".NAME.*.tmp").
func removeTemporary(dirs ...string) error {
	for _, dir := range dirs {
		tmps, err := filepath.Glob(filepath.Join(dir, ".*.tmp"))
		if err != nil {
			return err
		}
		for _, p := range tmps {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// readAll reads the whole object name of s.
func readAll(ctx context.Context, s objectstore.Store, name string) ([]byte, error) {
	rc, err := s.Read(ctx, name, 0, -1)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// download writes o to path, durably, once its size and SHA-256 match the manifest's; a file
// already at path that matches is kept.
func download(ctx context.Context, s objectstore.Store, o Object, path string) error {
	if size, sum, err := hashFile(path); err == nil && size == o.Size && sum == o.SHA256 {
		return nil
	}
	return durable.WriteAtomically(path, 0o600, func(w io.Writer) error {
		rc, err := s.Read(ctx, o.Name, 0, -1)
		if err != nil {
			return err
		}
		defer rc.Close()
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(w, h), rc)
		if err != nil {
			return fmt.Errorf("%s: read %s: %w", s, o.Name, err)
		}
		if sum := hex.EncodeToString(h.Sum(nil)); n != o.Size || sum != o.SHA256 {
			return fmt.Errorf("%s: %s holds %d bytes of SHA-256 %s, the checkpoint says %d bytes of %s", s, o.Name, n, sum, o.Size, o.SHA256)
		}
		return nil
	})
}

// hashFile is the size and SHA-256 of the file at path.
func hashFile(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	return objectstore.Sum(f)
}
