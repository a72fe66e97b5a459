package release

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/archivectl/archivectl/release/public"
	"github.com/archivectl/archivectl/store"
	"github.com/archivectl/archivectl/store/layout"
	"github.com/archivectl/archivectl/store/lockfile"
	"github.com/nlnwa/gowarc/v3"
)

// minBodyCheck is the shortest payload Verify looks for inside tombstones: shorter bodies
// ("OK", "{}") occur in any JSON by chance.
const minBodyCheck = 8

// Verify checks the public side of dataDir against the sealed repository and the audit log:
// every public WARC record parses strictly and is byte-equal to its sealed source; every CDXJ
// line points at its record and agrees with the index; every capture is released at most
// once; every tombstone is well-formed and free of body bytes; nothing public has a release
// time after the pass that published it. It returns one line per problem.
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
	if c.Released != len(v.released) {
		v.problem("index.db counts %d released captures, public/shards holds %d", c.Released, len(v.released))
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
		if e.Event == public.EventReleased && e.ReleaseAt.After(e.Pass) {
			v.problem("%s: capture %s was released by the pass at %s before its release time %s", e.File, e.ID, e.Pass.Format(time.RFC3339), e.ReleaseAt.Format(time.RFC3339))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	return nil
}

// checkFile reads one public WARC file record by record, then its CDXJ.
func (v *verifier) checkFile(rel string, shard bool) error {
	path := filepath.Join(layout.Public(v.dir), filepath.FromSlash(rel))
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("release verify: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("release verify: %w", err)
	}
	if st.Mode().Perm()&0o444 != 0o444 {
		v.problem("%s: not world-readable (mode %v)", rel, st.Mode().Perm())
	}
	first := true
	err = store.ScanFile(path, func(loc store.Location, rec gowarc.WarcRecord) error {
		v.checkMember(f, rec, rel, loc.Offset, loc.Length, first, shard)
		first = false
		return nil
	})
	if err != nil {
		v.problem("%s: %v", rel, err)
	}
	v.checkCDXJ(rel, shard)
	return nil
}

// checkMember checks one record of a public file.
func (v *verifier) checkMember(f *os.File, rec gowarc.WarcRecord, rel string, off, length int64, first, shard bool) {
	if first {
		if rec.Type() != gowarc.Warcinfo {
			v.problem("%s: the first record is %s, not warcinfo", rel, rec.Type())
		}
		return
	}
	k := memberKey{rel, off}
	ref, ok := v.logged[k]
	if !ok {
		v.problem("%s offset %d: a %s record the audit log does not account for", rel, off, rec.Type())
		return
	}
	ref.seen = true
	v.logged[k] = ref
	e, found := v.entries[ref.e.ID]
	if !found {
		v.problem("%s offset %d: capture %s is not in index.db", rel, off, ref.e.ID)
		return
	}
	if ref.kind == "tombstone" {
		if shard {
			v.problem("%s offset %d: a tombstone inside a shard", rel, off)
		}
		v.checkTombstone(rec, rel, off, e)
		return
	}
	if !shard {
		v.problem("%s offset %d: a released record inside a tombstone file", rel, off)
	}
	src := map[string]store.Location{"request": e.Request, "response": e.Response, "metadata": e.Metadata}[ref.kind]
	if src.Length != length {
		v.problem("%s offset %d: the %s of %s is %d bytes, sealed it is %d", rel, off, ref.kind, e.ID, length, src.Length)
		return
	}
	if err := sameBytes(f, off, length, layout.Sealed(v.dir), src); err != nil {
		v.problem("%s offset %d: the %s of %s differs from its sealed source: %v", rel, off, ref.kind, e.ID, err)
	}
	if e.ReleaseAt.After(ref.e.Pass) {
		v.problem("%s offset %d: capture %s (release time %s) was published by the pass at %s", rel, off, e.ID, e.ReleaseAt.Format(time.RFC3339), ref.e.Pass.Format(time.RFC3339))
	}
}

// checkTombstone checks that a tombstone record holds the capture's public facts and no body byte.
func (v *verifier) checkTombstone(rec gowarc.WarcRecord, rel string, off int64, e store.Entry) {
	where := fmt.Sprintf("%s offset %d (tombstone of %s)", rel, off, e.ID)
	if rec.Type() != gowarc.Metadata || rec.WarcHeader().Get(gowarc.ContentType) != public.TombstoneType {
		v.problem("%s: a %s record of type %q, not a metadata record of %s", where, rec.Type(), rec.WarcHeader().Get(gowarc.ContentType), public.TombstoneType)
		return
	}
	if rec.WarcHeader().Get(gowarc.WarcRefersTo) != store.IDRef(e.ID) {
		v.problem("%s: WARC-Refers-To is %q", where, rec.WarcHeader().Get(gowarc.WarcRefersTo))
	}
	rd, err := rec.Block().RawBytes()
	if err != nil {
		v.problem("%s: %v", where, err)
		return
	}
	block, err := io.ReadAll(rd)
	if err != nil {
		v.problem("%s: %v", where, err)
		return
	}
	dec := json.NewDecoder(bytes.NewReader(block))
	dec.DisallowUnknownFields()
	var t public.Tombstone
	if err := dec.Decode(&t); err != nil {
		v.problem("%s: not a tombstone document: %v", where, err)
		return
	}
	want, _ := json.Marshal(tombstoneOf(e))
	got, _ := json.Marshal(t)
	if !bytes.Equal(want, got) {
		v.problem("%s: its facts differ from index.db", where)
	}
	var wantDoc any
	json.Unmarshal(want, &wantDoc)
	facts := map[string]bool{}
	for _, s := range jsonStrings(wantDoc, nil) {
		facts[s] = true
	}
	body, err := sealedPayload(layout.Sealed(v.dir), e.Response)
	if err != nil {
		v.problem("%s: read the sealed response: %v", where, err)
		return
	}
	if leaks(block, body, facts) {
		v.problem("%s: holds the capture's body", where)
	}
}

// leakWindow is the run of body bytes Verify looks for in a tombstone's strings: any run of
// 2×leakWindow body bytes contains a window at a multiple of leakWindow.
const leakWindow = 32

// leaks reports whether a tombstone block holds body bytes: the whole body (when at least
// minBodyCheck bytes) or any run of 2×leakWindow of them, in any string of the decoded document
// that is not one of the capture's indexed facts (its URL, headers, digests…), which may
// legitimately repeat text of the page. A block that is not JSON is checked raw.
func leaks(block, body []byte, facts map[string]bool) bool {
	if len(body) < minBodyCheck {
		return false
	}
	texts := [][]byte{block}
	var doc any
	if json.Unmarshal(block, &doc) == nil {
		texts = texts[:0]
		for _, s := range jsonStrings(doc, nil) {
			if !facts[s] {
				texts = append(texts, []byte(s))
			}
		}
	}
	for _, t := range texts {
		if bytes.Contains(t, body) {
			return true
		}
		for i := 0; i+leakWindow <= len(t); i += leakWindow {
			if bytes.Contains(body, t[i:i+leakWindow]) {
				return true
			}
		}
	}
	return false
}

// jsonStrings collects every string (keys and values) of a decoded JSON document.
func jsonStrings(v any, out []string) []string {
	switch x := v.(type) {
	case string:
		out = append(out, x)
	case []any:
		for _, e := range x {
			out = jsonStrings(e, out)
		}
	case map[string]any:
		for k, e := range x {
			out = jsonStrings(e, append(out, k))
		}
	}
	return out
}

// checkCDXJ checks the CDXJ beside a public WARC file.
func (v *verifier) checkCDXJ(rel string, shard bool) {
	crel := public.CDXJName(rel)
	b, err := os.ReadFile(filepath.Join(layout.Public(v.dir), filepath.FromSlash(crel)))
	if err != nil {
		v.problem("%s: %v", crel, err)
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var prev []byte
	for n := 1; sc.Scan(); n++ {
		raw := sc.Bytes()
		if prev != nil && bytes.Compare(prev, raw) > 0 {
			v.problem("%s line %d: not byte-sorted", crel, n)
		}
		prev = append(prev[:0], raw...)
		l, err := public.ParseLine(raw)
		if err != nil {
			v.problem("%s line %d: %v", crel, n, err)
			continue
		}
		ref, ok := v.logged[memberKey{l.Filename, l.Offset}]
		kind := map[bool]string{true: "response", false: "tombstone"}[shard]
		wantState := map[bool]string{true: public.StateReleased, false: public.StateEmbargoed}[shard]
		switch {
		case l.Filename != rel:
			v.problem("%s line %d: filename %q is not %q", crel, n, l.Filename, rel)
		case l.State != wantState:
			v.problem("%s line %d: state %q in a %s file", crel, n, l.State, kind)
		case !ok || ref.kind != kind || ref.e.ID != l.ID || ref.e.Length != l.Length:
			v.problem("%s line %d: capture %s at offset %d is not the %s record the audit log has there", crel, n, l.ID, l.Offset, kind)
		}
		e, found := v.entries[l.ID]
		if !found {
			v.problem("%s line %d: capture %s is not in index.db or not in the audit log", crel, n, l.ID)
			continue
		}
		if l.ReleaseAt != e.ReleaseAt.UTC().Format(time.RFC3339Nano) || l.Digest != e.PayloadDigest || l.URL != e.URL {
			v.problem("%s line %d: capture %s: url, digest or release_at differ from index.db", crel, n, l.ID)
		}
		if shard {
			if other, dup := v.released[l.ID]; dup {
				v.problem("%s line %d: capture %s is released twice (also in %s)", crel, n, l.ID, other)
			}
			v.released[l.ID] = rel
			pub := store.Location{File: l.Filename, Offset: l.Offset, Length: l.Length}
			if e.State != store.Released || e.Public != pub {
				v.problem("%s line %d: capture %s is %s in index.db at %+v", crel, n, l.ID, e.State, e.Public)
			}
		} else if e.State == store.Sealed {
			v.problem("%s line %d: capture %s has a tombstone but index.db says sealed", crel, n, l.ID)
		}
	}
}

// sameBytes compares a public member with its sealed source.
func sameBytes(f *os.File, off, length int64, sealed string, src store.Location) error {
	rc, err := store.MemberReader(sealed, src)
	if err != nil {
		return err
	}
	defer rc.Close()
	a := bufio.NewReader(io.NewSectionReader(f, off, length))
	b := bufio.NewReader(rc)
	var pa, pb [32 << 10]byte
	for pos := int64(0); pos < length; {
		n := int(min(int64(len(pa)), length-pos))
		if _, err := io.ReadFull(a, pa[:n]); err != nil {
			return err
		}
		if _, err := io.ReadFull(b, pb[:n]); err != nil {
			return err
		}
		if !bytes.Equal(pa[:n], pb[:n]) {
			return fmt.Errorf("first difference within bytes %d–%d", pos, pos+int64(n))
		}
		pos += int64(n)
	}
	return nil
}

// sealedPayload is the HTTP payload of a sealed response record.
func sealedPayload(sealed string, loc store.Location) ([]byte, error) {
	rec, err := store.ReadAt(sealed, loc)
	if err != nil {
		return nil, err
	}
	defer rec.Close()
	pb, ok := rec.Block().(gowarc.PayloadBlock)
	if !ok {
		return nil, nil
	}
	r, err := pb.PayloadBytes()
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}
