package release

import "path/filepath"

// The paths of the releaser under a data directory.
func publicDir(dataDir string) string     { return filepath.Join(dataDir, "public") }
func shardsDir(dataDir string) string     { return filepath.Join(dataDir, "public", "shards") }
func tombstonesDir(dataDir string) string { return filepath.Join(dataDir, "public", "tombstones") }
func statePath(dataDir string) string     { return filepath.Join(dataDir, "public", "state.json") }
func logPath(dataDir string) string       { return filepath.Join(dataDir, "public", "release-log.jsonl") }
func tmpDir(dataDir string) string        { return filepath.Join(dataDir, "release-tmp") }
func journalPath(dataDir string) string   { return filepath.Join(dataDir, "release-journal.json") }
func lockPath(dataDir string) string      { return filepath.Join(dataDir, "release.lock") }
func indexPath(dataDir string) string     { return filepath.Join(dataDir, "index.db") }
func sealedDir(dataDir string) string     { return filepath.Join(dataDir, "sealed") }
