package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/archivectl/archivectl/cmd/archivectl/demoweb"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/release"
)

// demoMarker marks a directory as made by archivectl demo, so a rerun may empty it and nothing else.
const demoMarker = ".archivectl-demo"

// The demo's own defaults: a data directory of its own, and a short delay (the origins are local).
const (
	demoData  = "./demo-data"
	demoDelay = 100 * time.Millisecond
)

// demoPasses are the days after the crawl at which the demo runs release passes.
var demoPasses = []int{0, 8, 32, 91}

// runDemo crawls the embedded demo web, releases it over 91 days and serves the lookup page.
func runDemo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var noServe bool
	cfg, pos, code, ok := cli{
		name: "demo",
		usage: "usage: archivectl demo [--no-serve] [--listen ADDR] [--delay DUR] [--data DIR] [--config FILE]\n" +
			"Crawls an embedded demo web, releases it over 91 days and serves the result. --data is\n" +
			"emptied first when an earlier demo made it; any other non-empty directory is refused.\n",
		config: true,
		adjust: func(c *Config) {
			c.Data = demoData
			c.Operator = "archivectl demo"
			c.Crawl.Delay = demoDelay
			c.Crawl.Retries = 0
		},
		flags: func(fs *flagSet, c *Config) {
			fs.BoolVar(&noServe, "no-serve", false, "stop after the release passes instead of serving the lookup page")
			fs.stringKey(&c.Serve.Listen, "listen", "serve.listen", "address of the lookup page")
			fs.durationKey(&c.Crawl.Delay, "delay", "crawl.delay", "minimum delay between requests to one demo origin")
		},
	}.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintln(stderr, "archivectl demo: takes no arguments; see archivectl demo -h")
		return 2
	}
	var ln net.Listener
	if !noServe { // a busy address fails now, not after the whole demo
		var err error
		if ln, err = listen(cfg.Serve.Listen); err != nil {
			fmt.Fprintf(stderr, "archivectl demo: %v (or --no-serve)\n", err)
			return 1
		}
		defer ln.Close()
	}
	if err := freshDemoDir(cfg.Data); err != nil {
		fmt.Fprintf(stderr, "archivectl demo: %v\n", err)
		return 1
	}
	d := &demo{cfg: cfg, out: stdout, log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if err := d.run(ctx); err != nil {
		fmt.Fprintf(stderr, "archivectl demo: %v\n", err)
		return 1
	}
	if noServe {
		return 0
	}
	if err := d.serve(ctx, ln); err != nil {
		fmt.Fprintf(stderr, "archivectl demo: %v\n", err)
		return 1
	}
	return 0
}

// demo is one run of the demonstration.
type demo struct {
	cfg    Config
	out    io.Writer
	log    *slog.Logger
	names  map[string]string // origin URL → demo origin name
	last   time.Time         // the time of the last release pass
	view   string            // the public side the page shows (keepView)
	viewAt time.Time         // the time of the pass that left it
}

