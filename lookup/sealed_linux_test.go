package lookup

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"

	"github.com/archivectl/archivectl/public"
)

// The lookup never opens the sealed repository or the sealed index: inotify watches sealed/ and
// the data directory while every route is exercised and the index reloads, and must see no
// open or read of anything but public/.
func TestNeverOpensSealed(t *testing.T) {
	f := standard(t)
	data := filepath.Dir(f.dir)
	sealed := filepath.Join(data, "sealed")
	if err := os.MkdirAll(sealed, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(sealed, "SEALED-1.warc.gz"), filepath.Join(data, "index.db")} {
		if err := os.WriteFile(p, []byte("sealed"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify unavailable: %v", err)
	}
	defer syscall.Close(fd)
	const mask = syscall.IN_OPEN | syscall.IN_ACCESS
	for _, dir := range []string{data, sealed} {
		if _, err := syscall.InotifyAddWatch(fd, dir, mask); err != nil {
			t.Fatal(err)
		}
	}
	// Sanity: the watch does see an open of a sealed file.
	if b, err := os.ReadFile(filepath.Join(sealed, "SEALED-1.warc.gz")); err != nil || string(b) != "sealed" {
		t.Fatal(err)
	}
	if got := sealedEvents(t, fd); len(got) == 0 {
		t.Fatal("inotify reported nothing for a deliberate open of sealed/: the test cannot see opens")
	}

	s := f.server(testNow)
	for _, target := range []string{
		"/", "/?url=https://example.com/a", "/calendar.svg", "/static/style.css", "/api/v1/calendar",
		"/api/v1/captures?url=https://example.com/a", "/api/v1/captures?url=https://example.com/&matchType=prefix",
		"/api/v1/record?url=https://example.com/a", "/api/v1/record?url=https://example.com/a&format=payload",
		"/api/v1/record?url=https://example.com/b&timestamp=20261002000000&format=payload",
		"/api/v1/record?url=https://example.com/a&timestamp=20261129200000",
	} {
		get(t, s, target)
	}
	f.tombstone(public.CDXJ{URL: "https://example.com/c", Status: 200, Digest: "sha256:01", ID: "<urn:uuid:c>",
		Time: "2026-11-29T20:30:00Z", ReleaseAt: "2026-12-06T20:30:00Z"})
	f.commit()
	if reloaded, err := s.Refresh(); err != nil || !reloaded {
		t.Fatalf("Refresh = %v, %v", reloaded, err)
	}
	if got := sealedEvents(t, fd); len(got) > 0 {
		t.Errorf("the lookup touched the sealed side: %q", got)
	}
}

// sealedEvents drains the inotify queue and returns the names of events outside public/.
func sealedEvents(t *testing.T, fd int) []string {
	t.Helper()
	var names []string
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EAGAIN || n <= 0 {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := string(bytes.TrimRight(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+int(ev.Len)], "\x00"))
			if name != "public" {
				names = append(names, name+" (sealed/ or data dir)")
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
}
