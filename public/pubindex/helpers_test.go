package pubindex

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
)

var discard = slog.New(slog.DiscardHandler)

// smallBlocks makes blocks of a few lines for the test (not parallel-safe across tests that
// depend on the default: every test in this package uses the small sizes).
func init() {
	blockTarget = 600
	maxBlock = 2000
}

// line is one CDXJ line: capture n of URL u, released or a tombstone.
func line(t testing.TB, u string, n int, released bool) []byte {
	t.Helper()
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Hour)
	c := public.CDXJ{URL: u, Status: 200, Digest: fmt.Sprintf("sha256:%064d", n), ID: fmt.Sprintf("<urn:uuid:%d>", n),
		Time: at.Format(time.RFC3339Nano), ReleaseAt: at.Add(30 * 24 * time.Hour).Format(time.RFC3339Nano)}
	if released {
		c.State, c.Filename, c.Offset, c.Length = public.StateReleased, "shards/PUBLIC-20261129000000-00001.warc.gz", int64(n)*100, 99
	} else {
		c.State, c.Filename, c.Offset, c.Length = public.StateEmbargoed, "tombstones/TOMBSTONES-20261129000000-00001.warc.gz", int64(n)*10, 9
		c.Headers = [][2]string{{"Content-Type", "text/html"}}
	}
	key, err := surt.Key(u)
	if err != nil {
		t.Fatal(err)
	}
	b, err := public.FormatLine(key, at, c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// archive is a random set of lines: urls URLs, some with many captures (several blocks of
// one key), each capture a tombstone, a release, or both (a tombstone released later).
func archive(t testing.TB, rng *rand.Rand, urls int) [][]byte {
	var out [][]byte
	n := 0
	for u := range urls {
		url := fmt.Sprintf("https://host%d.example/p/%d", u%7, u)
		k := 1 + rng.IntN(4)
		if u%50 == 0 {
			k = 40 // more lines than one block holds
		}
		for range k {
			n++
			switch rng.IntN(3) {
			case 0:
				out = append(out, line(t, url, n, false))
			case 1:
				out = append(out, line(t, url, n, true))
			default:
				out = append(out, line(t, url, n, false), line(t, url, n, true))
			}
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// byKey groups lines by key, each group sorted.
func byKey(lines [][]byte) map[string][]string {
	m := map[string][]string{}
	for _, l := range lines {
		k := string(KeyOf(l))
		m[k] = append(m[k], string(l))
	}
	for _, v := range m {
		slices.Sort(v)
	}
	return m
}

// publicDir makes an empty public directory.
func publicDir(t testing.TB) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "public")
	if err := os.MkdirAll(filepath.Join(d, Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// commit prepares and applies one commit of lines as generation gen, as a release pass would.
func commit(t testing.TB, pub string, gen int64, lines [][]byte) *Commit {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(pub), "release-tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	c, err := Prepare(nil, pub, tmp, gen, lines)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, pub, c)
	return c
}

// apply performs a prepared commit.
func apply(t testing.TB, pub string, c *Commit) {
	t.Helper()
	if err := Apply(pub, c); err != nil {
		t.Fatal(err)
	}
}

// writeCDXJ writes lines as one tombstone CDXJ file (sorted, as the releaser writes them).
func writeCDXJ(t testing.TB, pub, name string, lines [][]byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(pub, "tombstones"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := slices.Clone(lines)
	slices.SortFunc(s, compareLines)
	var b []byte
	for _, l := range s {
		b = append(b, l...)
	}
	if err := os.WriteFile(filepath.Join(pub, "tombstones", name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
