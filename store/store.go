package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/archivectl/archivectl/internal/durable"
	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/archivectl/archivectl/internal/warcrecord"
	"github.com/archivectl/archivectl/store/index"
	"github.com/nlnwa/gowarc/v3"
)

// Options configure a Store; zero values take the defaults.
type Options struct {
	Software     string        // software and version for warcinfo, default "archivectl"
	Operator     string        // who runs the archive, for warcinfo
	Contact      string        // contact URL, for warcinfo
	RobotsPolicy string        // robots policy for warcinfo, default "obey"
	MaxFileSize  int64         // WARC rotation size in bytes, default 1 GiB
	Digest       string        // "sha256" (lowercase base16, default) or "sha1" (base32)
	LockTimeout  time.Duration // how long to wait for index.db, default 5 s
	Logger       *slog.Logger  // default slog.Default()
	Now          func() time.Time
	// BulkLoad skips the fsyncs of every batch (WARC file and index.db are synced at Close): for
	// generators and imports only, as a crash can then lose or corrupt what was sealed. Off by default.
	BulkLoad bool
}

// DefaultDigest is the digest algorithm of a store whose Options name none.
const DefaultDigest = "sha256"

// ValidDigest reports whether Open accepts name as Options.Digest: sha256 or sha1.
func ValidDigest(name string) bool { return name == "sha256" || name == "sha1" }

// Store writes captures into the sealed repository. It holds an exclusive lock on the data
// directory's sealed.lock for its lifetime; index.db is opened only per batch.
type Store struct {
	mu        sync.Mutex
	sealed    string
	opt       Options
	ix        *Index
	w         *warcWriter
	lock      *lockfile.Lock
	recovered []Problem
	closed    bool
}

// Open opens the sealed repository of dataDir (creating dataDir/sealed with mode 0700 and
// dataDir/index.db), first recovering any .open file a killed writer left behind.
func Open(dataDir string, opt Options) (*Store, error) {
	if opt.Software == "" {
		opt.Software = "archivectl"
	}
	if opt.RobotsPolicy == "" {
		opt.RobotsPolicy = "obey"
	}
	if opt.MaxFileSize <= 0 {
		opt.MaxFileSize = DefaultMaxFileSize
	}
	if opt.Digest == "" {
		opt.Digest = DefaultDigest
	}
	if !ValidDigest(opt.Digest) {
		return nil, fmt.Errorf("store: digest %q is not supported; use sha256 or sha1", opt.Digest)
	}
	if opt.LockTimeout <= 0 {
		opt.LockTimeout = lockfile.DefaultTimeout
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	sealed := layout.Sealed(dataDir)
	if err := durable.MkdirAll(sealed, 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	lock, err := lockfile.Acquire(layout.SealedLock(dataDir), 0)
	if err != nil {
		return nil, err
	}
	ix, err := index.Open(layout.Index(dataDir), opt.LockTimeout, opt.Logger)
	if err != nil {
		lock.Release()
		return nil, err
	}
	ix.SetNoSync(opt.BulkLoad)
	s := &Store{sealed: sealed, opt: opt, ix: ix, lock: lock}
	if s.recovered, err = recoverOpen(sealed, ix, opt.Logger); err != nil {
		lock.Release()
		return nil, err
	}
	s.w = newWarcWriter(sealed, "archivectl", opt.MaxFileSize, opt.Now, s.warcinfo)
	s.w.noSync = opt.BulkLoad
	return s, nil
}

// Index is the store's index, for lookups between batches.
func (s *Store) Index() *Index { return s.ix }

// Recovered lists what Open had to repair after a killed writer (cut tails, dropped entries).
func (s *Store) Recovered() []Problem { return s.recovered }

// warcinfo builds the first record of a new file.
func (s *Store) warcinfo(name string) (gowarc.WarcRecord, error) {
	host, _ := os.Hostname()
	block := warcrecord.WarcinfoBlock(s.opt.Software,
		[2]string{"robots", s.opt.RobotsPolicy},
		[2]string{"operator", s.opt.Operator},
		[2]string{"contact", s.opt.Contact},
		[2]string{"hostname", host},
		[2]string{"description", "sealed repository: embargoed captures, released by archivectl"})
	return buildRecord(s.opt.Digest, gowarc.Warcinfo, s.opt.Now(), typeWarcinfo, block, field{gowarc.WarcFilename, name})
}

// Close closes the open WARC file properly (NAME.open becomes NAME) and releases the store's lock.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	err := s.w.closeFile()
	if s.opt.BulkLoad {
		err = errors.Join(err, s.ix.Sync())
	}
	if lerr := s.lock.Release(); err == nil {
		err = lerr
	}
	return err
}
