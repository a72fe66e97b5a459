// Command gen writes a synthetic public directory for the lookup benchmark: N captures over
// hosts and pages, every other one released (pointing into one shard) and the rest tombstones
// with header fields, in byte-sorted CDXJ files of at most 100,000 lines, plus state.json and
// the list of URLs to ask for.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/archivectl/archivectl/release/public"
	"github.com/archivectl/archivectl/store/surt"
)

func main() {
	n := flag.Int("n", 1_000_000, "captures")
	out := flag.String("out", "bench/out/lookup/data", "data directory to write public/ into")
	perURL := flag.Int("per-url", 4, "captures per URL")
	flag.Parse()
	pub := filepath.Join(*out, "public")
	for _, d := range []string{"shards", "tombstones"} {
		if err := os.MkdirAll(filepath.Join(pub, d), 0o755); err != nil {
			log.Fatal(err)
		}
	}
	t0 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	now := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	var urls bytes.Buffer
	files := map[string][][]byte{}
	for i := range *n {
		u := i / *perURL
		raw := fmt.Sprintf("https://www.host%04d.example/section/%d/page-%d.html", u%5000, u/5000%50, u)
		if i%*perURL == 0 {
			urls.WriteString(raw + "\n")
		}
		at := t0.Add(time.Duration(i) * 13 * time.Second)
		sum := sha256.Sum256(fmt.Appendf(nil, "%d", i))
		c := public.CDXJ{
			URL: raw, Mime: "text/html", Status: 200, Digest: "sha256:" + hex.EncodeToString(sum[:]),
			ID: fmt.Sprintf("<urn:uuid:%s>", hex.EncodeToString(sum[:16])), Time: at.Format(time.RFC3339),
			Usage: []string{"train-ai=n", "search=y"},
		}
		key, err := surt.Key(raw)
		if err != nil {
			log.Fatal(err)
		}
		var file string
		if i%2 == 0 {
			c.State, c.ReleaseAt = public.StateReleased, at.Add(7*24*time.Hour).Format(time.RFC3339)
			c.Filename, c.Offset, c.Length = "shards/PUBLIC-20261129210000-00001.warc.gz", int64(i)*4000, 3900
			file = fmt.Sprintf("shards/PUBLIC-20261129210000-%05d.cdxj", 1+i/200_000)
		} else {
			rel := now.Add(time.Duration(i%90_000) * 86 * time.Second)
			c.State, c.ReleaseAt = public.StateEmbargoed, rel.Format(time.RFC3339)
			c.Filename, c.Offset, c.Length = "tombstones/TOMBSTONES-20261129210000-00001.warc.gz", int64(i)*900, 850
			c.Headers = [][2]string{{"Content-Type", "text/html; charset=utf-8"}, {"Content-Length", "48213"},
				{"Last-Modified", at.Format(time.RFC1123)}, {"Cache-Control", "max-age=600"}, {"Server", "nginx"}}
			file = fmt.Sprintf("tombstones/TOMBSTONES-20261129210000-%05d.cdxj", 1+i/200_000)
		}
		line, err := public.FormatLine(key, at, c)
		if err != nil {
			log.Fatal(err)
		}
		files[file] = append(files[file], line)
	}
	for name, lines := range files {
		slices.SortFunc(lines, bytes.Compare)
		if err := os.WriteFile(filepath.Join(pub, name), bytes.Join(lines, nil), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	state := fmt.Sprintf(`{"generation": 1, "last_pass": %q, "next_release": null}`, now.Format(time.RFC3339))
	if err := os.WriteFile(filepath.Join(pub, "state.json"), []byte(state), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*out, "urls.txt"), urls.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %d captures (%d URLs) under %s\n", *n, *n / *perURL, pub)
}
