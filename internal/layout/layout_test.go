package layout

import (
	"go/build"
	"strings"
	"testing"
)

func TestPaths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		got, want string
	}{
		{Sealed("/d"), "/d/sealed"},
		{Index("/d"), "/d/index.db"},
		{Frontier("/d"), "/d/frontier.db"},
		{Browser("/d"), "/d/browser"},
		{SealedLock("/d"), "/d/sealed.lock"},
		{ReleaseLock("/d"), "/d/release.lock"},
		{ReleaseTmp("/d"), "/d/release-tmp"},
		{ReleaseJournal("/d"), "/d/release-journal.json"},
		{Public("/d"), "/d/public"},
		{Shards("/d"), "/d/public/shards"},
		{Tombstones("/d"), "/d/public/tombstones"},
		{Access("/d"), "/d/public/access"},
		{Embargoed("/d"), "/d/public/embargoed"},
		{EmbargoACL("/d"), "/d/public/access/embargo.aclj"},
		{ReleaseLog("/d"), "/d/public/release-log.jsonl"},
		{State("/d"), "/d/public/state.json"},
		{Index("data"), "data/index.db"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}

// TestStandardLibraryOnly keeps layout usable by the lookup service, which must not depend on the
// sealed repository or its libraries.
func TestStandardLibraryOnly(t *testing.T) {
	t.Parallel()
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
			t.Errorf("layout imports %s; it may use the standard library only", imp)
		}
	}
}
