package release

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"sync"

	"github.com/archivectl/archivectl/internal/warcrecord"
	"github.com/archivectl/archivectl/store"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
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

// ErrDamaged is the error (errors.Is) of a sealed record that cannot be published as it is: its
// gzip member fails its CRC-32 or ISIZE, ends early, holds more than one member, its record's
// WARC-Block-Digest does not match its block, or its file is cut short or missing. A release pass
// holds the capture back (it stays sealed) and goes on with the others; verify reports it. The
// error itself is a *DamageError.
var ErrDamaged = errors.New("sealed record damaged")

// DamageError is a capture whose sealed record is damaged: which record, where, and why.
type DamageError struct {
	ID     string // the capture id
	Kind   string // "request", "response" or "metadata"
	File   string // the sealed file's name, under sealed/
	Offset int64  // the member's offset in it
	Err    error
}

func (e *DamageError) Error() string {
	return fmt.Sprintf("capture %s: the %s record at sealed/%s offset %d is damaged: %v", e.ID, e.Kind, e.File, e.Offset, e.Err)
}

func (e *DamageError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrDamaged) true.
func (e *DamageError) Is(target error) bool { return target == ErrDamaged }

// errOutside is a location past the end of its sealed file (the file was cut short).
var errOutside = errors.New("lies outside the file")

// memberKinds name the members of a capture, in the order captureMembers gives them.
var memberKinds = [3]string{"request", "response", "metadata"}

// captureMembers is e's sealed locations: request, response, metadata (a zero Length: none).
func captureMembers(e store.Entry) [3]store.Location {
	return [3]store.Location{e.Request, e.Response, e.Metadata}
}

// checker checks sealed gzip members; one per goroutine (it keeps its buffers and inflater).
type checker struct {
	br  *bufio.Reader
	gz  *gzip.Reader
	hdr *bufio.Reader
	buf []byte
}

var checkers = sync.Pool{New: func() any {
	return &checker{br: bufio.NewReaderSize(nil, 64<<10), hdr: bufio.NewReaderSize(nil, 64<<10), buf: make([]byte, 64<<10)}
}}

// checkCapture checks every sealed member of e; a damaged one gives a *DamageError, any other
// failure (an unreadable file) an error of its own.
func checkCapture(s *sealedFiles, e store.Entry) error {
	c := checkers.Get().(*checker)
	defer checkers.Put(c)
	for i, loc := range captureMembers(e) {
		if loc.Length == 0 {
			continue
		}
		f, err := s.open(loc)
		if err == nil {
			err = c.check(f, loc.Offset, loc.Length)
		}
		if err != nil {
			if errors.Is(err, errCorrupt) || errors.Is(err, errOutside) || errors.Is(err, fs.ErrNotExist) {
				return &DamageError{ID: e.ID, Kind: memberKinds[i], File: loc.File, Offset: loc.Offset, Err: err}
			}
			return fmt.Errorf("capture %s: %w", e.ID, err)
		}
	}
	return nil
}

// errCorrupt marks what check finds wrong with the bytes themselves.
var errCorrupt = errors.New("corrupt")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errCorrupt, fmt.Sprintf(format, args...))
}

