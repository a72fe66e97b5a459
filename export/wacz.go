package export

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"strings"
	"sync"
	"time"
)

// WACZVersion is the version of the WACZ specification the package follows.
const WACZVersion = "1.1.1"

// WACZOptions describes a package.
type WACZOptions struct {
	Created  time.Time // the package's creation time (datapackage.json "created", the zip entries' times)
	Software string    // what made it, e.g. "archivectl v1.2.0"
}

// WACZSummary is what WriteWACZ wrote.
type WACZSummary struct {
	Counts
	WARCFiles int   // files in archive/
	Pages     int   // entries of pages/pages.jsonl
	Bytes     int64 // size of the package
}

// dataPackage is datapackage.json: the Frictionless data package of WACZ, with the export's
// filter and counts under "archivectl".
type dataPackage struct {
	Profile     string     `json:"profile"`
	WACZVersion string     `json:"wacz_version"`
	Title       string     `json:"title"`
	Description string     `json:"description"`
	Created     string     `json:"created"`
	Software    string     `json:"software"`
	Resources   []resource `json:"resources"`
	Export      exportInfo `json:"archivectl"`
}

// resource is one file of the package, as datapackage.json lists it.
type resource struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Hash  string `json:"hash"` // "sha256:<hex>"
	Bytes int64  `json:"bytes"`
}

// exportInfo is what the export honoured: its filter, and the captures kept and left out.
type exportInfo struct {
	Filter *filterInfo `json:"filter,omitempty"`
	Counts *Counts     `json:"counts,omitempty"`
	Page   *pageInfo   `json:"page,omitempty"` // a package of one page (PageWACZ)
}

// filterInfo is a Filter as datapackage.json records it.
type filterInfo struct {
	URLPrefix    string   `json:"url_prefix,omitempty"`
	From         string   `json:"from,omitempty"` // capture time at or after
	To           string   `json:"to,omitempty"`   // capture time before
	ExcludeUsage []string `json:"exclude_usage"`
	RequireUsage []string `json:"require_usage"`
}

func newFilterInfo(f *Filter) filterInfo {
	fi := filterInfo{URLPrefix: f.URLPrefix, ExcludeUsage: []string{}, RequireUsage: []string{}}
	if !f.From.IsZero() {
		fi.From = f.From.UTC().Format(time.RFC3339Nano)
	}
	if !f.To.IsZero() {
		fi.To = f.To.UTC().Format(time.RFC3339Nano)
	}
	for _, r := range f.Exclude {
		fi.ExcludeUsage = append(fi.ExcludeUsage, r.String())
	}
	for _, r := range f.Require {
		fi.RequireUsage = append(fi.RequireUsage, r.String())
	}
	return fi
}

// WriteWACZ writes a WACZ package of the selection's captures to w, reading only the public
// directory fsys: archive/ (the WARC files of makePlan, stored without compression),
// indexes/index.cdxj, pages/pages.jsonl, datapackage.json (every other file with its SHA-256 and
// size) and datapackage-digest.json. Every zip entry carries its CRC and sizes in its local
// header (no data descriptors), so that a reader can take any entry by its range alone.
func WriteWACZ(ctx context.Context, w io.Writer, fsys fs.FS, sel *Selection, opt WACZOptions) (WACZSummary, error) {
	sum := WACZSummary{Counts: sel.Counts()}
	if len(sel.Kept) == 0 {
		return sum, fmt.Errorf("nothing to export: none of the %d released captures is selected (%s)", sel.Released, sel.Filter.String())
	}
	pk := &packing{caps: sel.Kept,
		whole: func(shard string, n int) bool { return n == sel.perShard[shard] },
		describe: func(shard string, n int) string {
			return fmt.Sprintf("records of %d of the %d captures released in public/%s (%s), each gzip member byte for byte as released",
				n, sel.perShard[shard], shard, sel.Filter.String())
		}}
	counts := sel.Counts()
	p, err := pack(ctx, fsys, pk, opt, dataPackage{
		Title:       "Released captures of an archivectl archive",
		Description: "Captures this archive has made public after their embargo, exported from its public side (" + sel.Filter.String() + ").",
		Export:      exportInfo{Filter: new(newFilterInfo(&sel.Filter)), Counts: &counts},
	})
	if err != nil {
		return sum, err
	}
	if _, err := p.WriteTo(ctx, w); err != nil {
		return sum, fmt.Errorf("wacz: %w", err)
	}
	return p.sum, nil
}

