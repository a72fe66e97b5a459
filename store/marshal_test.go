package store

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/nlnwa/gowarc/v3"
)

// TestMarshalRecord pins the bytes of a record written without gowarc's builder and checks that
// the strict reader reads it back, both digests verified.
func TestMarshalRecord(t *testing.T) {
	t.Parallel()
	block := []byte(`{"id":"x"}`)
	got, err := MarshalRecord("metadata", "<urn:uuid:00000000-0000-8000-8000-000000000001>", t0, "application/json", block,
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
		"WARC-Block-Digest: " + Digest("sha256", block) + "\r\n" +
		"Content-Length: 10\r\n" +
		"\r\n" +
		`{"id":"x"}` + "\r\n\r\n"
	if string(got) != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	var member bytes.Buffer
	zw := gzip.NewWriter(&member)
	zw.Write(got)
	zw.Close()
	rec, err := ReadRecord(bytes.NewReader(member.Bytes()), 0, int64(member.Len()))
	if err != nil {
		t.Fatalf("strict reading: %v", err)
	}
	defer rec.Close()
	if rec.Type() != gowarc.Metadata || rec.WarcHeader().Get(gowarc.WarcTargetURI) != "https://example.com/" {
		t.Errorf("read back %s for %s", rec.Type(), rec.WarcHeader().Get(gowarc.WarcTargetURI))
	}
	if _, err := MarshalRecord("metadata", "<urn:uuid:x>", t0, "application/json", block, [2]string{"WARC-Target-URI", "a\r\nb"}); err == nil {
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

func TestRecordIDs(t *testing.T) {
	t.Parallel()
	form := regexp.MustCompile(`^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-([89ab])[0-9a-f]{3}-[0-9a-f]{12}>$`)
	fresh, err := newRecordID()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := newRecordID()
	for _, tc := range []struct {
		name, id, version string
	}{
		{"fresh", fresh, "4"},
		{"derived", DerivedRecordID("seed"), "8"},
	} {
		m := form.FindStringSubmatch(tc.id)
		if m == nil || m[1] != tc.version {
			t.Errorf("%s id %q is not a version %s UUID reference", tc.name, tc.id, tc.version)
		}
	}
	if fresh == again {
		t.Errorf("two fresh ids are both %s", fresh)
	}
	if DerivedRecordID("seed") != DerivedRecordID("seed") || DerivedRecordID("seed") == DerivedRecordID("seed2") {
		t.Error("a derived id does not depend on its seed alone")
	}
	// The derivation is part of the format: a replayed release pass must give the same ids.
	if got, want := DerivedRecordID("archivectl-release:tombstone:<urn:uuid:00000000-0000-4000-8000-000000000001>"), "<urn:uuid:344123db-fb6c-8e53-80ca-be224f3f5a99>"; got != want {
		t.Errorf("derived id %s, want %s", got, want)
	}
}
