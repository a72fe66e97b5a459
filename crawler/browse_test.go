package crawler

import (
	"errors"
	"net/url"
	"testing"

	"github.com/archivectl/archivectl/crawler/browser"
)

// TestOpenWithoutChromium: a crawl with a browser that cannot be found stops before it starts,
// with the error that says what to install or set.
func TestOpenWithoutChromium(t *testing.T) {
	t.Parallel()
	seed, _ := url.Parse("http://127.0.0.1:1/")
	_, err := Open(Config{DataDir: t.TempDir(), Seeds: []*url.URL{seed}, Browser: &browser.Options{Chromium: "/nonexistent/chromium"}})
	if !errors.Is(err, browser.ErrNoChromium) {
		t.Fatalf("Open = %v, want ErrNoChromium", err)
	}
}