// pack lays out the package of what pk packs, its datapackage.json dp with the resources
// filled in: each archive/ file is read once here, for its SHA-256 and CRC-32, and not kept.
func pack(ctx context.Context, fsys fs.FS, pk *packing, opt WACZOptions, dp dataPackage) (*Package, error) {
	created := opt.Created.UTC()
	p, err := makePlan(ctx, fsys, pk, created, opt.Software)
	if err != nil {
		return nil, err
	}
	fl := newFiles(fsys)
	defer fl.close()
	rec := &recorder{}
	zw := zip.NewWriter(rec)
	pkg := &Package{fsys: fsys}
	var res []resource
	for i := range p.warcs {
		wf := &p.warcs[i]
		h, crc := sha256.New(), crc32.NewIEEE()
		if err := wf.copyTo(ctx, io.MultiWriter(h, crc), fl); err != nil {
			return nil, err
		}
		name := "archive/" + wf.name
		ew, err := zw.CreateRaw(header(name, zip.Store, created, crc.Sum32(), wf.size, wf.size))
		if err != nil {
			return nil, fmt.Errorf("wacz: %w", err)
		}
		if err := zw.Flush(); err != nil { // the header is recorded before the data is spliced in
			return nil, fmt.Errorf("wacz: %w", err)
		}
		first, end, n := rec.splice(wf.segs)
		if _, err := io.CopyN(ew, zeros{}, n); err != nil {
			return nil, fmt.Errorf("wacz: %s: %w", name, err)
		}
		pkg.stored = append(pkg.stored, storedEntry{name: name, first: first, end: end, crc: crc.Sum32()})
		res = append(res, resource{Name: strings.ToLower(wf.name), Path: name, Hash: "sha256:" + hex.EncodeToString(h.Sum(nil)), Bytes: wf.size})
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{"indexes/index.cdxj", p.index}, {"pages/pages.jsonl", p.pages}} {
		if err := addDeflated(zw, f.path, f.data, created); err != nil {
			return nil, err
		}
		res = append(res, newResource(f.path, f.data))
	}
	dp.Profile, dp.WACZVersion, dp.Created, dp.Software, dp.Resources = "data-package", WACZVersion, created.Format(time.RFC3339), opt.Software, res
	dpb, err := json.MarshalIndent(dp, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("wacz: datapackage.json: %w", err)
	}
	dpb = append(dpb, '\n')
	digest, err := json.Marshal(struct {
		Path string `json:"path"`
		Hash string `json:"hash"`
	}{"datapackage.json", newResource("datapackage.json", dpb).Hash})
	if err != nil {
		return nil, fmt.Errorf("wacz: datapackage-digest.json: %w", err)
	}
	if err := addDeflated(zw, "datapackage.json", dpb, created); err != nil {
		return nil, err
	}
	if err := addDeflated(zw, "datapackage-digest.json", append(digest, '\n'), created); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("wacz: %w", err)
	}
	pkg.segs, pkg.starts, pkg.size = rec.segs, rec.starts, rec.size
	pkg.sum = WACZSummary{WARCFiles: len(p.warcs), Pages: p.nPage, Bytes: rec.size}
	if dp.Export.Counts != nil {
		pkg.sum.Counts = *dp.Export.Counts
	}
	return pkg, nil
}

// newResource is the datapackage.json entry of a file of the package.
func newResource(path string, data []byte) resource {
	h := sha256.Sum256(data)
	name := path[strings.LastIndexByte(path, '/')+1:]
	return resource{Name: strings.ToLower(name), Path: path, Hash: "sha256:" + hex.EncodeToString(h[:]), Bytes: int64(len(data))}
}

// deflaters keeps flate writers at BestCompression for addDeflated.
var deflaters = sync.Pool{New: func() any {
	fw, err := flate.NewWriter(nil, flate.BestCompression)
	if err != nil {
		panic(err) // only for a level out of range
	}
	return fw
}}

// addDeflated adds a small file to the zip, compressed, with its CRC and sizes in its local header.
func addDeflated(zw *zip.Writer, name string, data []byte, created time.Time) error {
	var buf bytes.Buffer
	fw := deflaters.Get().(*flate.Writer) // a writer is about 1 MiB: a page's package makes four
	defer deflaters.Put(fw)
	fw.Reset(&buf)
	if _, err := fw.Write(data); err != nil {
		return fmt.Errorf("wacz: %s: %w", name, err)
	}
	if err := fw.Close(); err != nil {
		return fmt.Errorf("wacz: %s: %w", name, err)
	}
	ew, err := zw.CreateRaw(header(name, zip.Deflate, created, crc32.ChecksumIEEE(data), int64(buf.Len()), int64(len(data))))
	if err == nil {
		_, err = ew.Write(buf.Bytes())
	}
	if err != nil {
		return fmt.Errorf("wacz: %s: %w", name, err)
	}
	return nil
}

// header is the zip header of an entry written raw, its CRC and sizes known in advance.
func header(name string, method uint16, modified time.Time, crc uint32, compressed, size int64) *zip.FileHeader {
	fh := &zip.FileHeader{Name: name, Method: method, CRC32: crc,
		CompressedSize64: uint64(compressed), UncompressedSize64: uint64(size),
		CreatorVersion: 20, ReaderVersion: 20, Modified: modified}
	fh.ModifiedDate, fh.ModifiedTime = msDosTime(modified)
	return fh
}

// msDosTime is t in the MS-DOS date and time fields of a zip header (two-second precision, from 1980).
func msDosTime(t time.Time) (date, tm uint16) {
	if t.Year() < 1980 {
		return 1<<5 | 1, 0 // 1980-01-01 00:00
	}
	date = uint16(t.Day() + int(t.Month())<<5 + (t.Year()-1980)<<9)
	tm = uint16(t.Second()/2 + t.Minute()<<5 + t.Hour()<<11)
	return date, tm
}
