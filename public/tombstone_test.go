package public

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

var tomb = Tombstone{
	ID: "<urn:uuid:0c55b306-fad5-4d96-832e-8a0d8a134790>", URL: "https://example.com/a?b=1", Time: time.Date(2026, 3, 1, 12, 0, 0, 5, time.UTC),
	Status: 200, Mime: "text/html", Headers: [][2]string{{"Content-Type", "text/html"}, {"X-Empty", ""}, {"X-Odd", "a=?b"}},
	PayloadDigest: "sha256:aa", ReleaseAt: time.Date(2026, 6, 1, 12, 0, 0, 5, time.UTC), PeriodDays: 90,
	Usage: []string{"train-ai=n"}, UsageHeader: []string{"train-ai=n"}, UsageRobots: []string{"train-ai=n, search=y"},
	Revisit: true, RefersTo: "<urn:uuid:orig>",
}

func TestTombstoneForms(t *testing.T) {
	t.Parallel()
	b, err := tomb.MarshalFields()
	if err != nil {
		t.Fatal(err)
	}
	want := "format: archivectl-tombstone/1\r\n" +
		"id: <urn:uuid:0c55b306-fad5-4d96-832e-8a0d8a134790>\r\n" +
		"url: https://example.com/a?b=1\r\n" +
		"time: 2026-03-01T12:00:00.000000005Z\r\n" +
		"status: 200\r\n" +
		"mime: text/html\r\n" +
		"header: Content-Type: text/html\r\n" +
		"header: =?utf-8?b?WC1FbXB0eTog?=\r\n" +
		"header: =?utf-8?b?WC1PZGQ6IGE9P2I=?=\r\n" +
		"payload_digest: sha256:aa\r\n" +
		"release_at: 2026-06-01T12:00:00.000000005Z\r\n" +
		"period_days: 90\r\n" +
		"usage: train-ai=n\r\n" +
		"usage_header: train-ai=n\r\n" +
		"usage_robots: train-ai=n, search=y\r\n" +
		"revisit: true\r\n" +
		"refers_to: <urn:uuid:orig>\r\n"
	if string(b) != want {
		t.Errorf("fields\n%s\nwant\n%s", b, want)
	}
	got, err := ParseTombstone(TombstoneType, b)
	if err != nil || !reflect.DeepEqual(got, tomb) {
		t.Errorf("parsed %+v, %v\nwant %+v", got, err, tomb)
	}
	old := `{"id":"\u003curn:uuid:0c55b306-fad5-4d96-832e-8a0d8a134790\u003e","url":"https://example.com/a?b=1","time":"2026-03-01T12:00:00.000000005Z",` +
		`"status":200,"mime":"text/html","headers":[["Content-Type","text/html"],["X-Empty",""],["X-Odd","a=?b"]],"payload_digest":"sha256:aa",` +
		`"release_at":"2026-06-01T12:00:00.000000005Z","period_days":90,"usage":["train-ai=n"],"usage_header":["train-ai=n"],` +
		`"usage_robots":["train-ai=n, search=y"],"revisit":true,"refers_to":"\u003curn:uuid:orig\u003e"}`
	if got, err := ParseTombstone("Application/JSON", []byte(old)); err != nil || !reflect.DeepEqual(got, tomb) {
		t.Errorf("JSON form: %+v, %v", got, err)
	}
	bare := Tombstone{ID: "<x>", Time: tomb.Time, ReleaseAt: tomb.ReleaseAt}
	bb, _ := bare.MarshalFields()
	if got, err := ParseTombstone(TombstoneType, bb); err != nil || got.Headers == nil || len(got.Headers) != 0 || got.Mime != "" {
		t.Errorf("a tombstone without headers: %+v, %v", got, err)
	}
	for _, bad := range []struct{ ctype, block string }{
		{"text/plain", string(b)},
		{TombstoneTypeJSON, `{"id":"x","note":"unknown key"}`},
		{TombstoneTypeJSON, `{"url":"no id"}`},
		{TombstoneType, strings.Replace(string(b), "archivectl-tombstone/1", "archivectl-tombstone/9", 1)},
		{TombstoneType, string(b) + "note: unknown field\r\n"},
		{TombstoneType, "format: archivectl-tombstone/1\r\nid: x\r\nstatus: two hundred\r\n"},
		{TombstoneType, "format: archivectl-tombstone/1\r\nid: x\r\nheader: no-colon-space\r\n"},
		{TombstoneType, "format: archivectl-tombstone/1\r\nurl: no id\r\n"},
	} {
		if got, err := ParseTombstone(bad.ctype, []byte(bad.block)); err == nil {
			t.Errorf("ParseTombstone(%q, %q) = %+v, want an error", bad.ctype, bad.block, got)
		}
	}
}
