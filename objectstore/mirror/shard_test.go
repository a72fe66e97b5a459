package mirror_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/test/pubtest"
)

// TestShardFromBucket: a lookup reading from the bucket answers GET /shards/NODE/NAME (the file
// its captures answer names) by ranges as the node's own public/ holds the shard: a record's
// range is one ranged read of the bucket, and the whole file is the node's file byte for byte;
// a node the view does not hold, or a name its manifest does not list, is 404.
func TestShardFromBucket(t *testing.T) {
	t.Parallel()
	s := &counting{Store: objectstore.NewDir(t.TempDir())}
	dir := t.TempDir()
	pubtest.SealRandom(t, dir, "big.example", 6, 200_000)
	view := passAndView(t, dir, s)
	_, body := get(t, view, "/api/v1/captures?url="+url.QueryEscape("https://big.example/r/3"))
	var a struct {
		Captures []struct {
			WARC *struct {
				File           string
				Offset, Length int64
			} `json:"warc"`
		} `json:"captures"`
	}
	if err := json.Unmarshal([]byte(body), &a); err != nil || len(a.Captures) == 0 || a.Captures[0].WARC == nil {
		t.Fatalf("captures: %v %s", err, body)
	}
	w := a.Captures[0].WARC
	if !strings.HasPrefix(w.File, layout.ShardsDir+"/n1/") {
		t.Fatalf("the view names the shard %q, not shards/n1/NAME", w.File)
	}
	local, err := os.ReadFile(filepath.Join(layout.Shards(dir), path.Base(w.File)))
	if err != nil {
		t.Fatal(err)
	}
	s.take()
	req := httptest.NewRequest(http.MethodGet, "/"+w.File, nil)
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", w.Offset, w.Offset+w.Length-1))
	rec := httptest.NewRecorder()
	view.ServeHTTP(rec, req)
	if reads, _ := s.take(); rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), local[w.Offset:w.Offset+w.Length]) || reads != 1 {
		t.Errorf("range of %s: %d, %d bytes from %d ranged reads; want 206, the node's %d bytes, one read", w.File, rec.Code, rec.Body.Len(), reads, w.Length)
	}
	if code, whole := get(t, view, "/"+w.File); code != http.StatusOK || whole != string(local) {
		t.Errorf("whole %s: %d, %d bytes; want the node's %d", w.File, code, len(whole), len(local))
	}
	for _, p := range []string{"/shards/n2/" + path.Base(w.File), "/shards/n1/PUBLIC-20000101000000-00099.warc.gz", "/shards/" + path.Base(w.File)} {
		if code, _ := get(t, view, p); code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, code)
		}
	}
}
