package pubindex_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
)

// A capture's tombstone line and, after its release, its released line: the index gives the
// capture once, as the released line says.
func ExampleSet_Captures() {
	dir, _ := os.MkdirTemp("", "pubindex-example")
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "shards"), 0o755)
	os.MkdirAll(filepath.Join(dir, "tombstones"), 0o755)
	const u = "https://weekly.example/news/storm-damage"
	key, _ := surt.Key(u)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := public.CDXJ{URL: u, Mime: "text/html", Status: 200, Digest: "sha256:" + fmt.Sprintf("%064x", 1),
		ReleaseAt: at.Add(7 * 24 * time.Hour).Format(time.RFC3339Nano), ID: "<urn:uuid:8a9f7c52-7a5e-4a43-9d4b-1f1e2c3d4e5f>",
		Time: at.Format(time.RFC3339Nano)}
	tomb, released := c, c
	tomb.State, tomb.Filename, tomb.Offset, tomb.Length = public.StateTombstone, "TOMB-20260301120000-00001.warc.gz", 0, 400
	released.State, released.Filename, released.Offset, released.Length = public.StateReleased, "PUBLIC-20260308120000-00001.warc.gz", 0, 2100
	for dirName, l := range map[string]public.CDXJ{"tombstones": tomb, "shards": released} {
		line, _ := public.FormatLine(key, at, l)
		os.WriteFile(filepath.Join(dir, dirName, public.CDXJName(l.Filename)), line, 0o644)
	}

	if _, err := pubindex.Rebuild(context.Background(), dir, 1, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		fmt.Println(err)
		return
	}
	set, err := pubindex.Open(os.DirFS(dir), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer set.Close()
	set.Captures(key, func(cs []pubindex.Capture) error {
		for _, c := range cs {
			fmt.Println(string(c.Block.URL), string(c.Block.State), string(c.Block.Filename))
		}
		return nil
	})
	// Output: https://weekly.example/news/storm-damage released PUBLIC-20260308120000-00001.warc.gz
}
