package release

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/archivectl/archivectl/embargo"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/store"
	"github.com/nlnwa/gowarc/v3"
)

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
	err = store.ScanFileResync(path, func(loc store.Location, rec gowarc.WarcRecord) error {
		v.checkMember(f, rec, rel, loc.Offset, loc.Length, first, shard)
		first = false
		return nil
	}, func(d store.Damage) error {
		v.damaged(rel, d)
		first = false
		return nil
	})
	if err != nil {
		v.problem("%s: %v", rel, err)
	}
	v.checkCDXJ(rel, shard)
	return nil
}

// damaged reports a stretch of a public file that holds no readable record, naming the capture
// whose record the audit log puts where it starts; the scan goes on after it, so that record
// counts as seen and every intact record after it is still checked.
func (v *verifier) damaged(rel string, d store.Damage) {
	k := memberKey{rel, d.Offset}
	what := fmt.Sprintf("damaged data (%s; %d bytes unreadable, up to offset %d)", d.Reason(), d.End-d.Offset, d.End)
	if ref, ok := v.logged[k]; ok {
		ref.seen = true
		v.logged[k] = ref
		what = fmt.Sprintf("the %s record of capture %s is damaged (%s; %d bytes unreadable, up to offset %d)",
			ref.kind, ref.e.ID, d.Reason(), d.End-d.Offset, d.End)
	}
	v.problem("%s offset %d: %s", rel, d.Offset, what)
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
	if !embargo.Releasable(e.ReleaseAt, ref.e.Pass) {
		v.problem("%s offset %d: capture %s (release time %s) was published by the pass at %s", rel, off, e.ID, e.ReleaseAt.Format(time.RFC3339), ref.e.Pass.Format(time.RFC3339))
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
