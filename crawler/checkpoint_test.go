package crawler

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/archivectl/archivectl/crawler/crawlertest"
	"github.com/archivectl/archivectl/crawler/handoff"
	"github.com/archivectl/archivectl/crawler/offsite"
	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/store"
)

// TestCheckpointsConsistent crawls a site while checkpoints are taken every few milliseconds,
// then reads every checkpoint the store holds: each URL its frontier has as done has its capture
// in its index, and each capture of its index lies in a sealed file its manifest names. So a node
// restored from any of them loses nothing the checkpoint holds (docs/architecture.md#sealed-bucket).
func TestCheckpointsConsistent(t *testing.T) {
	t.Parallel()
	const n = 80
	site := map[string]string{"/robots.txt": "User-agent: *\nDisallow: /private\n", "/": `<a href="/p/0">start</a>`}
	for i := range n {
		site[fmt.Sprintf("/p/%d", i)] = fmt.Sprintf(`<a href="/p/%d">next</a><a href="/p/%d">skip</a><a href="/private/%d">x</a><img src="/i/%d.png">`, i+1, (i+9)%n, i, i)
		site[fmt.Sprintf("/i/%d.png", i)] = "png"
	}
	o := newOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Millisecond)
		pages(site).ServeHTTP(w, r)
	}))
	data, root := t.TempDir(), t.TempDir()
	bucket := objectstore.NewDir(root)
	st, err := store.Open(data, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	up := &offsite.Uploader{Store: bucket, DataDir: data, Interval: 10 * time.Millisecond}
	_, _, err = crawlInto(context.Background(), t, Config{DataDir: data, Seeds: seedURLs(t, o.URL+"/"), Offsite: up}, StoreArchive(st))
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	objs, err := bucket.List(context.Background(), offsite.CheckpointPrefix)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	defer func() { t.Logf("%d checkpoints checked", checked) }()
	for _, obj := range objs {
		if !strings.HasSuffix(obj.Name, ".json") {
			continue
		}
		var m offsite.Manifest
		if err := json.Unmarshal(read(t, bucket, obj.Name), &m); err != nil {
			t.Fatal(err)
		}
		checkCheckpoint(t, bucket, m)
		checked++
	}
	if checked < 3 {
		t.Fatalf("%d checkpoints in the store; the test needs some taken during the crawl", checked)
	}
}

// checkCheckpoint checks one checkpoint's frontier against its index, and its index against
// its sealed files.
func checkCheckpoint(t *testing.T, bucket objectstore.Store, m offsite.Manifest) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]bool{}
	for _, o := range m.Sealed {
		files[strings.TrimPrefix(o.Name, offsite.SealedPrefix)] = true
	}
	ixPath, frPath := filepath.Join(dir, "index.db"), filepath.Join(dir, "frontier.db")
	os.WriteFile(ixPath, read(t, bucket, m.Index.Name), 0o600)
	os.WriteFile(frPath, read(t, bucket, m.Frontier.Name), 0o600)
	ix, err := store.OpenIndex(ixPath, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(frPath, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketURLs).ForEach(func(k, v []byte) error {
			it, state, _ := decodeItem(k, v)
			if state != done {
				return nil
			}
			key, err := surt.Key(it.URL)
			if err != nil {
				return err
			}
			found := false
			err = ix.ByURL(key, func(e store.Entry) error {
				found = found || e.URL == it.URL
				return nil
			})
			if err == nil && !found {
				t.Errorf("checkpoint %s: %s is done in the frontier, not in the index", m.Seq, it.URL)
			}
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = ix.Each(func(e store.Entry) error {
		for _, l := range []store.Location{e.Request, e.Response, e.Metadata} {
			if l.File != "" && !files[l.File] {
				t.Errorf("checkpoint %s: %s lies in %s, which its manifest does not name", m.Seq, e.URL, l.File)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// read is the whole object name of s.
func read(t *testing.T, s objectstore.Store, name string) []byte {
	t.Helper()
	rc, err := s.Read(context.Background(), name, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHandOffKeptUntilCheckpoint: with a sealed store, a hand-off batch consumed is deleted
// from the shared store only once a checkpoint holding its consumption is in the sealed store
// (a node restored from an earlier checkpoint would consume it again): a crawl whose only
// checkpoint is its last leaves the batch there, consumed; the next crawl, checkpointing
// often, deletes it without fetching its URL again.
func TestHandOffKeptUntilCheckpoint(t *testing.T) {
	t.Parallel()
	var o *crawlertest.Server
	for o == nil {
		s := newOrigin(t, typed(map[string]string{"/robots.txt": "", "/": "<p>home</p>", "/i.png": "image"}))
		if u, _ := url.Parse(s.URL); OriginPartition(u, 2) == 1 {
			o = s
		}
	}
	ctx := context.Background()
	shared := objectstore.NewDir(t.TempDir())
	batch := handoff.Name(1, "other", 1)
	body := handoff.Encode([]handoff.Entry{{URL: o.URL + "/i.png", Kind: handoff.KindRequisite, RequisiteOf: "http://127.0.0.1:1/page",
		RequisiteOfReleaseAt: time.Now().Add(-time.Hour), From: "other"}})
	if err := handoff.Put(ctx, shared, batch, body); err != nil {
		t.Fatal(err)
	}
	data, sealed := t.TempDir(), objectstore.NewDir(t.TempDir())
	// linger: how long the crawl goes on reading hand-offs after the last one; the second crawl
	// deletes the batch once a checkpoint is uploaded, however long that takes under load.
	crawl := func(interval, linger time.Duration) {
		t.Helper()
		st, err := store.Open(data, store.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		_, log, err := crawlInto(ctx, t, Config{DataDir: data, Seeds: seedURLs(t, o.URL+"/"), Partition: Partition{K: 1, N: 2},
			HandOff: &HandOff{Store: shared, Node: "node-1", Interval: 10 * time.Millisecond, Linger: linger},
			Offsite: &offsite.Uploader{Store: sealed, DataDir: data, Interval: interval}}, StoreArchive(st))
		if err != nil {
			t.Fatalf("%v\n%s", err, log)
		}
	}
	left := func() bool {
		_, err := shared.Stat(ctx, batch)
		return err == nil
	}
	crawl(time.Hour, 300*time.Millisecond) // its one checkpoint, its last, is taken once it no longer reads
	if !left() {
		t.Error("the batch was deleted before a checkpoint holding its consumption was in the sealed store")
	}
	crawl(10*time.Millisecond, 5*time.Second)
	if left() {
		t.Error("the batch is still in the shared store after checkpoints holding its consumption")
	}
	if n := strings.Count(strings.Join(o.Paths(), " "), "/i.png"); n != 1 {
		t.Errorf("the handed-off image was fetched %d times, want once", n)
	}
}
