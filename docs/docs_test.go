// Package docs_test checks that every citation in the repository resolves inside it: no comment
// or page cites a document the repository does not hold, and every docs/<page>.md#anchor exists.
package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// outside matches a citation of a document that is not in the repository: the reference notes
// the project started from, by name or by a bare decision number. The patterns are spelled so
// that this file does not match them itself.
var outside = []*regexp.Regexp{
	regexp.MustCompile(`\bS[P]EC\b`),
	regexp.MustCompile(`\bD[E]SIGN\b`),
	regexp.MustCompile(`\bD[E]PENDENCIES\b`),
	regexp.MustCompile(`\bS[T]YLE\.md\b`),
	regexp.MustCompile(`\.\./s[h]ared\b`),
	regexp.MustCompile(`specification d[i]gest`),
}

// bareDecision matches a decision number written without its link: a D and one or two digits.
// A percent-encoded byte is not a citation, nor is a decision's own name in docs/, where it is
// defined and linked.
var bareDecision = regexp.MustCompile(`(^|[^%\[A-Za-z0-9_])D([1-9][0-9]?)\b`)

// docsRef matches docs/<page>.md with an optional #anchor, anywhere in a file.
var docsRef = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])docs/([A-Za-z0-9_-]+\.md)(?:#([A-Za-z0-9_-]+))?`)

// relLink matches a Markdown link inside docs/: (X.md#anchor), (X.md) or (#anchor).
var relLink = regexp.MustCompile(`\]\(([A-Za-z0-9_-]+\.md)?(?:#([A-Za-z0-9_-]+))?\)`)

// outsideCitations returns the citations in text that point outside the repository; inDocs
// allows the decisions' own names.
func outsideCitations(text string, inDocs bool) []string {
	var found []string
	for _, re := range outside {
		found = append(found, re.FindAllString(text, -1)...)
	}
	if inDocs {
		return found
	}
	for _, m := range bareDecision.FindAllStringSubmatch(text, -1) {
		found = append(found, "D"+m[2])
	}
	return found
}

// ref is one reference to a page of docs/ and, when not empty, an anchor in it.
type ref struct{ page, anchor string }

// references returns the docs/ references in text; inDocs adds the relative links of a page
// of docs/ itself, self being that page's name (for links to "#anchor").
func references(text string, inDocs bool, self string) []ref {
	var refs []ref
	for _, m := range docsRef.FindAllStringSubmatch(text, -1) {
		refs = append(refs, ref{m[1], m[2]})
	}
	if inDocs {
		for _, m := range relLink.FindAllStringSubmatch(text, -1) {
			page := m[1]
			if page == "" {
				page = self
			}
			if m[1] == "" && m[2] == "" {
				continue
			}
			refs = append(refs, ref{page, m[2]})
		}
	}
	return refs
}

var (
	anchorID = regexp.MustCompile(`<a id="([^"]+)"`)
	heading  = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t]*$`)
	notSlug  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// anchors returns the anchors of a Markdown page: explicit <a id> and GitHub heading slugs.
func anchors(page string) map[string]bool {
	set := map[string]bool{}
	for _, m := range anchorID.FindAllStringSubmatch(page, -1) {
		set[m[1]] = true
	}
	for _, m := range heading.FindAllStringSubmatch(page, -1) {
		slug := notSlug.ReplaceAllString(strings.ToLower(m[1]), "")
		set[strings.ReplaceAll(slug, " ", "-")] = true
	}
	return set
}

// repoFiles returns the .go and .md files of the repository rooted at root, skipping .git.
func repoFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if ext := filepath.Ext(path); !d.IsDir() && (ext == ".go" || ext == ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", root, err)
	}
	return files
}

// TestCitationsResolve fails when a .go or .md file cites a document outside the repository, or
// a docs/ page or anchor that does not exist.
func TestCitationsResolve(t *testing.T) {
	t.Parallel()
	root := ".."
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the repository root is not the parent of docs/: %v", err)
	}
	pages := map[string]map[string]bool{}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			b, err := os.ReadFile(e.Name())
			if err != nil {
				t.Fatal(err)
			}
			pages[e.Name()] = anchors(string(b))
		}
	}
	files := repoFiles(t, root)
	if len(files) < 50 {
		t.Fatalf("found only %d .go and .md files under %s", len(files), root)
	}
	var links int
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		inDocs := filepath.Dir(rel) == "docs" && filepath.Ext(rel) == ".md"
		for _, c := range outsideCitations(string(b), inDocs) {
			t.Errorf("%s cites %q, which is not in the repository: cite docs/ instead", rel, c)
		}
		for _, r := range references(string(b), inDocs, filepath.Base(rel)) {
			links++
			set, ok := pages[r.page]
			switch {
			case !ok:
				t.Errorf("%s links to docs/%s, which does not exist", rel, r.page)
			case r.anchor != "" && !set[r.anchor]:
				t.Errorf("%s links to docs/%s#%s, which has no such anchor", rel, r.page, r.anchor)
			}
		}
	}
	if links < 50 {
		t.Errorf("found only %d links to docs/: is the pattern still right?", links)
	}
}

// TestCheckers shows the checks catch what they are for and pass what is not a citation.
func TestCheckers(t *testing.T) {
	t.Parallel()
	page := "# Title\n<a id=\"d7\"></a>\n## The release time (RFC 9110)\n"
	set := anchors(page)
	for _, want := range []string{"d7", "title", "the-release-time-rfc-9110"} {
		if !set[want] {
			t.Errorf("anchors(%q) lacks %q: %v", page, want, set)
		}
	}
	d0, d6, d14 := "D"+"0", "D"+"6", "D"+"14" // spelled apart, so that this file cites nothing
	tests := []struct {
		name, text string
		outside    []string
		refs       []ref
	}{
		{"spec section", "// as S" + "PEC §2.10 says", []string{"S" + "PEC"}, nil},
		{"design file", "see D" + "ESIGN.md §7", []string{"D" + "ESIGN"}, nil},
		{"shared notes", "(../s" + "hared/notes)", []string{"../s" + "hared"}, nil},
		{"bare decision", "// the longest (" + d6 + ")", []string{d6}, nil},
		{"decision after colon", "checks " + d14 + ": releaseAt", []string{d14}, nil},
		{"percent-encoded byte", `"%` + d0 + `%A1%` + d0 + `%BB"`, nil, nil},
		{"linked decision", "[" + d6 + "](docs/rules.md#d6)", nil, []ref{{"rules.md", "d6"}}},
		{"docs anchor", "// the longest (docs/rules.md#d6)", nil, []ref{{"rules.md", "d6"}}},
		{"docs page", "[docs/rules.md](docs/rules.md)", nil, []ref{{"rules.md", ""}, {"rules.md", ""}}},
		{"not a docs path", "see godocs/x.md#y and ./pkg/docs/y.md", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := outsideCitations(tc.text, false); !slices.Equal(got, tc.outside) {
				t.Errorf("outsideCitations(%q) = %q, want %q", tc.text, got, tc.outside)
			}
			if got := references(tc.text, false, ""); !slices.Equal(got, tc.refs) {
				t.Errorf("references(%q) = %v, want %v", tc.text, got, tc.refs)
			}
		})
	}
	inDocs := "[" + d6 + "](#d6) and [there](formats.md#cdxj)"
	if got := outsideCitations(inDocs, true); got != nil {
		t.Errorf("outsideCitations(%q) in docs/ = %q, want none", inDocs, got)
	}
	if got := references(inDocs, true, "rules.md"); !slices.Equal(got, []ref{{"rules.md", "d6"}, {"formats.md", "cdxj"}}) {
		t.Errorf("references(%q) in docs/ = %v", inDocs, got)
	}
}
