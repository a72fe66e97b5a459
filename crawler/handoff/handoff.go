// Package handoff is the hand-off of URLs between the nodes of a partitioned crawl through the
// shared object store, after Heritrix's diversion files: a node that meets a URL whose origin
// another partition owns writes it, with its provenance, into a batch object for that
// partition; the owner reads its batches, fetches what its frontier lacks and deletes them.
// A batch names URLs and provenance only, never content.
//
// # Layout of the store
//
//	handoff/<J>/<writer node>-<seq, 20 digits>.jsonl  URLs for the node of partition J, one Entry a line
//
// The prefix is apart from what objectstore/publish writes (generations/, nodes/), so the
// public side never publishes, mirrors or cleans a batch. Names never collide: each writer
// numbers its batches itself, and Put is a create-once write (If-None-Match: * on S3) that
// succeeds again only for the same bytes, so a writer repeating a put it was not sure of
// (killed after it) cannot make a second batch. The durable bookkeeping on both sides (what
// is to be sent, which batch is reserved under which number, which batches were consumed) is
// the crawler's, in its frontier.
package handoff

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/objectstore"
)

// Prefix is where every batch lives in the shared store.
const Prefix = "handoff/"

// MaxBatch is the most entries one batch holds; MaxObject the most bytes a batch read may
// have: a larger object is refused, not read.
const (
	MaxBatch  = 10000
	MaxObject = 32 << 20
)

// Kinds of Entry.
const (
	KindRequisite = "requisite" // embedded by a page or stylesheet of the writer's
	KindPage      = "page"      // in a scope wider than an origin: a link, or an embed (with RequisiteOf)
)

// Entry is one URL handed to its owner, with where it was found.
type Entry struct {
	URL           string `json:"url"`
	Kind          string `json:"kind"`                      // KindRequisite or KindPage
	Depth         int    `json:"depth,omitempty"`           // links followed from a seed
	Hops          int    `json:"hops,omitempty"`            // a requisite: embeds followed from its page
	RequisiteOf   string `json:"requisite_of,omitempty"`    // the embedding page or stylesheet, on the writer's node (a page: when embedded)
	RequisiteOfID string `json:"requisite_of_id,omitempty"` // its capture id there, when it was sealed
	// When the embedding page becomes public there (or a bound of it): the requisite is withheld
	// until then, since its URL was read from the page's body (docs/rules.md#d27).
	RequisiteOfReleaseAt time.Time `json:"requisite_of_release_at,omitzero"`
	From                 string    `json:"from"` // the writer's node name
}

// Dir is the prefix of partition j's batches.
func Dir(j int) string { return Prefix + strconv.Itoa(j) + "/" }

// Name is the object name of writer's batch seq for partition j.
func Name(j int, writer string, seq uint64) string {
	return fmt.Sprintf("%s%s-%020d.jsonl", Dir(j), writer, seq)
}

// Encode writes entries as JSON lines, in their order.
func Encode(entries []Entry) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		enc.Encode(e) // a struct of strings and ints: cannot fail
	}
	return b.Bytes()
}

// Decode reads a batch. Every line must be an Entry with an http(s) URL and a known kind; the
// first bad line is the error, naming it.
func Decode(b []byte) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Entry
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		switch {
		case !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://"):
			return nil, fmt.Errorf("line %d: %q is not an http(s) URL", n, e.URL)
		case e.Kind != KindRequisite && e.Kind != KindPage:
			return nil, fmt.Errorf("line %d: kind %q: want %q or %q", n, e.Kind, KindRequisite, KindPage)
		case e.Depth < 0 || e.Hops < 0:
			return nil, fmt.Errorf("line %d: negative depth or hops", n)
		case e.RequisiteOf != "" && e.RequisiteOfReleaseAt.IsZero():
			return nil, fmt.Errorf("line %d: a %s embedded without its page's release time (requisite_of_release_at)", n, e.Kind)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Put stores a batch under name, create-once; the same bytes already there count as stored.
func Put(ctx context.Context, s objectstore.Store, name string, b []byte) error {
	sum := sha256.Sum256(b)
	return s.Put(ctx, name, bytes.NewReader(b), int64(len(b)), hex.EncodeToString(sum[:]))
}

// List returns partition j's batches in name order.
func List(ctx context.Context, s objectstore.Store, j int) ([]objectstore.Object, error) {
	objs, err := s.List(ctx, Dir(j))
	if err != nil {
		return nil, err
	}
	kept := objs[:0]
	for _, o := range objs {
		if strings.HasSuffix(o.Name, ".jsonl") {
			kept = append(kept, o)
		}
	}
	return kept, nil
}

// ErrBad is wrapped by Read for an object that is no batch: larger than MaxObject, or a line
// that is no Entry. Reading it again cannot help.
var ErrBad = errors.New("not a hand-off batch")

// Read reads and decodes the batch o.
func Read(ctx context.Context, s objectstore.Store, o objectstore.Object) ([]Entry, error) {
	if o.Size > MaxObject {
		return nil, fmt.Errorf("%s: %w: %d bytes, more than %d", o.Name, ErrBad, o.Size, MaxObject)
	}
	r, err := s.Read(ctx, o.Name, 0, -1)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, MaxObject+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Name, err)
	}
	if len(b) > MaxObject {
		return nil, fmt.Errorf("%s: %w: more than %d bytes", o.Name, ErrBad, MaxObject)
	}
	entries, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", o.Name, ErrBad, err)
	}
	return entries, nil
}