// freshDemoDir empties dir if an earlier demo made it, and refuses any other non-empty directory.
func freshDemoDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case len(entries) == 0:
	default:
		if _, err := os.Stat(filepath.Join(dir, demoMarker)); err != nil {
			return fmt.Errorf("%s exists and was not made by archivectl demo: choose another --data", dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("cannot empty the previous demo: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, demoMarker), []byte("made by archivectl demo; removed by the next run\n"), 0o644)
}

// run starts the demo web, crawls it, and runs the release passes, printing each step.
func (d *demo) run(ctx context.Context) error {
	site, err := demoweb.Start()
	if err != nil {
		return fmt.Errorf("cannot start the demo web: %w", err)
	}
	defer site.Close()
	d.names = map[string]string{}
	fmt.Fprintln(d.out, "== The demo web: one loopback origin per robots.txt policy")
	tw := tabwriter.NewWriter(d.out, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  ORIGIN\tURL\tPOLICY")
	for _, o := range site.Origins {
		d.names[o.URL] = o.Name
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", o.Name, o.URL, o.Policy)
	}
	tw.Flush()

	var seeds []*url.URL
	for _, s := range site.Seeds() {
		u, err := url.Parse(s)
		if err != nil {
			return err
		}
		seeds = append(seeds, u)
	}
	cc := crawlerConfig(d.cfg)
	cc.Seeds = seeds
	cc.Log = slog.New(slog.DiscardHandler)
	fmt.Fprintf(d.out, "\n== Crawl: %d seeds, at most one request at a time per origin, %s apart\n", len(seeds), cc.Delay)
	sum, _, err := crawlStore(ctx, cc, storeOptions(d.cfg))
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	sum.WriteTo(d.out)
	fmt.Fprintf(d.out, "  (the demo web answered %d requests; robots.txt first on every origin)\n", len(site.Requests()))

	rel := release.New(d.cfg.Data, release.Options{Logger: d.log})
	start := time.Now().UTC().Truncate(time.Second).Add(time.Second) // after every capture
	seen := map[string]bool{}
	for i, days := range demoPasses {
		at := start.Add(time.Duration(days) * 24 * time.Hour)
		s, err := rel.Pass(ctx, at)
		if err != nil {
			return fmt.Errorf("release pass at %s: %w", at.Format(time.RFC3339), err)
		}
		d.last = at
		fmt.Fprintf(d.out, "\n== Release pass %d at now + %d days (%s): %d released, %d new tombstones",
			i+1, days, at.Format("2006-01-02 15:04"), s.Released, s.Tombstoned)
		if !s.Next.IsZero() {
			fmt.Fprintf(d.out, "; next release %s", s.Next.Format("2006-01-02 15:04"))
		}
		fmt.Fprintln(d.out)
		if err := d.table(seen); err != nil {
			return err
		}
		if err := d.keepView(days, at); err != nil {
			return err
		}
	}
	problems, err := release.Verify(ctx, d.cfg.Data)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("verify found %d problems, the first: %s", len(problems), problems[0])
	}
	fmt.Fprintf(d.out, "\n== verify: every public record is byte-identical to its sealed source; no tombstone holds a body\n")
	return nil
}

// table prints what the public side holds now: captures that became public in this pass, and the
// tombstones still standing with their release times. seen holds the ids already public.
func (d *demo) table(seen map[string]bool) error {
	lines, err := publicLines(layout.Public(d.cfg.Data))
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(d.out, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  \tORIGIN\tPATH\tRELEASE AT\tSTATUS\tUSAGE")
	rows := 0
	for _, l := range lines {
		if strings.HasSuffix(l.URL, "/robots.txt") || (l.State == public.StateReleased && seen[l.ID]) {
			continue
		}
		what := "tombstone"
		if l.State == public.StateReleased {
			what, seen[l.ID] = "public", true
		}
		origin, path := d.split(l.URL)
		usage := strings.Join(l.Usage, ", ")
		if usage == "" {
			usage = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%s\n", what, origin, path, releaseDay(l.ReleaseAt), l.Status, usage)
		rows++
	}
	if rows == 0 {
		fmt.Fprintln(d.out, "  nothing new became public, and no tombstone is left")
		return nil
	}
	return tw.Flush()
}

// split names a captured URL by its demo origin and its path.
func (d *demo) split(raw string) (origin, path string) {
	u, err := url.Parse(raw)
	if err != nil {
		return "?", raw
	}
	origin = d.names[u.Scheme+"://"+u.Host]
	if origin == "" {
		origin = u.Host
	}
	return origin, u.RequestURI()
}

// releaseDay shortens an RFC 3339 release time for the table.
func releaseDay(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return t.Format("2006-01-02 15:04")
}

// publicLines is every capture the public directory dir shows, once (public.Captures), ordered
// by state (public first), then release time and URL.
func publicLines(dir string) ([]public.Line, error) {
	lines, err := public.Captures(os.DirFS(dir))
	if err != nil {
		return nil, err
	}
	slices.SortFunc(lines, func(a, b public.Line) int {
		if ar, br := a.State == public.StateReleased, b.State == public.StateReleased; ar != br {
			if ar {
				return -1 // released before tombstones
			}
			return 1
		}
		if a.ReleaseAt != b.ReleaseAt {
			return strings.Compare(a.ReleaseAt, b.ReleaseAt)
		}
		return strings.Compare(a.URL, b.URL)
	})
	return lines, nil
}

// serve runs the lookup page until ctx ends over the public side that keepView kept, its
// clock at the pass that left it.
func (d *demo) serve(ctx context.Context, ln net.Listener) error {
	at := d.viewAt
	return serve(ctx, serveOptions{
		data:     d.cfg.Data,
		public:   d.view,
		listener: ln,
		logger:   d.log,
		now:      func() time.Time { return at },
		ready:    d.printView,
	})
}
