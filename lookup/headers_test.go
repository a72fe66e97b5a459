package lookup

import (
	"net/http"
	"strings"
	"testing"
)

// TestCacheControlAndSecurityHeaders checks every kind of answer for its Cache-Control and the
// security headers, the ServeMux's own redirects included.
func TestCacheControlAndSecurityHeaders(t *testing.T) {
	t.Parallel()
	s := standard(t).server(testNow)
	tests := []struct {
		path  string
		code  int
		cache string
	}{
		{"/api/v1/captures?url=https://example.com/a", http.StatusOK, cacheDefault},
		{"/api/v1/calendar?url=https://example.com/a", http.StatusOK, cacheDefault},
		{"/api/v1/record?url=https://example.com/a&timestamp=20260801100000", http.StatusOK, cacheRecord},
		{"/api/v1/record?url=https://example.com/a", http.StatusOK, cacheDefault}, // the newest: a pass may change it
		{"/api/v1/record?url=https://example.com/a&timestamp=20261129200000", http.StatusUnavailableForLegalReasons, cacheDefault},
		{"/api/v1/captures?url=https://nowhere.example/", http.StatusNotFound, cacheDefault},
		{"/", http.StatusOK, cacheDefault},
		{"/static/style.css", http.StatusOK, "public, max-age=3600"},
		{"/static", http.StatusTemporaryRedirect, cacheDefault}, // the ServeMux's redirect to /static/
		{"/api/v1/../v1/captures?url=https://example.com/a", http.StatusTemporaryRedirect, cacheDefault},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			rec := get(t, s, tc.path)
			h := rec.Header()
			if rec.Code != tc.code {
				t.Errorf("status %d, want %d", rec.Code, tc.code)
			}
			if got := h.Get("Cache-Control"); got != tc.cache {
				t.Errorf("Cache-Control %q, want %q", got, tc.cache)
			}
			if h.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") ||
				h.Get("X-Frame-Options") != "DENY" {
				t.Errorf("security headers missing: %v", h)
			}
		})
	}
}
