package export

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/archivectl/archivectl/public"
)

// segment is part of a WARC file in the package: a byte range of a public file, or bytes of its own.
type segment struct {
	loc  public.Location
	data []byte
}

// warcFile is one file of the package's archive/ directory.
type warcFile struct {
	name string // its name in archive/
	segs []segment
	size int64
}

// packing is what goes into a package and how: its captures (in shard order, then file order),
// whether a shard is packed whole when it gives n of them (nil: never), the description of the
// warcinfo record of a file that holds some of a shard's records, and which HTML pages
// pages.jsonl lists (nil: every one).
type packing struct {
	caps     []Capture
	whole    func(shard string, n int) bool
	describe func(shard string, n int) string
	page     func(*Capture) bool
}

// plan is what a WACZ package holds, before any WARC byte is copied.
type plan struct {
	warcs []warcFile
	index []byte // indexes/index.cdxj
	pages []byte // pages/pages.jsonl
	nPage int
}

// selectedSuffix ends the name of a WARC file that holds some of a shard's records.
const selectedSuffix = "-selected"

// makePlan lays out a package: a shard pk packs whole (all of whose released captures an export
// keeps) goes in under its own name; a shard some of whose captures are kept gives a new WARC file,
// NAME-selected.warc.gz, of a warcinfo record and those captures' members copied byte for byte.
// The index has one standard CDXJ line per capture (its response or revisit record, with the
// record's own payload digest), and pages one entry per HTML page pk lists, titled from its payload.
func makePlan(ctx context.Context, fsys fs.FS, pk *packing, created time.Time, software string) (*plan, error) {
	fl := newFiles(fsys)
	defer fl.close()
	p := &plan{}
	var lines [][]byte
	for start := 0; start < len(pk.caps); {
		shard := pk.caps[start].Shard
		end := start
		for end < len(pk.caps) && pk.caps[end].Shard == shard {
			end++
		}
		caps := pk.caps[start:end]
		start = end
		base := path.Base(shard)
		wf := warcFile{name: base}
		offsets := make([]int64, len(caps))
		if pk.whole != nil && pk.whole(shard, len(caps)) {
			st, err := fs.Stat(fsys, shard)
			if err != nil {
				return nil, fmt.Errorf("read public/%s: %w", shard, err)
			}
			wf.size = st.Size()
			wf.segs = []segment{{loc: public.Location{File: shard, Offset: 0, Length: wf.size}}}
			for i := range caps {
				offsets[i] = caps[i].Response.Offset
			}
		} else {
			wf.name = strings.TrimSuffix(base, public.WARCExt) + selectedSuffix + public.WARCExt
			info, err := warcinfoMember(wf.name, created, software, pk.describe(shard, len(caps)))
			if err != nil {
				return nil, err
			}
			wf.segs, wf.size = []segment{{data: info}}, int64(len(info))
			for i := range caps {
				for _, m := range caps[i].Members {
					if m == caps[i].Response {
						offsets[i] = wf.size
					}
					wf.segs = append(wf.segs, segment{loc: m})
					wf.size += m.Length
				}
			}
		}
		for i := range caps {
			line, err := stdLine(&caps[i], caps[i].Digest, wf.name, offsets[i])
			if err != nil {
				return nil, err
			}
			lines = append(lines, line)
		}
		p.warcs = append(p.warcs, wf)
	}
	for _, l := range sortLines(lines) {
		p.index = append(p.index, l...)
	}
	pages, err := pageList(ctx, fl, pk.caps, pk.page)
	if err != nil {
		return nil, err
	}
	p.nPage = len(pages)
	if p.pages, err = pagesJSONL(pages); err != nil {
		return nil, err
	}
	return p, nil
}

// pageList is the pages of captures (those isPage and, when given, isListed says are), in capture
// order, each titled from its payload (a revisit from its original's). Every page's record is read
// and checked, listed or not.
func pageList(ctx context.Context, fl *files, caps []Capture, isListed func(*Capture) bool) ([]page, error) {
	listed := func(c *Capture) bool { return isPage(c) && (isListed == nil || isListed(c)) }
	titles := map[string]string{} // capture id → title
	for _, revisits := range []bool{false, true} {
		for i := range caps {
			c := &caps[i]
			if !isPage(c) || c.Revisit != revisits { // every page is read, so that a listed revisit has its original's title
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			rec, err := fl.readRecord(c.Response, true)
			if err != nil {
				return nil, err
			}
			if err := checkRecord(c, rec); err != nil {
				return nil, err
			}
			if c.Revisit {
				titles[c.ID] = titles[c.RefersTo]
			} else {
				titles[c.ID] = pageTitle(rec.head, rec.start)
			}
		}
	}
	var pages []page
	for i := range caps {
		if c := &caps[i]; listed(c) {
			pages = append(pages, newPage(c, titles[c.ID]))
		}
	}
	return pages, nil
}

// copyTo writes the file's bytes to w.
func (wf *warcFile) copyTo(ctx context.Context, w io.Writer, fl *files) error {
	for _, s := range wf.segs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := s.copyTo(w, fl); err != nil {
			return err
		}
	}
	return nil
}
