// Command check verifies what test/scaleout/run.sh promises, from the site's own request log
// and from the bucket itself (read with the AWS environment's credentials):
//
//	check mkbucket BUCKET PID               create the bucket, waiting (90 s at most) for the store, process PID, to be up
//	                                        and to store an object
//	check origins DIR NODES                 every origin was requested, by exactly one node: its partition's;
//	                                        every image a home page embeds from the next origin requested
//	                                        (by that origin's node, handed to it when it is another's), no
//	                                        /private/ URL (disallowed by robots.txt) ever
//	check bucket STORE DIR NODES NOW START END
//	                                        at NOW (RFC 3339), of a crawl made between START and END: every
//	                                        due page released exactly once in the union of the nodes' latest
//	                                        generations, every other one a tombstone and not one byte of its
//	                                        body anywhere in the bucket; every image a home page embeds from
//	                                        the next origin (its own node's or another's) released exactly
//	                                        once when both its own and its page's embargo are over, and
//	                                        until then not even named (withheld, no tombstone)
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
		if img := image(all, i); paths[img.Scheme+"://"+img.Host+img.Path] == 0 {
			problem("%s, embedded by %s, was never requested", img, u)
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

// image is the URL of the image origin i's home page embeds from origin i+1.
func image(seeds []*url.URL, i int) *url.URL {
	return seeds[(i+1)%len(seeds)].JoinPath("img", strconv.Itoa(i)+".png")
}

// checkBucket checks the union of the nodes' latest generations at now.
func checkBucket(storeURL, dir string, nodes int, now, start, end time.Time) {
	ctx := context.Background()
	s := openS3(ctx, storeURL)
	committed, err := publish.Committed(ctx, s)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if len(committed) != nodes {
		problem("the bucket holds generations of %d node(s) (%v), want %d", len(committed), committed, nodes)
	}
	released, embargoed := map[string]int{}, map[string]int{}
	for node, gens := range committed {
		m, err := publish.ReadManifest(ctx, s, node, gens[len(gens)-1])
		if err != nil {
			problem("%v", err)
			continue
		}
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
				if string(r.Block.State) == public.StateReleased {
					released[string(r.Block.URL)]++
				} else {
					embargoed[string(r.Block.URL)]++
				}
			}
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
	images, withheld := 0, 0
	for i := range all {
		img := image(all, i).String()
		page, own := periods[i%len(periods)], periods[(i+1)%len(all)%len(periods)]
		// Withheld until its page is public as well (docs/rules.md#d27): an image of an origin of
		// the page's own node (in that crawl's scope: crawled as a page, with the page as its
		// provenance) as much as another node's (a requisite handed to that node).
		switch p := max(page, own); {
		case !now.Before(end.Add(p)):
			images++
			if released[img] != 1 {
				problem("%s is due at %s: released %d time(s), want exactly once", img, now.Format(time.RFC3339), released[img])
			}
		case now.Before(start.Add(p)) && page > 0: // read from an embargoed body: withheld, not even a tombstone
			withheld++
			if released[img]+embargoed[img] != 0 {
				problem("%s is withheld at %s: released %d, tombstones %d, want its URL nowhere", img, now.Format(time.RFC3339), released[img], embargoed[img])
			}
		case now.Before(start.Add(p)):
			if released[img] != 0 || embargoed[img] == 0 {
				problem("%s is embargoed at %s: released %d, tombstones %d", img, now.Format(time.RFC3339), released[img], embargoed[img])
			}
		}
	}
	fmt.Printf("at %s: %d due captures each released once, %d embargoed as tombstones; %d images released once, %d withheld\n",
		now.Format(time.RFC3339), due, waiting, images, withheld)
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
