package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Checkpoint closes the open WARC file (NAME.open becomes NAME; the next batch starts a new
// file) and writes a consistent copy of index.db to index, with no batch sealed in between. It
// returns the names of the sealed files, every one closed, in name order: together with the
// copy they are the repository at one moment, which is what a node restored from a copy needs
// (docs/architecture.md#sealed-bucket).
func (s *Store) Checkpoint(index io.Writer) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("store: Checkpoint after Close")
	}
	if err := s.w.closeFile(); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	ents, err := os.ReadDir(s.sealed)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var files []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".warc.gz") {
			files = append(files, e.Name())
		}
	}
	slices.Sort(files)
	if _, err := s.ix.WriteTo(index); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return files, nil
}
