package crawler

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archivectl/archivectl/store/layout"
	"github.com/nlnwa/gowarc/v3"

	"github.com/archivectl/archivectl/store"
)

// The archivectl command, built once by the first test that needs it.
var (
	buildOnce               sync.Once
	buildDir, archivectlBin string
	buildErr                error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// archivectl returns the path of the archivectl command, building it on first use.
func archivectl(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "archivectl-crawl-test"); buildErr != nil {
			return
		}
		archivectlBin = filepath.Join(buildDir, "archivectl")
		out, err := exec.Command("go", "build", "-o", archivectlBin, "github.com/archivectl/archivectl/cmd/archivectl").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("building archivectl: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return archivectlBin
}

// hit is one request as the server saw it.
type hit struct {
	Path       string
	UserAgent  string
	Start, End time.Time
	Abandoned  bool // the client went away before the handler finished
}

// testOrigin is one loopback origin that logs every request it serves.
type testOrigin struct {
	*httptest.Server
	mu   sync.Mutex
	hits []hit
}

// newOrigin serves h on 127.0.0.1, logging requests.
func newOrigin(t *testing.T, h http.Handler) *testOrigin {
	t.Helper()
	o := &testOrigin{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := &hijackWatch{ResponseWriter: w}
		defer func() {
			end := time.Now()
			if rw.closed != nil {
				end = *rw.closed
			}
			o.mu.Lock()
			o.hits = append(o.hits, hit{Path: r.URL.RequestURI(), UserAgent: r.UserAgent(), Start: start, End: end, Abandoned: r.Context().Err() != nil})
			o.mu.Unlock()
		}()
		h.ServeHTTP(rw, r)
	}))
	t.Cleanup(o.Close)
	return o
}

// hijackWatch notes when a hijacked connection is closed: that, not the handler's return, ends
// the exchange for the client.
type hijackWatch struct {
	http.ResponseWriter
	closed *time.Time
}

func (w *hijackWatch) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *hijackWatch) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w *hijackWatch) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, buf, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	return &closeWatch{Conn: c, at: &w.closed}, buf, nil
}

type closeWatch struct {
	net.Conn
	at **time.Time
}

func (c *closeWatch) Close() error {
	now := time.Now()
	*c.at = &now
	return c.Conn.Close()
}

// log returns the requests served so far, in order of arrival.
func (o *testOrigin) log() []hit {
	o.mu.Lock()
	defer o.mu.Unlock()
	h := slices.Clone(o.hits)
	slices.SortFunc(h, func(a, b hit) int { return a.Start.Compare(b.Start) })
	return h
}

// paths lists the requested paths in order.
func (o *testOrigin) paths() []string {
	var p []string
	for _, h := range o.log() {
		p = append(p, h.Path)
	}
	return p
}

// checkPolite asserts from the server's log: robots.txt first, never two requests at once,
// at least gap between the end of one request and the start of the next. A request the client
// abandoned (a body cut by its limit or timeout) ends when the client closes the connection,
// which the server notices a moment later: only the order of starts is checked after it.
func checkPolite(t *testing.T, name string, o *testOrigin, gap time.Duration) {
	t.Helper()
	hits := o.log()
	if len(hits) == 0 {
		t.Errorf("%s: no request", name)
		return
	}
	if hits[0].Path != "/robots.txt" {
		t.Errorf("%s: first request %s, want /robots.txt", name, hits[0].Path)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i-1].Abandoned {
			continue
		}
		if hits[i].Start.Before(hits[i-1].End) {
			t.Errorf("%s: %s started before %s ended: two requests in flight", name, hits[i].Path, hits[i-1].Path)
		}
		if d := hits[i].Start.Sub(hits[i-1].End); d < gap {
			t.Errorf("%s: %s came %v after %s ended, want at least %v", name, hits[i].Path, d, hits[i-1].Path, gap)
		}
	}
}

