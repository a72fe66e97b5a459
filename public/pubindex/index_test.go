package pubindex

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// check compares every lookup and a full scan of the index of pub with the lines.
func check(t *testing.T, pub string, lines [][]byte) *Set {
	t.Helper()
	set, err := Open(os.DirFS(pub), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := byKey(lines)
	for k, ls := range want {
		var got []string
		if err := set.Lookup(k, func(l [][]byte) error {
			for _, x := range l {
				got = append(got, string(x))
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !reflect.DeepEqual(got, ls) {
			t.Fatalf("Lookup(%q) = %d lines, want %d", k, len(got), len(ls))
		}
		for _, missing := range []string{k + "x", k[:len(k)-1]} {
			if _, ok := want[missing]; ok {
				continue
			}
			set.Lookup(missing, func([][]byte) error { t.Fatalf("Lookup(%q) found lines", missing); return nil })
		}
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, from := range []string{"", keys[len(keys)/3], keys[len(keys)/2] + "0", "zzz"} {
		var got []string
		err := set.Scan(from, func(key []byte, l [][]byte) (bool, error) {
			ls := make([]string, len(l))
			for i, x := range l {
				ls[i] = string(x)
			}
			slices.Sort(ls)
			if !reflect.DeepEqual(ls, want[string(key)]) {
				t.Fatalf("Scan: key %q has %d lines, want %d", key, len(ls), len(want[string(key)]))
			}
			got = append(got, string(key))
			return true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		i, _ := slices.BinarySearch(keys, from)
		if !reflect.DeepEqual(got, keys[i:]) && !(len(got) == 0 && i == len(keys)) {
			t.Fatalf("Scan(%q) gave %d keys, want %d", from, len(got), len(keys)-i)
		}
	}
	return set
}

func TestCommitsLookupScanAndRebuild(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	lines := archive(t, rng, 400)
	pub := publicDir(t)
	for gen, start := int64(1), 0; start < len(lines); gen++ {
		end := min(len(lines), start+1+rng.IntN(120))
		commit(t, pub, gen, lines[start:end])
		start = end
		m, _, _ := ReadManifest(os.DirFS(pub))
		perTier := map[int]int{}
		for _, s := range m.Segments {
			if perTier[tier(s.Lines)]++; perTier[tier(s.Lines)] >= fanIn {
				t.Fatalf("generation %d: %d segments in tier %d", gen, perTier[tier(s.Lines)], tier(s.Lines))
			}
		}
	}
	check(t, pub, lines)
	committed, _, _ := ReadManifest(os.DirFS(pub))

	// The same lines as CDXJ files, rebuilt: the same answers and the same totals.
	pub2 := publicDir(t)
	for i := 0; i*300 < len(lines); i++ {
		writeCDXJ(t, pub2, "T-"+string(rune('a'+i))+".cdxj", lines[i*300:min(len(lines), (i+1)*300)])
	}
	runBytes = 20_000 // several runs
	rebuilt, err := Rebuild(context.Background(), pub2, 7, discard)
	if err != nil {
		t.Fatal(err)
	}
	check(t, pub2, lines)
	if !reflect.DeepEqual(rebuilt.Stats, committed.Stats) {
		t.Errorf("rebuilt totals %+v, committed %+v", rebuilt.Stats, committed.Stats)
	}
	if len(rebuilt.Segments) != 1 || rebuilt.Generation != 7 {
		t.Errorf("rebuilt manifest %+v", rebuilt)
	}
	ents, _ := os.ReadDir(filepath.Join(pub2, Dir))
	if len(ents) != 2 {
		t.Errorf("rebuild left %d files in index/, want the manifest and one segment", len(ents))
	}
}

func TestMergeCombinesLinesOfOneCapture(t *testing.T) {
	t.Parallel()
	u := "https://example.com/a"
	tomb, rel, other := line(t, u, 1, false), line(t, u, 1, true), line(t, u, 2, false)
	cs := Merge([][]byte{tomb, other, rel, []byte("garbage")})
	if len(cs) != 2 {
		t.Fatalf("%d captures, want 2", len(cs))
	}
	if !cs[1].Released() || !bytes.Contains(cs[1].Headers, []byte("Content-Type")) || cs[0].Time < cs[1].Time {
		t.Errorf("captures %+v", cs)
	}
	tl := &tally{days: map[int64]int64{}}
	tl.add(cs, 1)
	if st, _ := tl.stats(); st.Released != 1 || st.Embargoed != 1 || len(st.Days) != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestDamageIsRefusedAtOpen(t *testing.T) {
	t.Parallel()
	lines := archive(t, rand.New(rand.NewPCG(3, 4)), 60)
	tests := []struct {
		name   string
		damage func(t *testing.T, pub, seg string, size int64)
		atRead bool // found when the block is read, not at open
	}{
		{"truncated", func(t *testing.T, pub, seg string, size int64) { os.Truncate(seg, size-100) }, false},
		{"torn to nothing", func(t *testing.T, pub, seg string, size int64) { os.Truncate(seg, 0) }, false},
		{"footer bit", func(t *testing.T, pub, seg string, size int64) { flip(t, seg, size-10) }, false},
		{"head bit", func(t *testing.T, pub, seg string, size int64) { flip(t, seg, size-footerSize-5) }, false},
		{"table bit", func(t *testing.T, pub, seg string, size int64) { flip(t, seg, tableOffset(t, seg, size)) }, true},
		{"block bit", func(t *testing.T, pub, seg string, size int64) { flip(t, seg, 20) }, true},
		{"missing segment", func(t *testing.T, pub, seg string, size int64) { os.Remove(seg) }, false},
		{"manifest garbage", func(t *testing.T, pub, seg string, size int64) {
			os.WriteFile(filepath.Join(pub, Dir, ManifestFile), []byte("{torn"), 0o644)
		}, false},
		{"manifest missing, CDXJ present", func(t *testing.T, pub, seg string, size int64) {
			os.Remove(filepath.Join(pub, Dir, ManifestFile))
			writeCDXJ(t, pub, "T.cdxj", lines)
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pub := publicDir(t)
			c := commit(t, pub, 1, lines)
			seg := filepath.Join(pub, Dir, c.Manifest.Segments[0].Name)
			tc.damage(t, pub, seg, c.Manifest.Segments[0].Size)
			set, err := Open(os.DirFS(pub), nil)
			if tc.atRead {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				err = set.Scan("", func([]byte, [][]byte) (bool, error) { return true, nil })
			}
			var d *DamageError
			if !errors.As(err, &d) {
				t.Fatalf("got %v, want a *DamageError", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "public/index/") || !strings.Contains(msg, "archivectl reindex-public") || strings.Contains(msg, "\n") {
				t.Errorf("error %q does not name the file and the rebuild command in one line", msg)
			}
		})
	}
}

// tableOffset is the offset of a byte in the middle of a segment's table.
func tableOffset(t *testing.T, path string, size int64) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ft, err := decodeFooter(b[size-footerSize:], size)
	if err != nil {
		t.Fatal(err)
	}
	return int64(ft.bloomOff+ft.topOff) / 2
}

func flip(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	f.ReadAt(b, off)
	b[0] ^= 0x10
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func TestEmptyAndCleaned(t *testing.T) {
	t.Parallel()
	pub := publicDir(t)
	set, err := Open(os.DirFS(pub), nil)
	if err != nil || set.Segments() != 0 {
		t.Fatalf("empty public dir: %v, %d segments", err, set.Segments())
	}
	lines := archive(t, rand.New(rand.NewPCG(5, 6)), 20)
	commit(t, pub, 1, lines)
	for _, junk := range []string{"SEG-000000000009-0.seg", "rebuild-0.tmp", "manifest.json.tmp"} {
		os.WriteFile(filepath.Join(pub, Dir, junk), []byte("left by a killed pass"), 0o644)
	}
	if err := Clean(pub); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(filepath.Join(pub, Dir))
	if len(ents) != 2 {
		t.Errorf("after Clean: %d files, want the manifest and one segment", len(ents))
	}
	check(t, pub, lines)
}
