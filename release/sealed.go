package release

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/archivectl/archivectl/store"
)

// sealedFiles keeps the sealed WARC files a pass reads open, one handle per file. It finds a
// file under its final name or, while a crawl still writes it, under NAME.open (as
// store.MemberReader does), and checks every location against the file's size.
type sealedFiles struct {
	dir   string
	files map[string]*sealedFile
}

type sealedFile struct {
	f    *os.File
	size int64
}

// open returns the sealed file holding loc.
func (s *sealedFiles) open(loc store.Location) (*os.File, error) {
	if s.files == nil {
		s.files = map[string]*sealedFile{}
	}
	sf, ok := s.files[loc.File]
	if !ok {
		if loc.File == "" || loc.File != filepath.Base(loc.File) {
			return nil, fmt.Errorf("bad sealed file name %q", loc.File)
		}
		p := filepath.Join(s.dir, loc.File)
		var f *os.File
		var err error
		for _, q := range []string{p, p + ".open", p} { // the last try catches a rename in between
			if f, err = os.Open(q); !errors.Is(err, fs.ErrNotExist) {
				break
			}
		}
		if err != nil {
			return nil, fmt.Errorf("sealed WARC file %s: %w", loc.File, err)
		}
		sf = &sealedFile{f: f}
		s.files[loc.File] = sf
	}
	if loc.Offset < 0 || loc.Length <= 0 || loc.Offset+loc.Length > sf.size {
		st, err := sf.f.Stat() // a file still written grows
		if err != nil {
			return nil, err
		}
		sf.size = st.Size()
		if loc.Offset < 0 || loc.Length <= 0 || loc.Offset+loc.Length > sf.size {
			return nil, fmt.Errorf("%s: member %d+%d lies outside the file (%d bytes)", loc.File, loc.Offset, loc.Length, sf.size)
		}
	}
	return sf.f, nil
}

// close closes every handle.
func (s *sealedFiles) close() {
	for _, sf := range s.files {
		sf.f.Close()
	}
	s.files = nil
}
