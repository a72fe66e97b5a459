package offsite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/objectstore"
)

// node is a data directory with two sealed files, one of them still open.
func node(t *testing.T) string {
	t.Helper()
	data := t.TempDir()
	sealed := layout.Sealed(data)
	os.MkdirAll(sealed, 0o700)
	os.WriteFile(filepath.Join(sealed, "a-1.warc.gz"), []byte("first file"), 0o600)
	os.WriteFile(filepath.Join(sealed, "a-2.warc.gz.open"), []byte("still written"), 0o600)
	return data
}

// take takes a checkpoint whose index and frontier hold the given bytes.
func take(t *testing.T, u *Uploader, at time.Time, index, frontier string, files ...string) {
	t.Helper()
	err := u.Take(at, func(i, f io.Writer) ([]string, error) {
		io.WriteString(i, index)
		io.WriteString(f, frontier)
		return files, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestUploadAndRestore: the closed sealed files and the last checkpoint go to the store (the
// open file never does), and Restore rebuilds an empty directory from it, byte for byte.
func TestUploadAndRestore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data, bucket := node(t), objectstore.NewDir(t.TempDir())
	u := &Uploader{Store: bucket, DataDir: data, Interval: time.Hour}
	if err := u.Start(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	take(t, u, at, "index one", "frontier one", "a-1.warc.gz")
	take(t, u, at, "index two", "frontier two", "a-1.warc.gz") // a clock standing still: a later name all the same
	if err := u.Close(ctx); err != nil {
		t.Fatal(err)
	}
	last := Seq(at.Add(time.Nanosecond))
	objs, _ := bucket.List(ctx, "")
	has := map[string]bool{}
	for _, o := range objs {
		has[o.Name] = true
		if strings.Contains(o.Name, ".open") {
			t.Errorf("the open file %s was uploaded", o.Name)
		}
	}
	for _, name := range []string{"sealed/a-1.warc.gz", manifestName(last), "checkpoints/" + last + "/index.db", "checkpoints/" + last + "/frontier.db"} {
		if !has[name] {
			t.Errorf("the store lacks %s: %v", name, has)
		}
	}
	if left, _ := os.ReadDir(layout.Checkpoints(data)); len(left) != 1 || left[0].Name() != uploadedFile {
		t.Errorf("DATA/checkpoints holds %v after the upload, want the record alone", left)
	}

	fresh := t.TempDir()
	r, err := Restore(ctx, bucket, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if r.Manifest.Seq != last || len(r.Manifest.Sealed) != 1 || r.Later != 0 {
		t.Errorf("restored %+v", r)
	}
	for path, want := range map[string]string{
		layout.Index(fresh):                                "index two",
		layout.Frontier(fresh):                             "frontier two",
		filepath.Join(layout.Sealed(fresh), "a-1.warc.gz"): "first file",
	} {
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Errorf("%s: %q %v, want %q", path, b, err, want)
		}
	}
	if _, err := Restore(ctx, bucket, fresh); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("a second restore into the same directory: %v, want ErrNotEmpty", err)
	}
	// The restored node uploads nothing again, and its next checkpoint names a file of its own.
	os.WriteFile(filepath.Join(layout.Sealed(fresh), "a-3.warc.gz"), []byte("after the restore"), 0o600)
	u2 := &Uploader{Store: bucket, DataDir: fresh}
	if err := u2.Start(ctx); err != nil {
		t.Fatal(err)
	}
	take(t, u2, at.Add(time.Minute), "index three", "frontier three", "a-1.warc.gz", "a-3.warc.gz")
	if err := u2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r, err = Restore(ctx, bucket, t.TempDir())
	if err != nil || len(r.Manifest.Sealed) != 2 {
		t.Fatalf("restore of the later checkpoint: %+v %v", r, err)
	}
}

// TestRestoreChecksSums: an object whose bytes are not those of the manifest fails the restore,
// naming it, and leaves no index.db nor frontier.db behind.
func TestRestoreChecksSums(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data, root := node(t), t.TempDir()
	bucket := objectstore.NewDir(root)
	u := &Uploader{Store: bucket, DataDir: data}
	if err := u.Start(ctx); err != nil {
		t.Fatal(err)
	}
	take(t, u, time.Unix(1, 0), "index", "frontier", "a-1.warc.gz")
	if err := u.Close(ctx); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "sealed", "a-1.warc.gz")
	os.Chmod(p, 0o600)
	if err := os.WriteFile(p, []byte("first filE"), 0o600); err != nil {
		t.Fatal(err)
	}
	fresh := t.TempDir()
	_, err := Restore(ctx, bucket, fresh)
	if err == nil || !strings.Contains(err.Error(), "sealed/a-1.warc.gz") {
		t.Fatalf("restore of a changed object: %v", err)
	}
	for _, p := range []string{layout.Index(fresh), layout.Frontier(fresh)} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after a failed restore", p)
		}
	}
	if _, err := Restore(ctx, objectstore.NewDir(t.TempDir()), t.TempDir()); !errors.Is(err, ErrNoCheckpoint) {
		t.Errorf("restore from an empty store: %v, want ErrNoCheckpoint", err)
	}
}

