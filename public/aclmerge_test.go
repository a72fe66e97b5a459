package public

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMergeEmbargoACL: merging changes into a file gives what FormatEmbargoACL gives for the
// rules changed the same way, over random rule sets and changes (new keys, changed ones,
// removed ones, keys that are prefixes of others).
func TestMergeEmbargoACL(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	keyOf := func() string {
		k := fmt.Sprintf("com,example%d)/%s", rng.IntN(5), strings.Repeat("a", rng.IntN(4)))
		if rng.IntN(3) == 0 {
			k += fmt.Sprintf("/p%d", rng.IntN(20))
		}
		return k
	}
	for round := range 300 {
		rules := map[string]EmbargoRule{}
		for range rng.IntN(30) {
			k := keyOf()
			rules[k] = EmbargoRule{Key: k, URL: "https://" + k, Captures: 1 + rng.IntN(3)}
		}
		before, err := FormatEmbargoACL(values(rules))
		if err != nil {
			t.Fatal(err)
		}
		changes := map[string]RuleChange{}
		for range rng.IntN(10) {
			k := keyOf()
			c := changes[k]
			if r, ok := rules[k]; ok && rng.IntN(2) == 0 {
				c.Captures -= 1 + rng.IntN(r.Captures) // release some or all
			} else {
				u := fmt.Sprintf("https://%s?%d", k, rng.IntN(3))
				c.Captures++
				if c.URL == "" || u < c.URL {
					c.URL = u
				}
			}
			changes[k] = c
		}
		want := map[string]EmbargoRule{}
		for k, r := range rules {
			want[k] = r
		}
		for k, c := range changes {
			r, ok := want[k]
			if !ok {
				r = EmbargoRule{Key: k, URL: c.URL}
			}
			r.Captures += c.Captures
			if c.URL != "" && c.URL < r.URL {
				r.URL = c.URL
			}
			want[k] = r
		}
		wantB, err := FormatEmbargoACL(values(want))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := MergeEmbargoACL(bytes.NewReader(before), &got, changes); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !bytes.Equal(got.Bytes(), wantB) {
			t.Fatalf("round %d: merged\n%s\nwant\n%s\nfrom\n%s\nchanges %v", round, got.Bytes(), wantB, before, changes)
		}
	}
}

func values(m map[string]EmbargoRule) []EmbargoRule {
	var rs []EmbargoRule
	for _, r := range m {
		rs = append(rs, r)
	}
	return rs
}

// TestMergeEmbargoACLRejects: a file out of order, with a repeated key, a line of another form
// or without its final newline is an error, as ParseEmbargoACL says.
func TestMergeEmbargoACLRejects(t *testing.T) {
	t.Parallel()
	line := func(k string) string { return k + `### - {"access":"block","url":"https://x","captures":1}` + "\n" }
	for _, bad := range []string{
		line("a") + line("b"),
		line("b") + line("b"),
		"b - {}\n",
		"b c### - {}\n",
		strings.TrimSuffix(line("a"), "\n"),
	} {
		if err := MergeEmbargoACL(strings.NewReader(bad), io.Discard, nil); err == nil {
			t.Errorf("MergeEmbargoACL(%q) accepted it", bad)
		}
	}
	long := line("com,example)/" + strings.Repeat("x", 200<<10)) // longer than the reader's buffer
	var got bytes.Buffer
	if err := MergeEmbargoACL(strings.NewReader(long), &got, nil); err != nil || got.String() != long {
		t.Errorf("a 200 KB line: %v, copied %d of %d bytes", err, got.Len(), len(long))
	}
}

// FuzzMergeEmbargoACL: whatever the input, no panic; a file ParseEmbargoACL accepts is copied
// unchanged when there is nothing to change.
func FuzzMergeEmbargoACL(f *testing.F) {
	f.Add([]byte(`b### - {"access":"block","url":"https://b","captures":2}` + "\n" + `a### - {"access":"block","url":"https://a","captures":1}` + "\n"))
	f.Add([]byte("x### - {\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var out bytes.Buffer
		MergeEmbargoACL(bytes.NewReader(b), &out, map[string]RuleChange{"a": {Captures: 1, URL: "https://a"}}) // never a panic
		if _, perr := ParseEmbargoACL(b); perr == nil {
			out.Reset()
			if err := MergeEmbargoACL(bytes.NewReader(b), &out, nil); err != nil || !bytes.Equal(out.Bytes(), b) {
				t.Fatalf("a valid file: %v, copied as %q", err, out.Bytes())
			}
		}
	})
}
