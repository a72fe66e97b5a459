// Command check verifies what test/scaleout/run.sh promises, from the site's own request log
// and from the bucket itself (read with the AWS environment's credentials):
//
//	check mkbucket BUCKET PID               create the bucket, waiting (90 s at most) for the store, process PID, to be up
//	                                        and to store an object
//	check origins DIR NODES                 every origin was requested, by exactly one node: its partition's;
//	                                        every requisite a home page embeds (the image of the next origin,
//	                                        the stylesheet of the one after, the image that stylesheet embeds)
//	                                        requested (by that origin's node, handed to it when it is
//	                                        another's), no /private/ URL (disallowed by robots.txt) ever
//	check bucket STORE DIR NODES NOW START END
//	                                        at NOW (RFC 3339), of a crawl made between START and END: every
//	                                        due page released exactly once in the union of the nodes' latest
//	                                        generations, every other one a tombstone and not one byte of its
//	                                        body anywhere in the bucket; every requisite (its own node's or
//	                                        another's) released exactly once when its own embargo and those
//	                                        of what embeds it are over, until then not one byte of its body
//	                                        in the bucket, and while what embeds it is embargoed not even
//	                                        its URL (withheld, no tombstone); no disallowed URL
//	check replay STORE DIR NODES NOW END SCRIPTS OUT
//	                                        every page released at NOW replays complete: each of its
//	                                        requisites that is due is released too; warcio.js's indexer
//	                                        (SCRIPTS/index.mjs, SCRIPTS being test/replay, run by node over the
//	                                        released WARC files fetched from the bucket into OUT) finds every
//	                                        released capture where the public CDXJ says, with its status; and
//	                                        wabac.js (SCRIPTS/replay.mjs, over a WACZ js-wacz packs of those
//	                                        files) replays each released home page and due requisite from the
//	                                        archive, an image with the bytes the site sent
//	check checkpoint STORE                  a node's sealed store holds a checkpoint (its SEQ printed)
//	check denied STORE OBJECT               the environment's identity gets 403 listing STORE and reading OBJECT
//
// It prints one line per problem and exits 1 if there is any.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/crawler"
	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/publish"
	"github.com/archivectl/archivectl/public"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/klauspost/compress/gzip"
)

// periods are the embargoes of origins 0, 1, 2, 3 (mod 4), as the site's robots.txt asks.
var periods = []time.Duration{0, 7 * 24 * time.Hour, 31 * 24 * time.Hour, 90 * 24 * time.Hour}

var problems int

func problem(format string, a ...any) {
	problems++
	fmt.Printf("PROBLEM: "+format+"\n", a...)
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: check origins DIR NODES | check bucket STORE DIR NODES NOW START END")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "mkbucket":
		mkbucket(os.Args[2], atoi(os.Args[3]))
	case "origins":
		checkOrigins(os.Args[2], atoi(os.Args[3]))
	case "bucket":
		checkBucket(os.Args[2], os.Args[3], atoi(os.Args[4]), at(os.Args[5]), at(os.Args[6]), at(os.Args[7]))
	case "replay":
		checkReplay(os.Args[2], os.Args[3], atoi(os.Args[4]), at(os.Args[5]), at(os.Args[6]), os.Args[7], os.Args[8])
	case "checkpoint":
		checkCheckpoint(os.Args[2])
	case "denied":
		checkDenied(os.Args[2], os.Args[3])
	default:
		fmt.Fprintf(os.Stderr, "check: unknown check %q\n", os.Args[1])
		os.Exit(2)
	}
	if problems > 0 {
		fmt.Printf("check %s: %d problem(s)\n", os.Args[1], problems)
		os.Exit(1)
	}
	fmt.Printf("check %s: ok\n", os.Args[1])
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	return n
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	return t
}

