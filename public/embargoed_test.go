package public

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// tombLine is the tombstone line of capture i.
func tombLine(tb testing.TB, i int) []byte {
	tb.Helper()
	b, err := FormatLine(fmt.Sprintf("com,example)/p/%06d", i), time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), CDXJ{
		URL: fmt.Sprintf("https://example.com/p/%06d", i), Mime: "text/html", Status: 200, Digest: "sha256:ab", Length: 500, Offset: int64(i) * 500,
		Filename: "TOMBSTONES-20260301130000-00001.warc.gz", ReleaseAt: "2026-04-01T12:00:00Z", ID: fmt.Sprintf("<urn:uuid:%06d>", i),
		State: StateTombstone, Time: "2026-03-01T12:00:00Z", Headers: [][2]string{{"Content-Type", "text/html"}}})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestMergeEmbargoed: lines removed by id, added in their order, an added line replacing the line
// of its id; what is not in byte order, repeated, or does not parse is refused.
func TestMergeEmbargoed(t *testing.T) {
	t.Parallel()
	file := func(is ...int) []byte {
		var ls [][]byte
		for _, i := range is {
			ls = append(ls, tombLine(t, i))
		}
		slices.SortFunc(ls, bytes.Compare)
		return bytes.Join(ls, nil)
	}
	id := func(i int) string { return fmt.Sprintf("<urn:uuid:%06d>", i) }
	tests := []struct {
		name    string
		in      []byte
		add     []int
		remove  []int
		want    []byte
		wantErr string
	}{
		{"nothing", nil, nil, nil, nil, ""},
		{"into nothing", nil, []int{3, 1, 2}, nil, file(1, 2, 3), ""},
		{"remove and add", file(1, 3, 5), []int{2, 6}, []int{3}, file(1, 2, 5, 6), ""},
		{"remove every line", file(1, 3), nil, []int{1, 3, 9}, nil, ""},
		{"add a line already there", file(1, 3), []int{3}, nil, file(1, 3), ""},
		{"out of order", append(tombLine(t, 2), tombLine(t, 1)...), nil, nil, nil, "not in byte order"},
		{"repeated", append(tombLine(t, 1), tombLine(t, 1)...), nil, nil, nil, "not in byte order"},
		{"junk", []byte("junk\n"), nil, nil, nil, "line 1"},
		{"no final newline", bytes.TrimSuffix(tombLine(t, 1), []byte("\n")), nil, nil, nil, "no final newline"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			add, remove := map[string][]byte{}, map[string]bool{}
			for _, i := range tc.add {
				add[id(i)] = tombLine(t, i)
			}
			for _, i := range tc.remove {
				remove[id(i)] = true
			}
			var out bytes.Buffer
			err := MergeEmbargoed(bytes.NewReader(tc.in), &out, add, remove)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !bytes.Equal(out.Bytes(), tc.want) {
				t.Errorf("got (%v)\n%s\nwant\n%s", err, out.Bytes(), tc.want)
			}
		})
	}
}

// BenchmarkMergeEmbargoed is a pass's rewrite of one release day: 1,000 of the day's N tombstone
// lines released.
func BenchmarkMergeEmbargoed(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var ls [][]byte
			for i := range n {
				ls = append(ls, tombLine(b, i))
			}
			slices.SortFunc(ls, bytes.Compare)
			in := bytes.Join(ls, nil)
			remove := map[string]bool{}
			for i := range min(n, 1000) {
				remove[fmt.Sprintf("<urn:uuid:%06d>", i)] = true
			}
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if err := MergeEmbargoed(bytes.NewReader(in), io.Discard, nil, remove); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzLineID: the id MergeEmbargoed reads from a line is the one Parse gives, for every line that
// parses.
func FuzzLineID(f *testing.F) {
	f.Add(string(tombLine(f, 1)))
	f.Add(`com,example)/ 20260301120000 {"url":"https://example.com/","digest":"d","length":1,"offset":2,"filename":"F","release_at":"2026-04-01T12:00:00Z","id":"<a\"b>","state":"tombstone","time":"2026-03-01T12:00:00Z"}` + "\n")
	f.Add(`com,example)/ 20260301120000 {"url":"x,\"id\":\"fake","release_at":"2026-04-01T12:00:00Z","id":"real","state":"tombstone","time":"2026-03-01T12:00:00Z"}` + "\n")
	f.Add(`com,example)/ 20260301120000 {"url":"x","more":{"a":1,"id":"nested"},"release_at":"2026-04-01T12:00:00Z","id":"real","state":"tombstone","time":"2026-03-01T12:00:00Z"}` + "\n")
	f.Fuzz(func(t *testing.T, line string) {
		raw, err := Parse([]byte(line))
		if err != nil {
			return
		}
		want, err := raw.Block.AppendID(nil)
		if err != nil {
			return
		}
		got, err := lineID(nil, []byte(line))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("lineID %q (%v), Parse %q", got, err, want)
		}
	})
}
