// Package synth writes a synthetic public side for the lookup benchmark and the lookup's
// scale tests: N captures over hosts and pages, every other one released (some of them with
// the tombstone an earlier pass published) and the rest tombstones with header fields, in
// byte-sorted CDXJ files of at most 100,000 lines each, state.json, the public index built by
// the code a release pass or `archivectl reindex-public` uses, and the list of URLs to ask for.
package synth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/public/pubindex"
)

// Options say what to write.
type Options struct {
	N      int // captures
	PerURL int // captures per URL (default 4)
	// Commits, when above 0, publishes the captures in that many commits, each adding its own
	// segment as a release pass does (merged by the tier rule); at most 1,000,000 captures a
	// commit. At 0 the index is rebuilt from the CDXJ files at the end, as
	// `archivectl reindex-public` does: one segment.
	Commits int
	// Mixed varies what the captures are, for the CDX API's filters: statuses (200, 301, 404),
	// media types (HTML, PNG, CSS, JavaScript) and revisits. Without it every capture is a 200
	// text/html response.
	Mixed  bool
	Logger *slog.Logger // malformed-line warnings of the rebuild (none expected); discarded when nil
}

// Result is what Write wrote.
type Result struct {
	Lines int // CDXJ lines (a released capture with a tombstone has two)
	URLs  int
	Index pubindex.Manifest
}

// Times of the synthetic archive.
var (
	t0  = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	Now = time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC) // the last pass
)

const group = 200_000 // captures per pair of CDXJ files

// Write writes DIR/public and DIR/urls.txt.
func Write(ctx context.Context, dir string, o Options) (Result, error) {
	if o.PerURL <= 0 {
		o.PerURL = 4
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	pub := filepath.Join(dir, "public")
	for _, d := range []string{"shards", "tombstones", pubindex.Dir} {
		if err := os.MkdirAll(filepath.Join(pub, d), 0o755); err != nil {
			return Result{}, err
		}
	}
	var res Result
	var err error
	if o.Commits > 0 {
		res, err = writeCommits(ctx, pub, o)
	} else {
		res, err = writeGroups(ctx, pub, o)
	}
	if err != nil {
		return res, err
	}
	var urls bytes.Buffer
	for u := 0; u*o.PerURL < o.N; u++ {
		urls.WriteString(urlOf(u))
		urls.WriteByte('\n')
		res.URLs++
	}
	return res, os.WriteFile(filepath.Join(dir, "urls.txt"), urls.Bytes(), 0o644)
}

// writeGroups writes the CDXJ files in parallel, then rebuilds the index from them.
func writeGroups(ctx context.Context, pub string, o Options) (Result, error) {
	groups := (o.N + group - 1) / group
	var mu sync.Mutex
	var res Result
	var firstErr error
	work := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for g := range work {
				n, err := writeFiles(pub, o, g, g*group, min(o.N, (g+1)*group))
				mu.Lock()
				res.Lines += n
				firstErr = cmpErr(firstErr, err)
				mu.Unlock()
			}
		})
	}
	for g := range groups {
		work <- g
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return res, firstErr
	}
	if err := writeState(pub, 1); err != nil {
		return res, err
	}
	var err error
	res.Index, err = pubindex.Rebuild(ctx, pub, 1, o.Logger)
	return res, err
}

// writeCommits publishes the captures in o.Commits commits, as passes would.
func writeCommits(ctx context.Context, pub string, o Options) (Result, error) {
	var res Result
	per := (o.N + o.Commits - 1) / o.Commits
	if per > 1_000_000 {
		return res, fmt.Errorf("synth: %d captures a commit; at most 1,000,000 (more commits)", per)
	}
	tmp := filepath.Join(filepath.Dir(pub), "release-tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return res, err
	}
	var set *pubindex.Set // kept open across commits, as a pass keeps it
	defer func() {
		if set != nil {
			set.Close()
		}
	}()
	for g := range o.Commits {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		var err error
		if set, err = pubindex.Open(os.DirFS(pub), set); err != nil {
			return res, err
		}
		from, to := g*per, min(o.N, (g+1)*per)
		if from >= to {
			break
		}
		shard, tomb := lines(o, from, to, per)
		res.Lines += len(shard) + len(tomb)
		c, err := pubindex.Prepare(set, pub, tmp, int64(g+1), slices.Concat(shard, tomb))
		if err != nil {
			return res, err
		}
		// As a pass publishes: the commit's files, then the index's commit point, then state.json.
		if err := writeCDXJ(pub, o, g, shard, tomb); err != nil {
			return res, err
		}
		if err := pubindex.Apply(pub, c); err != nil {
			return res, err
		}
		if err := writeState(pub, int64(g+1)); err != nil {
			return res, err
		}
		res.Index = c.Manifest
	}
	return res, os.Remove(tmp)
}

// writeFiles writes the CDXJ files of captures [from, to) as file pair g.
func writeFiles(pub string, o Options, g, from, to int) (int, error) {
	shard, tomb := lines(o, from, to, group)
	return len(shard) + len(tomb), writeCDXJ(pub, o, g, shard, tomb)
}