// TestUploadedRecordCutShort: a record line a kill cut short is dropped and its file put again
// (the store takes the same bytes twice); the next lines start on a line of their own.
func TestUploadedRecordCutShort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data, bucket := node(t), objectstore.NewDir(t.TempDir())
	os.MkdirAll(layout.Checkpoints(data), 0o700)
	os.WriteFile(filepath.Join(layout.Checkpoints(data), uploadedFile), []byte("a-1.warc.gz 10 abc"), 0o600)
	u := &Uploader{Store: bucket, DataDir: data}
	if err := u.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := u.Close(ctx); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(layout.Checkpoints(data), uploadedFile))
	if lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")); len(lines) != 1 || !bytes.HasPrefix(lines[0], []byte("a-1.warc.gz 10 ")) || len(lines[0]) != len("a-1.warc.gz 10 ")+64 {
		t.Errorf("the record reads %q", b)
	}
	if _, err := bucket.Stat(ctx, "sealed/a-1.warc.gz"); err != nil {
		t.Error(err)
	}
}

// TestUnchangedCheckpoint: a checkpoint whose index, frontier and files are those of the last
// one in the store (an idle crawl) is not uploaded again, and is forgotten all the same.
func TestUnchangedCheckpoint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data, bucket := node(t), objectstore.NewDir(t.TempDir())
	u := &Uploader{Store: bucket, DataDir: data}
	if err := u.Start(ctx); err != nil {
		t.Fatal(err)
	}
	manifests := func() int {
		objs, _ := bucket.List(ctx, CheckpointPrefix)
		n := 0
		for _, o := range objs {
			if _, ok := seqFromManifest(o.Name); ok {
				n++
			}
		}
		return n
	}
	at := time.Unix(100, 0)
	take(t, u, at, "index", "frontier", "a-1.warc.gz")
	for deadline := time.Now().Add(10 * time.Second); manifests() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first checkpoint was never uploaded")
		}
	}
	take(t, u, at.Add(time.Minute), "index", "frontier", "a-1.warc.gz")
	if err := u.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := manifests(); n != 1 {
		t.Errorf("%d checkpoints in the store, want the first alone", n)
	}
	if left, _ := os.ReadDir(layout.Checkpoints(data)); len(left) != 1 {
		t.Errorf("DATA/checkpoints holds %d entries, want the record alone", len(left))
	}
}

// failing is a store whose reads of names ending in readSuffix and whose puts fail, as an
// unreachable one.
type failing struct {
	objectstore.Store
	readSuffix string
	puts       bool
}

var errUnreachable = errors.New("the store is unreachable")

func (f failing) Read(ctx context.Context, name string, off, n int64) (io.ReadCloser, error) {
	if f.readSuffix != "" && strings.HasSuffix(name, f.readSuffix) {
		return nil, errUnreachable
	}
	return f.Store.Read(ctx, name, off, n)
}

func (f failing) Put(ctx context.Context, name string, r io.ReadSeeker, size int64, sha256 string) error {
	if f.puts {
		return errUnreachable
	}
	return f.Store.Put(ctx, name, r, size, sha256)
}

// TestRestoreCutShort: a restore killed after frontier.db and before index.db leaves the
// directory marked, is run again to the end, and leaves no mark.
func TestRestoreCutShort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data, bucket := node(t), objectstore.NewDir(t.TempDir())
	u := &Uploader{Store: bucket, DataDir: data}
	if err := u.Start(ctx); err != nil {
		t.Fatal(err)
	}
	take(t, u, time.Unix(1, 0), "index", "frontier", "a-1.warc.gz")
	if err := u.Close(ctx); err != nil {
		t.Fatal(err)
	}
	fresh := t.TempDir()
	if _, err := Restore(ctx, failing{Store: bucket, readSuffix: "/" + layout.IndexFile}, fresh); !errors.Is(err, errUnreachable) {
		t.Fatalf("restore with index.db unreadable: %v", err)
	}
	if !HoldsCrawl(fresh) || !Restoring(fresh) {
		t.Fatalf("after the cut: holds a crawl %v, marked %v; want both", HoldsCrawl(fresh), Restoring(fresh))
	}
	if _, err := Restore(ctx, bucket, fresh); err != nil {
		t.Fatalf("the restore run again: %v", err)
	}
	if b, err := os.ReadFile(layout.Index(fresh)); err != nil || string(b) != "index" || Restoring(fresh) {
		t.Errorf("after the second run: index.db %q %v, marked %v", b, err, Restoring(fresh))
	}
	if _, err := Restore(ctx, bucket, fresh); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("a restore over a finished one: %v, want ErrNotEmpty", err)
	}
}

