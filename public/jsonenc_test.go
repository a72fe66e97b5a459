package public

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// oddStrings are strings whose JSON encoding takes every escape json.Marshal knows.
var oddStrings = []string{"", "plain", `quote " backslash \ slash /`, "<script>&amp;</script>", "\b\f\n\r\t\x00\x01\x1f\x7f",
	"é ü 漢字 🙂", "\u2028\u2029", "bad \xff\xfe utf-8 \xc3", "trailing \xe2\x82", "https://example.com/a?b=1&c=<2>#f"}

func checkCDXJ(t *testing.T, c CDXJ) {
	t.Helper()
	want, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := appendCDXJ(nil, &c); !bytes.Equal(got, want) {
		t.Errorf("appendCDXJ\n got %s\nwant %s", got, want)
	}
}

func checkLogEntry(t *testing.T, e LogEntry) {
	t.Helper()
	want, werr := json.Marshal(e)
	got, err := AppendLogEntry([]byte("prefix"), e)
	if (err != nil) != (werr != nil) || !bytes.Equal(got, append([]byte("prefix"), want...)) {
		t.Errorf("AppendLogEntry: %v, %v\n got %s\nwant prefix%s", err, werr, got, want)
	}
}

func TestEncodersMatchJSON(t *testing.T) {
	t.Parallel()
	// Every field set: a field added to CDXJ or LogEntry and not to its encoder fails here (and
	// turns the encoder off at run time).
	if !fastCDXJ || !fastLog {
		t.Errorf("the encoders disagree with json.Marshal on values with every field set: CDXJ %v, LogEntry %v", fastCDXJ, fastLog)
	}
	var full CDXJ
	var fullEntry LogEntry
	if !fillAll(reflect.ValueOf(&full).Elem()) || !fillAll(reflect.ValueOf(&fullEntry).Elem()) {
		t.Fatal("fillAll cannot set every field")
	}
	checkCDXJ(t, full)
	checkLogEntry(t, fullEntry)
	for _, s := range oddStrings {
		checkCDXJ(t, CDXJ{URL: s, Mime: s, Digest: s, Filename: s, ReleaseAt: s, ID: s, State: s, Time: s, RefersTo: s,
			Usage: []string{s, s}, UsageRobots: []string{s}, UsageHeader: []string{s}, Headers: [][2]string{{s, s}, {"k", s}}})
		checkLogEntry(t, LogEntry{URL: s, Event: s, ID: s, Digest: s, File: s, Request: &Location{File: s}})
	}
	paris := time.FixedZone("CET", 3600)
	for _, tc := range []struct {
		name string
		c    CDXJ
		e    LogEntry
	}{
		{"zero values", CDXJ{}, LogEntry{}},
		{"every field", CDXJ{URL: "https://a/", Mime: "text/html", Status: 200, Digest: "sha256:ab", Length: 1 << 40, Offset: -1,
			Filename: "PUBLIC-1.warc.gz", Usage: []string{"train-ai=n"}, ReleaseAt: "2026-01-01T00:00:00Z", ID: "<urn:uuid:1>",
			State: StateReleased, Time: "2025-01-01T00:00:00.5Z", Headers: [][2]string{{"Content-Type", "text/html"}}, Revisit: true, RefersTo: "<urn:uuid:0>"},
			LogEntry{Pass: time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC), Event: EventReleased, ID: "<urn:uuid:1>", URL: "https://a/?x&y",
				Digest: "sha256:ab", ReleaseAt: time.Date(2026, 3, 1, 0, 0, 0, 0, paris), File: "shards/P.warc.gz", Offset: 9, Length: 10,
				Request: &Location{File: "shards/P.warc.gz", Length: 9}, Metadata: &Location{File: "m", Offset: 19, Length: 3}}},
		{"empty lists, negative status", CDXJ{Status: -3, Usage: []string{}, Headers: [][2]string{}}, LogEntry{Metadata: &Location{}}},
		{"times json cannot write", CDXJ{}, LogEntry{Pass: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"a zone of a day", CDXJ{}, LogEntry{ReleaseAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("X", 24*3600))}},
		{"year zero", CDXJ{}, LogEntry{Pass: time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkCDXJ(t, tc.c)
			checkLogEntry(t, tc.e)
		})
	}
}

func FuzzEncoders(f *testing.F) {
	for _, s := range oddStrings {
		f.Add(s, int64(len(s)), true)
	}
	f.Fuzz(func(t *testing.T, s string, n int64, flag bool) {
		c := CDXJ{URL: s, Digest: s, Length: n, Offset: -n, Status: int(n), Revisit: flag, Headers: [][2]string{{s, s}}}
		if flag {
			c.Usage, c.Mime = []string{s}, s
		}
		checkCDXJ(t, c)
		e := LogEntry{Pass: time.Unix(n, n), URL: s, ID: s, Offset: n}
		if flag {
			e.Request = &Location{File: s, Offset: n}
		}
		checkLogEntry(t, e)
	})
}
