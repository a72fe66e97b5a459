package warcfields

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/nlnwa/gowarc/v3"
)

func TestEncode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"https://example.com/a?b=c", "https://example.com/a?b=c"},
		{"train-ai=n, search=y", "train-ai=n, search=y"},
		{"Bücher", "Bücher"},
		{"", ""},
		{"a=?b", "=?utf-8?b?YT0/Yg==?="},
		{" lead", "=?utf-8?b?IGxlYWQ=?="},
		{"trail ", "=?utf-8?b?dHJhaWwg?="},
		{"tab\there", "=?utf-8?b?dGFiCWhlcmU=?="},
		{"line\r\nbreak", "=?utf-8?b?bGluZQ0KYnJlYWs=?="},
		{"latin-1 \xe9", "=?utf-8?b?bGF0aW4tMSDp?="},
		{strings.Repeat("x", 50) + "\x01", "=?utf-8?b?" + strings.Repeat("eHh4", 15) + "?= =?utf-8?b?eHh4eHgB?="},
	} {
		if got := Encode(tc.in); got != tc.want {
			t.Errorf("Encode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     []Field
	}{
		{"CRLF", "a: 1\r\nb: two words\r\n", []Field{{"a", "1"}, {"b", "two words"}}},
		{"LF, no final end", "a: 1\nb:2", []Field{{"a", "1"}, {"b", "2"}}},
		{"repeated names in order", "outlink: x\r\noutlink: y\r\n", []Field{{"outlink", "x"}, {"outlink", "y"}}},
		{"continuation", "a: one\r\n  two\r\nb: 3\r\n", []Field{{"a", "one two"}, {"b", "3"}}},
		{"blank continuation", "a: one\r\n \r\nb:\r\n\ttwo\r\n", []Field{{"a", "one"}, {"b", "two"}}},
		{"empty line ends the block", "a: 1\r\n\r\nb: 2\r\n", []Field{{"a", "1"}}},
		{"empty value", "a:\r\n", []Field{{"a", ""}}},
		{"encoded words", "a: =?utf-8?b?YT0/Yg==?=\r\nb: =?UTF-8?Q?x_y?=\r\n", []Field{{"a", "a=?b"}, {"b", "x y"}}},
	} {
		got, err := Parse([]byte(tc.in))
		if err != nil || !equal(got, tc.want) {
			t.Errorf("%s: Parse = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "\r\n", "no colon\r\n", " continues nothing\r\n", "a: =?x-unknown?q?y?=\r\n"} {
		if got, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) = %q, want an error", bad, got)
		}
	}
}

func TestBadName(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "a:b", "a b", "a\r\n"} {
		var w Builder
		w.Add("ok", "1")
		w.Add(name, "x")
		if b, err := w.Bytes(); err == nil {
			t.Errorf("name %q: %q, want an error", name, b)
		}
	}
}

func equal(a, b []Field) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzRoundTrip: whatever a value holds, Parse gives back exactly what Add wrote, and gowarc's
// strict reader takes the block (its view of a value, decoded before it is trimmed, lacks the
// value's surrounding white space).
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"plain", "a=?b", " x ", "\r\n", "\xff\xfe", "é=?utf-8?q?x?=", strings.Repeat("ü", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		var w Builder
		w.Add("format", "test/1")
		w.Add("value", v)
		w.Add("last", "end")
		block, err := w.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Parse(block)
		if err != nil || len(fs) != 3 || fs[1].Value != v {
			t.Fatalf("Parse(%q) = %q, %v; want the value %q back", block, fs, err, v)
		}
		rb := gowarc.NewRecordBuilder(gowarc.Metadata, gowarc.WithSyntaxErrorPolicy(gowarc.ErrFail), gowarc.WithSpecViolationPolicy(gowarc.ErrFail),
			gowarc.WithAddMissingDigest(true))
		rb.AddWarcHeader(gowarc.WarcRecordID, "<urn:uuid:00000000-0000-4000-8000-000000000001>")
		rb.AddWarcHeader(gowarc.WarcDate, "2026-03-01T12:00:00Z")
		rb.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationWarcFields)
		if _, err := rb.Write(block); err != nil {
			t.Fatal(err)
		}
		rec, _, err := rb.Build()
		if err != nil {
			t.Fatalf("gowarc refuses %q: %v", block, err)
		}
		defer rec.Close()
		var out bytes.Buffer
		if _, _, err := gowarc.NewMarshaler().Marshal(bufio.NewWriter(&out), rec, 0); err != nil {
			t.Fatal(err)
		}
		wf, ok := rec.Block().(gowarc.WarcFieldsBlock)
		if !ok {
			t.Fatalf("gowarc reads a %T", rec.Block())
		}
		if got := wf.WarcFields().Get("value"); got != strings.Trim(v, " \t\r\n") {
			t.Fatalf("gowarc reads %q, wrote %q", got, v)
		}
	})
}
