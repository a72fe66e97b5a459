package reliability

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
	"github.com/nlnwa/gowarc/v3"
)

// smallArchive seals 60 random captures into dir, in sealed files of about 16 KiB, and returns them.
func smallArchive(t *testing.T, dir string, seed uint64) *generator {
	t.Helper()
	g := newGenerator(seed, 3)
	var caps []*capture
	for range 60 {
		caps = append(caps, g.next(t0.Add(-100*24*time.Hour), t0))
	}
	seal(t, dir, rand.New(rand.NewPCG(seed, 4)), t0, caps, 16<<10)
	return g
}

// member is one record's gzip member in a WARC file.
type member struct {
	loc store.Location
	typ gowarc.RecordType
}

// members lists the records of a WARC file.
func members(t *testing.T, path string) []member {
	t.Helper()
	var out []member
	if err := store.ScanFile(path, func(loc store.Location, rec gowarc.WarcRecord) error {
		out = append(out, member{loc, rec.Type()})
		return nil
	}); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// rewriteMember replaces the gzip member at m in file b by edit(its decompressed record), recompressed.
func rewriteMember(t *testing.T, b []byte, m store.Location, edit func([]byte) []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b[m.Offset : m.Offset+m.Length]))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(edit(rec))
	zw.Close()
	out := append([]byte(nil), b[:m.Offset]...)
	out = append(out, z.Bytes()...)
	return append(out, b[m.Offset+m.Length:]...)
}

var contentLength = regexp.MustCompile(`(?m)^Content-Length: (\d+)\r$`)

// corruptions are the damages done to one WARC file: each takes the file's bytes and the
// response record to damage, and returns the damaged bytes.
var corruptions = []struct {
	name string
	do   func(t *testing.T, b []byte, m store.Location, rng *rand.Rand) []byte
}{
	{"truncated mid-record", func(t *testing.T, b []byte, m store.Location, rng *rand.Rand) []byte {
		return b[:m.Offset+1+rng.Int64N(m.Length-1)]
	}},
	{"flipped compressed byte", func(t *testing.T, b []byte, m store.Location, rng *rand.Rand) []byte {
		c := append([]byte(nil), b...)
		c[m.Offset+10+rng.Int64N(m.Length-18)] ^= 0x20 // inside the deflate stream
		return c
	}},
	{"flipped payload byte, gzip intact", func(t *testing.T, b []byte, m store.Location, rng *rand.Rand) []byte {
		return rewriteMember(t, b, m, func(rec []byte) []byte {
			i := bytes.LastIndex(rec, []byte("</title>")) // inside the HTTP payload
			rec[i+2] ^= 0x01
			return rec
		})
	}},
	{"WARC Content-Length too large", func(t *testing.T, b []byte, m store.Location, rng *rand.Rand) []byte {
		return rewriteMember(t, b, m, func(rec []byte) []byte {
			loc := contentLength.FindSubmatchIndex(rec)
			n, _ := strconv.Atoi(string(rec[loc[2]:loc[3]]))
			return append(append(append([]byte(nil), rec[:loc[2]]...), strconv.Itoa(n+7)...), rec[loc[3]:]...)
		})
	}},
	{"WARC Content-Length too small", func(t *testing.T, b []byte, m store.Location, rng *rand.Rand) []byte {
		return rewriteMember(t, b, m, func(rec []byte) []byte {
			loc := contentLength.FindSubmatchIndex(rec)
			n, _ := strconv.Atoi(string(rec[loc[2]:loc[3]]))
			return append(append(append([]byte(nil), rec[:loc[2]]...), strconv.Itoa(n-7)...), rec[loc[3]:]...)
		})
	}},
	{"garbage appended", func(t *testing.T, b []byte, m store.Location, rng *rand.Rand) []byte {
		junk := make([]byte, 100)
		for i := range junk {
			junk[i] = byte(rng.Uint32())
		}
		return append(append([]byte(nil), b...), junk...)
	}},
	{"a member's gzip header damaged", func(t *testing.T, b []byte, m store.Location, rng *rand.Rand) []byte {
		c := append([]byte(nil), b...)
		c[m.Offset] = 'W' // no longer 1f 8b
		return c
	}},
}

