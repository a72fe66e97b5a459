package testkit

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func TestGet(t *testing.T) {
	t.Parallel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(r.RequestURI + " " + r.URL.Query().Get("url")))
	})
	for target, want := range map[string]string{
		"/api/v1/captures?url=https%3A%2F%2Fa.example%2F": "/api/v1/captures?url=https%3A%2F%2Fa.example%2F https://a.example/",
		"/api/v1/captures?url=%zz":                        "/api/v1/captures?url=%zz ",
	} {
		if got := Get(t, h, target).Body.String(); got != want {
			t.Errorf("Get(%q) answered %q, want %q", target, got, want)
		}
	}
}

func TestCopyTree(t *testing.T) {
	t.Parallel()
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	os.MkdirAll(filepath.Join(src, "public", "shards"), 0o755)
	os.WriteFile(filepath.Join(src, "public", "shards", "a"), []byte("x"), 0o640)
	CopyTree(t, src, dst)
	st, err := os.Stat(filepath.Join(dst, "public", "shards", "a"))
	if err != nil || st.Mode().Perm() != 0o640 || st.Size() != 1 {
		t.Errorf("copied file: %v, %v", st, err)
	}
}