// pages serves a small site from a map of path → HTML (robots.txt as text).
func pages(m map[string]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := m[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
		} else {
			w.Header().Set("Content-Type", "text/html")
		}
		io.WriteString(w, body)
	})
}

// status answers path with code and everything else with a page from m.
func status(path string, code int, m map[string]string) http.Handler {
	h := pages(m)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == path {
			http.Error(w, http.StatusText(code), code)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// run is one archivectl process's outcome.
type run struct {
	Code           int
	Stdout, Stderr string
	MaxRSS         int64 // peak RSS in bytes, from the summary's memory line
}

// crawlCmd prepares archivectl crawl over seeds with a config file holding yaml.
func crawlCmd(t *testing.T, data string, seeds []string, yaml string, args ...string) *exec.Cmd {
	t.Helper()
	dir := t.TempDir()
	seedsFile := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(seedsFile, []byte("# test seeds\n"+strings.Join(seeds, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgFile, []byte("contact: https://example.com/contact\n"+yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	full := append([]string{"crawl", "--data", data, "--config", cfgFile}, args...)
	return exec.Command(archivectl(t), append(full, seedsFile)...)
}

// wait runs cmd to its end and returns what it did.
func wait(t *testing.T, cmd *exec.Cmd) run {
	t.Helper()
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := run{Stdout: out.String(), Stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("running archivectl: %v", err)
	}
	// Not rusage: its maxrss counts the test process's memory shared until exec.
	for _, line := range strings.Split(r.Stdout, "\n") {
		var mib float64
		if _, err := fmt.Sscanf(line, "memory %f MiB peak RSS", &mib); err == nil {
			r.MaxRSS = int64(mib * (1 << 20))
		}
	}
	return r
}

// capture is one sealed capture as the WARC files and the index show it.
type capture struct {
	URL   string
	Type  gowarc.RecordType
	Entry store.Entry
	Facts map[string]any // the metadata record's JSON
}

// sealed reads every response and revisit record of data/sealed with its metadata and index entry.
// A record the index does not know fails the test, unless a killed run may have left it
// (orphans): the store cuts those away when it next opens.
func sealed(t *testing.T, data string) []capture { return sealedRecords(t, data, false) }

func sealedRecords(t *testing.T, data string, orphans bool) []capture {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(data, layout.SealedDir, "*.warc.gz*"))
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string]map[string]any{}
	var caps []capture
	for _, f := range files {
		err := store.ScanFile(f, func(_ store.Location, rec gowarc.WarcRecord) error {
			h := rec.WarcHeader()
			switch rec.Type() {
			case gowarc.Response, gowarc.Revisit:
				caps = append(caps, capture{URL: h.Get(gowarc.WarcTargetURI), Type: rec.Type(), Entry: store.Entry{ID: h.Get(gowarc.WarcRecordID)}})
			case gowarc.Metadata:
				rb, err := rec.Block().RawBytes()
				if err != nil {
					return err
				}
				var m map[string]any
				if err := json.NewDecoder(rb).Decode(&m); err != nil {
					return err
				}
				facts[h.Get(gowarc.WarcConcurrentTo)] = m
			}
			return nil
		})
		if err != nil {
			t.Fatalf("scan %s: %v", f, err)
		}
	}
	ix, err := store.OpenIndex(filepath.Join(data, layout.IndexFile), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var indexed []capture
	for _, c := range caps {
		e, ok, err := ix.Get(c.Entry.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			if !orphans {
				t.Fatalf("capture %s of %s not in the index", c.Entry.ID, c.URL)
			}
			continue
		}
		c.Entry, c.Facts = e, facts[c.Entry.ID]
		indexed = append(indexed, c)
	}
	return indexed
}

// byURL groups captures by URL.
func byURL(caps []capture) map[string][]capture {
	m := map[string][]capture{}
	for _, c := range caps {
		m[c.URL] = append(m[c.URL], c)
	}
	return m
}

func filepathGlob(p string) ([]string, error) { return filepath.Glob(p) }