// seeds reads DIR/seeds.txt: origin i's URL is line i.
func seeds(dir string) []*url.URL {
	b, err := os.ReadFile(filepath.Join(dir, "seeds.txt"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var out []*url.URL
	for _, l := range strings.Fields(string(b)) {
		u, err := url.Parse(l)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		out = append(out, u)
	}
	return out
}

// checkOrigins reads the site's log: each origin was requested, only by the node whose User-Agent
// ends in node-K, K its partition.
func checkOrigins(dir string, nodes int) {
	f, err := os.Open(filepath.Join(dir, "site.log"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer f.Close()
	agents := map[string]map[string]int{}
	paths := map[string]int{} // ORIGIN+PATH → requests
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			continue
		}
		if agents[fs[0]] == nil {
			agents[fs[0]] = map[string]int{}
		}
		agents[fs[0]][fs[2]]++
		paths[fs[0]+fs[1]]++
		if strings.HasPrefix(fs[1], "/private/") {
			problem("%s%s, disallowed by its robots.txt, was requested by %s", fs[0], fs[1], fs[2])
		}
	}
	node := regexp.MustCompile(`node-(\d+)`)
	all := seeds(dir)
	for i, u := range all {
		for _, r := range requisites(all, i) {
			if paths[r.url.Scheme+"://"+r.url.Host+r.url.Path] == 0 {
				problem("%s, embedded by %s or its stylesheet, was never requested", r.url, u)
			}
		}
		o := u.Scheme + "://" + u.Host
		want := crawler.OriginPartition(u, nodes)
		if len(agents[o]) == 0 {
			problem("origin %d (%s, partition %d) was never requested", i, o, want)
		}
		for ua, n := range agents[o] {
			m := node.FindStringSubmatch(ua)
			if m == nil || atoi(m[1]) != want {
				problem("origin %d (%s) is partition %d's, but %s sent it %d request(s)", i, o, want, ua, n)
			}
		}
		fmt.Printf("origin %2d %s: partition %d, requests from %v\n", i, o, want, agents[o])
	}
}

// A requisite is a resource origin i's home page embeds, directly or through its stylesheet,
// from another origin (the site's comment says which).
type requisite struct {
	url      *url.URL
	embedder time.Duration // the period its embedder's release waits for: the page's, or the page's and the stylesheet's
	own      time.Duration // its own origin's
	marker   string        // what its body holds
}

// requisites are the resources origin i's home page embeds that robots.txt allows: the image of
// origin i+1, the stylesheet of origin i+2 and the background image that stylesheet embeds.
func requisites(seeds []*url.URL, i int) []requisite {
	n := len(seeds)
	page, next, second := period(i), period((i+1)%n), period((i+2)%n)
	return []requisite{
		{seeds[(i+1)%n].JoinPath("img", strconv.Itoa(i)+".png"), page, next, fmt.Sprintf("IMG-o%d-from%d<", (i+1)%n, i)},
		{seeds[(i+2)%n].JoinPath("css", strconv.Itoa(i)+".css"), page, second, fmt.Sprintf("CSS-o%d-from%d ", (i+2)%n, i)},
		{seeds[(i+2)%n].JoinPath("bg", strconv.Itoa(i)+".png"), max(page, second), second, fmt.Sprintf("BG-o%d-from%d<", (i+2)%n, i)},
	}
}

// disallowed are the resources origin i's home page embeds that robots.txt disallows.
func disallowed(seeds []*url.URL, i int) []*url.URL {
	n := len(seeds)
	return []*url.URL{
		seeds[(i+1)%n].JoinPath("private", strconv.Itoa(i)+".png"),
		seeds[(i+2)%n].JoinPath("private", "bg-"+strconv.Itoa(i)+".png"),
	}
}

// period is origin i's embargo.
func period(i int) time.Duration { return periods[i%len(periods)] }

// due tells whether a requisite is released at now, of a crawl that ended at end.
func (r requisite) due(now, end time.Time) bool { return !now.Before(end.Add(max(r.embedder, r.own))) }

// checkBucket checks the union of the nodes' latest generations at now.
func checkBucket(storeURL, dir string, nodes int, now, start, end time.Time) {
	ctx := context.Background()
	s := openS3(ctx, storeURL)
	released, embargoed := map[string]int{}, map[string]int{}
	for _, e := range publicSide(ctx, s, nodes).lines {
		if e.state == public.StateReleased {
			released[e.url]++
		} else {
			embargoed[e.url]++
		}
	}
	var secrets [][]byte // markers of the pages embargoed at now
	due, waiting := 0, 0
	for i, u := range seeds(dir) {
		p := periods[i%len(periods)]
		for j := -1; ; j++ {
			page := u.String()
			if j >= 0 {
				page = strings.TrimSuffix(u.String(), "/") + "/p/" + strconv.Itoa(j)
			}
			if released[page]+embargoed[page] == 0 {
				if j < 0 {
					problem("the seed %s is not in the bucket", page)
				}
				break
			}
			switch {
			case !now.Before(end.Add(p)):
				due++
				if released[page] != 1 {
					problem("%s is due at %s: released %d time(s), want exactly once", page, now.Format(time.RFC3339), released[page])
				}
			case now.Before(start.Add(p)):
				waiting++
				secrets = append(secrets, []byte(fmt.Sprintf("BODY-o%d-p%d<", i, j)))
				if released[page] != 0 || embargoed[page] == 0 {
					problem("%s is embargoed at %s: released %d, tombstones %d", page, now.Format(time.RFC3339), released[page], embargoed[page])
				}
			}
		}
	}
	all := seeds(dir)
	reqs, withheld := 0, 0
	for i := range all {
		// Withheld until what embeds it is public as well (docs/rules.md#d27): a resource of an
		// origin of the page's own node (in that crawl's scope: crawled as a page, with the page
		// as its provenance) as much as another node's (a requisite handed to that node); what a
		// stylesheet embeds, until the stylesheet is public.
		for _, r := range requisites(all, i) {
			u, p := r.url.String(), max(r.embedder, r.own)
			switch {
			case r.due(now, end):
				reqs++
				if released[u] != 1 {
					problem("%s is due at %s: released %d time(s), want exactly once", u, now.Format(time.RFC3339), released[u])
				}
			case now.Before(start.Add(p)) && r.embedder > 0: // read from an embargoed body: withheld, not even a tombstone
				withheld++
				secrets = append(secrets, []byte(r.marker))
				if released[u]+embargoed[u] != 0 {
					problem("%s is withheld at %s: released %d, tombstones %d, want its URL nowhere", u, now.Format(time.RFC3339), released[u], embargoed[u])
				}
			case now.Before(start.Add(p)):
				secrets = append(secrets, []byte(r.marker))
				if released[u] != 0 || embargoed[u] == 0 {
					problem("%s is embargoed at %s: released %d, tombstones %d", u, now.Format(time.RFC3339), released[u], embargoed[u])
				}
			}
		}
		for _, d := range disallowed(all, i) {
			if u := d.String(); released[u]+embargoed[u] != 0 {
				problem("%s, disallowed by its robots.txt, is in the bucket", u)
			}
		}
	}
	fmt.Printf("at %s: %d due captures each released once, %d embargoed as tombstones; %d requisites (images, stylesheets, their images) released once, %d withheld\n",
		now.Format(time.RFC3339), due, waiting, reqs, withheld)
	objs, err := s.List(ctx, "")
	if err != nil {
		problem("%v", err)
		return
	}
	var total int64
	for _, o := range objs {
		b := read(ctx, s, o.Name)
		total += int64(len(b))
		if strings.HasSuffix(o.Name, ".gz") {
			b = gunzip(o.Name, b)
		}
		for _, sec := range secrets {
			if bytes.Contains(b, sec) {
				problem("%s holds %s, the body of a page still embargoed", o.Name, sec)
			}
		}
	}
	fmt.Printf("searched %d objects (%d bytes) for %d embargoed bodies\n", len(objs), total, len(secrets))
}

// A bucketSide is the union of the nodes' latest generations in the bucket.
type bucketSide struct {
	manifests map[string]*publish.Manifest // by node
	lines     []entry                      // every line of their CDXJ files
}

// An entry is one line of a node's public CDXJ.
type entry struct {
	node, url, state, filename string
	offset, status             int64
}

// publicSide reads the CDXJ of every node's latest generation, as the lookup nodes see them.
func publicSide(ctx context.Context, s objectstore.Store, nodes int) bucketSide {
	committed, err := publish.Committed(ctx, s)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if len(committed) != nodes {
		problem("the bucket holds generations of %d node(s) (%v), want %d", len(committed), committed, nodes)
	}
	side := bucketSide{manifests: map[string]*publish.Manifest{}}
	for node, gens := range committed {
		m, err := publish.ReadManifest(ctx, s, node, gens[len(gens)-1])
		if err != nil {
			problem("%v", err)
			continue
		}
		side.manifests[node] = m
		for _, f := range m.Files {
			if !strings.HasSuffix(f.Path, public.CDXJExt) {
				continue
			}
			for _, line := range bytes.Split(read(ctx, s, publish.NodePrefix(node)+f.Object), []byte("\n")) {
				if len(line) == 0 {
					continue
				}
				r, err := public.Parse(line)
				if err != nil {
					problem("node %s %s: %v", node, f.Path, err)
					continue
				}
				side.lines = append(side.lines, entry{node: node, url: string(r.Block.URL), state: string(r.Block.State),
					filename: string(r.Block.Filename), offset: r.Block.Offset, status: r.Block.Status})
			}
		}
	}
	return side
}

func read(ctx context.Context, s objectstore.Store, name string) []byte {
	r, err := s.Read(ctx, name, 0, -1)
	if err != nil {
		problem("%v", err)
		return nil
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		problem("read %s: %v", name, err)
	}
	return b
}

// gunzip decompresses every member of a gzip file.
func gunzip(name string, b []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		problem("%s: %v", name, err)
		return b
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		problem("%s: %v", name, err)
	}
	return out
}

// mkbucket creates a bucket with the environment's credentials, retrying while the store's
// process pid starts; it gives up as soon as that process has ended.
func mkbucket(bucket string, pid int) {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRetryMaxAttempts(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	deadline := time.Now().Add(90 * time.Second)
	for {
		_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket})
		var owned *types.BucketAlreadyOwnedByYou
		if err == nil || errors.As(err, &owned) {
			// The store takes seconds to allocate its first volume: until an object is stored,
			// the nodes' first uploads (their hand-offs among them) would wait that long.
			if err = probe(ctx, c, bucket); err == nil {
				return
			}
		}
		if time.Now().After(deadline) || ended(pid) {
			fmt.Fprintf(os.Stderr, "check mkbucket: %v\n", err)
			os.Exit(1)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// probe stores an object in bucket and deletes it.
func probe(ctx context.Context, c *s3.Client, bucket string) error {
	key := "probe/mkbucket"
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: strings.NewReader("probe")}); err != nil {
		return err
	}
	_, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: &key})
	return err
}

// ended tells whether process pid is gone or a zombie.
func ended(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}
