package pubindex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// oddLines are lines whose records are not plain views: escaped strings, a line over 64 KiB,
// and lines that do not parse at all.
func oddLines(t testing.TB) [][]byte {
	long := bytes.Replace(line(t, "https://long.example/", 1, false), []byte(`"text/html"`),
		[]byte(`"`+strings.Repeat("x", 70<<10)+`"`), 1)
	return [][]byte{
		line(t, "https://esc.example/caf\u00e9", 1, true), // non-ASCII url: decoded, not a view
		line(t, "https://esc.example/q\"uote", 2, false),
		long,
		[]byte("com,bad)/ 20260601000000 {\"url\":\n"),
		[]byte("com,bad)/ 20260601000000 {}\n"),
		[]byte("com,bad)/x not a line\n"),
	}
}

// TestCapturesFromRecords: for every key, Captures (from the records) gives exactly what
// Merge gives from the lines, in a format-3 segment and in one of the earlier format 2.
func TestCapturesFromRecords(t *testing.T) {
	lines := append(archive(t, rand.New(rand.NewPCG(5, 6)), 200), oddLines(t)...)
	slices.SortFunc(lines, compareLines)
	for _, format := range []uint32{formatV3, formatV2} {
		t.Run(fmt.Sprint("format ", format), func(t *testing.T) {
			defer func(f uint32) { writeFormat = f }(writeFormat)
			writeFormat = format
			pub := publicDir(t)
			name := SegmentName(1, 1)
			i := 0
			info, err := writeSegment(filepath.Join(pub, Dir, name), false, func() ([]byte, error) {
				if i == len(lines) {
					return nil, nil
				}
				i++
				return lines[i-1], nil
			})
			if err != nil {
				t.Fatal(err)
			}
			info.Name = name
			seg, err := openFile(filepath.Join(pub, Dir, name), info)
			if err != nil {
				t.Fatal(err)
			}
			defer seg.Close()
			if seg.ft.format != format {
				t.Fatalf("segment of format %d, want %d", seg.ft.format, format)
			}
			set := &Set{segs: []*Segment{seg}}
			for key := range byKey(lines) {
				var want, got []byte // as JSON: the captures' views are valid only during the calls
				if err := set.Lookup(key, func(ls [][]byte) (err error) {
					want, err = json.Marshal(slices.Clip(append([]Capture{}, Merge(ls)...)))
					return err
				}); err != nil {
					t.Fatal(err)
				}
				if err := set.Captures(key, func(cs []Capture) (err error) {
					got, err = json.Marshal(slices.Clip(append([]Capture{}, cs...)))
					return err
				}); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("Captures(%q) differs from Merge of its lines:\n%s\n%s", key, got, want)
				}
			}
		})
	}
}

// FuzzRecord: a line's record says what ParseLine says of the line.
func FuzzRecord(f *testing.F) {
	for _, l := range append(archive(f, rand.New(rand.NewPCG(1, 1)), 5), oddLines(f)...) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		rec := appendRecord(nil, line)
		if len(rec) != recSize {
			t.Fatalf("record of %d bytes", len(rec))
		}
		got, ok := fromRecord(line, rec)
		r, err := ParseLine(line)
		if ok != (err == nil) {
			t.Fatalf("record ok %v, ParseLine error %v", ok, err)
		}
		if ok && !reflect.DeepEqual(got, Capture{Raw: r, Headers: r.Block.Headers}) {
			t.Fatalf("record gives %+v, ParseLine %+v", got, r)
		}
	})
}

// TestRecordKinds: a releaser's line is read from its record; what is not a view is parsed.
func TestRecordKinds(t *testing.T) {
	t.Parallel()
	odd := oddLines(t)
	for _, c := range []struct {
		line []byte
		kind byte
	}{
		{line(t, "https://a.example/", 1, true), recViews},
		{line(t, "https://a.example/", 2, false), recViews},
		{odd[0], recParse}, {odd[1], recParse}, {odd[2], recParse},
		{odd[3], recMalformed}, {odd[4], recMalformed}, {odd[5], recMalformed},
	} {
		if k := appendRecord(nil, c.line)[0]; k != c.kind {
			t.Errorf("record of %.60q is of kind %d, want %d", c.line, k, c.kind)
		}
	}
}

// TestKeyTableCollisions: when every key has the same fingerprint, a lookup reads the blocks
// of other keys on its way and still finds exactly its own lines, and none for a missing key.
func TestKeyTableCollisions(t *testing.T) {
	defer func(m uint32) { fingerprintMask = m }(fingerprintMask)
	fingerprintMask = 0
	lines := archive(t, rand.New(rand.NewPCG(7, 8)), 150)
	pub := publicDir(t)
	commit(t, pub, 1, lines)
	check(t, pub, lines).Close()
}

// TestVerifyChecksExactLookups: Verify reports keys whose exact lookup misses their lines
// (here because fingerprints are computed otherwise than when the segment was written).
func TestVerifyChecksExactLookups(t *testing.T) {
	lines := archive(t, rand.New(rand.NewPCG(9, 10)), 50)
	pub := publicDir(t)
	commit(t, pub, 1, lines)
	writeCDXJ(t, pub, "TOMBSTONES-20261129000000-00001.cdxj", lines)
	if problems, err := Verify(os.DirFS(pub)); err != nil || len(problems) != 0 {
		t.Fatalf("Verify of a sound index = %q, %v", problems, err)
	}
	defer func(m uint32) { fingerprintMask = m }(fingerprintMask)
	fingerprintMask = 0
	problems, err := Verify(os.DirFS(pub))
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0], "an exact lookup of 50 keys") {
		t.Fatalf("Verify = %q, %v; want the keys an exact lookup misses", problems, err)
	}
}

// TestMixedFormats: an index written before format 3 keeps working as commits add format-3
// segments to it (and as merges rewrite its segments).
func TestMixedFormats(t *testing.T) {
	lines := archive(t, rand.New(rand.NewPCG(11, 12)), 120)
	pub := publicDir(t)
	defer func(f uint32) { writeFormat = f }(writeFormat)
	writeFormat = formatV2
	commit(t, pub, 1, lines[:len(lines)/2])
	writeFormat = formatV3
	for gen, start := int64(2), len(lines)/2; start < len(lines); gen++ {
		end := min(start+len(lines)/10, len(lines))
		commit(t, pub, gen, lines[start:end])
		check(t, pub, lines[:end]).Close()
		start = end
	}
}
