package warcrecord

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"
)

// t0 is the tests' record time.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// TestMarshal pins the bytes of a record written without gowarc's builder and checks that
// the strict reader reads it back, both digests verified.
func TestMarshal(t *testing.T) {
	t.Parallel()
	block := []byte(`{"id":"x"}`)
	sum := sha256.Sum256(block)
	got, err := Marshal("metadata", "<urn:uuid:00000000-0000-8000-8000-000000000001>", t0, "application/json", block,
		[2]string{"WARC-Target-URI", "https://example.com/"}, [2]string{"WARC-Refers-To", ""})
	if err != nil {
		t.Fatal(err)
	}
	want := "WARC/1.1\r\n" +
		"WARC-Type: metadata\r\n" +
		"WARC-Record-ID: <urn:uuid:00000000-0000-8000-8000-000000000001>\r\n" +
		"WARC-Date: 2026-03-01T12:00:00Z\r\n" +
		"WARC-Target-URI: https://example.com/\r\n" +
		"Content-Type: application/json\r\n" +
		"WARC-Block-Digest: sha256:" + hex.EncodeToString(sum[:]) + "\r\n" +
		"Content-Length: 10\r\n" +
		"\r\n" +
		`{"id":"x"}` + "\r\n\r\n"
	if string(got) != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	rec, _, _, err := gowarc.NewUnmarshaler(gowarc.WithSyntaxErrorPolicy(gowarc.ErrFail), gowarc.WithSpecViolationPolicy(gowarc.ErrFail)).Unmarshal(bufio.NewReader(bytes.NewReader(got)))
	if err != nil {
		t.Fatalf("strict reading: %v", err)
	}
	defer rec.Close()
	if rec.Type() != gowarc.Metadata || rec.WarcHeader().Get(gowarc.WarcTargetURI) != "https://example.com/" {
		t.Errorf("read back %s for %s", rec.Type(), rec.WarcHeader().Get(gowarc.WarcTargetURI))
	}
	if _, err := Marshal("metadata", "<urn:uuid:x>", t0, "application/json", block, [2]string{"WARC-Target-URI", "a\r\nb"}); err == nil {
		t.Error("a field with a line break was written")
	}
}

func TestWarcinfoBlock(t *testing.T) {
	t.Parallel()
	const head = "format: WARC File Format 1.1\r\nconformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n"
	for _, tc := range []struct {
		name     string
		software string
		fields   [][2]string
		want     string
	}{
		{"software and fields in order", "archivectl 1.0", [][2]string{{"robots", "obey"}, {"description", "d"}},
			"software: archivectl 1.0\r\n" + head + "robots: obey\r\ndescription: d\r\n"},
		{"empty values left out", "", [][2]string{{"operator", ""}, {"contact", "https://c"}},
			head + "contact: https://c\r\n"},
		{"line break becomes a space", "a", [][2]string{{"operator", "two\nlines"}},
			"software: a\r\n" + head + "operator: two lines\r\n"},
	} {
		if got := string(WarcinfoBlock(tc.software, tc.fields...)); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
