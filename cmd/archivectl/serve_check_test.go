package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestServeCheck runs the real binary: archivectl serve answers the publisher self-check beside
// the lookup, with a robots.txt pasted and with one fetched from a loopback origin (allowed by
// --check-private), refuses that origin without the flag, and --check off removes it.
func TestServeCheck(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "User-agent: archivectl\nArchive-Embargo: q\nDisallow: /private\n")
	}))
	t.Cleanup(origin.Close) // the subtests run after this function returns
	post := func(s *server, body string) (int, map[string]any) {
		t.Helper()
		resp, err := http.Post(s.base+"/api/v1/check", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
			t.Fatalf("answer: %v", err)
		}
		return resp.StatusCode, v
	}
	t.Run("on", func(t *testing.T) {
		t.Parallel()
		s := startServe(t, exe, "--data", filepath.Join(t.TempDir(), "d"), "--init", "--now", "2026-11-02", "--check-private")
		code, v := post(s, `{"robots_txt": "User-agent: *\nArchive-Embargo: 90d\nDisallow: /x\n", "urls": ["https://example.com/a", "/x/1"]}`)
		rs, _ := v["results"].([]any)
		if code != 200 || len(rs) != 2 {
			t.Fatalf("pasted: %d %v", code, v)
		}
		if a := rs[0].(map[string]any); a["allowed"] != true || a["release_at"] != "2026-11-02T00:00:00Z" {
			t.Errorf("pasted /a: %v", a)
		}
		if w, _ := v["warnings"].([]any); len(w) != 2 || w[0].(map[string]any)["code"] != "invalid-embargo" || w[1].(map[string]any)["code"] != "no-group-for-token" {
			t.Errorf("pasted warnings: %v", v["warnings"])
		}
		code, v = post(s, `{"origin": "`+origin.URL+`", "urls": ["/private/a", "/public"]}`)
		rs, _ = v["results"].([]any)
		if code != 200 || len(rs) != 2 || rs[0].(map[string]any)["allowed"] != false || rs[1].(map[string]any)["embargo_days"] != 90.0 {
			t.Errorf("fetched: %d %v", code, v)
		}
		if code, _ := s.get(t, "/check", nil); code != 200 {
			t.Errorf("GET /check: %d", code)
		}
		if code, _ := s.get(t, "/static/style.css", nil); code != 200 {
			t.Errorf("the lookup's stylesheet beside the check: %d", code)
		}
		if code := s.stop(t, syscall.SIGTERM); code != 0 {
			t.Errorf("exit %d; stderr:\n%s", code, s.stderr)
		}
	})
	t.Run("public only by default", func(t *testing.T) {
		t.Parallel()
		s := startServe(t, exe, "--data", filepath.Join(t.TempDir(), "d"), "--init")
		if code, v := post(s, `{"origin": "`+origin.URL+`", "urls": ["/"]}`); code != 400 || !strings.Contains(v["error"].(string), "not a public address") {
			t.Errorf("loopback origin: %d %v", code, v)
		}
		s.stop(t, syscall.SIGTERM)
	})
	t.Run("off", func(t *testing.T) {
		t.Parallel()
		s := startServe(t, exe, "--data", filepath.Join(t.TempDir(), "d"), "--init", "--check", "off")
		if code, _ := s.get(t, "/check", nil); code != 404 {
			t.Errorf("GET /check with --check off: %d, want 404", code)
		}
		s.stop(t, syscall.SIGTERM)
	})
}
