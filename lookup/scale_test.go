package lookup

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/archivectl/archivectl/bench/lookup/synth"
	"github.com/archivectl/archivectl/internal/surt"
)

// For 10,000 random URLs of a generated archive, the public index answers exactly what the
// in-memory index answered (the same bytes: captures, order and fields), and so do prefix
// pages followed by their cursors, and the totals. Both ways the index is made are checked:
// rebuilt from the CDXJ files in one segment, and committed pass by pass in tiered segments.
// 50,000 captures by default; ARCHIVECTL_LOOKUP_N=1000000 runs it at a million (a few minutes).
func TestIndexAnswersAsInMemory(t *testing.T) {
	n := 50_000
	if v := os.Getenv("ARCHIVECTL_LOOKUP_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1000 {
			t.Fatalf("ARCHIVECTL_LOOKUP_N=%q: want a number of captures, at least 1000", v)
		}
	}
	for _, commits := range []int{0, 23} {
		t.Run(fmt.Sprintf("commits=%d", commits), func(t *testing.T) {
			dir := t.TempDir()
			res, err := synth.Write(context.Background(), dir, synth.Options{N: n, Commits: commits})
			if err != nil {
				t.Fatal(err)
			}
			pub := filepath.Join(dir, "public")
			mem, err := loadMemIndex(os.DirFS(pub))
			if err != nil {
				t.Fatal(err)
			}
			s, err := Open(pub, Options{Logger: discard, Now: func() time.Time { return testNow }})
			if err != nil {
				t.Fatal(err)
			}
			ix := s.ix.Load()
			if ix.released != mem.released || ix.embargoed != mem.embargoed || !reflect.DeepEqual(ix.days, mem.days) {
				t.Errorf("totals: index %d released, %d embargoed, %d days; in memory %d, %d, %d",
					ix.released, ix.embargoed, len(ix.days), mem.released, mem.embargoed, len(mem.days))
			}
			urls := readLines(t, filepath.Join(dir, "urls.txt"))
			rng := rand.New(rand.NewPCG(uint64(n), uint64(commits)))
			for range min(10_000, 3*len(urls)) {
				u := urls[rng.IntN(len(urls))]
				if rng.IntN(20) == 0 {
					u += "-absent"
				}
				key, err := surt.Key(u)
				if err != nil {
					t.Fatal(err)
				}
				want := markDue(slices.Clone(mem.exact(key)), testNow)
				rec := get(t, s, "/api/v1/captures?url="+url.QueryEscape(u))
				switch {
				case len(want) == 0 && rec.Code != 404:
					t.Fatalf("%s: status %d, the in-memory index has no capture", u, rec.Code)
				case len(want) > 0 && !bytes.Equal(rec.Body.Bytes(), appendCaptures(nil, u, "", want, "")):
					t.Fatalf("%s: answers differ:\nindex     %s\nin memory %s", u, rec.Body, appendCaptures(nil, u, "", want, ""))
				}
			}
			for range 200 {
				h, sec := rng.IntN(5000), rng.IntN(50)
				prefix := fmt.Sprintf("https://www.host%04d.example/section/%d/", h, sec)
				if rng.IntN(4) == 0 {
					prefix = fmt.Sprintf("https://www.host%04d.example/section/%d", h, sec) // siblings too
				}
				key, _ := surt.Key(prefix)
				m := query{raw: prefix, key: key}.matcher()
				var after cursor
				for page := 0; page < 3; page++ {
					got, more, err := ix.prefix(m, after, 7)
					if err != nil {
						t.Fatal(err)
					}
					want, wantMore := mem.prefix(m, after, 7)
					if more != wantMore || !bytes.Equal(appendCaptures(nil, prefix, "prefix", got, ""), appendCaptures(nil, prefix, "prefix", want, "")) {
						t.Fatalf("%s page %d: index %d captures (more %v), in memory %d (more %v)", prefix, page, len(got), more, len(want), wantMore)
					}
					if !more {
						break
					}
					after = cursorAfter(&got[len(got)-1])
				}
			}
			t.Logf("%s: 10,000 URLs and 200 prefixes answered as in memory", res.Describe())
		})
	}
}

func readLines(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
