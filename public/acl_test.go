package public

import (
	"reflect"
	"strings"
	"testing"
)

func TestEmbargoACL(t *testing.T) {
	t.Parallel()
	rules := []EmbargoRule{
		{Key: "com,example)/a", URL: "https://example.com/a", Captures: 1},
		{Key: "com,example)/ab", URL: "https://www.example.com/ab?", Captures: 2},
		{Key: "1,0,0,127:8080)/x?a=1&b=2", URL: "http://127.0.0.1:8080/x?b=2&a=1", Captures: 1},
		{Key: "com,example)/gone", URL: "https://example.com/gone", Captures: 0},
	}
	b, err := FormatEmbargoACL(rules)
	if err != nil {
		t.Fatal(err)
	}
	want := `com,example)/ab### - {"access":"block","url":"https://www.example.com/ab?","captures":2}` + "\n" +
		`com,example)/a### - {"access":"block","url":"https://example.com/a","captures":1}` + "\n" +
		`1,0,0,127:8080)/x?a=1&b=2### - {"access":"block","url":"http://127.0.0.1:8080/x?b=2&a=1","captures":1}` + "\n"
	if string(b) != want {
		t.Errorf("aclj\n%s\nwant\n%s", b, want)
	}
	got, err := ParseEmbargoACL(b)
	if err != nil || !reflect.DeepEqual(got, []EmbargoRule{rules[1], rules[0], rules[2]}) {
		t.Errorf("parsed %+v, %v", got, err)
	}
	if got, err := ParseEmbargoACL(nil); err != nil || len(got) != 0 {
		t.Errorf("an empty file: %v %v", got, err)
	}
	lines := strings.SplitAfter(want, "\n")
	for _, bad := range []string{
		lines[1] + lines[0],
		lines[0] + lines[0],
		strings.Replace(lines[0], "###", "", 1),
		strings.Replace(lines[0], `"block"`, `"allow"`, 1),
		strings.Replace(lines[0], `"captures":2`, `"captures":0`, 1),
		strings.Replace(lines[0], `}`, `,"user":"staff"}`, 1),
		strings.TrimSuffix(lines[0], "\n"),
		"junk\n",
	} {
		if got, err := ParseEmbargoACL([]byte(bad)); err == nil {
			t.Errorf("ParseEmbargoACL(%q) = %+v, want an error", bad, got)
		}
	}
	if _, err := FormatEmbargoACL([]EmbargoRule{{Key: "a b", URL: "x", Captures: 1}}); err == nil {
		t.Error("a key with a space was written")
	}
}
