package release

import (
	"testing"
	"time"
)

// TestOwnRecordBytes pins the bytes of the records the releaser writes itself: a replayed pass
// must write the same bytes, and so must every later version of archivectl.
func TestOwnRecordBytes(t *testing.T) {
	t.Parallel()
	pass := time.Date(2026, 3, 8, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		rec  func() ([]byte, error)
		want string
	}{
		{"warcinfo", func() ([]byte, error) {
			return warcinfo("archivectl 1.0", "PUBLIC-20260308120000-00001.warc.gz", pass, "a public shard")
		}, "WARC/1.1\r\n" +
			"WARC-Type: warcinfo\r\n" +
			"WARC-Record-ID: <urn:uuid:4e08d51b-3e83-8103-b7c7-0d3a42bfdbf8>\r\n" +
			"WARC-Date: 2026-03-08T12:00:00Z\r\n" +
			"WARC-Filename: PUBLIC-20260308120000-00001.warc.gz\r\n" +
			"Content-Type: application/warc-fields\r\n" +
			"WARC-Block-Digest: sha256:f59cfbb56846131ac21233d08815f8919df519fea7dd038208aed2fef0f84fd6\r\n" +
			"Content-Length: 214\r\n" +
			"\r\n" +
			"software: archivectl 1.0\r\n" +
			"format: WARC File Format 1.1\r\n" +
			"conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n" +
			"description: a public shard\r\n" +
			"release-pass: 2026-03-08T12:00:00Z\r\n" +
			"\r\n\r\n"},
		{"tombstone id", func() ([]byte, error) {
			return []byte(recordID("tombstone:<urn:uuid:00000000-0000-4000-8000-000000000001>")), nil
		}, "<urn:uuid:344123db-fb6c-8e53-80ca-be224f3f5a99>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.rec()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
