package export

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
)

// cdxjSpecKeys are the keys the CDXJ specification (specs.webrecorder.net/cdxj/0.1.0) requires
// in every JSON block: url, digest, mime, filename, offset, length, status.
var cdxjSpecKeys = []string{"digest", "filename", "length", "mime", "offset", "status", "url"}

// checkStandardLine checks one line of a standard index against the CDXJ specification and the
// conventions OutbackCDX and pywb read: "KEY TIMESTAMP {json}", the key the SURT of the url, a
// 14-digit timestamp, exactly the specification's keys, every value a string, status and length
// and offset decimal. It returns the JSON block.
func checkStandardLine(t *testing.T, line string) map[string]string {
	t.Helper()
	key, rest, _ := strings.Cut(line, " ")
	ts, js, _ := strings.Cut(rest, " ")
	if !regexp.MustCompile(`^\d{14}$`).MatchString(ts) {
		t.Errorf("%q: timestamp %q is not 14 digits", line, ts)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(js), &raw); err != nil {
		t.Fatalf("%q: JSON block: %v", line, err)
	}
	block := map[string]string{}
	for k, v := range raw {
		s, ok := v.(string)
		if !ok {
			t.Errorf("%q: %s is a %T, not a string", line, k, v)
		}
		block[k] = s
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range block {
			if !yield(k) {
				return
			}
		}
	})
	if !slices.Equal(keys, cdxjSpecKeys) {
		t.Errorf("%q: keys %q, want exactly the specification's %q", line, keys, cdxjSpecKeys)
	}
	if want, err := surt.Key(block["url"]); err != nil || key != want {
		t.Errorf("%q: key %q, want the SURT of its url %q (%v)", line, key, want, err)
	}
	for _, k := range []string{"status", "length", "offset"} {
		if !regexp.MustCompile(`^\d+$`).MatchString(block[k]) {
			t.Errorf("%q: %s %q is not a decimal number", line, k, block[k])
		}
	}
	if strings.Contains(block["filename"], "/") {
		t.Errorf("%q: filename %q is not a file name", line, block["filename"])
	}
	return block
}

func TestWriteCDX(t *testing.T) {
	t.Parallel()
	a := standardFixture(t)
	sel, err := Select(context.Background(), a.fsys, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	n, err := WriteCDX(context.Background(), &out, a.fsys, sel)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if n != 6 || len(lines) != 6 {
		t.Fatalf("%d lines (said %d), want 6:\n%s", len(lines), n, out.String())
	}
	if !slices.IsSorted(lines) {
		t.Errorf("lines not sorted bytewise:\n%s", out.String())
	}
	sha1Of := func(s string) string {
		h := sha1.Sum([]byte(s))
		return base32.StdEncoding.EncodeToString(h[:])
	}
	bodies := map[string]string{}
	for _, shard := range standardShards(t) {
		for _, c := range shard {
			bodies[c.url] = c.body
		}
	}
	for _, line := range lines {
		b := checkStandardLine(t, line)
		id := a.ids[b["url"]]
		loc := a.members[id][1]
		switch b["url"] {
		case "http://example.com/again":
			if b["mime"] != public.RevisitMime || b["digest"] != sha1Of(bodies["http://example.com/"]) {
				t.Errorf("revisit: mime %q digest %q; want %q and its original's SHA-1", b["mime"], b["digest"], public.RevisitMime)
			}
		default:
			if b["digest"] != sha1Of(bodies[b["url"]]) {
				t.Errorf("%s: digest %q, want the payload's SHA-1 in base32 %q", b["url"], b["digest"], sha1Of(bodies[b["url"]]))
			}
		}
		if b["filename"] != loc.File[len("shards/"):] || b["offset"] != itoa(loc.Offset) || b["length"] != itoa(loc.Length) {
			t.Errorf("%s: at %s %s+%s, want %v", b["url"], b["filename"], b["offset"], b["length"], loc)
		}
	}
}

func TestWriteCDXDamage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		damage  func(a *fixArchive)
		wantErr string
	}{
		{"payload digest wrong", func(a *fixArchive) {
			*a = *buildPublic(t, []fix{{url: "http://example.com/", status: 200, mime: "text/plain", body: "x", damaged: true}})
		}, "WARC-Payload-Digest says sha256:000"},
		{"another record at the offset", func(a *fixArchive) {
			src := a.members[a.ids["http://example.com/"]][0] // the request member
			cdxj := a.dir + "/shards/" + strings.TrimSuffix(a.shards[0][len("shards/"):], ".warc.gz") + ".cdxj"
			b, _ := os.ReadFile(cdxj)
			loc := a.members[a.ids["http://example.com/"]][1]
			b = bytes.Replace(b, []byte(`"length":`+itoa(loc.Length)+`,"offset":`+itoa(loc.Offset)),
				[]byte(`"length":`+itoa(src.Length)+`,"offset":`+itoa(src.Offset)), 1)
			writeFile(t, cdxj, b)
		}, "a request record"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := standardFixture(t)
			tc.damage(a)
			sel, err := Select(context.Background(), a.fsys, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = WriteCDX(context.Background(), &bytes.Buffer{}, a.fsys, sel)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("WriteCDX over damage: %v, want an error saying %q", err, tc.wantErr)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestStdLineMime: the standard line's mime is the form pywb's indexer writes: the media type,
// warc/revisit for a revisit record, unk for a response without one (the key is required).
func TestStdLineMime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, mime string
		revisit    bool
		want       string
	}{
		{"response", "text/html", false, "text/html"},
		{"response without a media type", "", false, public.UnknownMime},
		{"revisit", "image/png", true, public.RevisitMime},
		{"revisit without a media type", "", true, public.RevisitMime},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &Capture{Line: public.Line{SURT: "com,example)/", Timestamp: "20261201000000",
				CDXJ: public.CDXJ{URL: "https://example.com/", Mime: tc.mime, Status: 200, Revisit: tc.revisit}}, Key: "com,example)/"}
			b, err := stdLine(c, "ISMQVRXR3EVY7GDDE3QNJJAEQ7ETNGUC", "PUBLIC-20261201000000-00001.warc.gz", 0)
			if err != nil {
				t.Fatal(err)
			}
			var blk map[string]string
			if err := json.Unmarshal(b[len("com,example)/ 20261201000000 "):], &blk); err != nil {
				t.Fatal(err)
			}
			if blk["mime"] != tc.want {
				t.Errorf("line %s: mime %q, want %q", b, blk["mime"], tc.want)
			}
		})
	}
}
