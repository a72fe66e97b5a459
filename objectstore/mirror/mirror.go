// Package mirror is a lookup node's view of a shared store (package publish): the union of
// every node's latest generation, as a public directory the lookup service serves unchanged.
//
// Only the public index is kept locally: the CDXJ files of each node's generation are
// downloaded (checked against the manifest's SHA-256) into a cache directory, with each line's
// file name given the node's name (shards/NODE/PUBLIC-….warc.gz), the view's own public index
// (index/, package pubindex) is brought to those lines, and a state.json summing the nodes' is
// written last. Records are never copied: FS opens shards/NODE/… as the object
// nodes/NODE/shards/… of the store, read by ranged GETs. Refresh follows new generations (one
// listing of the store's manifests); lookup nodes given the same store build the same view
// and answer identically. A mirror only reads: a read-only identity is all it needs.
package mirror

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/watch"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/publish"
	"github.com/archivectl/archivectl/public"
)

// Options tune a Mirror; the zero value is usable.
type Options struct {
	Logger  *slog.Logger  // default slog.Default()
	Refresh time.Duration // how often Watch lists the store's manifests (default 5s)
}

// Mirror is the local view of a store.
type Mirror struct {
	s     objectstore.Store
	dir   string // the view: a public directory of CDXJ files and state.json
	opt   Options
	log   *slog.Logger
	mu    sync.Mutex // serialises Refresh
	view  sync.Map   // node → *publish.Manifest in the view
	gens  map[string]int64
	files map[string]string // view path → SHA-256 of its source object
	stale bool              // the view's index may not match its CDXJ files: rebuild it
}

// Open returns the mirror of s in cacheDir (created if needed) with the store's latest
// generations in place; the store must be reachable.
func Open(ctx context.Context, s objectstore.Store, cacheDir string, opt Options) (*Mirror, error) {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Refresh <= 0 {
		opt.Refresh = 5 * time.Second
	}
	m := &Mirror{s: s, dir: cacheDir, opt: opt, log: opt.Logger, gens: map[string]int64{}, files: map[string]string{}}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("mirror: %w", err)
	}
	if err := m.known(); err != nil {
		return nil, err
	}
	if err := m.tidy(); err != nil {
		return nil, err
	}
	if _, err := m.Refresh(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

// Dir is the view's directory.
func (m *Mirror) Dir() string { return m.dir }

// known records the CDXJ files an earlier run left in the view, with their sources' sums.
func (m *Mirror) known() error {
	b, err := os.ReadFile(filepath.Join(m.dir, sumsFile))
	if errors.Is(err, fs.ErrNotExist) {
		m.stale = true
		return nil
	}
	if err == nil {
		err = json.Unmarshal(b, &m.files)
	}
	if err != nil {
		m.files = map[string]string{} // a damaged list only costs downloads and a rebuild
		m.stale = true
	}
	return nil
}

// sumsFile lists the view's CDXJ files and their sources' SHA-256; the lookup ignores it.
const sumsFile = "mirror-sums.json"

// Refresh brings the view to every node's latest generation in the store and reports whether
// it changed. On an error the previous view stays whole and in service.
func (m *Mirror) Refresh(ctx context.Context) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	committed, err := publish.Committed(ctx, m.s)
	if err != nil {
		return false, fmt.Errorf("mirror: %w", err)
	}
	latest := map[string]int64{}
	for node, gens := range committed {
		latest[node] = gens[len(gens)-1]
	}
	if maps.Equal(latest, m.gens) {
		return false, nil
	}
	manifests := map[string]*publish.Manifest{}
	for node, g := range latest {
		if cur, ok := m.view.Load(node); ok && cur.(*publish.Manifest).Generation == g {
			manifests[node] = cur.(*publish.Manifest)
			continue
		}
		mf, err := publish.ReadManifest(ctx, m.s, node, g)
		if err != nil {
			return false, fmt.Errorf("mirror: %w", err)
		}
		manifests[node] = mf
	}
	want := map[string]string{} // view path → source SHA-256
	var added []string
	rebuild := m.stale
	for _, node := range slices.Sorted(maps.Keys(manifests)) {
		mf := manifests[node]
		for _, f := range mf.Files {
			if !strings.HasSuffix(f.Path, public.CDXJExt) {
				continue
			}
			vp, ok := viewPath(node, f.Path)
			if !ok {
				continue
			}
			want[vp] = f.SHA256
			if m.files[vp] == f.SHA256 {
				continue
			}
			if err := m.fetchCDXJ(ctx, node, f, vp); err != nil {
				return false, fmt.Errorf("mirror: %w", err)
			}
			if _, had := m.files[vp]; had {
				rebuild = true // rewritten: its old lines are in the index
			} else {
				added = append(added, vp)
			}
			m.files[vp] = f.SHA256
		}
	}
	status, gen, err := union(manifests)
	if err != nil {
		return false, fmt.Errorf("mirror: %w", err)
	}
	// Records first: a new generation only adds record files, so the lookup, still on the old
	// index, finds every record it names; then the index and state.json, which make it reload.
	for node, mf := range manifests {
		m.view.Store(node, mf)
	}
	m.view.Range(func(k, _ any) bool {
		if _, ok := manifests[k.(string)]; !ok {
			m.view.Delete(k)
		}
		return true
	})
	for vp := range m.files {
		if _, ok := want[vp]; !ok {
			os.Remove(filepath.Join(m.dir, filepath.FromSlash(vp)))
			delete(m.files, vp)
			rebuild = true
		}
	}
	if err := m.updateIndex(ctx, gen, added, rebuild); err != nil {
		m.stale = true // the next refresh rebuilds it; the index in place still serves
		return false, fmt.Errorf("mirror: %w", err)
	}
	m.stale = false
	if err := durable.ReplaceFile(filepath.Join(m.dir, layout.StateFile), status, 0o644); err != nil {
		return false, fmt.Errorf("mirror: %w", err)
	}
	if b, err := json.Marshal(m.files); err == nil {
		durable.ReplaceFile(filepath.Join(m.dir, sumsFile), b, 0o644)
	}
	m.gens = latest
	m.log.Info("mirror refreshed", "store", m.s.String(), "nodes", len(latest), "generations", latest)
	return true, nil
}

