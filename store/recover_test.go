package store

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/testkit"
)

// abandon drops a store the way a killed process would: no Close, only its lock released.
func abandon(s *Store) {
	s.w.f.Close()
	s.lock.Release()
}

func openFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, layout.SealedDir, "*"+openSuffix))
	return m
}

func TestRecoverTornTail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		damage  func(path string, last Entry) error // what the crash left
		dropped bool                                // the last capture's entry must go
	}{
		{"uncommitted garbage after the last batch", func(p string, _ Entry) error {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.Write([]byte("\x1f\x8b\x08\x00 half a member"))
			return err
		}, false},
		{"nothing torn", func(string, Entry) error { return nil }, false},
		{"a lost write under a committed entry", func(p string, last Entry) error {
			return os.Truncate(p, last.Metadata.Offset+last.Metadata.Length/2)
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := openTestStore(t, dir, Options{})
			first := seal(t, s, capture("https://example.com/1", t0, "one"))[0]
			last := seal(t, s, capture("https://example.com/2", t0, "two"))[0]
			abandon(s)
			open := openFiles(t, dir)
			if len(open) != 1 {
				t.Fatalf("open files %v", open)
			}
			if err := tc.damage(open[0], last); err != nil {
				t.Fatal(err)
			}
			s = openTestStore(t, dir, Options{})
			defer s.Close()
			if len(openFiles(t, dir)) != 0 {
				t.Error("recovery left an .open file")
			}
			if _, ok, _ := s.Index().Get(first.ID); !ok {
				t.Error("recovery lost a committed capture")
			}
			_, ok, _ := s.Index().Get(last.ID)
			if ok == tc.dropped {
				t.Errorf("last capture indexed %v, want dropped %v", ok, tc.dropped)
			}
			reported := false
			for _, p := range s.Recovered() {
				reported = reported || p.ID == last.ID
			}
			if reported != tc.dropped {
				t.Errorf("recovery report %v, want the dropped capture reported: %v", s.Recovered(), tc.dropped)
			}
			if ps, err := Verify(context.Background(), dir); err != nil || len(ps) != 0 {
				t.Errorf("verify after recovery: %v %v", ps, err)
			}
			// The store goes on writing after recovery.
			seal(t, s, capture("https://example.com/3", t0, "three"))
		})
	}
}

func TestRecoverRemovesUnindexedFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openTestStore(t, dir, Options{})
	seal(t, s, capture("https://example.com/1", t0, "one"))
	s.Close()
	// A writer killed right after creating its file, before its first commit.
	stray := filepath.Join(dir, layout.SealedDir, "archivectl-20260301120000000-00009-h.warc.gz"+openSuffix)
	if err := os.WriteFile(stray, []byte("\x1f\x8b partial"), 0o600); err != nil {
		t.Fatal(err)
	}
	s = openTestStore(t, dir, Options{})
	defer s.Close()
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("stray file still there: %v", err)
	}
	if len(s.Recovered()) != 1 {
		t.Errorf("recovered %v", s.Recovered())
	}
}

// TestCrashChild is the child process of TestCrashRecovery: it seals batches until it is killed,
// printing the ids of each batch once Seal has returned.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("ARCHIVECTL_CRASH_DIR")
	if dir == "" {
		t.Skip("only run as TestCrashRecovery's child")
	}
	s, err := Open(dir, Options{MaxFileSize: 64 << 10, Logger: testkit.QuietLogger()})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), 1))
	for b := 0; ; b++ {
		var caps []Capture
		for i := range 1 + r.IntN(6) {
			u := fmt.Sprintf("https://example.com/%d/%d/%d", os.Getpid(), b, i)
			caps = append(caps, capture(u, time.Now(), strings.Repeat(u, 1+r.IntN(300))))
		}
		es, err := s.Seal(context.Background(), caps)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		for _, e := range es {
			fmt.Println("sealed", e.ID)
		}
	}
}

func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	rounds := 12
	var acked []string
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "ARCHIVECTL_CRASH_DIR="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill the child at a varying point: after a varying number of acknowledged captures, while
		// it is in the middle of the next batch (building, compressing, writing, syncing or committing).
		want := 1 + (round*7)%23
		sc := bufio.NewScanner(out)
		n := 0
		for n < want && sc.Scan() {
			line := sc.Text()
			if id, ok := strings.CutPrefix(line, "sealed "); ok {
				acked = append(acked, id)
				n++
			} else if strings.HasPrefix(line, "error") {
				t.Fatalf("child: %s", line)
			}
		}
		cmd.Process.Kill()
		// Anything it acknowledged before dying is durable too.
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "sealed "); ok {
				acked = append(acked, id)
			}
		}
		cmd.Wait()
		if n < want {
			t.Fatalf("round %d: child stopped after %d captures", round, n)
		}
	}
	s := openTestStore(t, dir, Options{})
	t.Logf("recovery after %d kills: %d captures acknowledged; repairs: %d", rounds, len(acked), len(s.Recovered()))
	for _, p := range s.Recovered() {
		if p.ID != "" {
			t.Errorf("recovery dropped an index entry: %s", p)
		}
	}
	for _, id := range acked {
		e, ok, err := s.Index().Get(id)
		if err != nil || !ok {
			t.Fatalf("acknowledged capture %s is not indexed: %v", id, err)
		}
		if rec, err := ReadAt(filepath.Join(dir, layout.SealedDir), e.Response); err != nil {
			t.Errorf("acknowledged capture %s unreadable: %v", id, err)
		} else {
			rec.Close()
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ps, err := Verify(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		t.Errorf("verify: %s", p)
	}
}

func TestFailedWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openTestStore(t, dir, Options{})
	first := seal(t, s, capture("https://example.com/1", t0, "one"))[0]
	// The disk refuses the next write, and cutting the file back fails too: swap the open file
	// for a read-only handle of itself.
	rw := s.w.f
	ro, err := os.Open(rw.Name())
	if err != nil {
		t.Fatal(err)
	}
	s.w.f = ro
	failed := capture("https://example.com/2", t0, "two")
	if _, err := s.Seal(context.Background(), []Capture{failed}); err == nil {
		t.Fatal("Seal succeeded on a read-only file")
	}
	ro.Close()
	rw.Close()
	n, _ := s.Index().Counts(t0)
	if n.Sealed != 1 {
		t.Errorf("the failed batch is indexed: %+v", n)
	}
	// The store goes on in a new file and leaves the damaged one to recovery.
	third := seal(t, s, capture("https://example.com/3", t0, "three"))[0]
	if third.Response.File == first.Response.File {
		t.Error("the store went on writing into a file it could not cut back")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openTestStore(t, dir, Options{})
	s.Close()
	if ps, err := Verify(context.Background(), dir); err != nil || len(ps) != 0 {
		t.Errorf("verify: %v %v", ps, err)
	}
	if len(openFiles(t, dir)) != 0 {
		t.Error("an .open file is left after recovery")
	}
}
