package scaleout

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/testkit"
	"github.com/archivectl/archivectl/lookup"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/mirror"
	"github.com/archivectl/archivectl/objectstore/publish"
	"github.com/archivectl/archivectl/objectstore/s3store"
	"github.com/archivectl/archivectl/release"
	"github.com/archivectl/archivectl/test/pubtest"
	"github.com/archivectl/archivectl/test/seaweedfs"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// TestFigures measures, in one run against SeaweedFS on loopback: a publish of a pass's 66 MB
// against the same SDK uploading the same files as plain objects (PutObject, nothing else), and
// the lookup's req/s and p99 served from the bucket (through a mirror) against from the local
// public/. ARCHIVECTL_FIGURES=1 runs it (a few minutes); ROUNDS (default 3) rounds alternate.
func TestFigures(t *testing.T) {
	if os.Getenv("ARCHIVECTL_FIGURES") == "" {
		t.Skip("ARCHIVECTL_FIGURES=1 measures the publishing and lookup figures")
	}
	srv := seaweedfs.Start(t)
	srv.CreateBucket(t, "figures")
	srv.Setenv(t, seaweedfs.Writer)
	data := t.TempDir()
	const captures, body = 1000, 64 << 10 // incompressible bodies: 66 MB of public records
	pubtest.SealRandom(t, data, "fig.example", captures, body)
	now := pubtest.T0.Add(24 * time.Hour)
	if _, err := release.New(data, release.Options{Logger: pubtest.Quiet(), ShardSize: 16 << 20}).Pass(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	files, total := publicFiles(t, data)
	t.Logf("public/: %d files, %.1f MB", len(files), float64(total)/1e6)

	ctx := context.Background()
	rounds := 3
	if r := os.Getenv("ROUNDS"); r != "" {
		fmt.Sscan(r, &rounds)
	}
	var pubTimes, plainTimes []time.Duration
	for round := range rounds {
		loc, _ := objectstore.ParseLocation(fmt.Sprintf("s3://figures/round-%d", round))
		s, err := s3store.Open(ctx, loc, s3store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		res, err := publish.Publish(ctx, data, s, publish.Options{Node: "fig", Logger: pubtest.Quiet()})
		if err != nil {
			t.Fatal(err)
		}
		pubTimes = append(pubTimes, time.Since(start))
		os.Remove(filepath.Join(data, publish.IDFile)) // the next round publishes as a new data directory

		c := srv.Client(seaweedfs.Writer)
		start = time.Now()
		for _, f := range files {
			fh, err := os.Open(filepath.Join(layout.Public(data), f))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("figures"), Key: aws.String(fmt.Sprintf("plain-%d/%s", round, f)), Body: fh})
			fh.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		plainTimes = append(plainTimes, time.Since(start))
		t.Logf("round %d: publish %s (%d objects, %.1f MB), plain PutObject of the same files %s",
			round, pubTimes[round].Round(time.Millisecond), res.Uploaded, float64(res.Bytes)/1e6, plainTimes[round].Round(time.Millisecond))
	}
	pub, plain := testkit.Median(pubTimes), testkit.Median(plainTimes)
	t.Logf("FIGURE publish: %.1f MB in %s (%.0f MB/s) against plain PutObject %s (%.0f MB/s): %.2f× the plain throughput",
		float64(total)/1e6, pub.Round(time.Millisecond), float64(total)/1e6/pub.Seconds(),
		plain.Round(time.Millisecond), float64(total)/1e6/plain.Seconds(), plain.Seconds()/pub.Seconds())

	// The lookup, from local disk and from the bucket (round 0's generation, through a mirror).
	srv.Setenv(t, seaweedfs.Reader)
	loc, _ := objectstore.ParseLocation("s3://figures/round-0")
	rs, err := s3store.Open(ctx, loc, s3store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := mirror.Open(ctx, rs, t.TempDir(), mirror.Options{Logger: pubtest.Quiet()})
	if err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return now }
	local, err := lookup.Open(layout.Public(data), lookup.Options{Logger: pubtest.Quiet(), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	remote, err := lookup.New(m.FS(), lookup.Options{Logger: pubtest.Quiet(), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	var rpsRatio, p99Ratio []float64 // records: the bucket's against local disk's, round by round
	const d = 3 * time.Second
	for _, kind := range []string{"captures", "record"} {
		for round := range rounds {
			var rps [2]float64
			var p99 [2]time.Duration
			for i, side := range []struct {
				name string
				h    http.Handler
			}{{"local disk", local}, {"bucket", remote}} {
				self0, weed0 := testkit.SelfCPU(), weedCPU(t, srv)
				rps[i], p99[i] = load(t, side.h, kind, captures, 8, d)
				self, weed := testkit.SelfCPU()-self0, weedCPU(t, srv)-weed0
				per := func(c time.Duration) string { return fmt.Sprintf("%.2f ms", c.Seconds()*1e3/(rps[i]*d.Seconds())) }
				t.Logf("FIGURE lookup %s round %d, %s: %.0f req/s, p99 %s; CPU an answer: lookup and client %s, SeaweedFS %s",
					kind, round, side.name, rps[i], p99[i].Round(10*time.Microsecond), per(self), per(weed))
			}
			if kind == "record" {
				rpsRatio = append(rpsRatio, rps[1]/rps[0])
				p99Ratio = append(p99Ratio, p99[0].Seconds()/p99[1].Seconds())
			}
		}
	}
	// The goal is both at least 0.8: the figure is the lower of the two medians.
	r, p := testkit.Median(rpsRatio), testkit.Median(p99Ratio)
	t.Logf("records from the bucket: %.2fx local disk (medians of %d rounds: req/s %.2fx, p99 %.2fx as local p99 / bucket p99)", min(r, p), rounds, r, p)
}

// weedCPU is the processor time the SeaweedFS server has used.
func weedCPU(t *testing.T, srv *seaweedfs.Server) time.Duration {
	c, err := srv.CPU()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// publicFiles lists public/'s files (relative) and their total size.
func publicFiles(t *testing.T, data string) ([]string, int64) {
	var out []string
	var total int64
	pub := layout.Public(data)
	filepath.WalkDir(pub, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			rel, _ := filepath.Rel(pub, p)
			out = append(out, filepath.ToSlash(rel))
			fi, _ := e.Info()
			total += fi.Size()
		}
		return nil
	})
	return out, total
}

// load sends requests of kind for random URLs from conns goroutines for d, and returns the
// rate and the 99th percentile latency.
func load(t *testing.T, h http.Handler, kind string, n, conns int, d time.Duration) (float64, time.Duration) {
	ts := httptest.NewServer(h)
	defer ts.Close()
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	end := time.Now().Add(d)
	for c := range conns {
		wg.Go(func() {
			client := ts.Client()
			var mine []time.Duration
			for i := c; time.Now().Before(end); i += conns {
				u := url.QueryEscape(fmt.Sprintf("https://fig.example/r/%d", (i*7919)%n))
				path := "/api/v1/captures?url=" + u
				if kind == "record" {
					path = "/api/v1/record?format=warc.gz&url=" + u
				}
				start := time.Now()
				resp, err := client.Get(ts.URL + path)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Errorf("%s: %d", path, resp.StatusCode)
					return
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(lat)
	if len(lat) == 0 {
		return 0, 0
	}
	return float64(len(lat)) / d.Seconds(), lat[int(math.Ceil(0.99*float64(len(lat))))-1]
}