// Watch refreshes the view every Options.Refresh until ctx ends; a failed refresh is logged
// and tried again at the next tick, the previous view serving meanwhile.
func (m *Mirror) Watch(ctx context.Context) {
	watch.Every(ctx, m.opt.Refresh, func(ctx context.Context) error {
		_, err := m.Refresh(ctx)
		return err
	}, func(err error) {
		m.log.Warn("mirror not refreshed; serving the previous view and retrying", "err", err)
	})
}

// viewPath is where a node's CDXJ file goes in the view: in the same directory, its name
// prefixed by the node's (node names hold no '~').
func viewPath(node, p string) (string, bool) {
	dir, name, ok := strings.Cut(p, "/")
	if !ok || strings.Contains(name, "/") || dir != layout.ShardsDir && dir != layout.TombstonesDir {
		return "", false
	}
	return dir + "/" + node + "~" + name, true
}

// union is the view's state.json: the nodes' generations and counts summed, the latest pass,
// the earliest next release, and ahead_of_clock when any node's last pass ran ahead of its clock.
func union(ms map[string]*publish.Manifest) ([]byte, int64, error) {
	var u public.Status
	for _, node := range slices.Sorted(maps.Keys(ms)) {
		var st public.Status
		if err := json.Unmarshal([]byte(ms[node].Status), &st); err != nil {
			return nil, 0, fmt.Errorf("node %s generation %d: status: %w", node, ms[node].Generation, err)
		}
		u.Generation += st.Generation
		u.Released += st.Released
		u.Tombstoned += st.Tombstoned
		if st.LastPass.After(u.LastPass) {
			u.LastPass = st.LastPass
		}
		if st.NextRelease != nil && (u.NextRelease == nil || st.NextRelease.Before(*u.NextRelease)) {
			u.NextRelease = st.NextRelease
		}
		u.AheadOfClock = u.AheadOfClock || st.AheadOfClock
		u.Software = st.Software
	}
	b, err := public.MarshalStatus(u)
	return b, u.Generation, err
}
