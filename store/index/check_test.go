package index

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/internal/testkit"
	bolt "go.etcd.io/bbolt"
)

// entries are n sealed captures of one WARC file, a week's embargo each.
func entries(n int) []Entry {
	const file = "archivectl-20260301120000000-00001-host.warc.gz"
	es := make([]Entry, n)
	for i := range es {
		at := t0.Add(time.Duration(i) * time.Minute)
		es[i] = Entry{ID: fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", i), URL: fmt.Sprintf("https://example.com/%d", i),
			SURT: fmt.Sprintf("com,example)/%d", i), Time: at, Status: 200, Mime: "text/html", PayloadDigest: Digest("sha256", fmt.Append(nil, i)),
			Period: embargo.Week, FirstSeen: at, ReleaseAt: at.Add(embargo.Week.Duration()),
			Request:  Location{File: file, Offset: int64(i) * 1000, Length: 300},
			Response: Location{File: file, Offset: int64(i)*1000 + 300, Length: 500},
			Metadata: Location{File: file, Offset: int64(i)*1000 + 800, Length: 200}}
	}
	return es
}

// TestCheck: Check reads every entry and file end of a consistent index and finds nothing
// wrong; each way its keys can disagree with its entries is one problem naming the capture.
func TestCheck(t *testing.T) {
	t.Parallel()
	es := entries(3)
	cases := []struct {
		name   string
		damage func(tx *bolt.Tx) error
		want   []string // substrings of the problems, in order
	}{
		{"consistent", func(*bolt.Tx) error { return nil }, nil},
		{"an entry under another release time than its ids key says", func(tx *bolt.Tx) error {
			e := es[0]
			b := tx.Bucket(bucketSealed)
			if err := b.Delete(entryKey(e.ReleaseAt, e.ID)); err != nil {
				return err
			}
			e.ReleaseAt = e.ReleaseAt.Add(time.Hour)
			v, err := newCodec(tx).encode(nil, &e)
			if err != nil {
				return err
			}
			return b.Put(entryKey(e.ReleaseAt, e.ID), v)
		}, []string{"capture " + es[0].ID + ": ids key points at release time", "capture " + es[0].ID + ": urls key points at release time"}},
		{"a urls key missing", func(tx *bolt.Tx) error {
			return tx.Bucket(bucketURLs).Delete(urlKey(es[1].SURT, es[1].Time, es[1].ID))
		}, []string{"capture " + es[1].ID + ": missing from the urls bucket"}},
		{"an ids key for no capture", func(tx *bolt.Tx) error {
			return tx.Bucket(bucketIDs).Put(idKey("<urn:uuid:11111111-1111-4111-8111-111111111111>"), timeKey(t0))
		}, []string{"ids key for a capture the index does not hold"}},
		{"a count off", func(tx *bolt.Tx) error { return addCount(tx, Sealed, 1) },
			[]string{"index counts 4 sealed captures, holds 3"}},
		{"a capture in two states", func(tx *bolt.Tx) error {
			k := entryKey(es[2].ReleaseAt, es[2].ID)
			return tx.Bucket(bucketReleased).Put(k, tx.Bucket(bucketSealed).Get(k))
		}, []string{"indexed twice, sealed and released", "index counts 3 sealed captures, holds 2", "index counts 0 released captures, holds 1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "index.db")
			if err := Build(context.Background(), path, es); err != nil {
				t.Fatal(err)
			}
			ix, err := Open(path, time.Second, testkit.QuietLogger())
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.update(tc.damage); err != nil {
				t.Fatal(err)
			}
			c, err := Check(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Entries) != len(es) || c.Ends[es[0].Request.File] != es[2].Metadata.Offset+es[2].Metadata.Length {
				t.Errorf("read %d entries and ends %v, want %d and the end of the last record", len(c.Entries), c.Ends, len(es))
			}
			var got bytes.Buffer
			for _, p := range c.Problems {
				fmt.Fprintln(&got, p)
			}
			if len(c.Problems) != len(tc.want) {
				t.Fatalf("problems:\n%swant %d: %q", got.String(), len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(c.Problems[i].String(), w) {
					t.Errorf("problem %d is %q, want it to say %q", i, c.Problems[i], w)
				}
			}
		})
	}
}
