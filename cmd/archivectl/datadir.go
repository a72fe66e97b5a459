package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/archivectl/archivectl/internal/layout"
)

// archiveEntries are the names that make a directory an archive: crawl creates the first two,
// a release pass the third.
var archiveEntries = []string{layout.SealedDir, layout.IndexFile, layout.PublicDir}

// errNoArchive marks a data directory that is missing or empty: serve --init may start there.
var errNoArchive = errors.New("no archive")

// archiveIn says which archive entries dir holds. The error, one line for a person, says what
// dir is when it is no archive at all: missing or empty (wrapping errNoArchive), a file, or a
// directory of other things. Only crawl (and serve --init) start an archive where there is none.
func archiveIn(dir string) (map[string]bool, error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
			return nil, fmt.Errorf("%s is a file, not a data directory; pass --data DIR", dir)
		}
		return nil, fmt.Errorf("%s does not exist: %w; crawl into it first or pass --data", dir, errNoArchive)
	case err != nil:
		if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
			return nil, fmt.Errorf("%s is a file, not a data directory; pass --data DIR", dir)
		}
		return nil, fmt.Errorf("cannot read the data directory: %w", err)
	case len(entries) == 0:
		return nil, fmt.Errorf("%s is an empty directory: %w; crawl into it first or pass --data", dir, errNoArchive)
	}
	found := map[string]bool{}
	for _, e := range entries {
		for _, name := range archiveEntries {
			if e.Name() == name {
				found[name] = true
			}
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("%s holds no archive (no %s); crawl into it first or pass --data",
			dir, strings.Join([]string{layout.SealedDir + "/", layout.IndexFile, layout.PublicDir + "/"}, ", "))
	}
	return found, nil
}

// releasable checks that dir holds an archive a release pass can work on: index.db, and sealed/
// once anything was crawled.
func releasable(dir string) error {
	found, err := archiveIn(dir)
	switch {
	case err != nil:
		return err
	case !found[layout.IndexFile] && found[layout.SealedDir]:
		return fmt.Errorf("%s holds %s/ but no %s; rebuild it with archivectl verify --reindex --data %s",
			dir, layout.SealedDir, layout.IndexFile, dir)
	case !found[layout.IndexFile]:
		return fmt.Errorf("%s holds only %s/, no %s: it is a copy of the public side, which only serve reads; pass the archive's --data",
			dir, layout.PublicDir, layout.IndexFile)
	}
	return nil
}
