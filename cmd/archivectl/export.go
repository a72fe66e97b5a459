package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"

	"github.com/archivectl/archivectl/export"
	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/internal/layout"
)

// exportArgs are the parsed flags of archivectl export.
type exportArgs struct {
	wacz, cdx string
	filter    export.Filter
}

// runExport writes the released captures as a WACZ package (--wacz) and/or a standard CDXJ index
// (--cdx), reading public/ only, optionally filtered by URL prefix, capture time and usage preferences.
func runExport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var a exportArgs
	var from, to string
	var exclude, require []string
	cfg, pos, code, ok := cli{
		name: "export",
		usage: "usage: archivectl export [--wacz FILE] [--cdx FILE|-] [--url-prefix URL] [--from T] [--to T]\n" +
			"         [--exclude-usage CATEGORY=y|n]... [--require-usage CATEGORY=y|n]... [--data DIR] [--config FILE]\n" +
			"Exports the released captures of public/: a WACZ package for ReplayWeb.page, a standard CDXJ index for pywb and OutbackCDX.\n",
		config: true,
		flags: func(fs *flagSet, c *Config) {
			fs.StringVar(&a.wacz, "wacz", "", "write a WACZ 1.1.1 package of the selected captures to this file")
			fs.StringVar(&a.cdx, "cdx", "", "write the standard CDXJ index of the selected captures to this file (- for standard output)")
			fs.StringVar(&a.filter.URLPrefix, "url-prefix", "", "only captures at or under this URL (as the lookup's matchType=prefix)")
			fs.StringVar(&from, "from", "", "only captures made at or after this time (RFC 3339, or a date YYYY-MM-DD)")
			fs.StringVar(&to, "to", "", "only captures made before this time (RFC 3339, or a date YYYY-MM-DD)")
			fs.Var(&listFlag{p: &exclude}, "exclude-usage", "leave out captures whose combined Content-Usage preference is this, e.g. train-ai=n (repeatable)")
			fs.Var(&listFlag{p: &require}, "require-usage", "keep only captures whose combined Content-Usage preference is this, e.g. train-ai=y (repeatable)")
		},
	}.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if err := a.check(pos, from, to, exclude, require); err != nil {
		fmt.Fprintf(stderr, "archivectl export: %v\n", err)
		return 2
	}
	pub := layout.Public(cfg.Data)
	if st, err := os.Stat(pub); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "archivectl export: %s has no %s/ yet; run archivectl release first, or pass --data\n", cfg.Data, layout.PublicDir)
		return 1
	}
	report := stdout
	if a.cdx == "-" {
		report = stderr
	}
	if err := a.run(ctx, os.DirFS(pub), stdout, report); err != nil {
		fmt.Fprintf(stderr, "archivectl export: %v\n", err)
		return 1
	}
	return 0
}

// check validates the flags and fills in the filter; its error is one line, for exit status 2.
func (a *exportArgs) check(pos []string, from, to string, exclude, require []string) error {
	switch {
	case len(pos) != 0:
		return fmt.Errorf("unexpected argument %q; see archivectl export -h", pos[0])
	case a.wacz == "" && a.cdx == "":
		return errors.New("say what to write: --wacz FILE and/or --cdx FILE (- for standard output)")
	case a.wacz == "-":
		return errors.New("--wacz needs a file name: a WACZ is a zip file, not a stream")
	case a.wacz != "" && a.cdx != "" && filepath.Clean(a.wacz) == filepath.Clean(a.cdx):
		return errors.New("--wacz and --cdx name the same file")
	}
	for _, b := range []struct {
		name, value string
		t           *time.Time
	}{{"--from", from, &a.filter.From}, {"--to", to, &a.filter.To}} {
		if b.value == "" {
			continue
		}
		t, err := export.ParseTime(b.value)
		if err != nil {
			return fmt.Errorf("%s %q: %v", b.name, b.value, err)
		}
		*b.t = t
	}
	for _, l := range []struct {
		name  string
		raw   []string
		rules *[]export.UsageRule
	}{{"--exclude-usage", exclude, &a.filter.Exclude}, {"--require-usage", require, &a.filter.Require}} {
		for _, s := range l.raw {
			r, err := export.ParseUsageRule(s)
			if err != nil {
				return fmt.Errorf("%s: %v", l.name, err)
			}
			if !slices.Contains(*l.rules, r) {
				*l.rules = append(*l.rules, r)
			}
		}
	}
	if !a.filter.From.IsZero() && !a.filter.To.IsZero() && !a.filter.From.Before(a.filter.To) {
		return fmt.Errorf("--from %s is not before --to %s: no capture could match", from, to)
	}
	if err := a.filter.Check(); err != nil {
		return fmt.Errorf("--url-prefix %q: %v", a.filter.URLPrefix, err)
	}
	return nil
}

// run selects the captures and writes what was asked, reporting to report.
func (a *exportArgs) run(ctx context.Context, public iofs.FS, stdout, report io.Writer) error {
	sel, err := export.Select(ctx, public, a.filter)
	if err != nil {
		return err
	}
	c := sel.Counts()
	fmt.Fprintf(report, "selected %d of %d released captures (%s)\n", c.Kept, c.Released, sel.Filter.String())
	for _, r := range sel.Filter.Reasons() {
		if n := c.ByReason[r]; n > 0 {
			fmt.Fprintf(report, "  left out, %s: %d\n", r, n)
		}
	}
	if a.wacz != "" {
		var s export.WACZSummary
		err := durable.WriteAtomically(a.wacz, 0o644, func(w io.Writer) error {
			var err error
			s, err = export.WriteWACZ(ctx, w, public, sel, export.WACZOptions{Created: time.Now().UTC().Truncate(time.Second), Software: softwareName()})
			return err
		})
		if err != nil {
			return fmt.Errorf("--wacz %s: %w", a.wacz, err)
		}
		fmt.Fprintf(report, "wrote %s: %d WARC files, %d pages, %d bytes\n", a.wacz, s.WARCFiles, s.Pages, s.Bytes)
	}
	if a.cdx != "" {
		var n int
		write := func(w io.Writer) error {
			var err error
			n, err = export.WriteCDX(ctx, w, public, sel)
			return err
		}
		if a.cdx == "-" {
			err = write(stdout)
		} else {
			err = durable.WriteAtomically(a.cdx, 0o644, write)
		}
		if err != nil {
			return fmt.Errorf("--cdx %s: %w", a.cdx, err)
		}
		fmt.Fprintf(report, "wrote %s: %d index lines\n", a.cdx, n)
	}
	return nil
}

// softwareName names this build for the package's metadata, e.g. "archivectl v1.2.0".
func softwareName() string {
	info, _ := debug.ReadBuildInfo()
	return versionLine(info)
}
