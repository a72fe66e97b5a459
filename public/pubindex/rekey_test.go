package pubindex

import (
	"fmt"
	"testing"

	"github.com/archivectl/archivectl/public"
)

// TestRekey: a line of an earlier version (filename a path) is keyed with surt.Key as the index
// holds it; a line of this version, or one already under that key, stays as it is.
func TestRekey(t *testing.T) {
	t.Parallel()
	const rest = ` 20260301120000 {"url":"http://127.0.0.1:8080/news/?b=2&a=1","digest":"","length":1,"offset":0,"filename":"%s","release_at":"2026-03-01T12:00:00Z","id":"x","state":"released","time":"2026-03-01T12:00:00Z"}`
	for _, tc := range []struct{ key, file, want string }{
		{"127.0.0.1:8080)/news?a=1&b=2", "shards/PUBLIC-20260301140000-00001.warc.gz", "1,0,0,127:8080)/news?a=1&b=2"},
		{"1,0,0,127:8080)/news?a=1&b=2", "shards/PUBLIC-20260301140000-00001.warc.gz", "1,0,0,127:8080)/news?a=1&b=2"},
		{"127.0.0.1:8080)/news?a=1&b=2", "PUBLIC-20260301140000-00001.warc.gz", "127.0.0.1:8080)/news?a=1&b=2"},
	} {
		line := []byte(tc.key + fmt.Sprintf(rest, tc.file))
		r, err := public.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		got := Rekey(line, &r)
		if string(KeyOf(got)) != tc.want || string(got[len(KeyOf(got)):]) != fmt.Sprintf(rest, tc.file) {
			t.Errorf("Rekey(%s, %s) = %s", tc.key, tc.file, got)
		}
	}
}