// TestCorruptSealedWARC damages one sealed WARC file in each way a disk or a person can, and checks
// that store.Verify and `archivectl verify` report it (exit 1, the file named, one summary line on
// stderr), that store.ReadAt refuses the damaged record with an error, and that nothing else is
// affected: every capture in the other files still reads, and no problem names another file.
func TestCorruptSealedWARC(t *testing.T) {
	t.Parallel()
	seed := seedFor(t)
	base := memDir(t)
	data := filepath.Join(base, "data")
	smallArchive(t, data, seed)
	names, _ := filepath.Glob(filepath.Join(data, layout.SealedDir, "*.warc.gz"))
	sort.Strings(names)
	if len(names) < 3 {
		t.Fatalf("want several sealed files, have %d", len(names))
	}
	entries := indexEntries(t, data)
	for i, tc := range corruptions {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, uint64(10+i)))
			dir := filepath.Join(base, fmt.Sprintf("case-%d", i))
			testkit.CopyTree(t, data, dir)
			victim := names[1+rng.IntN(len(names)-1)]
			file := filepath.Base(victim)
			path := filepath.Join(dir, layout.SealedDir, file)
			var responses []store.Location
			for _, m := range members(t, path) {
				if m.typ == gowarc.Response {
					responses = append(responses, m.loc)
				}
			}
			if len(responses) == 0 {
				t.Skipf("%s holds no response record", file)
			}
			target := responses[rng.IntN(len(responses))]
			b, _ := os.ReadFile(path)
			if err := os.WriteFile(path, tc.do(t, b, target, rng), 0o600); err != nil {
				t.Fatal(err)
			}

			ps, err := store.Verify(context.Background(), dir)
			if err != nil {
				t.Fatalf("store.Verify: %v", err)
			}
			if len(ps) == 0 {
				t.Errorf("store.Verify finds nothing wrong with %s (%s at %d)", file, tc.name, target.Offset)
			}
			for _, p := range ps {
				if p.File != file && p.File != "" {
					t.Errorf("store.Verify blames another file: %s", p)
				}
			}
			if tc.name != "garbage appended" {
				if rec, err := store.ReadAt(filepath.Join(dir, layout.SealedDir), target); err == nil {
					rec.Close()
					t.Errorf("store.ReadAt reads the damaged record %s@%d without an error", file, target.Offset)
				}
			}
			for _, e := range entries {
				if e.Response.File == file {
					continue
				}
				rec, err := store.ReadAt(filepath.Join(dir, layout.SealedDir), e.Response)
				if err != nil {
					t.Errorf("an undamaged capture no longer reads: %v", err)
					continue
				}
				rec.Close()
			}
			v := run(t, "verify", "--data", dir)
			lines := strings.Split(strings.TrimSpace(v.stderr), "\n")
			switch {
			case v.code != 1:
				t.Errorf("archivectl verify: exit %d, want 1:\n%s%s", v.code, v.stdout, v.stderr)
			case !strings.Contains(v.stdout, file):
				t.Errorf("archivectl verify does not name %s:\n%s", file, v.stdout)
			case len(lines) != 1 || !strings.HasPrefix(lines[0], "archivectl verify: "):
				t.Errorf("archivectl verify: stderr is not one line:\n%s", v.stderr)
			}
		})
	}
}

