// Package testkit holds the helpers that tests of several packages share, written once: asking
// an http.Handler for a target, copying a data directory, a logger that discards, building the
// archivectl binary (binary.go), a process's CPU time and this one's (cpu.go), the median of a
// benchmark's rounds (median.go), gzip members read whole (gzip.go), and a headless Chromium
// driven over the DevTools protocol, with where its screenshots are kept (chromium.go). Only
// tests import it.
package testkit

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// Get asks h for target (a request URI, sent as it is even where url.ParseRequestURI would
// refuse it, as a hostile client's raw bytes would be) and returns the recorded answer.
func Get(t testing.TB, h http.Handler, target string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	if u, err := url.ParseRequestURI(target); err == nil {
		req.URL = u
	} else if u, err := url.Parse(target); err == nil {
		req.URL = u
	} else {
		t.Fatalf("GET %q: not a request target: %v", target, err)
	}
	req.RequestURI = target
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// CopyTree copies the directory src to dst (which must not exist), keeping file modes. A file
// that disappears while the tree is copied (a writer still at work) is left out.
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(target, info.Mode().Perm())
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// QuietLogger discards what it is given: for code under test that logs as it works.
func QuietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
