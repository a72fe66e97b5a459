package release

import (
	"fmt"
	"os"
	"sync"

	"github.com/archivectl/archivectl/store"
)

// sealedFiles keeps the sealed WARC files a pass reads open, one handle per file (store.OpenSealed
// finds a file a crawl still writes), and checks every location against the file's size.
type sealedFiles struct {
	mu    sync.Mutex // open is called by the pass and by the goroutines that check members
	dir   string
	files map[string]*sealedFile
	cp    *copier // the only user of the handles' offsets, once started
}

type sealedFile struct {
	f    *os.File
	size int64
}

// open returns the sealed file holding loc.
func (s *sealedFiles) open(loc store.Location) (*os.File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string]*sealedFile{}
	}
	sf, ok := s.files[loc.File]
	if !ok {
		f, err := store.OpenSealed(s.dir, loc.File)
		if err != nil {
			return nil, err
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
			return nil, fmt.Errorf("%s: member %d+%d %w (%d bytes)", loc.File, loc.Offset, loc.Length, errOutside, sf.size)
		}
	}
	return sf.f, nil
}

// copier is the copier of the pass, which copies out of these files: started at first use.
func (s *sealedFiles) copier() *copier {
	if s.cp == nil {
		s.cp = newCopier()
	}
	return s.cp
}

// close stops the copier and closes every handle.
func (s *sealedFiles) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cp != nil {
		s.cp.close()
		s.cp = nil
	}
	for _, sf := range s.files {
		sf.f.Close()
	}
	s.files = nil
}
