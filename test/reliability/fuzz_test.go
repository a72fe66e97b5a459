package reliability

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/store"
	"github.com/nlnwa/gowarc/v3"
)

// sealedFile seals three small captures (one a revisit) and returns the bytes of the sealed WARC
// file and the locations of its records.
func sealedFile(tb testing.TB) ([]byte, []store.Location) {
	tb.Helper()
	dir := tb.TempDir()
	s, err := store.Open(dir, store.Options{Logger: testkit.QuietLogger(), Now: func() time.Time { return t0 }})
	if err != nil {
		tb.Fatal(err)
	}
	g := newGenerator(1, 1)
	var caps []store.Capture
	for i := range 3 {
		c := g.next(t0, t0.Add(time.Hour)).storeCapture()
		if i == 2 {
			c.URL, c.Response = caps[0].URL, caps[0].Response // the same payload again: a revisit
			c.Time = t0.Add(2 * time.Hour)
		}
		c.Period = embargo.Month
		caps = append(caps, c)
	}
	if _, err := s.Seal(context.Background(), caps); err != nil {
		tb.Fatal(err)
	}
	if err := s.Close(); err != nil {
		tb.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, layout.SealedDir, "*.warc.gz"))
	if len(names) != 1 {
		tb.Fatalf("want one sealed file, have %v", names)
	}
	b, err := os.ReadFile(names[0])
	if err != nil {
		tb.Fatal(err)
	}
	var locs []store.Location
	if err := store.ScanFile(names[0], func(loc store.Location, _ gowarc.WarcRecord) error {
		locs = append(locs, loc)
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	return b, locs
}

// FuzzReadRecord feeds store.ReadRecord (the strict single-record reader behind verify, release
// and reindex) arbitrary bytes as one gzip member: it must return a record or an error, never
// panic or hang; and a record it accepts must carry a WARC-Record-ID and a type.
func FuzzReadRecord(f *testing.F) {
	b, locs := sealedFile(f)
	for _, l := range locs {
		f.Add(b[l.Offset : l.Offset+l.Length])
	}
	f.Add([]byte{0x1f, 0x8b})
	f.Add([]byte("WARC/1.1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, member []byte) {
		if len(member) == 0 {
			return
		}
		rec, err := store.ReadRecord(bytes.NewReader(member), 0, int64(len(member)))
		if err != nil {
			return
		}
		defer rec.Close()
		if rec.WarcHeader().Get(gowarc.WarcRecordID) == "" || rec.Type() == 0 {
			t.Fatalf("accepted a record without id or type: %v", rec)
		}
	})
}

// FuzzScanFile feeds store.ScanFile (the whole-file reader of verify and reindex) arbitrary
// files: it must end with nil or an error, never panic; the locations it reports must tile the
// file from offset 0 without gaps; and a *ScanError's ValidEnd must lie inside the file.
func FuzzScanFile(f *testing.F) {
	b, _ := sealedFile(f)
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add(append(append([]byte(nil), b...), "garbage"...))
	f.Add([]byte{})
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, file []byte) {
		n++
		path := filepath.Join(dir, fmt.Sprintf("f%d.warc.gz", n))
		if err := os.WriteFile(path, file, 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)
		var end int64
		err := store.ScanFile(path, func(loc store.Location, rec gowarc.WarcRecord) error {
			if loc.Offset != end || loc.Length <= 0 {
				t.Fatalf("record at %d+%d after the previous ended at %d", loc.Offset, loc.Length, end)
			}
			end = loc.Offset + loc.Length
			return nil
		})
		if end > int64(len(file)) {
			t.Fatalf("records end at %d, past the file's %d bytes", end, len(file))
		}
		var se *store.ScanError
		if err != nil && asScanError(err, &se) && (se.ValidEnd < 0 || se.ValidEnd > int64(len(file))) {
			t.Fatalf("ValidEnd %d outside a file of %d bytes", se.ValidEnd, len(file))
		}
	})
}

