package crawler

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"
)

func TestParsePartition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Partition
		errWord string // a word the error must hold; "" for no error
	}{
		{"0/1", Partition{0, 1}, ""},
		{"0/3", Partition{0, 3}, ""},
		{"2/3", Partition{2, 3}, ""},
		{"3/3", Partition{}, "K must be from 0 to 2"},
		{"4/3", Partition{}, "K must be from 0 to 2"},
		{"-1/3", Partition{}, "K must be"},
		{"0/0", Partition{}, "N must be at least 1"},
		{"1/0", Partition{}, "N must be at least 1"},
		{"0/-2", Partition{}, "N must be at least 1"},
		{"", Partition{}, "not K/N"},
		{"3", Partition{}, "not K/N"},
		{"a/b", Partition{}, "not K/N"},
		{"1/3/5", Partition{}, "not K/N"},
		{"/3", Partition{}, "not K/N"},
		{"1/", Partition{}, "not K/N"},
		{"+1/3", Partition{}, "not K/N"},
		{" 1/3", Partition{}, "not K/N"},
		{"1.0/3", Partition{}, "not K/N"},
		{"99999999999999999999/3", Partition{}, "not K/N"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParsePartition(tc.in)
			if tc.errWord == "" {
				if err != nil || got != tc.want {
					t.Fatalf("ParsePartition(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
				}
				if got.String() != tc.in {
					t.Errorf("String() = %q, want %q", got.String(), tc.in)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.errWord) {
				t.Fatalf("ParsePartition(%q) = %v, %v; want an error saying %q", tc.in, got, err, tc.errWord)
			}
		})
	}
}

// TestOriginPartitionStable pins the mapping: nodes that already hold an origin's captures
// depend on it never changing. The values were checked against an independent implementation
// of FNV-1a 64 and jump consistent hashing.
func TestOriginPartitionStable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url      string
		of3, of7 int
	}{
		{"http://a.example/", 1, 4},
		{"https://a.example/", 0, 6},
		{"http://a.example:8080/", 1, 1},
		{"http://127.0.0.1:41001/", 0, 0},
		{"https://www.example.org/", 1, 1},
		{"http://[::1]:8080/", 0, 0},
	}
	for _, tc := range tests {
		u := mustURL(t, tc.url)
		if got := OriginPartition(u, 3); got != tc.of3 {
			t.Errorf("OriginPartition(%s, 3) = %d, want %d", tc.url, got, tc.of3)
		}
		if got := OriginPartition(u, 7); got != tc.of7 {
			t.Errorf("OriginPartition(%s, 7) = %d, want %d", tc.url, got, tc.of7)
		}
	}
}

func TestOriginPartitionIsTheOrigin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"path and query do not count", "http://a.example/x?q=1", "http://a.example/y/z", true},
		{"host case does not count", "http://A.Example/", "http://a.example/", true},
		{"default port written or not", "http://a.example:80/", "http://a.example/", true},
		{"default https port", "https://a.example:443/", "https://a.example/", true},
		{"trailing root dot", "http://a.example./", "http://a.example/", true},
		{"leading zeros in the port", "http://a.example:080/", "http://a.example/", true},
		{"IDN host in Unicode or punycode", "http://BÜCHER.example/", "http://xn--bcher-kva.example/", true},
		{"scheme counts", "http://a.example/", "https://a.example/", false},
		{"port counts", "http://a.example:8080/", "http://a.example/", false},
		{"host counts", "http://b.example/", "http://a.example/", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, b := originKey(mustURL(t, tc.a)), originKey(mustURL(t, tc.b))
			if (a == b) != tc.same {
				t.Fatalf("keys %q and %q: same = %v, want %v", a, b, a == b, tc.same)
			}
		})
	}
}

func TestPartitionsSplitOriginsEvenly(t *testing.T) {
	t.Parallel()
	const origins = 30000
	for _, n := range []int{2, 3, 5, 16} {
		counts := make([]int, n)
		for i := range origins {
			counts[OriginPartition(mustURL(t, fmt.Sprintf("http://host%d.example:%d/", i, 8000+i%50)), n)]++
		}
		want := float64(origins) / float64(n)
		for k, c := range counts {
			// Five standard deviations of a binomial count: fails only on a real bias.
			if math.Abs(float64(c)-want) > 5*math.Sqrt(want) {
				t.Errorf("n=%d: partition %d holds %d origins, want about %.0f", n, k, c, want)
			}
		}
	}
}

func TestAddingANodeMovesFewOrigins(t *testing.T) {
	t.Parallel()
	const origins = 20000
	for _, n := range []int{3, 8} {
		moved := 0
		for i := range origins {
			u := mustURL(t, fmt.Sprintf("https://site-%d.example/", i))
			before, after := OriginPartition(u, n), OriginPartition(u, n+1)
			if before != after {
				if after != n {
					t.Fatalf("%s moved from %d to %d going to %d nodes: only moves to the new node are allowed", u, before, after, n+1)
				}
				moved++
			}
		}
		want := float64(origins) / float64(n+1)
		if math.Abs(float64(moved)-want) > 5*math.Sqrt(want) {
			t.Errorf("%d → %d nodes moved %d origins, want about %.0f", n, n+1, moved, want)
		}
	}
}

func TestPartitionFilterCoversEverySeedOnce(t *testing.T) {
	t.Parallel()
	var seeds []*url.URL
	for i := range 200 {
		seeds = append(seeds, mustURL(t, fmt.Sprintf("http://127.0.0.1:%d/start", 20000+i)))
	}
	seen := map[string]int{}
	for k := range 3 {
		p := Partition{K: k, N: 3}
		got := p.Filter(seeds)
		if len(got) == 0 {
			t.Errorf("partition %v owns none of 200 origins", p)
		}
		for _, s := range got {
			seen[s.String()]++
			if !p.Owns(s) {
				t.Errorf("Filter kept %s, which %v does not own", s, p)
			}
		}
	}
	for _, s := range seeds {
		if seen[s.String()] != 1 {
			t.Errorf("%s is in %d partitions, want 1", s, seen[s.String()])
		}
	}
	if got := (Partition{}).Filter(seeds); len(got) != len(seeds) {
		t.Errorf("the zero partition kept %d of %d seeds", len(got), len(seeds))
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