// TestCorruptPublicShard damages a released public shard after a pass and checks that
// release.Verify names it, and that the lookup answers for the damaged capture with a clear
// error while every other capture is still served.
func TestCorruptPublicShard(t *testing.T) {
	t.Parallel()
	seed := seedFor(t)
	base := memDir(t)
	data := filepath.Join(base, "data")
	g := smallArchive(t, data, seed)
	now := t0.Add(400 * 24 * time.Hour) // everything due
	r := release.New(data, release.Options{ShardSize: 16 << 10, Logger: testkit.QuietLogger()})
	if _, err := r.Pass(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	shards, _ := filepath.Glob(filepath.Join(data, "public", "shards", "*.warc.gz"))
	sort.Strings(shards)
	if len(shards) < 2 {
		t.Fatalf("want several shards, have %d", len(shards))
	}
	for i, tc := range corruptions {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, uint64(30+i)))
			dir := filepath.Join(base, fmt.Sprintf("case-%d", i))
			testkit.CopyTree(t, data, dir)
			victim := shards[rng.IntN(len(shards))]
			file := filepath.Base(victim)
			path := filepath.Join(dir, "public", "shards", file)
			var responses []store.Location
			for _, m := range members(t, path) {
				if m.typ == gowarc.Response {
					responses = append(responses, m.loc)
				}
			}
			if len(responses) == 0 {
				t.Skipf("%s holds no response record", file)
			}
			target := responses[rng.IntN(len(responses))]
			b, _ := os.ReadFile(path)
			if err := os.WriteFile(path, tc.do(t, b, target, rng), 0o644); err != nil {
				t.Fatal(err)
			}
			ps, err := release.Verify(context.Background(), dir)
			if err != nil {
				t.Fatalf("release.Verify: %v", err)
			}
			named := false
			for _, p := range ps {
				named = named || strings.Contains(p, file)
			}
			if !named {
				t.Errorf("release.Verify does not name %s (%s at %d): %q", file, tc.name, target.Offset, ps)
			}
			checkLookupAfterDamage(t, dir, g, now, "shards/"+file)
		})
	}
}

// flipSpots are where one flipped byte lands in a gzip member (one record): its gzip header
// (magic, method, flags), its deflate stream near the start (the WARC header), in the middle
// (the block) and near the end, and its trailer (CRC-32, size). The header's MTIME, XFL and OS
// bytes are left out: no checksum covers them, so a flip there changes no record.
var flipSpots = []struct {
	name string
	at   func(m store.Location) int64
}{
	{"gzip magic", func(m store.Location) int64 { return m.Offset }},
	{"gzip method", func(m store.Location) int64 { return m.Offset + 2 }},
	{"gzip flags", func(m store.Location) int64 { return m.Offset + 3 }},
	{"deflate start", func(m store.Location) int64 { return m.Offset + 12 }},
	{"deflate middle", func(m store.Location) int64 { return m.Offset + m.Length/2 }},
	{"deflate end", func(m store.Location) int64 { return m.Offset + m.Length - 10 }},
	{"crc32", func(m store.Location) int64 { return m.Offset + m.Length - 7 }},
	{"isize", func(m store.Location) int64 { return m.Offset + m.Length - 2 }},
}

// captureOf is the id of the capture with a record at loc, or "" (a warcinfo record).
func captureOf(entries map[string]store.Entry, loc store.Location) string {
	for id, e := range entries {
		if e.Request == loc || e.Response == loc || e.Metadata == loc {
			return id
		}
	}
	return ""
}

// problemLines are the lines of archivectl verify's stdout that list a problem.
func problemLines(stdout string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if l != "" && !strings.HasPrefix(l, "reindexed ") && !strings.HasPrefix(l, "sealed repository ok") {
			out = append(out, l)
		}
	}
	return out
}

