package release

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// embargoRules reads public/access/embargo.aclj: URL key → captures under embargo.
func embargoRules(t *testing.T, dir string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(layout.EmbargoACL(dir))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := public.ParseEmbargoACL(b)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int{}
	for _, r := range rules {
		if k, _ := surt.Key(r.URL); k != r.Key {
			t.Errorf("rule %s names %s, of key %s", r.Key, r.URL, k)
		}
		m[r.Key] = r.Captures
	}
	return m
}

// TestEmbargoACL: after every pass, public/access/embargo.aclj blocks exactly the URL keys with a
// capture under embargo (a tombstone, no release), counting them; a URL with two such captures
// has one rule; when everything is released the file is there, empty.
func TestEmbargoACL(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 24)
	// A second capture of an embargoed URL, with another body: two captures under one key.
	var twice store.Entry
	for _, e := range a.entries {
		if e.Period == embargo.Quarter {
			twice = e
			break
		}
	}
	s, err := store.Open(a.dir, store.Options{Logger: quietLogger(), Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	c := testCapture(twice.URL, t0.Add(time.Hour), embargo.Quarter, 1000)
	if _, err := s.Seal(t.Context(), []store.Capture{c}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	ix, err := store.OpenIndex(layout.Index(a.dir), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r := newTestReleaser(a.dir)
	for _, days := range []int{0, 8, 32, 91} {
		now := t0.Add(time.Duration(days)*24*time.Hour + 2*time.Hour)
		mustPass(t, r, now)
		want := map[string]int{}
		if err := ix.Due(farFuture, func(e store.Entry) error {
			if e.State != store.Tombstoned || !e.ReleaseAt.After(now) {
				t.Errorf("day %d: %s is %s, release at %s", days, e.URL, e.State, e.ReleaseAt)
			}
			k, _ := surt.Key(e.URL)
			want[k]++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		got := embargoRules(t, a.dir)
		if len(got) != len(want) || !equalCounts(got, want) {
			t.Errorf("day %d: rules %v, want %v", days, got, want)
		}
		key, _ := surt.Key(twice.URL)
		if days < 91 && got[key] != 2 {
			t.Errorf("day %d: %s has %d captures under embargo, want 2", days, twice.URL, got[key])
		}
		b, _ := os.ReadFile(layout.EmbargoACL(a.dir))
		if days == 91 && len(b) != 0 {
			t.Errorf("day 91: nothing is under embargo, but embargo.aclj holds\n%s", b)
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if line != "" && !strings.Contains(line, `### - {"access":"block","url":"https://`) {
				t.Errorf("day %d: line %q is not an exact-match block rule", days, line)
			}
		}
		mustVerify(t, a.dir)
	}
}

func equalCounts(a, b map[string]int) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}

// TestEmbargoACLRebuilt: a missing embargo.aclj is rebuilt from the index by the next pass, even
// one with nothing to release (in a commit that leaves state.json's generation as it was), and
// a damaged one by the next pass that publishes anything; both give the bytes the passes wrote.
func TestEmbargoACLRebuilt(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 24)
	r := newTestReleaser(a.dir)
	now := t0.Add(time.Hour)
	mustPass(t, r, now)
	want, err := os.ReadFile(layout.EmbargoACL(a.dir))
	if err != nil || len(want) == 0 {
		t.Fatalf("embargo.aclj after the first pass: %q, %v", want, err)
	}
	state, _ := os.ReadFile(layout.State(a.dir))
	os.Remove(layout.EmbargoACL(a.dir))
	if s := mustPass(t, r, now); s.Released+s.Tombstoned != 0 {
		t.Fatalf("the second pass published %+v", s)
	}
	if got, _ := os.ReadFile(layout.EmbargoACL(a.dir)); !bytes.Equal(got, want) {
		t.Errorf("rebuilt embargo.aclj differs:\n%s\nwant\n%s", got, want)
	}
	if got, _ := os.ReadFile(layout.State(a.dir)); !bytes.Equal(got, state) {
		t.Errorf("state.json changed by the commit of the access rules:\n%s\nwas\n%s", got, state)
	}

	// Damaged: the next pass that publishes rebuilds it, and the result is what it would be.
	os.WriteFile(layout.EmbargoACL(a.dir), []byte("junk\n"), 0o644)
	twin := buildArchive(t, t.TempDir(), 24)
	rt := newTestReleaser(twin.dir)
	mustPass(t, rt, now)
	later := t0.Add(8*24*time.Hour + time.Hour)
	mustPass(t, r, later)
	mustPass(t, rt, later)
	got, _ := os.ReadFile(layout.EmbargoACL(a.dir))
	if want, _ := os.ReadFile(layout.EmbargoACL(twin.dir)); !bytes.Equal(got, want) {
		t.Errorf("after the damage, embargo.aclj is\n%s\nwant\n%s", got, want)
	}
	mustVerify(t, a.dir)
}

// TestEmbargoACLAsPywbReadsIt looks rules up the way pywb's AccessChecker does (a binary search
// for KEY#### in the reverse-sorted file, then the first line that is KEY### exactly or a
// prefix of KEY): every key under embargo is blocked, and no other key, not even one it is a
// prefix of.
func TestEmbargoACLAsPywbReadsIt(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 24)
	mustPass(t, newTestReleaser(a.dir), t0.Add(time.Hour))
	b, _ := os.ReadFile(layout.EmbargoACL(a.dir))
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	rules := embargoRules(t, a.dir)
	for _, e := range a.entries {
		k, _ := surt.Key(e.URL)
		blocked := pywbBlocks(lines, k)
		if blocked != (rules[k] > 0) {
			t.Errorf("%s: pywb's lookup blocks %v, rules %d", k, blocked, rules[k])
		}
		for _, other := range []string{k + "x", k + "/more", strings.TrimSuffix(k, "/"+k[strings.LastIndex(k, "/")+1:])} {
			if rules[other] == 0 && pywbBlocks(lines, other) {
				t.Errorf("%s is blocked by the rule of %s", other, k)
			}
		}
	}
}

// pywbBlocks is pywb's find_access_rule over one .aclj file, without users and dates.
func pywbBlocks(lines []string, key string) bool {
	search := key + "####"
	// The first line ≤ search in the reverse-sorted file, and the one before it.
	i, _ := slices.BinarySearchFunc(lines, search, func(line, k string) int { return strings.Compare(k, strings.TrimSuffix(line, "\n")) })
	tld, _, _ := strings.Cut(key, ",")
	for j := max(i-1, 0); j < len(lines); j++ {
		aclKey, _, _ := strings.Cut(lines[j], " ")
		if aclKey == key+"###" || strings.HasPrefix(key, aclKey) {
			return strings.Contains(lines[j], `"access":"block"`)
		}
		if aclKey < tld {
			break
		}
	}
	return false
}