// FuzzDamagedMember damages a valid sealed WARC file at one byte (offset and xor mask from the
// fuzzer) and reads it back with store.ScanFile: either the reader reports an error, or every
// record it returns decompresses to exactly the bytes sealed — damage is never read silently.
func FuzzDamagedMember(f *testing.F) {
	b, _ := sealedFile(f)
	want := decompressed(f, b)
	f.Add(uint32(0), byte(1))
	f.Add(uint32(len(b)/2), byte(0x80))
	f.Add(uint32(len(b)-1), byte(0xff))
	f.Add(uint32(len(b)-5), byte(0x01)) // a member's ISIZE
	f.Add(uint32(4), byte(0x10))        // a member's MTIME: harmless
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, off uint32, mask byte) {
		if mask == 0 {
			return
		}
		n++
		c := append([]byte(nil), b...)
		c[int(off)%len(c)] ^= mask
		path := filepath.Join(dir, fmt.Sprintf("d%d.warc.gz", n))
		if err := os.WriteFile(path, c, 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)
		var got [][]byte
		err := store.ScanFile(path, func(loc store.Location, _ gowarc.WarcRecord) error {
			zr, err := gzip.NewReader(bytes.NewReader(c[loc.Offset : loc.Offset+loc.Length]))
			if err != nil {
				return err
			}
			zr.Multistream(false)
			rec, err := io.ReadAll(zr)
			got = append(got, rec)
			return err
		})
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("byte %d ^ %#x: read %d records silently, sealed %d", int(off)%len(c), mask, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("byte %d ^ %#x: record %d reads differently without an error", int(off)%len(c), mask, i)
			}
		}
	})
}

// decompressed returns each gzip member of a sealed file, decompressed.
func decompressed(tb testing.TB, b []byte) [][]byte {
	tb.Helper()
	var out [][]byte
	r := bytes.NewReader(b)
	for r.Len() > 0 {
		zr, err := gzip.NewReader(r)
		if err != nil {
			tb.Fatal(err)
		}
		zr.Multistream(false)
		rec, err := io.ReadAll(zr)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// TestWriteFuzzSeeds regenerates the committed seed corpora under testdata/fuzz from a freshly
// sealed file (ARCHIVECTL_WRITE_SEEDS=1 go test -run TestWriteFuzzSeeds ./test/reliability/).
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("ARCHIVECTL_WRITE_SEEDS") != "1" {
		t.Skip("regenerates testdata/fuzz; set ARCHIVECTL_WRITE_SEEDS=1")
	}
	b, locs := sealedFile(t)
	write := func(target, name string, vals ...string) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := "go test fuzz v1\n"
		for _, v := range vals {
			body += v + "\n"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, l := range locs {
		write("FuzzReadRecord", fmt.Sprintf("member-%d", i), fmt.Sprintf("[]byte(%q)", b[l.Offset:l.Offset+l.Length]))
	}
	write("FuzzReadRecord", "not-gzip", fmt.Sprintf("[]byte(%q)", "WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 0\r\n\r\n\r\n\r\n"))
	write("FuzzScanFile", "whole", fmt.Sprintf("[]byte(%q)", b))
	write("FuzzScanFile", "truncated", fmt.Sprintf("[]byte(%q)", b[:len(b)*2/3]))
	write("FuzzScanFile", "trailing-garbage", fmt.Sprintf("[]byte(%q)", append(append([]byte(nil), b...), 0x1f, 0x8b, 8, 0, 0)))
	for i, l := range locs {
		write("FuzzDamagedMember", fmt.Sprintf("deflate-%d", i), fmt.Sprintf("uint32(%d)", l.Offset+l.Length/2), "byte('\\x01')")
		write("FuzzDamagedMember", fmt.Sprintf("crc-%d", i), fmt.Sprintf("uint32(%d)", l.Offset+l.Length-6), "byte('\\x80')")
	}
}
