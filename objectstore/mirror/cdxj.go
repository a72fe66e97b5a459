package mirror

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/archivectl/archivectl/public"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/objectstore/publish"
)

// fetchCDXJ downloads a node's CDXJ file f into the view at vp, each line's file name given the
// node's name, after checking the download against the manifest's size and SHA-256.
func (m *Mirror) fetchCDXJ(ctx context.Context, node string, f publish.File, vp string) error {
	name := publish.NodePrefix(node) + f.Object
	r, err := m.s.Read(ctx, name, 0, -1)
	if err != nil {
		return err
	}
	defer r.Close()
	dst := filepath.Join(m.dir, filepath.FromSlash(vp))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := durable.CreateTemp(filepath.Dir(dst), ".fetch-*", 0o644)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	bw := bufio.NewWriterSize(tmp, 256<<10)
	n, err := rewrite(bw, io.TeeReader(r, h), node)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		tmp.Close()
		return fmt.Errorf("%s: read %s: %w", m.s, name, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); n != f.Size || sum != f.SHA256 {
		tmp.Close()
		return fmt.Errorf("%s: %s is %d bytes with SHA-256 %s, its manifest says %d and %s", m.s, name, n, sum, f.Size, f.SHA256)
	}
	if err := durable.SyncClose(tmp); err != nil {
		return err
	}
	return durable.Rename(tmp.Name(), dst)
}

// filenameKey is how the releaser's JSON block names a record's file. Inside a JSON string a
// quote is escaped, so the first occurrence is the key itself.
var filenameKey = []byte(`"filename":"`)

// rewrite copies CDXJ lines from r to w, each file name under shards/ or tombstones/ given the
// node's directory (shards/PUBLIC-x.warc.gz becomes shards/NODE/PUBLIC-x.warc.gz), and returns
// how many bytes it read. Any other line is copied as it is (the lookup skips and counts
// malformed lines).
func rewrite(w io.Writer, r io.Reader, node string) (int64, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	var n int64
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		n += int64(len(line))
		if len(line) > 0 {
			if _, werr := w.Write(rewriteLine(line, node)); werr != nil {
				return n, werr
			}
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// rewriteLine gives one line's file name the node's directory.
func rewriteLine(line []byte, node string) []byte {
	i := bytes.Index(line, filenameKey)
	if i < 0 {
		return line
	}
	v := i + len(filenameKey)
	for _, dir := range []string{"shards/", "tombstones/"} {
		if bytes.HasPrefix(line[v:], []byte(dir)) {
			return withNode(line, v+len(dir), "", node)
		}
	}
	// Lines since the replay-ecosystem change carry the file's name only (PUBLIC-… or
	// TOMBSTONES-…); the view names it by its directory and the node's.
	for _, p := range [][2]string{{public.ShardPrefix + "-", "shards/"}, {public.TombstonePrefix + "-", "tombstones/"}} {
		if bytes.HasPrefix(line[v:], []byte(p[0])) {
			return withNode(line, v, p[1], node)
		}
	}
	return line
}

// withNode inserts dir, node and a slash into line at i.
func withNode(line []byte, i int, dir, node string) []byte {
	out := make([]byte, 0, len(line)+len(dir)+len(node)+1)
	out = append(out, line[:i]...)
	out = append(out, dir...)
	out = append(out, node...)
	out = append(out, '/')
	return append(out, line[i:]...)
}
