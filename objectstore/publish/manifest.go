package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/objectstore"
)

// Format names the manifest format; a reader refuses any other.
const Format = "archivectl-public-generation/1"

// Keep is how many of a node's latest generations stay readable: a reader that has just read
// the manifest before the latest still finds every object it lists.
const Keep = 2

// Manifest is one committed generation of a node: every file of its public/ at that
// generation and where each is in the store.
type Manifest struct {
	Format     string    `json:"format"`
	Node       string    `json:"node"`
	DataID     string    `json:"data_id"`    // the publishing data directory's id
	Generation int64     `json:"generation"` // state.json's generation
	Published  time.Time `json:"published"`  // when Publish committed it
	Status     string    `json:"status"`     // public/state.json, byte for byte
	Files      []File    `json:"files"`      // every other file of public/ but the release log, by path
	Log        []File    `json:"log"`        // release-log.jsonl in parts, in order (Path is the log's)
}

// LogSize is the size of the release log the manifest commits.
func (m *Manifest) LogSize() int64 {
	var n int64
	for _, f := range m.Log {
		n += f.Size
	}
	return n
}

// File is one file of public/ and its object.
type File struct {
	Path   string `json:"path"`   // relative to public/
	Object string `json:"object"` // relative to the node's prefix, nodes/NODE/
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"` // hex
}

// File returns the entry for path, if the manifest lists it.
func (m *Manifest) File(p string) (File, bool) {
	i, ok := slices.BinarySearchFunc(m.Files, p, func(f File, p string) int { return strings.Compare(f.Path, p) })
	if !ok {
		return File{}, false
	}
	return m.Files[i], true
}

// nodeName is a node's name: lower-case letters, digits and hyphens, 1-63 long.
var nodeName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// ValidNode tells why name cannot name a node, or nil.
func ValidNode(name string) error {
	if !nodeName.MatchString(name) {
		return fmt.Errorf("node name %q: use 1-63 lower-case letters, digits and '-', starting with a letter or digit", name)
	}
	return nil
}

// DefaultNode is the node name from this machine's host name (its first label, lower case,
// other characters as '-'), or "node" without one.
func DefaultNode() string {
	h, _ := os.Hostname()
	h, _, _ = strings.Cut(strings.ToLower(h), ".")
	b := []byte(h)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	n := strings.Trim(string(b), "-")
	if len(n) > 63 {
		n = n[:63]
	}
	if ValidNode(n) != nil {
		return "node"
	}
	return n
}

// NodePrefix is where a node's objects are: nodes/NODE/.
func NodePrefix(node string) string { return "nodes/" + node + "/" }

// generationsDir holds every node's manifests.
const generationsDir = "generations/"

// ManifestName is the object of a node's manifest of generation g.
func ManifestName(node string, g int64) string {
	return fmt.Sprintf("%s%s/%020d.json", generationsDir, node, g)
}

// parseManifestName returns the node and generation of a manifest object's name.
func parseManifestName(name string) (node string, g int64, ok bool) {
	rest, ok := strings.CutPrefix(name, generationsDir)
	if !ok {
		return "", 0, false
	}
	node, file, ok := strings.Cut(rest, "/")
	digits, isJSON := strings.CutSuffix(file, ".json")
	if !ok || !isJSON || len(digits) != 20 || ValidNode(node) != nil {
		return "", 0, false
	}
	g, err := strconv.ParseInt(digits, 10, 64)
	return node, g, err == nil
}

// generationCopy is the object of a generation's copy of a file public/ rewrites in place.
func generationCopy(g int64, p string) string { return fmt.Sprintf("g/%020d/%s", g, p) }

// logPart is the object of the release log's bytes from offset, added in generation g.
func logPart(g, offset int64) string { return fmt.Sprintf("log/%020d-%020d.jsonl", g, offset) }

// Committed lists every node's committed generations in the store: node → generations, ascending.
func Committed(ctx context.Context, s objectstore.Store) (map[string][]int64, error) {
	objs, err := s.List(ctx, generationsDir)
	if err != nil {
		return nil, err
	}
	out := map[string][]int64{}
	for _, o := range objs {
		if node, g, ok := parseManifestName(o.Name); ok {
			out[node] = append(out[node], g) // List is in name order: ascending
		}
	}
	return out, nil
}

// ReadManifest reads and checks a node's manifest of generation g.
func ReadManifest(ctx context.Context, s objectstore.Store, node string, g int64) (*Manifest, error) {
	name := ManifestName(node, g)
	r, err := s.Read(ctx, name, 0, -1)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, 1<<30))
	if err != nil {
		return nil, fmt.Errorf("%s: read %s: %w", s, name, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %s is not a generation manifest: %w", s, name, err)
	}
	if err := m.check(node, g); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", s, name, err)
	}
	return &m, nil
}

// check verifies what a reader relies on: the format, the name, and entries that stay inside
// the node's prefix, sorted by path.
func (m *Manifest) check(node string, g int64) error {
	switch {
	case m.Format != Format:
		return fmt.Errorf("format %q, not %q", m.Format, Format)
	case m.Node != node || m.Generation != g:
		return fmt.Errorf("holds node %q generation %d, not what its name says", m.Node, m.Generation)
	case !json.Valid([]byte(m.Status)):
		return fmt.Errorf("its status is not JSON")
	}
	for i, f := range m.Files {
		if !f.valid() {
			return fmt.Errorf("bad entry %+v", f)
		}
		if i > 0 && m.Files[i-1].Path >= f.Path {
			return fmt.Errorf("entries not sorted by path at %q", f.Path)
		}
	}
	for _, f := range m.Log {
		if !f.valid() {
			return fmt.Errorf("bad log part %+v", f)
		}
	}
	return nil
}

// valid tells whether an entry names clean relative paths and has a size and a SHA-256.
func (f File) valid() bool {
	return fs.ValidPath(f.Path) && f.Path != "." && fs.ValidPath(f.Object) && f.Object != "." && f.Size >= 0 && len(f.SHA256) == 64
}

// Latest reads a node's latest committed manifest; found is false when it has none.
func Latest(ctx context.Context, s objectstore.Store, node string) (m *Manifest, found bool, err error) {
	all, err := Committed(ctx, s)
	if err != nil {
		return nil, false, err
	}
	gens := all[node]
	if len(gens) == 0 {
		return nil, false, nil
	}
	m, err = ReadManifest(ctx, s, node, gens[len(gens)-1])
	return m, err == nil, err
}
