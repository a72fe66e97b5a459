package mirror

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/archivectl/archivectl/public/pubindex"
)

// The view's public index (index/ in the view) is the mirror's own, built from the view's CDXJ
// lines (file names already given the node's directory); the nodes' own index/ objects name
// their records without it, so they are never read. A refresh that only adds CDXJ files (a new
// generation of a node: release files are never rewritten) adds their lines as one commit;
// anything else (a file changed or gone, a node gone, a view without an index, an earlier
// failed update) rebuilds the index from every CDXJ file of the view.

// updateIndex brings the view's index to its CDXJ files as generation gen, given the view
// paths of the files added since the index was last written.
func (m *Mirror) updateIndex(ctx context.Context, gen int64, added []string, rebuild bool) error {
	if !rebuild {
		if _, found, err := pubindex.ReadManifest(os.DirFS(m.dir)); err != nil || !found {
			rebuild = true
		}
	}
	if rebuild {
		if _, err := pubindex.Rebuild(ctx, m.dir, gen, m.log); err != nil {
			return fmt.Errorf("rebuild the view's index: %w", err)
		}
		return nil
	}
	var lines [][]byte
	for _, vp := range slices.Sorted(slices.Values(added)) {
		var err error
		if lines, err = readLines(filepath.Join(m.dir, filepath.FromSlash(vp)), lines); err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp(m.dir, ".index-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	c, err := pubindex.Prepare(nil, m.dir, tmp, gen, lines)
	if err != nil {
		return fmt.Errorf("update the view's index: %w", err)
	}
	if err := pubindex.Apply(m.dir, c); err != nil {
		return fmt.Errorf("update the view's index: %w", err)
	}
	return nil
}

// tidy removes what an update of the index killed midway left in the view; a view whose index
// manifest cannot be read is rebuilt at the first refresh.
func (m *Mirror) tidy() error {
	tmps, _ := filepath.Glob(filepath.Join(m.dir, ".index-*"))
	for _, t := range tmps {
		if err := os.RemoveAll(t); err != nil {
			return fmt.Errorf("mirror: %w", err)
		}
	}
	if err := pubindex.Clean(m.dir); err != nil {
		m.stale = true
	}
	return nil
}

// readLines appends the lines of one CDXJ file of the view to lines, leaving out any that do
// not parse or are too long to index (a rebuild logs and counts them).
func readLines(name string, lines [][]byte) ([][]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return lines, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && len(line) < maxLine {
			if _, perr := pubindex.ParseLine(line); perr == nil {
				lines = append(lines, line)
			}
		}
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return lines, fmt.Errorf("read %s: %w", name, err)
		}
	}
}

// maxLine is the length from which pubindex counts a CDXJ line as malformed.
const maxLine = 1 << 20
