package release

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// dayFileNames lists the day files of the directory full (public/access/ or public/embargoed/).
func dayFileNames(t testing.TB, full string) []string {
	t.Helper()
	ents, err := os.ReadDir(full)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		_, acl := public.DayOf(e.Name(), public.AccessPrefix, public.ACLExt)
		_, cdxj := public.DayOf(e.Name(), public.EmbargoedPrefix, public.CDXJExt)
		if acl || cdxj {
			names = append(names, filepath.Join(full, e.Name()))
		}
	}
	return names
}

func firstDayFile(t testing.TB, full string) string {
	t.Helper()
	for _, n := range dayFileNames(t, full) {
		if fi, err := os.Stat(n); err == nil && fi.Size() > 0 {
			return n
		}
	}
	t.Skip("no day file with lines")
	return ""
}

func lastDayFile(t testing.TB, full string) string {
	t.Helper()
	names := dayFileNames(t, full)
	for i := len(names) - 1; i >= 0; i-- {
		if b, _ := os.ReadFile(names[i]); bytes.Count(b, []byte("\n")) > 1 {
			return names[i]
		}
	}
	t.Skip("no day file of two lines")
	return ""
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// sortedLines is b's lines sorted bytewise.
func sortedLines(b []byte) []byte {
	lines := bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	for i := range lines {
		lines[i] = append(bytes.TrimSuffix(lines[i], []byte("\n")), '\n')
	}
	slices.SortFunc(lines, bytes.Compare)
	return bytes.Join(lines, nil)
}

// embargoDays reads pywb's view of what is under embargo: per day, the access rules (URL key →
// captures) and the capture ids of the tombstone lines. It fails the test when the files of a day
// disagree on having lines, or a rule names a URL of another key.
func embargoDays(t testing.TB, dir string) (rules map[string]map[string]int, ids map[string]map[string]bool) {
	t.Helper()
	rules, ids = map[string]map[string]int{}, map[string]map[string]bool{}
	for _, p := range dayFileNames(t, layout.Access(dir)) {
		day, _ := public.DayOf(filepath.Base(p), public.AccessPrefix, public.ACLExt)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := public.ParseEmbargoACL(b)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, r := range rs {
			if k, _ := surt.Key(r.URL); k != r.Key {
				t.Errorf("rule %s names %s, of key %s", r.Key, r.URL, k)
			}
			if rules[day] == nil {
				rules[day] = map[string]int{}
			}
			rules[day][r.Key] = r.Captures
		}
	}
	for _, p := range dayFileNames(t, layout.Embargoed(dir)) {
		day, _ := public.DayOf(filepath.Base(p), public.EmbargoedPrefix, public.CDXJExt)
		err := public.ReadCDXJ(os.DirFS(filepath.Dir(p)), filepath.Base(p), func(l public.Line) error {
			if l.State != public.StateTombstone {
				t.Errorf("%s: a %s line", p, l.State)
			}
			if ids[day] == nil {
				ids[day] = map[string]bool{}
			}
			ids[day][l.ID] = true
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for day := range rules {
		if len(ids[day]) == 0 {
			t.Errorf("day %s has rules and no tombstone lines", day)
		}
	}
	for day := range ids {
		if len(rules[day]) == 0 {
			t.Errorf("day %s has tombstone lines and no rules", day)
		}
	}
	return rules, ids
}

// embargoRules is the rules of every day together: URL key → captures under embargo.
func embargoRules(t testing.TB, dir string) map[string]int {
	t.Helper()
	rules, _ := embargoDays(t, dir)
	m := map[string]int{}
	for _, rs := range rules {
		for k, n := range rs {
			m[k] += n
		}
	}
	return m
}

// inode is the inode number of a file, 0 when it is not there.
func inode(p string) uint64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// TestEmbargoDays: after every pass, the day files block exactly the URL keys with a capture under
// embargo (a tombstone, no release), each day counting those releasing that day, and
// public/embargoed/ holds exactly their tombstone lines, in the file of their release day (a
// released capture's line is gone: pywb lists each capture once). A URL with captures releasing
// on two days has a rule in each. A pass rewrites only the files of the days it touches: those
// of days still to come keep their inode. Once everything is released, every day file is empty
// (the next pass that commits removes them).
func TestEmbargoDays(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 24)
	// A second capture of an embargoed URL, an hour later: two captures under one key.
	var twice store.Entry
	for _, e := range a.entries {
		if e.Period == embargo.Quarter {
			twice = e
			break
		}
	}
	s, err := store.Open(a.dir, store.Options{Logger: testkit.QuietLogger(), Now: func() time.Time { return t0 }})
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
	inodes := map[string]uint64{}
	for _, days := range []int{0, 8, 32, 91, 92} {
		now := t0.Add(time.Duration(days)*24*time.Hour + 2*time.Hour)
		mustPass(t, r, now)
		wantRules, wantIDs := map[string]map[string]int{}, map[string]map[string]bool{}
		if err := ix.Due(farFuture, func(e store.Entry) error {
			if e.State != store.Tombstoned || !e.ReleaseAt.After(now) {
				t.Errorf("day %d: %s is %s, release at %s", days, e.URL, e.State, e.ReleaseAt)
			}
			day := public.ReleaseDay(e.ReleaseAt)
			if wantRules[day] == nil {
				wantRules[day], wantIDs[day] = map[string]int{}, map[string]bool{}
			}
			k, _ := surt.Key(e.URL)
			wantRules[day][k]++
			wantIDs[day][e.ID] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		gotRules, gotIDs := embargoDays(t, a.dir)
		for day, want := range wantRules {
			if !maps.Equal(gotRules[day], want) {
				t.Errorf("day %d: rules of %s %v, want %v", days, day, gotRules[day], want)
			}
			delete(gotRules, day)
		}
		for day, ids := range gotRules {
			t.Errorf("day %d: rules of %s left: %v", days, day, ids)
		}
		for day, want := range wantIDs {
			if len(gotIDs[day]) != len(want) {
				t.Errorf("day %d: tombstone lines of %s %v, want %v", days, day, gotIDs[day], want)
			}
			for id := range want {
				if !gotIDs[day][id] {
					t.Errorf("day %d: no tombstone line of %s in %s", days, id, day)
				}
			}
		}
		released, _ := publicLines(t, a.dir)
		for _, ids := range gotIDs {
			for id := range ids {
				if released[id] > 0 {
					t.Errorf("day %d: %s is released and still in pywb's view of the tombstones", days, id)
				}
			}
		}
		key, _ := surt.Key(twice.URL)
		if days < 91 && embargoRules(t, a.dir)[key] != 2 {
			t.Errorf("day %d: %s has %d captures under embargo, want 2", days, twice.URL, embargoRules(t, a.dir)[key])
		}
		// Only the days that came due, or got tombstones, were written anew.
		for p, ino := range inodes {
			day, _ := public.DayOf(filepath.Base(p), public.AccessPrefix, public.ACLExt)
			if d, ok := public.DayOf(filepath.Base(p), public.EmbargoedPrefix, public.CDXJExt); ok {
				day = d
			}
			if day > public.ReleaseDay(now) && inode(p) != ino {
				t.Errorf("day %d: %s (a day still to come, nothing tombstoned) was written again", days, p)
			}
		}
		inodes = map[string]uint64{}
		for _, p := range append(dayFileNames(t, layout.Access(a.dir)), dayFileNames(t, layout.Embargoed(a.dir))...) {
			inodes[p] = inode(p)
		}
		for p := range inodes {
			if fi, err := os.Stat(p); days >= 91 && (err != nil || fi.Size() != 0) {
				t.Errorf("day %d: nothing is under embargo, but %s holds lines (%v)", days, p, err)
			}
		}
		for _, p := range dayFileNames(t, layout.Access(a.dir)) {
			b, _ := os.ReadFile(p)
			for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
				if line != "" && !strings.Contains(line, `### - {"access":"block","url":"https://`) {
					t.Errorf("day %d: line %q is not an exact-match block rule", days, line)
				}
			}
		}
		mustVerify(t, a.dir)
	}
}

// dayBytes is the day files of both directories: name → bytes.
func dayBytes(t testing.TB, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, p := range append(dayFileNames(t, layout.Access(dir)), dayFileNames(t, layout.Embargoed(dir))...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 0 {
			m[filepath.Base(p)] = string(b)
		}
	}
	return m
}

// TestEmbargoDaysRebuilt: missing day files are rebuilt from the index by the next pass, even one
// with nothing to release (in a commit that leaves state.json's generation as it was), and a
// damaged one by the next pass that publishes anything; both give the bytes the passes wrote.
func TestEmbargoDaysRebuilt(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 24)
	r := newTestReleaser(a.dir)
	now := t0.Add(time.Hour)
	mustPass(t, r, now)
	want := dayBytes(t, a.dir)
	if len(want) == 0 {
		t.Fatal("no day files after the first pass")
	}
	state, _ := os.ReadFile(layout.State(a.dir))
	for _, dir := range []string{layout.Access(a.dir), layout.Embargoed(a.dir)} {
		for _, p := range dayFileNames(t, dir) {
			os.Remove(p)
		}
		if s := mustPass(t, r, now); s.Released+s.Tombstoned != 0 {
			t.Fatalf("the second pass published %+v", s)
		}
		if got := dayBytes(t, a.dir); !maps.Equal(got, want) {
			t.Errorf("rebuilt day files differ:\n%v\nwant\n%v", got, want)
		}
		if got, _ := os.ReadFile(layout.State(a.dir)); !bytes.Equal(got, state) {
			t.Errorf("state.json changed by the commit of the access rules:\n%s\nwas\n%s", got, state)
		}
	}

	// Damaged: the next pass that publishes rebuilds the day, and the result is what it would be.
	twin := buildArchive(t, t.TempDir(), 24)
	rt := newTestReleaser(twin.dir)
	mustPass(t, rt, now)
	later := t0.Add(8*24*time.Hour + time.Hour)
	for _, p := range dayFileNames(t, layout.Embargoed(a.dir))[:1] {
		os.WriteFile(p, []byte("junk\n"), 0o644)
	}
	for _, p := range dayFileNames(t, layout.Access(a.dir))[:1] {
		os.WriteFile(p, []byte("junk\n"), 0o644)
	}
	mustPass(t, r, later)
	mustPass(t, rt, later)
	// The twin's capture ids differ, so its tombstone lines do too: the rules are compared, and
	// verify checks the lines against the index.
	if got, want := embargoRules(t, a.dir), embargoRules(t, twin.dir); !maps.Equal(got, want) {
		t.Errorf("after the damage, the rules are\n%v\nwant\n%v", got, want)
	}
	for _, p := range dayFileNames(t, layout.Access(a.dir)) {
		got, _ := os.ReadFile(p)
		if want, _ := os.ReadFile(filepath.Join(layout.Access(twin.dir), filepath.Base(p))); !bytes.Equal(got, want) {
			t.Errorf("after the damage, %s is\n%s\nwant\n%s", p, got, want)
		}
	}
	mustVerify(t, a.dir)
}

// TestEmbargoDaysUpgrade: an archive of an earlier version, with its one access/embargo.aclj and
// no days, verifies as it is; its next pass writes the days (what a pass of this version would
// have) and empties embargo.aclj in the same commit; a later pass that publishes removes it (one
// that publishes nothing leaves public/ as it is).
func TestEmbargoDaysUpgrade(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 24)
	r := newTestReleaser(a.dir)
	now := t0.Add(time.Hour)
	mustPass(t, r, now)
	want := dayBytes(t, a.dir)
	toEarlierVersion(t, a)
	mustVerify(t, a.dir)
	mustPass(t, r, now)
	if got := dayBytes(t, a.dir); !maps.Equal(got, want) {
		t.Errorf("the days written on the upgrade differ:\n%v\nwant\n%v", got, want)
	}
	if b, err := os.ReadFile(layout.EmbargoACL(a.dir)); err != nil || len(b) != 0 {
		t.Errorf("embargo.aclj after the upgrade: %q, %v; want it empty", b, err)
	}
	mustVerify(t, a.dir)
	mustPass(t, r, now.Add(time.Hour))
	if b, err := os.ReadFile(layout.EmbargoACL(a.dir)); err != nil || len(b) != 0 {
		t.Errorf("embargo.aclj after a pass that published nothing: %q, %v; want it as it was, empty", b, err)
	}
	if s := mustPass(t, r, t0.Add(8*24*time.Hour+time.Hour)); s.Released == 0 {
		t.Fatalf("nothing released on day 8: %+v", s)
	}
	if _, err := os.Stat(layout.EmbargoACL(a.dir)); !os.IsNotExist(err) {
		t.Errorf("embargo.aclj is still there after a pass that published: %v", err)
	}
	mustVerify(t, a.dir)
}

// toEarlierVersion makes a's public/ as an earlier version left it: no days, one
// access/embargo.aclj of every rule.
func toEarlierVersion(t *testing.T, a *archive) {
	t.Helper()
	rules := embargoRules(t, a.dir)
	var list []public.EmbargoRule
	for k, n := range rules {
		u := ""
		for _, e := range a.entries {
			if ek, _ := surt.Key(e.URL); ek == k && (u == "" || e.URL < u) {
				u = e.URL
			}
		}
		list = append(list, public.EmbargoRule{Key: k, URL: u, Captures: n})
	}
	old, err := public.FormatEmbargoACL(list)
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(layout.Embargoed(a.dir))
	for _, p := range dayFileNames(t, layout.Access(a.dir)) {
		os.Remove(p)
	}
	os.WriteFile(layout.EmbargoACL(a.dir), old, 0o644)
}

// TestEmbargoDaysUpgradeWithRelease: the first pass over an archive of an earlier version that
// also releases and tombstones writes, in its first commit, the days rebuilt from the index with
// that commit's changes applied: the rules a pass of this version would have left.
func TestEmbargoDaysUpgradeWithRelease(t *testing.T) {
	t.Parallel()
	a, twin := buildArchive(t, t.TempDir(), 24), buildArchive(t, t.TempDir(), 24)
	r, rt := newTestReleaser(a.dir), newTestReleaser(twin.dir)
	now := t0.Add(time.Hour)
	mustPass(t, r, now)
	mustPass(t, rt, now)
	toEarlierVersion(t, a)
	later := t0.Add(8*24*time.Hour + time.Hour)
	if s := mustPass(t, r, later); s.Released == 0 {
		t.Fatalf("nothing released on day 8: %+v", s)
	}
	mustPass(t, rt, later)
	for _, p := range dayFileNames(t, layout.Access(twin.dir)) {
		want, _ := os.ReadFile(p)
		if got, _ := os.ReadFile(filepath.Join(layout.Access(a.dir), filepath.Base(p))); !bytes.Equal(got, want) {
			t.Errorf("after the upgrade, %s is\n%s\nwant\n%s", filepath.Base(p), got, want)
		}
	}
	if b, err := os.ReadFile(layout.EmbargoACL(a.dir)); err != nil || len(b) != 0 {
		t.Errorf("embargo.aclj after the upgrade: %q, %v; want it empty", b, err)
	}
	mustVerify(t, a.dir)
}

// pywbACL is the lines pywb's access checker reads from acl_paths naming public/access/: every
// .aclj there, merged in reverse order (its ReverseMergeMixin over one source per file).
func pywbACL(t testing.TB, dir string) []string {
	t.Helper()
	var lines []string
	for _, p := range dayFileNames(t, layout.Access(dir)) {
		b, _ := os.ReadFile(p)
		lines = append(lines, strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")...)
	}
	lines = slices.DeleteFunc(lines, func(s string) bool { return s == "" })
	slices.SortStableFunc(lines, func(a, b string) int { return strings.Compare(b, a) })
	return lines
}

// TestEmbargoACLAsPywbReadsIt looks rules up the way pywb's AccessChecker does over the directory
// (a binary search for KEY#### in the reverse-merged rules, then the first line that is KEY###
// exactly or a prefix of KEY): every key under embargo is blocked, and no other key, not even one
// it is a prefix of.
func TestEmbargoACLAsPywbReadsIt(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 24)
	mustPass(t, newTestReleaser(a.dir), t0.Add(time.Hour))
	lines := pywbACL(t, a.dir)
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

// pywbBlocks is pywb's find_access_rule over reverse-sorted .aclj lines, without users and dates.
func pywbBlocks(lines []string, key string) bool {
	search := key + "####"
	// The first line ≤ search in the reverse-sorted lines, and the one before it.
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
