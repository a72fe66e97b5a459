package public

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
)

// line is a valid CDXJ line for url in state.
func line(t *testing.T, key, url, state string) []byte {
	t.Helper()
	b, err := FormatLine(key, time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC), CDXJ{URL: url, State: state, ID: "<urn:uuid:" + key + ">",
		Time: "2026-11-29T20:00:00Z", ReleaseAt: "2026-12-06T20:00:00Z", Filename: "shards/P.warc.gz", Length: 1})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCDXJFiles(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"tombstones/TOMBSTONES-2-00002.cdxj":    {},
		"tombstones/TOMBSTONES-1-00001.cdxj":    {},
		"shards/PUBLIC-1-00001.cdxj":            {},
		"shards/PUBLIC-1-00001.warc.gz":         {},
		"shards/PUBLIC-2-00002.cdxj.tmp":        {},
		"release-tmp/PUBLIC-3-00003.cdxj":       {},
		"shards/sub/PUBLIC-4-00004.cdxj":        {},
		"tombstones/TOMBSTONES-3-00003.cdxj.gz": {},
	}
	got, err := CDXJFiles(fsys)
	want := []string{"shards/PUBLIC-1-00001.cdxj", "tombstones/TOMBSTONES-1-00001.cdxj", "tombstones/TOMBSTONES-2-00002.cdxj"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("CDXJFiles = %q, %v; want %q", got, err, want)
	}
}

func TestReadCDXJ(t *testing.T) {
	t.Parallel()
	good := append(line(t, "com,example)/a", "https://example.com/a", StateReleased), line(t, "com,example)/b", "https://example.com/b", StateEmbargoed)...)
	tests := []struct {
		name    string
		data    []byte
		want    []string // urls
		wantErr string
	}{
		{"two lines", good, []string{"https://example.com/a", "https://example.com/b"}, ""},
		{"no final newline", good[:len(good)-1], []string{"https://example.com/a", "https://example.com/b"}, ""},
		{"a bad second line", append(line(t, "com,example)/a", "https://example.com/a", StateReleased), "garbage\n"...), []string{"https://example.com/a"}, "public/x.cdxj:2: cdxj: "},
		{"missing", nil, nil, "read public/x.cdxj"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fsys := fstest.MapFS{}
			if tc.data != nil {
				fsys["x.cdxj"] = &fstest.MapFile{Data: tc.data}
			}
			var got []string
			err := ReadCDXJ(fsys, "x.cdxj", func(l Line) error { got = append(got, l.URL); return nil })
			if !slices.Equal(got, tc.want) {
				t.Errorf("read %q, want %q", got, tc.want)
			}
			if (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
	stop := errors.New("stop")
	if err := ReadCDXJ(fstest.MapFS{"x.cdxj": {Data: good}}, "x.cdxj", func(Line) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("fn's error: got %v", err)
	}
}

// TestCaptures: each capture once, in the order first read: its first released line, else its
// last tombstone line.
func TestCaptures(t *testing.T) {
	t.Parallel()
	at := func(key, state, file, releaseAt string) []byte {
		b, err := FormatLine(key, time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC), CDXJ{URL: "https://example.com/" + key, State: state,
			ID: "<urn:uuid:" + key + ">", Time: "2026-11-29T20:00:00Z", ReleaseAt: releaseAt, Filename: file, Length: 1})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cat := func(ls ...[]byte) *fstest.MapFile { return &fstest.MapFile{Data: slices.Concat(ls...)} }
	fsys := fstest.MapFS{
		"tombstones/TOMBSTONES-1-00001.cdxj": cat(at("a", StateEmbargoed, "tombstones/T1.warc.gz", "2026-12-01T00:00:00Z"),
			at("c", StateEmbargoed, "tombstones/T1.warc.gz", "2027-01-01T00:00:00Z")),
		"tombstones/TOMBSTONES-2-00002.cdxj": cat(at("c", StateEmbargoed, "tombstones/T2.warc.gz", "2027-01-01T00:00:00Z")),
		"shards/PUBLIC-1-00001.cdxj":         cat(at("a", StateReleased, "shards/P1.warc.gz", "2026-12-01T00:00:00Z"), at("b", StateReleased, "shards/P1.warc.gz", "2026-12-01T00:00:00Z")),
		"shards/PUBLIC-2-00002.cdxj":         cat(at("a", StateReleased, "shards/P2.warc.gz", "2026-12-01T00:00:00Z")),
	}
	got, err := Captures(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var desc []string
	for _, l := range got {
		desc = append(desc, l.URL[len("https://example.com/"):]+" "+l.State+" "+l.Filename)
	}
	want := []string{"a released shards/P1.warc.gz", "b released shards/P1.warc.gz", "c embargoed tombstones/T2.warc.gz"}
	if !slices.Equal(desc, want) {
		t.Errorf("Captures = %q\nwant %q", desc, want)
	}
	if _, err := Captures(fstest.MapFS{"shards/PUBLIC-1-00001.cdxj": {Data: []byte("garbage\n")}}); err == nil {
		t.Error("a bad line: no error")
	}
}

func TestReadLog(t *testing.T) {
	t.Parallel()
	log := `{"pass":"2026-11-29T20:00:00Z","event":"released","id":"a","url":"u","digest":"d","release_at":"2026-11-29T20:00:00Z","file":"shards/P.warc.gz","offset":1,"length":2,"request":{"file":"shards/P.warc.gz","offset":0,"length":1}}
{"pass":"2026-11-29T20:00:00Z","event":"tombstoned","id":"b","url":"u","digest":"d","release_at":"2026-12-29T20:00:00Z","file":"tombstones/T.warc.gz","offset":1,"length":2}
`
	var got []LogEntry
	if err := ReadLog(fstest.MapFS{layout.ReleaseLogFile: {Data: []byte(log)}}, func(e LogEntry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Event != EventReleased || got[0].Request == nil || got[0].Request.Length != 1 || got[0].Metadata != nil || got[1].Event != EventTombstoned {
		t.Errorf("entries %+v", got)
	}
	if err := ReadLog(fstest.MapFS{}, func(LogEntry) error { t.Error("an entry in no log"); return nil }); err != nil {
		t.Errorf("missing log: %v", err)
	}
	err := ReadLog(fstest.MapFS{layout.ReleaseLogFile: {Data: []byte(log + "{\n")}}, func(LogEntry) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "public/release-log.jsonl line 3") {
		t.Errorf("damaged log: %v", err)
	}
}
