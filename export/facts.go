package export

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/archivectl/archivectl/internal/warcfields"
	"github.com/archivectl/archivectl/internal/warcrecord"
	"github.com/archivectl/archivectl/public"
)

// Facts is what a released capture's metadata record says that a package of its page needs: the
// URLs its payload refers to (the crawler's outlinks: links and embedded resources alike), and
// where the record is.
type Facts struct {
	Outlinks []string
	Metadata public.Location
}

// ErrNoFacts is what ReadFacts returns (errors.Is) when no metadata record of the capture
// follows its response: a public side from elsewhere, or a record the facts never had.
var ErrNoFacts = errors.New("no metadata record follows the capture's response")

// maxFacts bounds a metadata record's block that ReadFacts reads: 10,000 outlinks of 800 bytes.
const maxFacts = 8 << 20

// The formats of a capture's facts (docs/formats.md#metadata-record): named fields (now), the JSON
// document of earlier versions.
const (
	factsFormat     = "archivectl-capture-facts/2"
	factsFormatJSON = "archivectl-capture-facts/1"
)

// ReadFacts reads the metadata record of a released capture from its shard: the gzip member right
// after its response (or revisit), since a shard keeps a capture's request, response and metadata
// members together, in that order (docs/formats.md#shards). The record must be a metadata record
// concurrent to the capture, else ErrNoFacts. It reads that one member.
func ReadFacts(fsys fs.FS, c *Capture) (Facts, error) {
	fl := newFiles(fsys)
	defer fl.close()
	ra, err := fl.at(c.Shard)
	if err != nil {
		return Facts{}, err
	}
	at := c.Response.Offset + c.Response.Length
	cr := &countingReader{r: io.NewSectionReader(ra, at, maxFacts+maxFactsHeader)}
	br := bufio.NewReaderSize(cr, 32<<10)
	zr, err := gzip.NewReader(br)
	if errors.Is(err, io.EOF) {
		return Facts{}, ErrNoFacts // the response is the file's last member
	}
	if err != nil {
		return Facts{}, fmt.Errorf("public/%s at %d: %w: %w", c.Shard, at, ErrNoFacts, err)
	}
	zr.Multistream(false)
	zb := bufio.NewReaderSize(zr, 32<<10)
	h, err := warcrecord.ReadHeader(zb)
	if err != nil {
		return Facts{}, fmt.Errorf("public/%s at %d: %w", c.Shard, at, err)
	}
	if h.Get("WARC-Type") != "metadata" || h.Get("WARC-Concurrent-To") != c.ID {
		return Facts{}, ErrNoFacts
	}
	n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
	if err != nil || n < 0 || n > maxFacts {
		return Facts{}, fmt.Errorf("public/%s at %d: metadata Content-Length %q (at most %d read)", c.Shard, at, h.Get("Content-Length"), maxFacts)
	}
	block := make([]byte, n)
	if _, err := io.ReadFull(zb, block); err != nil {
		return Facts{}, fmt.Errorf("public/%s at %d: metadata block: %w", c.Shard, at, err)
	}
	if _, err := io.Copy(io.Discard, zb); err != nil { // to the member's end: its trailer checked
		return Facts{}, fmt.Errorf("public/%s at %d: %w", c.Shard, at, err)
	}
	f, err := parseFacts(h.Get("Content-Type"), block)
	if err != nil {
		return Facts{}, fmt.Errorf("public/%s at %d: %w", c.Shard, at, err)
	}
	f.Metadata = public.Location{File: c.Shard, Offset: at, Length: cr.n - int64(br.Buffered())}
	return f, nil
}

// maxFactsHeader is room for the metadata record's WARC header and gzip framing beyond its block.
const maxFactsHeader = warcrecord.MaxHeader + 1<<10

// parseFacts reads the facts a package needs from a metadata block of either form; the fields it
// does not need are left alone.
func parseFacts(contentType string, block []byte) (Facts, error) {
	var f Facts
	if strings.HasPrefix(contentType, "application/json") {
		var doc struct {
			Format   string   `json:"format"`
			Outlinks []string `json:"outlinks"`
		}
		if err := json.Unmarshal(block, &doc); err != nil {
			return f, fmt.Errorf("capture facts: %w", err)
		}
		if doc.Format != factsFormatJSON {
			return f, fmt.Errorf("capture facts: format %q", doc.Format)
		}
		return Facts{Outlinks: doc.Outlinks}, nil
	}
	fields, err := warcfields.Parse(block)
	if err != nil {
		return f, fmt.Errorf("capture facts: %w", err)
	}
	if len(fields) == 0 || fields[0].Name != "format" || fields[0].Value != factsFormat {
		return f, errors.New("capture facts: not " + factsFormat)
	}
	for _, x := range fields[1:] {
		if x.Name == "outlink" {
			f.Outlinks = append(f.Outlinks, x.Value)
		}
	}
	return f, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}
