package demoweb

import (
	"errors"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// contentTypes maps the file extensions of the demo site to their media types.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".txt":  "text/plain; charset=utf-8",
}

// marker finds the body marker of a page.
var marker = regexp.MustCompile(`BODY-MARKER-[A-Za-z0-9-]+`)

// handler serves one origin's files and logs each request.
type handler struct {
	origin   string
	files    fs.FS
	manifest *manifest
	log      *requestLog
	latency  time.Duration
	hold     func(path string)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	i := h.log.begin(Request{Origin: h.origin, Method: r.Method, Path: r.URL.RequestURI(), UserAgent: r.UserAgent()})
	defer func() { h.log.end(i, sw.status) }()
	if h.hold != nil {
		h.hold(r.URL.Path)
	}
	if h.latency > 0 {
		t := time.NewTimer(h.latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
		}
	}
	h.serve(sw, r)
}

// serve answers one request from the embedded files.
func (h *handler) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name, ok := fileName(r.URL.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	if fi, err := fs.Stat(h.files, name); err == nil && fi.IsDir() {
		http.Redirect(w, r, r.URL.Path+"/", http.StatusMovedPermanently)
		return
	}
	body, err := fs.ReadFile(h.files, name)
	if errors.Is(err, fs.ErrNotExist) {
		http.NotFound(w, r)
		return
	} else if err != nil {
		http.Error(w, "cannot read the page", http.StatusInternalServerError)
		return
	}
	for k, vs := range h.manifest.header(r.URL.Path) {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Type", contentTypes[path.Ext(name)])
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(h.manifest.status(r.URL.Path))
	if r.Method == http.MethodGet {
		w.Write(body) //nolint:errcheck // the client went away; nothing to do
	}
}

// fileName maps a URL path to a file of the origin: a directory path to its index.html.
// The manifest is never served, nor is anything outside the origin.
func fileName(urlPath string) (string, bool) {
	if !strings.HasPrefix(urlPath, "/") {
		return "", false
	}
	name := strings.TrimPrefix(path.Clean(urlPath), "/")
	if strings.HasSuffix(urlPath, "/") {
		name = path.Join(name, "index.html")
	}
	if name == "" || name == "." {
		name = "index.html"
	}
	if name == manifestFile || !fs.ValidPath(name) {
		return "", false
	}
	return name, true
}

// pages lists every file the origin serves.
func (h *handler) pages(base string) ([]Page, error) {
	var out []Page
	err := fs.WalkDir(h.files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == manifestFile {
			return err
		}
		body, err := fs.ReadFile(h.files, name)
		if err != nil {
			return err
		}
		p := "/" + name
		if path.Base(name) == "index.html" {
			p = strings.TrimSuffix(p, "index.html")
		}
		out = append(out, Page{
			Origin: h.origin, Path: p, URL: base + p, Marker: string(marker.Find(body)),
			Status: h.manifest.status(p), Header: h.manifest.header(p).Clone(),
		})
		return nil
	})
	return out, err
}

// statusWriter remembers the status a handler sent, for the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}
