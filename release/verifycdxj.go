package release

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// checkCDXJ checks the CDXJ beside a public WARC file.
func (v *verifier) checkCDXJ(rel string, shard bool) {
	crel := public.CDXJName(rel)
	b, err := os.ReadFile(filepath.Join(layout.Public(v.dir), filepath.FromSlash(crel)))
	if err != nil {
		v.problem("%s: %v", crel, err)
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), public.MaxLineBytes) // the one limit of CDXJ lines
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
		file := public.PathOf(l.Filename) // a name, or the path lines of earlier versions hold
		ref, ok := v.logged[memberKey{file, l.Offset}]
		kind := map[bool]string{true: "response", false: "tombstone"}[shard]
		wantState := map[bool]string{true: public.StateReleased, false: public.StateTombstone}[shard]
		if !shard && l.State == public.StateEmbargoed {
			wantState = l.State // a tombstone line of an earlier version
		}
		switch {
		case file != rel:
			v.problem("%s line %d: filename %q is not %q", crel, n, l.Filename, path.Base(rel))
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
			pub := store.Location{File: file, Offset: l.Offset, Length: l.Length}
			if e.State != store.Released || e.Public != pub {
				v.problem("%s line %d: capture %s is %s in index.db at %+v", crel, n, l.ID, e.State, e.Public)
			}
		} else if e.State == store.Sealed {
			v.problem("%s line %d: capture %s has a tombstone but index.db says sealed", crel, n, l.ID)
		}
	}
	if err := sc.Err(); err != nil { // a line longer than public.MaxLineBytes: the lines after it go unread
		v.problem("%s: %v (the limit of a CDXJ line is %d bytes)", crel, err, public.MaxLineBytes)
	}
}