// TestSealedByteFlip flips one byte of one record of a sealed WARC file in the middle of the
// archive (its warcinfo, a request, a response, a metadata record; in each spot of flipSpots)
// and checks through the binary that archivectl verify lists exactly one problem, naming the
// file, the record's offset and its capture; that verify --reindex skips exactly that record and
// keeps every other capture; and that a release pass then releases every other capture.
func TestSealedByteFlip(t *testing.T) {
	t.Parallel()
	seed := seedFor(t)
	base := memDir(t)
	data := filepath.Join(base, "data")
	smallArchive(t, data, seed)
	names, _ := filepath.Glob(filepath.Join(data, layout.SealedDir, "*.warc.gz"))
	sort.Strings(names)
	if len(names) < 3 {
		t.Fatalf("want several sealed files, have %d", len(names))
	}
	entries := indexEntries(t, data)
	file := filepath.Base(names[len(names)/2])
	ms := members(t, filepath.Join(data, layout.SealedDir, file))
	if len(ms) < 8 {
		t.Fatalf("%s holds %d records, want a few captures", file, len(ms))
	}
	victims := map[gowarc.RecordType]store.Location{gowarc.Warcinfo: ms[0].loc}
	for _, m := range ms[4:] { // past the first capture
		if _, ok := victims[m.typ]; !ok {
			victims[m.typ] = m.loc
		}
	}
	now := t0.Add(400 * 24 * time.Hour).Format(time.RFC3339) // everything due
	n := 0
	for typ, m := range victims {
		for _, spot := range flipSpots {
			n++
			dir := filepath.Join(base, fmt.Sprintf("case-%d", n))
			t.Run(typ.String()+"/"+spot.name, func(t *testing.T) {
				t.Parallel()
				testkit.CopyTree(t, data, dir)
				path := filepath.Join(dir, layout.SealedDir, file)
				b, _ := os.ReadFile(path)
				b[spot.at(m)] ^= 0x20
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
				id := captureOf(entries, m)
				where := fmt.Sprintf("%s@%d: ", file, m.Offset)
				if id != "" {
					where += "capture " + id + ": "
				}
				one := func(what string, lines []string) {
					t.Helper()
					if len(lines) != 1 || !strings.HasPrefix(lines[0], where) {
						t.Errorf("%s: want exactly one problem starting %q, have %d:\n%s", what, where, len(lines), strings.Join(lines, "\n"))
					}
				}
				v := run(t, "verify", "--data", dir)
				if v.code != 1 {
					t.Errorf("verify: exit %d, want 1:\n%s%s", v.code, v.stdout, v.stderr)
				}
				one("verify", problemLines(v.stdout))

				v = run(t, "verify", "--reindex", "--data", dir)
				var skipped, rest []string
				for _, l := range problemLines(v.stdout) {
					if s, ok := strings.CutPrefix(l, "reindex skipped: "); ok {
						skipped = append(skipped, s)
					} else {
						rest = append(rest, l)
					}
				}
				one("verify --reindex: skipped", skipped)
				one("verify --reindex: then", rest)
				after := indexEntries(t, dir)
				for eid := range entries {
					if _, ok := after[eid]; ok == (eid == id) {
						t.Errorf("after verify --reindex, capture %s indexed: %v (the damaged one is %q)", eid, ok, id)
					}
				}

				if r := run(t, "release", "--data", dir, "--now", now); r.code != 0 {
					t.Fatalf("release: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
				}
				for eid, e := range indexEntries(t, dir) {
					// A revisit of the damaged capture waits with it: its payload is the original's.
					waits := e.Revisit && e.RefersTo == id && id != ""
					if e.State != store.Released && !e.Robots && !waits {
						t.Errorf("after a release pass, capture %s is %s", eid, e.State)
					}
				}
			})
		}
	}
}

// TestPublicShardByteFlip flips one byte of one released record in a public shard, in each spot
// of flipSpots, and checks that release.Verify lists exactly one problem, naming the shard, the
// record's offset and its capture.
func TestPublicShardByteFlip(t *testing.T) {
	t.Parallel()
	seed := seedFor(t)
	base := memDir(t)
	data := filepath.Join(base, "data")
	smallArchive(t, data, seed)
	r := release.New(data, release.Options{ShardSize: 16 << 10, Logger: testkit.QuietLogger()})
	if _, err := r.Pass(context.Background(), t0.Add(400*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	shards, _ := filepath.Glob(filepath.Join(data, "public", "shards", "*.warc.gz"))
	sort.Strings(shards)
	if len(shards) < 2 {
		t.Fatalf("want several shards, have %d", len(shards))
	}
	file := filepath.Base(shards[0])
	ms := members(t, shards[0])
	if len(ms) < 8 {
		t.Fatalf("%s holds %d records, want a few captures", file, len(ms))
	}
	m := ms[len(ms)/2].loc
	for i, spot := range flipSpots {
		t.Run(spot.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(base, fmt.Sprintf("case-%d", i))
			testkit.CopyTree(t, data, dir)
			path := filepath.Join(dir, "public", "shards", file)
			b, _ := os.ReadFile(path)
			b[spot.at(m)] ^= 0x20
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			ps, err := release.Verify(context.Background(), dir)
			if err != nil {
				t.Fatalf("release.Verify: %v", err)
			}
			where := fmt.Sprintf("shards/%s offset %d: ", file, m.Offset)
			if len(ps) != 1 || !strings.HasPrefix(ps[0], where) || !strings.Contains(ps[0], "capture ") {
				t.Errorf("release.Verify: want exactly one problem starting %q and naming its capture, have %d:\n%s", where, len(ps), strings.Join(ps, "\n"))
			}
		})
	}
}
