package public

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestFormatLineLimit checks that FormatLine never writes a line longer than MaxLineBytes: the
// header fields are cut to fit and marked, and everything else of the line is kept.
func TestFormatLineLimit(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	base := CDXJ{URL: "https://example.com/", Digest: "sha256:00", Filename: "PUBLIC-1.warc.gz", ReleaseAt: "2026-03-08T12:00:00Z",
		ID: "<urn:uuid:1>", State: StateTombstone, Time: "2026-03-01T12:00:00Z", Length: 10, Offset: 20}
	with := func(hs ...[2]string) CDXJ { c := base; c.Headers = hs; return c }
	tests := []struct {
		name      string
		c         CDXJ
		truncated bool
		keep      int // header fields kept, whole or cut
		err       error
	}{
		{"small", with([2]string{"Content-Type", "text/html"}), false, 1, nil},
		{"a 250,000-character header of characters JSON escapes", with([2]string{"Content-Type", "text/html"}, [2]string{"X-Big", strings.Repeat("<", 250000)}, [2]string{"X-After", "1"}), true, 2, nil},
		{"a 2 MB header of plain characters", with([2]string{"X-Big", strings.Repeat("a", 2<<20)}), true, 1, nil},
		{"invalid UTF-8", with([2]string{"X-Big", strings.Repeat("\xff", 250000)}), true, 1, nil},
		{"many fields", with(manyFields(100000)...), true, -1, nil},
		{"a URL alone too long", CDXJ{URL: "https://example.com/" + strings.Repeat("<", 200000), ID: "x", State: StateTombstone,
			ReleaseAt: base.ReleaseAt, Time: base.Time, Headers: [][2]string{{"a", "b"}}}, false, 0, ErrLineTooLong},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := FormatLine("com,example)/", at, tc.c)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > MaxLineBytes {
				t.Fatalf("line of %d bytes, limit %d", len(b), MaxLineBytes)
			}
			if tc.truncated && len(b) < MaxLineBytes-64 {
				t.Errorf("line of %d bytes: cut far below the limit %d", len(b), MaxLineBytes)
			}
			sc := bufio.NewScanner(bytes.NewReader(b)) // as the readers read it
			sc.Buffer(nil, MaxLineBytes)
			if !sc.Scan() {
				t.Fatalf("scanner: %v", sc.Err())
			}
			l, err := ParseLine(b)
			if err != nil {
				t.Fatal(err)
			}
			if l.HeadersTruncated != tc.truncated {
				t.Errorf("headers_truncated %v, want %v", l.HeadersTruncated, tc.truncated)
			}
			if tc.keep >= 0 && len(l.Headers) != tc.keep {
				t.Errorf("%d header fields kept, want %d", len(l.Headers), tc.keep)
			}
			for i, h := range l.Headers {
				if h[0] != tc.c.Headers[i][0] || !strings.HasPrefix(string([]rune(tc.c.Headers[i][1])), h[1]) {
					t.Errorf("header %d is %.40q, not a start of %.40q", i, h, tc.c.Headers[i])
				}
			}
			want := tc.c
			want.Headers, l.Headers = nil, nil
			want.HeadersTruncated = tc.truncated
			if l.CDXJ.URL != want.URL || l.ID != want.ID || l.Length != want.Length || l.HeadersTruncated != want.HeadersTruncated {
				t.Errorf("line %+v, want %+v", l.CDXJ, want)
			}
			if slow, err := slowFields(b[bytes.IndexByte(b, '{') : len(b)-1]); err != nil || slow.HeadersTruncated != tc.truncated {
				t.Errorf("encoding/json reads headers_truncated %v (%v), want %v", slow.HeadersTruncated, err, tc.truncated)
			}
		})
	}
	if !fastCDXJ {
		t.Error("appendCDXJ no longer writes what json.Marshal writes")
	}
}

func manyFields(n int) [][2]string {
	hs := make([][2]string, n)
	for i := range hs {
		hs[i] = [2]string{"X-Field", "value&value"}
	}
	return hs
}

// TestCutJSONWidths checks that cutJSON counts each character as appendJSONString writes it.
func TestCutJSONWidths(t *testing.T) {
	t.Parallel()
	var cases []string
	for c := range 256 {
		cases = append(cases, string([]byte{byte(c)}))
	}
	cases = append(cases, "é", "\u2028", "\u2029", "€", "😀", "\xe2\x82")
	for _, s := range cases {
		n := jsonLen(s) - 2
		if got := cutJSON(s+s, n); got != s && !(len(s) > 1 && !utf8.ValidString(s)) {
			t.Errorf("cutJSON(%q, %d) = %q, want %q", s+s, n, got, s)
		}
		if got := cutJSON(s, n-1); got != "" && utf8.ValidString(s) {
			t.Errorf("cutJSON(%q, %d) = %q, want nothing", s, n-1, got)
		}
	}
}
