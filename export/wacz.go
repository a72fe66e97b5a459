package export

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"strings"
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
	Filter filterInfo `json:"filter"`
	Counts Counts     `json:"counts"`
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
	created := opt.Created.UTC()
	p, err := makePlan(ctx, fsys, sel, created, opt.Software)
	if err != nil {
		return sum, err
	}
	fl := newFiles(fsys)
	defer fl.close()
	cw := &countingWriter{w: w}
	zw := zip.NewWriter(cw)
	var res []resource
	for i := range p.warcs {
		wf := &p.warcs[i]
		h, crc := sha256.New(), crc32.NewIEEE()
		if err := wf.copyTo(ctx, io.MultiWriter(h, crc), fl); err != nil {
			return sum, err
		}
		name := "archive/" + wf.name
		ew, err := zw.CreateRaw(header(name, zip.Store, created, crc.Sum32(), wf.size, wf.size))
		if err != nil {
			return sum, fmt.Errorf("wacz: %w", err)
		}
		again := crc32.NewIEEE()
		if err := wf.copyTo(ctx, io.MultiWriter(ew, again), fl); err != nil {
			return sum, fmt.Errorf("wacz: %s: %w", name, err)
		}
		if again.Sum32() != crc.Sum32() {
			return sum, fmt.Errorf("wacz: %s changed while it was being packed", name)
		}
		res = append(res, resource{Name: strings.ToLower(wf.name), Path: name, Hash: "sha256:" + hex.EncodeToString(h.Sum(nil)), Bytes: wf.size})
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{"indexes/index.cdxj", p.index}, {"pages/pages.jsonl", p.pages}} {
		if err := addDeflated(zw, f.path, f.data, created); err != nil {
			return sum, err
		}
		res = append(res, newResource(f.path, f.data))
	}
	dp, err := json.MarshalIndent(dataPackage{
		Profile: "data-package", WACZVersion: WACZVersion,
		Title:       "Released captures of an archivectl archive",
		Description: "Captures this archive has made public after their embargo, exported from its public side (" + sel.Filter.String() + ").",
		Created:     created.Format(time.RFC3339), Software: opt.Software, Resources: res,
		Export: exportInfo{Filter: newFilterInfo(&sel.Filter), Counts: sel.Counts()},
	}, "", "  ")
	if err != nil {
		return sum, fmt.Errorf("wacz: datapackage.json: %w", err)
	}
	dp = append(dp, '\n')
	digest, err := json.Marshal(struct {
		Path string `json:"path"`
		Hash string `json:"hash"`
	}{"datapackage.json", newResource("datapackage.json", dp).Hash})
	if err != nil {
		return sum, fmt.Errorf("wacz: datapackage-digest.json: %w", err)
	}
	if err := addDeflated(zw, "datapackage.json", dp, created); err != nil {
		return sum, err
	}
	if err := addDeflated(zw, "datapackage-digest.json", append(digest, '\n'), created); err != nil {
		return sum, err
	}
	if err := zw.Close(); err != nil {
		return sum, fmt.Errorf("wacz: %w", err)
	}
	sum.WARCFiles, sum.Pages, sum.Bytes = len(p.warcs), p.nPage, cw.n
	return sum, nil
}

// newResource is the datapackage.json entry of a file of the package.
func newResource(path string, data []byte) resource {
	h := sha256.Sum256(data)
	name := path[strings.LastIndexByte(path, '/')+1:]
	return resource{Name: strings.ToLower(name), Path: path, Hash: "sha256:" + hex.EncodeToString(h[:]), Bytes: int64(len(data))}
}

// addDeflated adds a small file to the zip, compressed, with its CRC and sizes in its local header.
func addDeflated(zw *zip.Writer, name string, data []byte, created time.Time) error {
	var buf bytes.Buffer
	fw, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		return fmt.Errorf("wacz: %s: %w", name, err)
	}
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

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err == nil && n < len(p) {
		err = errors.New("short write")
	}
	return n, err
}
