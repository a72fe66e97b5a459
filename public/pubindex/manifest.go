package pubindex

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/public"
)

// Manifest is public/index/manifest.json: the segments of one generation and its totals.
// Replacing it is the index's commit point.
type Manifest struct {
	Generation int64         `json:"generation"` // the state.json generation it was written with
	Segments   []SegmentInfo `json:"segments"`   // oldest first
	Stats      Stats         `json:"stats"`
}

// SegmentInfo is one segment as the manifest lists it.
type SegmentInfo struct {
	Name  string `json:"name"`  // under public/index/
	Size  int64  `json:"size"`  // bytes: a torn file is shorter
	Lines int64  `json:"lines"` // CDXJ lines it holds
	Check uint32 `json:"check"` // the CRC-32C of its footer: which file this is
}

// Stats are a generation's totals, as the lookup shows them: a capture with both a tombstone
// and a released line counts once, as released.
type Stats struct {
	Released  int64 `json:"released"`        // captures released
	Embargoed int64 `json:"embargoed"`       // captures public only as a tombstone
	Malformed int64 `json:"malformed_lines"` // CDXJ lines left out when the index was rebuilt
	Days      []Day `json:"days"`            // embargoed captures per release day (UTC), ascending
}

// Day is how many embargoed captures come due on one UTC day.
type Day struct {
	Date     string `json:"date"` // YYYY-MM-DD
	Captures int64  `json:"captures"`
}

// ReadManifest reads the manifest of the public directory fsys; found is false when there is none.
func ReadManifest(fsys fs.FS) (m Manifest, found bool, err error) {
	name := path.Join(Dir, ManifestFile)
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return m, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("read public/%s: %w", name, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, false, &DamageError{File: name, Reason: fmt.Sprintf("not a manifest: %v", err)}
	}
	for _, s := range m.Segments {
		if !isSegmentName(s.Name) {
			return m, false, &DamageError{File: name, Reason: fmt.Sprintf("lists %q, not a segment name", s.Name)}
		}
	}
	return m, true, nil
}

// marshalManifest renders the manifest as it is written: indented, with a final newline.
func marshalManifest(m Manifest) ([]byte, error) {
	if m.Segments == nil {
		m.Segments = []SegmentInfo{}
	}
	if m.Stats.Days == nil {
		m.Stats.Days = []Day{}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("public index manifest: %w", err)
	}
	return append(b, '\n'), nil
}

// WriteManifest replaces public/index/manifest.json under publicDir atomically and durably.
func WriteManifest(publicDir string, m Manifest) error {
	b, err := marshalManifest(m)
	if err != nil {
		return err
	}
	dir := filepath.Join(publicDir, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("public index: %w", err)
	}
	if err := durable.ReplaceFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
		return fmt.Errorf("public index: %w", err)
	}
	return nil
}

// RemoveSegments deletes the named segments from public/index/ under publicDir; one already
// gone is no error (a commit replayed after a crash removes them again).
func RemoveSegments(publicDir string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	dir := filepath.Join(publicDir, Dir)
	for _, n := range names {
		if !isSegmentName(n) {
			return fmt.Errorf("public index: refusing to remove %q, not a segment name", n)
		}
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("public index: %w", err)
		}
	}
	if err := durable.SyncDir(dir); err != nil {
		return fmt.Errorf("public index: %w", err)
	}
	return nil
}

// Clean deletes every file of public/index/ under publicDir that the manifest does not list:
// what a commit or rebuild interrupted before its manifest was written left behind. Only the
// one writer of public/ may call it (the release pass, under its lock).
func Clean(publicDir string) error {
	m, found, err := ReadManifest(os.DirFS(publicDir))
	if err != nil || !found {
		return err
	}
	keep := map[string]bool{ManifestFile: true}
	for _, s := range m.Segments {
		keep[s.Name] = true
	}
	dir := filepath.Join(publicDir, Dir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("public index: %w", err)
	}
	removed := false
	for _, e := range ents {
		if keep[e.Name()] || e.IsDir() {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("public index: %w", err)
		}
		removed = true
	}
	if removed {
		if err := durable.SyncDir(dir); err != nil {
			return fmt.Errorf("public index: %w", err)
		}
	}
	return nil
}

// cdxjCount is how many public CDXJ files fsys holds.
func cdxjCount(fsys fs.FS) (int, error) {
	names, err := public.CDXJFiles(fsys)
	return len(names), err
}
