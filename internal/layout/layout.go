// Package layout names the files and directories of an archivectl data directory, for every
// package that opens them. It uses only the standard library, so the lookup service, which reads
// public/ alone, can share it without depending on the sealed repository.
//
//	DATA/
//	  sealed/                 sealed WARC files (0700)
//	  index.db                the sealed index
//	  frontier.db             the crawl's frontier
//	  browser/                Chromium's profiles while crawl --browser runs
//	  checkpoints/            with sealed: s3://…, snapshots waiting for upload and the record of what was uploaded (0700)
//	  sealed.lock             held by the one writer of sealed/
//	  release.lock            held by the one running release pass
//	  release-tmp/            a pass's public files before they are renamed into public/
//	  release-journal.json    a pass's commit in progress
//	  public/                 world-readable: what the lookup service serves
//	    shards/               released records and their CDXJ
//	    tombstones/           tombstones and their CDXJ
//	    embargoed/            pywb's view of the tombstones still under embargo, one CDXJ per release day
//	    access/               pywb access rules, one .aclj per release day: a block rule per URL with a capture under embargo
//	    release-log.jsonl     the append-only audit log
//	    state.json            generation, last pass, next release
package layout

import "path/filepath"

// Names in a data directory.
const (
	SealedDir          = "sealed"
	IndexFile          = "index.db"
	FrontierFile       = "frontier.db"
	BrowserDir         = "browser"
	CheckpointsDir     = "checkpoints"
	SealedLockFile     = "sealed.lock"
	ReleaseLockFile    = "release.lock"
	ReleaseTmpDir      = "release-tmp"
	ReleaseJournalFile = "release-journal.json"
	PublicDir          = "public"
)

// Names in public/.
const (
	ShardsDir      = "shards"
	TombstonesDir  = "tombstones"
	EmbargoedDir   = "embargoed"
	AccessDir      = "access"
	EmbargoACLFile = "embargo.aclj" // the access rules of earlier versions, in one file
	ReleaseLogFile = "release-log.jsonl"
	StateFile      = "state.json"
)

// Sealed is the sealed WARC directory of the data directory data.
func Sealed(data string) string { return filepath.Join(data, SealedDir) }

// Index is the sealed index file of data.
func Index(data string) string { return filepath.Join(data, IndexFile) }

// Frontier is the crawl frontier file of data.
func Frontier(data string) string { return filepath.Join(data, FrontierFile) }

// Checkpoints is the directory of the crawl's checkpoints of the sealed side (crawl with sealed:).
func Checkpoints(data string) string { return filepath.Join(data, CheckpointsDir) }

// Browser is the directory of the crawl's Chromium profiles (crawl --browser).
func Browser(data string) string { return filepath.Join(data, BrowserDir) }

// SealedLock is the lock file of data's one writer of sealed/.
func SealedLock(data string) string { return filepath.Join(data, SealedLockFile) }

// ReleaseLock is the lock file of data's one running release pass.
func ReleaseLock(data string) string { return filepath.Join(data, ReleaseLockFile) }

// ReleaseTmp is the directory of data where a pass writes its public files before the commit.
func ReleaseTmp(data string) string { return filepath.Join(data, ReleaseTmpDir) }

// ReleaseJournal is the journal file of data's release commit in progress.
func ReleaseJournal(data string) string { return filepath.Join(data, ReleaseJournalFile) }

// Public is the public directory of data.
func Public(data string) string { return filepath.Join(data, PublicDir) }

// Shards is the released-records directory of data.
func Shards(data string) string { return filepath.Join(data, PublicDir, ShardsDir) }

// Tombstones is the tombstones directory of data.
func Tombstones(data string) string { return filepath.Join(data, PublicDir, TombstonesDir) }

// Embargoed is the directory of data's tombstone lines still under embargo, by release day.
func Embargoed(data string) string { return filepath.Join(data, PublicDir, EmbargoedDir) }

// Access is the access-rules directory of data.
func Access(data string) string { return filepath.Join(data, PublicDir, AccessDir) }

// EmbargoACL is the pywb access-control file of data written by earlier versions (now one file
// per release day in Access).
func EmbargoACL(data string) string { return filepath.Join(data, PublicDir, AccessDir, EmbargoACLFile) }

// ReleaseLog is the audit log of data.
func ReleaseLog(data string) string { return filepath.Join(data, PublicDir, ReleaseLogFile) }

// State is the public state file of data.
func State(data string) string { return filepath.Join(data, PublicDir, StateFile) }
