package index

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	bolt "go.etcd.io/bbolt"
)

func TestEntryRoundTrip(t *testing.T) {
	t.Parallel()
	file := "archivectl-20260301120000000-00001-host.warc.gz"
	base := Entry{
		ID: "<urn:uuid:0c55b306-fad5-4d96-832e-8a0d8a134790>", URL: "https://example.com/a?b=c", SURT: "com,example)/a?b=c",
		Time: t0, Status: 200, Mime: "text/html", Headers: [][2]string{{"Content-Type", "text/html"}, {"X-Odd", "v"}},
		PayloadDigest: Digest("sha256", []byte("x")), Period: embargo.Week, FirstSeen: t0, ReleaseAt: t0.Add(7 * 24 * time.Hour),
		Request:  Location{File: file, Offset: 1000, Length: 300},
		Response: Location{File: file, Offset: 1300, Length: 2400},
		Metadata: Location{File: file, Offset: 3700, Length: 500},
	}
	cases := []struct {
		name string
		edit func(e *Entry)
		max  int // the encoded value's size at most, 0 for no bound
	}{
		{"typical sealed capture", func(*Entry) {}, 125},
		{"released with a public location", func(e *Entry) {
			e.State, e.Public = Released, Location{File: "shards/PUBLIC-20260309120000-00002.warc.gz", Offset: 1 << 40, Length: 7}
		}, 135},
		{"revisit, robots, usage, last-modified, first seen earlier", func(e *Entry) {
			e.Revisit, e.RefersTo, e.Robots = true, "<urn:uuid:7f02f159-49a5-46e5-aa17-7c9f0522b780>", true
			e.UsageHeader, e.UsageRobots, e.Usage = []string{"train-ai=n"}, []string{"train-ai=n", "search=y"}, []string{"train-ai=n"}
			e.LastModified, e.FirstSeen = "Sun, 01 Feb 2026 10:00:00 GMT", t0.Add(-time.Hour)
		}, 0},
		{"last-modified and mime as the header fields give them", func(e *Entry) {
			e.Headers = append(e.Headers, [2]string{"last-modified", "Sun, 01 Feb 2026 10:00:00 GMT"}, [2]string{"Last-Modified", "x"})
			e.LastModified, e.Mime = "Sun, 01 Feb 2026 10:00:00 GMT, x", "text/html"
		}, 0},
		{"ids that are not canonical uuids", func(e *Entry) {
			e.ID, e.Revisit, e.RefersTo = "<urn:uuid:0C55B306-FAD5-4D96-832E-8A0D8A134790>", true, "<urn:x:1>"
		}, 0},
		{"plain id without brackets", func(e *Entry) { e.ID = "urn:uuid:0c55b306-fad5-4d96-832e-8a0d8a134790" }, 0},
		{"sha1 digest", func(e *Entry) { e.PayloadDigest = Digest("sha1", []byte("x")) }, 0},
		{"odd digests", func(e *Entry) { e.PayloadDigest = "sha256:ABC" }, 0},
		{"uppercase hex digest", func(e *Entry) {
			e.PayloadDigest = strings.ToUpper(Digest("sha256", []byte("x"))[:7]) + Digest("sha256", []byte("x"))[7:]
		}, 0},
		{"no digest, no headers, no mime", func(e *Entry) { e.PayloadDigest, e.Headers, e.Mime = "", nil, "" }, 0},
		{"scattered and missing locations", func(e *Entry) {
			e.Request.File, e.Metadata = "other.warc.gz", Location{}
		}, 0},
		{"embargo set by the robots.txt rule", func(e *Entry) { e.EmbargoSource = "robots.txt" }, 126},
		{"embargo set by the response header", func(e *Entry) { e.EmbargoSource = "header" }, 126},
		{"embargo source of another name", func(e *Entry) { e.EmbargoSource = "elsewhere" }, 0},
		{"a SURT that is not the URL's", func(e *Entry) { e.SURT = "com,example)/elsewhere" }, 0},
		{"extreme times and values", func(e *Entry) {
			e.Time, e.FirstSeen = time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
			e.Status, e.Period = 1<<20, embargo.Period(-3)
			e.Headers = [][2]string{{"", ""}, {"content-type", strings.Repeat("v", 70000)}, {"Content-Length", "0"}}
		}, 0},
	}
	dir := t.TempDir()
	db, err := bolt.Open(filepath.Join(dir, "index.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := base
			e.Headers = append([][2]string(nil), base.Headers...)
			tc.edit(&e)
			if err := db.Update(func(tx *bolt.Tx) error {
				if err := initBuckets(tx); err != nil {
					return err
				}
				c := newCodec(tx)
				v, err := c.encode(nil, &e)
				if err != nil {
					return err
				}
				if tc.max > 0 && len(v) > tc.max {
					t.Errorf("encoded in %d bytes, want at most %d", len(v), tc.max)
				}
				k := entryKey(e.ReleaseAt, e.ID)
				got, err := newCodec(tx).decode(e.State, k, v)
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(got, e) {
					t.Errorf("round trip\n got %+v\nwant %+v", got, e)
				}
				for cut := range v { // a truncated value never decodes as an entry
					if _, err := newCodec(tx).decode(e.State, k, v[:cut]); err == nil {
						t.Fatalf("a value cut at %d of %d decoded", cut, len(v))
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestIDKeyOrder(t *testing.T) {
	t.Parallel()
	ids := []string{
		"<urn:uuid:00000000-0000-4000-8000-000000000000>",
		"<urn:uuid:0c55b306-fad5-4d96-832e-8a0d8a134790>",
		"<urn:uuid:0c55b306-fad5-4d96-832e-8a0d8a134791>",
		"<urn:uuid:a0000000-0000-4000-8000-000000000000>",
		"<urn:uuid:ffffffff-ffff-ffff-ffff-ffffffffffff>",
	}
	for i, id := range ids {
		k := idKey(id)
		if len(k) != 17 {
			t.Errorf("%s: key of %d bytes", id, len(k))
		}
		if back, err := keyID(k); err != nil || back != id {
			t.Errorf("%s: back %q %v", id, back, err)
		}
		if i > 0 && string(idKey(ids[i-1])) >= string(k) {
			t.Errorf("key of %s not after key of %s", id, ids[i-1])
		}
	}
	for _, odd := range []string{"", "<>", "<urn:uuid:0c55b306-fad5-4d96-832e-8a0d8a13479g>", "<urn:uuid:0c55b306+fad5-4d96-832e-8a0d8a134790>"} {
		if back, err := keyID(idKey(odd)); err != nil || back != odd {
			t.Errorf("%q: back %q %v", odd, back, err)
		}
	}
}

func TestEntrySourceLayout(t *testing.T) {
	t.Parallel()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "index.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e := Entry{ID: "<urn:uuid:0c55b306-fad5-4d96-832e-8a0d8a134790>", URL: "https://example.com/", SURT: "com,example)/",
		Time: t0, FirstSeen: t0, ReleaseAt: t0, Status: 200}
	if err := db.Update(func(tx *bolt.Tx) error {
		if err := initBuckets(tx); err != nil {
			return err
		}
		plain, err := newCodec(tx).encode(nil, &e)
		if err != nil {
			return err
		}
		e.EmbargoSource = "header"
		withSource, err := newCodec(tx).encode(nil, &e)
		if err != nil {
			return err
		}
		if plain[0] != entryLayout || withSource[0] != entryLayoutSource || len(withSource) != len(plain)+1 {
			t.Errorf("layouts %d (%d bytes) and %d (%d bytes), want %d and %d, one byte apart",
				plain[0], len(plain), withSource[0], len(withSource), entryLayout, entryLayoutSource)
		}
		k := entryKey(e.ReleaseAt, e.ID)
		for _, tc := range []struct {
			name string
			v    []byte
			want string // "" with ok: decodes without a source
			ok   bool
		}{
			{"layout 2 has no source", plain, "", true},
			{"layout 3 with a code", withSource, "header", true},
			{"unknown code", append([]byte{entryLayoutSource, plain[1], 9}, plain[2:]...), "", false},
			{"empty other source", append([]byte{entryLayoutSource, plain[1], sourceOther, 0}, plain[2:]...), "", false},
			{"layout 3 without its byte", append([]byte{entryLayoutSource}, plain[1:]...), "", false},
		} {
			got, err := newCodec(tx).decode(Sealed, k, tc.v)
			if (err == nil) != tc.ok || (tc.ok && got.EmbargoSource != tc.want) {
				t.Errorf("%s: source %q, err %v; want %q, ok %v", tc.name, got.EmbargoSource, err, tc.want, tc.ok)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