// writeCDXJ writes one shard and one tombstone CDXJ file, each byte-sorted.
func writeCDXJ(pub string, o Options, g int, shard, tomb [][]byte) error {
	for _, f := range []struct {
		name  string
		lines [][]byte
	}{{fmt.Sprintf("shards/PUBLIC-20261129210000-%05d.cdxj", g+1), shard}, {fmt.Sprintf("tombstones/TOMBSTONES-20261129210000-%05d.cdxj", g+1), tomb}} {
		slices.SortFunc(f.lines, bytes.Compare)
		if err := os.WriteFile(filepath.Join(pub, f.name), bytes.Join(f.lines, nil), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// urlOf is the URL of page u.
func urlOf(u int) string {
	return fmt.Sprintf("https://www.host%04d.example/section/%d/page-%d.html", u%5000, u/5000%50, u)
}

// lines are the CDXJ lines of captures [from, to), released ones and tombstones, and the
// tombstones an earlier pass published of captures that the next group of per releases
// (every tenth released capture has one: the lookup merges the two lines across files,
// commits and segments).
func lines(o Options, from, to, per int) (shard, tomb [][]byte) {
	for i := from; i < to; i++ {
		key, c := capture(o, i)
		if i%2 == 0 {
			shard = append(shard, must(public.FormatLine(key, c.at, c.CDXJ)))
			continue
		}
		rel := Now.Add(time.Duration(i%90_000) * 86 * time.Second)
		c.State, c.ReleaseAt, c.Headers = public.StateTombstone, rel.Format(time.RFC3339), c.headers
		c.Filename, c.Offset, c.Length = "TOMBSTONES-20261129210000-00001.warc.gz", int64(i)*900, 850
		tomb = append(tomb, must(public.FormatLine(key, c.at, c.CDXJ)))
	}
	lo := to
	if from == 0 {
		lo = 0
	}
	for i := lo; i < min(o.N, to+per); i++ {
		if i%10 != 0 {
			continue
		}
		key, c := capture(o, i)
		c.State, c.Headers = public.StateTombstone, c.headers
		c.Filename, c.Offset, c.Length = "TOMBSTONES-20261129210000-00001.warc.gz", int64(i)*900, 850
		tomb = append(tomb, must(public.FormatLine(key, c.at, c.CDXJ)))
	}
	return shard, tomb
}

// synthetic is capture i as released, with the header fields its tombstone shows.
type synthetic struct {
	public.CDXJ
	at      time.Time
	headers [][2]string
}

// capture is the SURT key and released line of capture i.
func capture(o Options, i int) (string, synthetic) {
	raw := urlOf(i / o.PerURL)
	at := t0.Add(time.Duration(i) * 13 * time.Second)
	sum := sha256.Sum256(fmt.Appendf(nil, "%d", i))
	c := synthetic{at: at, CDXJ: public.CDXJ{
		URL: raw, Mime: "text/html", Status: 200, Digest: "sha256:" + hex.EncodeToString(sum[:]),
		ID: fmt.Sprintf("<urn:uuid:%s>", hex.EncodeToString(sum[:16])), Time: at.Format(time.RFC3339),
		Usage: []string{"search=y", "train-ai=n"}, UsageRobots: []string{"train-ai=n"}, UsageHeader: []string{"search=y"},
		State: public.StateReleased, ReleaseAt: at.Add(7 * 24 * time.Hour).Format(time.RFC3339),
		Filename: "PUBLIC-20261129210000-00001.warc.gz", Offset: int64(i) * 4000, Length: 3900,
	}}
	ctype := "text/html; charset=utf-8"
	if o.Mixed {
		mix(&c.CDXJ, i)
		ctype = c.Mime
	}
	c.headers = [][2]string{{"Content-Type", ctype}, {"Content-Length", "48213"},
		{"Last-Modified", at.Format(time.RFC1123)}, {"Cache-Control", "max-age=600"}, {"Server", "nginx"}}
	key, err := surt.Key(raw)
	if err != nil {
		panic(err) // the URLs are ours
	}
	return key, c
}

// mix makes capture i of a Mixed archive one of several kinds: every third a redirect or not
// found, media types in turn, and every seventh released capture a revisit of the one before.
func mix(c *public.CDXJ, i int) {
	c.Status = [3]int{200, 301, 404}[i/2%3]
	c.Mime = [5]string{"text/html", "image/png", "text/html", "text/css", "application/javascript"}[i/2%5]
	if i%14 == 6 {
		prev := sha256.Sum256(fmt.Appendf(nil, "%d", i-2))
		c.Revisit, c.RefersTo = true, fmt.Sprintf("<urn:uuid:%s>", hex.EncodeToString(prev[:16]))
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err) // the lines are ours
	}
	return b
}

// writeState writes state.json of generation gen.
func writeState(pub string, gen int64) error {
	b, err := public.MarshalStatus(public.Status{Generation: gen, LastPass: Now, Software: "synth"})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(pub, "state.json"), b, 0o644)
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// Describe says in one line what Write wrote.
func (r Result) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d CDXJ lines (%d URLs), index generation %d: %d segments, %d released, %d embargoed",
		r.Lines, r.URLs, r.Index.Generation, len(r.Index.Segments), r.Index.Stats.Released, r.Index.Stats.Embargoed)
	return b.String()
}
