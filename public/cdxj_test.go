package public

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestFormatParseLine(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 29, 20, 0, 0, 5, time.UTC)
	tests := []struct {
		name string
		surt string
		c    CDXJ
		want string // the line's prefix
	}{
		{"released", "com,example)/a", CDXJ{URL: "https://example.com/a", Mime: "text/html", Status: 200, Digest: "sha256:ab",
			Length: 10, Offset: 20, Filename: "shards/PUBLIC-20261129200000-00001.warc.gz", ReleaseAt: "2026-12-06T20:00:00Z",
			ID: "<urn:uuid:1>", State: StateReleased, Time: "2026-11-29T20:00:00.000000005Z"}, "com,example)/a 20261129200000 {"},
		{"tombstone with headers and usage", "com,example)/b?x=1", CDXJ{URL: "https://example.com/b?x=1", Status: 404, Digest: "sha256:cd",
			Filename: "tombstones/T.warc.gz", ReleaseAt: "2027-02-27T20:00:00Z", ID: "<urn:uuid:2>", State: StateEmbargoed,
			Time: "2026-11-29T20:00:00Z", Headers: [][2]string{{"Content-Type", "text/html"}}, Usage: []string{"train-ai=n"},
			UsageRobots: []string{"train-ai=n, search=y"}, UsageHeader: []string{`train-ai=n;x="a b"`}, EmbargoSource: "header"},
			"com,example)/b?x=1 20261129200000 {"},
		{"revisit with an escaped id", "com,example)/c", CDXJ{URL: "https://example.com/c?a=\"b\"", Status: 200, Digest: "sha256:ef",
			Length: 1, Offset: 2, Filename: "shards/P.warc.gz", ReleaseAt: "2026-12-06T20:00:00Z", EmbargoSource: "robots.txt", ID: "<urn:uuid:é>",
			State: StateReleased, Time: "2026-11-29T20:00:00Z", Revisit: true, RefersTo: "<urn:uuid:0>"}, "com,example)/c 20261129200000 {"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := FormatLine(tc.surt, at, tc.c)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(b[:len(tc.want)]); got != tc.want || b[len(b)-1] != '\n' {
				t.Errorf("line %q, want prefix %q and a final newline", b, tc.want)
			}
			l, err := ParseLine(b)
			if err != nil {
				t.Fatal(err)
			}
			if l.SURT != tc.surt || l.Timestamp != "20261129200000" || !reflect.DeepEqual(l.CDXJ, tc.c) {
				t.Errorf("round trip: %+v", l)
			}
		})
	}
}

func TestParseLineRejects(t *testing.T) {
	t.Parallel()
	const valid = `{"url":"u","state":"released","time":"2026-11-29T20:00:00Z","release_at":"2026-11-29T20:00:00Z"}`
	if _, err := ParseLine([]byte(`com,example)/ 20261129200000 ` + valid)); err != nil {
		t.Fatalf("the valid block is refused: %v", err)
	}
	tests := []struct{ name, line string }{
		{"empty", ""},
		{"no timestamp", "com,example)/ {}"},
		{"short timestamp", `com,example)/ 2026 {"state":"released"}`},
		{"letters in timestamp", `com,example)/ 2026112920000x {"state":"released"}`},
		{"not JSON", "com,example)/ 20261129200000 nope"},
		{"unknown state", `com,example)/ 20261129200000 {"state":"hidden"}`},
		{"space in the key", `com,example)/a?q=a b 20261129200000 ` + valid},
		{"two spaces before the block", `com,example)/ 20261129200000  ` + valid},
		{"no url", `com,example)/ 20261129200000 {"state":"released","time":"2026-11-29T20:00:00Z","release_at":"2026-11-29T20:00:00Z"}`},
		{"bad time", `com,example)/ 20261129200000 {"url":"u","state":"released","time":"yesterday","release_at":"2026-11-29T20:00:00Z"}`},
		{"status out of range", `com,example)/ 20261129200000 {"url":"u","status":1000,"state":"released","time":"2026-11-29T20:00:00Z","release_at":"2026-11-29T20:00:00Z"}`},
		{"negative offset", `com,example)/ 20261129200000 {"url":"u","offset":-1,"state":"released","time":"2026-11-29T20:00:00Z","release_at":"2026-11-29T20:00:00Z"}`},
		{"headers not pairs", `com,example)/ 20261129200000 {"url":"u","headers":{"a":1},"state":"released","time":"2026-11-29T20:00:00Z","release_at":"2026-11-29T20:00:00Z"}`},
		{"usage not strings", `com,example)/ 20261129200000 {"url":"u","usage":[1],"state":"released","time":"2026-11-29T20:00:00Z","release_at":"2026-11-29T20:00:00Z"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := ParseLine([]byte(tc.line)); err == nil {
				t.Errorf("ParseLine(%q) succeeded", tc.line)
			}
		})
	}
}

func TestFormatLineRejectsBadKey(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"", "com,example)/a b", "a\nb"} {
		if _, err := FormatLine(k, time.Now(), CDXJ{State: StateReleased}); err == nil {
			t.Errorf("FormatLine(%q) succeeded", k)
		}
	}
}

// FuzzParseLine: a line that parses formats back to one that parses to the same thing.
func FuzzParseLine(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "cdxj", "*.cdxj"))
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		l, err := ParseLine(line)
		if err != nil {
			return
		}
		at, err := time.Parse(Timestamp14, l.Timestamp)
		if err != nil {
			return
		}
		b, err := FormatLine(l.SURT, at, l.CDXJ)
		if err != nil {
			return // a key with a space or newline cannot be written back
		}
		l2, err := ParseLine(b)
		if err != nil {
			t.Fatalf("formatted line %q does not parse: %v", b, err)
		}
		// Empty and absent lists both format as absent, so compare what formatting gives back.
		if b2, err := FormatLine(l2.SURT, at, l2.CDXJ); err != nil || !bytes.Equal(b, b2) || l2.SURT != l.SURT || l2.Timestamp != l.Timestamp {
			t.Fatalf("round trip changed the line:\n%s\n%s (%v)", b, b2, err)
		}
	})
}
