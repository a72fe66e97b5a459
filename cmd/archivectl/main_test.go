package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var built struct {
	once sync.Once
	dir  string
	exe  string
	err  error
	out  []byte
}

// TestMain removes the binary that archivectlBinary built, once every test has run.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// archivectlBinary builds the command once per test run and returns the binary's path.
func archivectlBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "archivectl-bin-")
		if built.err != nil {
			return
		}
		built.exe = filepath.Join(built.dir, "archivectl")
		built.out, built.err = exec.Command("go", "build", "-o", built.exe, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.exe
}
