// Package offsite keeps a crawl node's sealed side in an object store of its own (the
// `sealed:` setting), so that a node whose disk is lost is rebuilt from it: the sealed WARC files,
// uploaded once closed, and checkpoints of index.db and frontier.db, consistent bbolt snapshots
// taken together with the sealed files closed.
//
// # Layout of the store
//
//	sealed/<NAME>.warc.gz                    a sealed WARC file, closed, under its own (never reused) name
//	checkpoints/<SEQ>/index.db               the index at checkpoint SEQ
//	checkpoints/<SEQ>/frontier.db            the frontier at checkpoint SEQ
//	checkpoints/<SEQ>.json                   the checkpoint's manifest (Manifest), put last: its commit
//
// SEQ is the checkpoint's time in nanoseconds since 1970, 20 digits, so names sort in time
// order; an uploader names each checkpoint after the last one in the store when it starts (and
// after its own), so a restored node's, or one whose clock stepped back, sort after the ones
// before whatever its clock says. Every
// object is written once (objectstore.Store.Put, create-once, its SHA-256 checked by the store);
// nothing is rewritten or deleted.
//
// # Locally
//
//	DATA/checkpoints/<SEQ>/    a checkpoint taken and not yet uploaded: index.db, frontier.db, files
//	                           (the newest, and the one being put: taking one removes the others)
//	DATA/checkpoints/restoring a restore under way (Restore): crawl --restore alone may use the directory
//	DATA/checkpoints/uploaded  the sealed files uploaded, one "NAME SIZE SHA256" a line, fsynced
//
// The upload is off the crawl's path: the crawler takes a checkpoint (Uploader.Take) and a
// goroutine of the Uploader puts the files and the checkpoint, resuming after a kill from
// what is left in DATA/checkpoints. A capture is safe from the loss of the node's disk once a
// checkpoint after its seal is committed in the store; Restore rebuilds a data directory from
// the last one (docs/architecture.md#sealed-bucket).
package offsite

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Prefixes of the store.
const (
	SealedPrefix     = "sealed/"
	CheckpointPrefix = "checkpoints/"
)

// manifestFormat names the manifest's format.
const manifestFormat = "archivectl-checkpoint/1"

// Object is one file of a checkpoint, by its name in the store.
type Object struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Manifest is checkpoints/SEQ.json: what a restore downloads.
type Manifest struct {
	Format   string    `json:"format"`
	Seq      string    `json:"seq"`
	Time     time.Time `json:"time"`
	Index    Object    `json:"index"`
	Frontier Object    `json:"frontier"`
	Sealed   []Object  `json:"sealed"` // every sealed file at the checkpoint, in name order
}

// Seq is the name (SEQ) of a checkpoint taken at t.
func Seq(t time.Time) string { return fmt.Sprintf("%020d", t.UnixNano()) }

// manifestName is the store name of checkpoint seq's manifest.
func manifestName(seq string) string { return CheckpointPrefix + seq + ".json" }

// seqFromManifest is the SEQ of a manifest's store name; ok is false for any other name.
func seqFromManifest(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, CheckpointPrefix)
	if !ok {
		return "", false
	}
	seq, ok := strings.CutSuffix(rest, ".json")
	return seq, ok && validSeq(seq)
}

// validSeq reports whether s is a checkpoint's SEQ.
func validSeq(s string) bool {
	if len(s) != 20 {
		return false
	}
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// parseManifest reads a manifest and checks what a restore relies on.
func parseManifest(b []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("checkpoint manifest: %w", err)
	}
	if m.Format != manifestFormat {
		return m, fmt.Errorf("checkpoint manifest: format %q, want %q", m.Format, manifestFormat)
	}
	objs := append([]Object{m.Index, m.Frontier}, m.Sealed...)
	for _, o := range objs {
		if o.Name == "" || len(o.SHA256) != 64 || o.Size < 0 {
			return m, fmt.Errorf("checkpoint manifest: object %q has no name, size or SHA-256", o.Name)
		}
	}
	for _, o := range m.Sealed {
		if name, ok := strings.CutPrefix(o.Name, SealedPrefix); !ok || !validFileName(name) {
			return m, fmt.Errorf("checkpoint manifest: %q is not a sealed file", o.Name)
		}
	}
	return m, nil
}

// validFileName reports whether name is a sealed WARC file's name a restore may create.
func validFileName(name string) bool {
	return strings.HasSuffix(name, ".warc.gz") && !strings.ContainsAny(name, "/\\") && !strings.HasPrefix(name, ".")
}
