// Package pubtest builds small sealed archives and runs release passes over them, for the tests
// of the packages that publish and serve the public side.
package pubtest

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/embargo"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/store"
)

// T0 is when the test archives are crawled.
var T0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Quiet is a logger that discards everything.
func Quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// Secret is the body marker of capture i of host: it must never be public before its release.
func Secret(host string, i int) string { return fmt.Sprintf("SECRET-%s-%04d-do-not-publish", host, i) }

// Seal seals n captures into dir's store: URLs https://HOST/page/I crawled at T0 + I seconds, a
// quarter each not embargoed and under a week, a month and a quarter, each body unique (Secret)
// and padded to about pad bytes.
func Seal(t testing.TB, dir, host string, n, pad int) {
	t.Helper()
	SealAt(t, dir, host, n, pad, T0)
}

// SealAt is Seal of a crawl made at t0 instead of T0.
func SealAt(t testing.TB, dir, host string, n, pad int, t0 time.Time) {
	t.Helper()
	s, err := store.Open(dir, store.Options{Logger: Quiet(), Now: func() time.Time { return t0 }, MaxFileSize: 1 << 20})
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	periods := []embargo.Period{embargo.None, embargo.Week, embargo.Month, embargo.Quarter}
	var caps []store.Capture
	for i := range n {
		raw := fmt.Sprintf("https://%s/page/%d", host, i)
		u, _ := url.Parse(raw)
		body := fmt.Sprintf("<html><body><p>%s</p>%s</body></html>", Secret(host, i), strings.Repeat(fmt.Sprintf("filler %d ", i), pad/10))
		req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: archivectl-test\r\n\r\n", u.RequestURI(), u.Host)
		resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		caps = append(caps, store.Capture{URL: raw, Time: t0.Add(time.Duration(i) * time.Second), IP: "127.0.0.1",
			Request: []byte(req), Response: []byte(resp), Period: periods[i%4]})
	}
	for len(caps) > 0 {
		k := min(len(caps), 64)
		if _, err := s.Seal(context.Background(), caps[:k]); err != nil {
			t.Fatalf("Seal: %v", err)
		}
		caps = caps[k:]
	}
	if err := s.Close(); err != nil {
		t.Fatalf("store Close: %v", err)
	}
}

// SealRandom seals n captures into dir's store without embargo: URLs https://HOST/r/I crawled at
// T0 + I seconds, each body size random (incompressible) bytes, so that each record's gzip member
// is a little larger than size.
func SealRandom(t testing.TB, dir, host string, n, size int) {
	t.Helper()
	s, err := store.Open(dir, store.Options{Logger: Quiet(), Now: func() time.Time { return T0 }, MaxFileSize: 64 << 20})
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	for i := 0; i < n; i += 50 {
		var caps []store.Capture
		for j := i; j < min(i+50, n); j++ {
			b := make([]byte, size)
			rand.Read(b)
			resp := append(fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", size), b...)
			caps = append(caps, store.Capture{URL: fmt.Sprintf("https://%s/r/%d", host, j), Time: T0.Add(time.Duration(j) * time.Second), IP: "127.0.0.1",
				Request: fmt.Appendf(nil, "GET /r/%d HTTP/1.1\r\nHost: %s\r\n\r\n", j, host), Response: resp, Period: embargo.None})
		}
		if _, err := s.Seal(context.Background(), caps); err != nil {
			t.Fatalf("Seal: %v", err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("store Close: %v", err)
	}
}

// Days are the release passes the tests run, in days after T0: everything is due at the last.
var Days = []int{0, 8, 32, 91}

// Pass runs one release pass over dir at T0 + days, with opt's publish hook if any.
func Pass(t testing.TB, dir string, days int, opt release.Options) (release.Summary, error) {
	t.Helper()
	if opt.Logger == nil {
		opt.Logger = Quiet()
	}
	if opt.ShardSize == 0 {
		opt.ShardSize = 256 << 10
	}
	return release.New(dir, opt).Pass(context.Background(), T0.Add(time.Duration(days)*24*time.Hour))
}
