package mirror_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archivectl/archivectl/lookup"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/mirror"
	"github.com/archivectl/archivectl/objectstore/publish"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/test/pubtest"
)

// passAndView runs a release pass at day 8 over the data directory dir that publishes node n1
// to s, and returns a lookup reading s through a mirror an hour after the pass.
func passAndView(t *testing.T, dir string, s objectstore.Store) http.Handler {
	t.Helper()
	pub := func(ctx context.Context) error {
		_, err := publish.Publish(ctx, dir, s, publish.Options{Node: "n1", Logger: pubtest.Quiet()})
		return err
	}
	if _, err := pubtest.Pass(t, dir, 8, release.Options{Publish: pub}); err != nil {
		t.Fatal(err)
	}
	m, err := mirror.Open(context.Background(), s, t.TempDir(), mirror.Options{Logger: pubtest.Quiet()})
	if err != nil {
		t.Fatal(err)
	}
	now := pubtest.T0.Add(8*24*time.Hour + time.Hour)
	view, err := lookup.New(m.FS(), lookup.Options{Logger: pubtest.Quiet(), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return view
}

// counting is a store that counts the ranged reads of record files, and the bodies closed
// before their end (a GET whose connection is then closed instead of being reused).
type counting struct {
	objectstore.Store
	mu            sync.Mutex
	reads, unread int
}

func (c *counting) Read(ctx context.Context, name string, off, n int64) (io.ReadCloser, error) {
	rc, err := c.Store.Read(ctx, name, off, n)
	if err != nil || !strings.HasSuffix(name, ".warc.gz") {
		return rc, err
	}
	c.mu.Lock()
	c.reads++
	c.mu.Unlock()
	return &countedBody{ReadCloser: rc, c: c}, nil
}

func (c *counting) take() (reads, unread int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	reads, unread, c.reads, c.unread = c.reads, c.unread, 0, 0
	return reads, unread
}

type countedBody struct {
	io.ReadCloser
	c   *counting
	eof bool
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.eof = b.eof || err == io.EOF
	return n, err
}

func (b *countedBody) Close() error {
	if !b.eof {
		if n, _ := b.ReadCloser.Read(make([]byte, 1)); n > 0 {
			b.c.mu.Lock()
			b.c.unread++
			b.c.mu.Unlock()
		}
	}
	return b.ReadCloser.Close()
}

// TestRecordIsOneRead: a record served from the bucket, in every format, is one ranged read of
// exactly its gzip member (the CDXJ gives offset and length), read to its end, whatever its size:
// records of 3 KB and of 200 KB (beyond the first 64 KiB window of a read without a plan).
func TestRecordIsOneRead(t *testing.T) {
	t.Parallel()
	s := &counting{Store: objectstore.NewDir(t.TempDir())}
	dir := t.TempDir()
	const n = 12
	pubtest.SealRandom(t, dir, "small.example", n, 3000)
	pubtest.SealRandom(t, dir, "big.example", n, 200_000)
	view := passAndView(t, dir, s)
	s.take()
	served := 0
	for _, host := range []string{"small.example", "big.example"} {
		for i := 0; i < n; i += 3 {
			for _, format := range []string{"warc.gz", "warc", "payload"} {
				path := "/api/v1/record?format=" + format + "&url=" + url.QueryEscape(fmt.Sprintf("https://%s/r/%d", host, i))
				code, body := get(t, view, path)
				reads, unread := s.take()
				if code != 200 || reads != 1 || unread != 0 {
					t.Errorf("%s: %d (%d bytes), %d ranged reads, %d closed before their end; want 200 from one read, read whole", path, code, len(body), reads, unread)
				}
				served++
			}
		}
	}
	if served == 0 {
		t.Fatal("no record asked for")
	}
}