// TestCheckpointsPendingOne: while the store takes nothing, each checkpoint taken replaces the
// one not yet uploaded in DATA/checkpoints: the disk holds one copy, the newest.
func TestCheckpointsPendingOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data := node(t)
	u := &Uploader{Store: failing{Store: objectstore.NewDir(t.TempDir()), puts: true}, DataDir: data, Interval: time.Hour}
	if err := u.Start(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Unix(100, 0)
	for i := range 3 {
		take(t, u, at.Add(time.Duration(i)*time.Minute), "index", "frontier", "a-1.warc.gz")
	}
	seqs, err := localSeqs(layout.Checkpoints(data))
	if err != nil || !slices.Equal(seqs, []string{Seq(at.Add(2 * time.Minute))}) {
		t.Errorf("DATA/checkpoints holds %v %v, want the newest alone", seqs, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := u.Close(cancelled); err == nil {
		t.Error("Close with the store unreachable: no error")
	}
}

// TestCheckpointAfterStoreLast: a node whose clock is behind the last checkpoint in the store
// (restored on another machine, or a clock stepped back) names its checkpoints after it.
func TestCheckpointAfterStoreLast(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data, bucket := node(t), objectstore.NewDir(t.TempDir())
	at := time.Unix(1000, 0)
	for i, index := range []string{"index before", "index after"} {
		u := &Uploader{Store: bucket, DataDir: data, Interval: time.Hour}
		if err := u.Start(ctx); err != nil {
			t.Fatal(err)
		}
		take(t, u, at.Add(-time.Duration(i)*time.Hour), index, "frontier", "a-1.warc.gz")
		if err := u.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := Restore(ctx, bucket, t.TempDir()); err != nil || r.Manifest.Seq != Seq(at.Add(time.Nanosecond)) {
		t.Errorf("the last checkpoint is %+v %v, want the one taken second, named %s", r.Manifest, err, Seq(at.Add(time.Nanosecond)))
	}
}

// blocking is a store whose first put of a checkpoint's file waits until release is closed,
// telling entered when it starts: an upload slower than the checkpoints.
type blocking struct {
	objectstore.Store
	once             *sync.Once
	entered, release chan struct{}
}

func (b blocking) Put(ctx context.Context, name string, r io.ReadSeeker, size int64, sha256 string) error {
	if strings.HasPrefix(name, CheckpointPrefix) {
		b.once.Do(func() {
			close(b.entered)
			<-b.release
		})
	}
	return b.Store.Put(ctx, name, r, size, sha256)
}

// TestCheckpointsDuringSlowUpload: checkpoints taken while one is being put leave it alone (an
// upload slower than the interval would else never end) and keep the newest besides; the
// upload then ends, and the next one puts the newest.
func TestCheckpointsDuringSlowUpload(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data, bucket := node(t), objectstore.NewDir(t.TempDir())
	b := blocking{Store: bucket, once: &sync.Once{}, entered: make(chan struct{}), release: make(chan struct{})}
	u := &Uploader{Store: b, DataDir: data, Interval: time.Hour}
	if err := u.Start(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Unix(100, 0)
	take(t, u, at, "index 0", "frontier 0", "a-1.warc.gz")
	<-b.entered
	for i := 1; i <= 2; i++ {
		take(t, u, at.Add(time.Duration(i)*time.Minute), fmt.Sprint("index ", i), fmt.Sprint("frontier ", i), "a-1.warc.gz")
	}
	seqs, err := localSeqs(layout.Checkpoints(data))
	if want := []string{Seq(at), Seq(at.Add(2 * time.Minute))}; err != nil || !slices.Equal(seqs, want) {
		t.Errorf("DATA/checkpoints holds %v %v, want %v: the one being put and the newest", seqs, err, want)
	}
	close(b.release)
	if err := u.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if r, err := Restore(ctx, bucket, t.TempDir()); err != nil || r.Manifest.Seq != Seq(at.Add(2*time.Minute)) {
		t.Errorf("the last checkpoint: %+v %v, want %s", r.Manifest, err, Seq(at.Add(2*time.Minute)))
	}
}
