package testkit

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
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

func TestProcessCPU(t *testing.T) {
	t.Parallel()
	before, err := ProcessCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	x, deadline := 0, time.Now().Add(20*time.Second)
	for after := before; after-before < 50*time.Millisecond; after, err = ProcessCPU(os.Getpid()) {
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("CPU %s after %s of work: %v", after-before, 20*time.Second, err)
		}
		for i := range 1_000_000 {
			x += i % 7
		}
	}
	if _, err := ProcessCPU(1 << 30); err == nil {
		t.Error("no error for a process that does not exist")
	}
	_ = x
}

func TestMedian(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := Median(tc.in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if got := Median([]time.Duration{3, 1, 2}); got != 2 {
		t.Errorf("Median of durations = %v, want 2", got)
	}
}