// check decompresses the n bytes of f at off, which must be exactly one gzip member whose CRC-32
// and ISIZE hold, and checks that the WARC record inside ends where its Content-Length says and
// that its block matches its WARC-Block-Digest (when it has one).
func (c *checker) check(f *os.File, off, n int64) error {
	sec := io.NewSectionReader(f, off, n)
	c.br.Reset(sec)
	var err error
	if c.gz == nil {
		c.gz, err = gzip.NewReader(c.br)
	} else {
		err = c.gz.Reset(c.br)
	}
	if err != nil {
		return gzipErr(err)
	}
	c.gz.Multistream(false)
	c.hdr.Reset(c.gz)
	hd, err := warcrecord.ReadHeader(c.hdr)
	if errors.Is(err, warcrecord.ErrMalformed) {
		return corrupt("%v", err)
	} else if err != nil {
		return gzipErr(err)
	}
	length, err := strconv.ParseInt(hd.Get("Content-Length"), 10, 64)
	if err != nil || length < 0 {
		return corrupt("bad Content-Length %q", hd.Get("Content-Length"))
	}
	want := hd.Get("WARC-Block-Digest")
	_, h, noDigest := warcrecord.NewHash(want) // absent or of an unknown algorithm: not checked
	if noDigest != nil {
		h = nil
	}
	var dst io.Writer = io.Discard
	if h != nil {
		dst = h
	}
	if got, err := io.CopyBuffer(dst, io.LimitReader(c.hdr, length), c.buf); err != nil {
		return gzipErr(err)
	} else if got != length {
		return corrupt("the record's block ends %d bytes into its Content-Length of %d", got, length)
	}
	var end [4]byte
	if _, err := io.ReadFull(c.hdr, end[:]); err != nil || string(end[:]) != "\r\n\r\n" {
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return gzipErr(err)
		}
		return corrupt("the record does not end in CRLF CRLF after its block")
	}
	if k, err := io.CopyBuffer(io.Discard, c.hdr, c.buf); err != nil { // to the member's end: its CRC-32 and ISIZE
		return gzipErr(err)
	} else if k > 0 {
		return corrupt("%d bytes after the record in its gzip member", k)
	}
	if rest := int64(c.br.Buffered()) + n - mustOffset(sec); rest != 0 {
		return corrupt("%d bytes after the gzip member in its range", rest)
	}
	if h != nil && !warcrecord.Matches(want, h.Sum(nil)) {
		return corrupt("WARC-Block-Digest %s does not match the block", want)
	}
	return nil
}

// mustOffset is how far sec has been read.
func mustOffset(sec *io.SectionReader) int64 {
	off, _ := sec.Seek(0, io.SeekCurrent)
	return off
}

// gzipErr is err as damage when it is what a damaged member gives, else err itself (an I/O error).
func gzipErr(err error) error {
	switch {
	case errors.Is(err, gzip.ErrChecksum):
		return corrupt("gzip CRC-32 or ISIZE mismatch")
	case errors.Is(err, gzip.ErrHeader), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return corrupt("gzip member: %v", err)
	}
	var ce flate.CorruptInputError
	var ie flate.InternalError
	if errors.As(err, &ce) || errors.As(err, &ie) {
		return corrupt("deflate: %v", err)
	}
	return err
}

// checkAhead is how many captures of a batch the checking goroutines may be ahead of the pass:
// enough to keep them busy while the copier copies, few enough that what they read is still in
// the page cache when it copies.
const checkAhead = 128

// checks checks the sealed members of a batch's captures (checkCapture) on goroutines of their
// own, in batch order and a little ahead of the pass, which takes each result in turn (result):
// the decompression runs beside the copy and the building of the lines.
type checks struct {
	batch   []store.Entry
	pos     map[string]int // capture id → index in batch
	res     []checkResult
	tokens  chan struct{} // one per capture checked and not yet taken
	stopped chan struct{}
	wg      sync.WaitGroup
}

type checkResult struct {
	done chan struct{}
	err  error
}

// startChecks starts checking batch's captures in the sealed files s.
func startChecks(s *sealedFiles, batch []store.Entry) *checks {
	c := &checks{batch: batch, pos: make(map[string]int, len(batch)), res: make([]checkResult, len(batch)),
		tokens: make(chan struct{}, checkAhead), stopped: make(chan struct{})}
	for i, e := range batch {
		c.pos[e.ID] = i
		c.res[i].done = make(chan struct{})
	}
	next := make(chan int)
	c.wg.Add(1)
	go func() { // hands out the captures in order, checkAhead at most ahead of result
		defer c.wg.Done()
		defer close(next)
		for i := range batch {
			select {
			case c.tokens <- struct{}{}:
			case <-c.stopped:
				return
			}
			select {
			case next <- i:
			case <-c.stopped:
				return
			}
		}
	}()
	for range min(runtime.GOMAXPROCS(0), 4) {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			for i := range next {
				c.res[i].err = checkCapture(s, batch[i])
				close(c.res[i].done)
			}
		}()
	}
	return c
}

// result waits for the check of batch[i], which must be taken in batch order, once each.
func (c *checks) result(i int) error {
	<-c.res[i].done
	<-c.tokens
	return c.res[i].err
}

// stop ends the checking goroutines, once what they check is done.
func (c *checks) stop() {
	close(c.stopped)
	c.wg.Wait()
}
