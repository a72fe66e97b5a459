package durable

import (
	"errors"
	"go/build"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		old  []byte // nil: no file before
		mode fs.FileMode
	}{
		{"new file, mode despite the umask", nil, 0o666},
		{"private file", nil, 0o600},
		{"longer file is cut", []byte("a much longer earlier content"), 0o644},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "f")
			if tc.old != nil {
				if err := os.WriteFile(path, tc.old, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteFile(path, []byte("new"), tc.mode); err != nil {
				t.Fatal(err)
			}
			checkFile(t, path, "new", tc.mode)
		})
	}
}

func TestReplaceFile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		old  []byte
	}{
		{"absent", nil},
		{"present", []byte("old content")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "state.json")
			if tc.old != nil {
				if err := os.WriteFile(path, tc.old, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := ReplaceFile(path, []byte(`{"n":1}`), 0o644); err != nil {
				t.Fatal(err)
			}
			checkFile(t, path, `{"n":1}`, 0o644)
			if _, err := os.Stat(path + ".tmp"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("temp file left behind: %v", err)
			}
		})
	}
}

func TestRenameAndSyncDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	from, to := filepath.Join(dir, "a.open"), filepath.Join(dir, "a")
	if err := os.WriteFile(from, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Rename(from, to); err != nil {
		t.Fatal(err)
	}
	checkFile(t, to, "x", 0o600)
	if err := Rename(from, to); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("renaming a missing file: %v, want ErrNotExist", err)
	}
	if err := SyncDir(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("SyncDir of a missing directory: %v, want ErrNotExist", err)
	}
}

func checkFile(t *testing.T, path, want string, mode fs.FileMode) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Errorf("%s holds %q, want %q", path, b, want)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != mode {
		t.Errorf("%s has mode %v, want %v", path, st.Mode().Perm(), mode)
	}
}

// TestStandardLibraryOnly keeps durable a leaf that any package may use.
func TestStandardLibraryOnly(t *testing.T) {
	t.Parallel()
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
			t.Errorf("durable imports %s; it may use the standard library only", imp)
		}
	}
}

func TestWriteAtomically(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "out.cdxj")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	failure := errors.New("the writer failed")
	if err := WriteAtomically(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "half")
		return failure
	}); !errors.Is(err, failure) {
		t.Fatalf("WriteAtomically = %v, want the writer's error", err)
	}
	checkFile(t, path, "old", 0o600)
	if err := WriteAtomically(path, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, "new", 0o644)
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the directory, want the file alone", len(entries))
	}
	missing := filepath.Join(dir, "nosuchdir", "x.cdxj")
	err := WriteAtomically(missing, 0o644, func(io.Writer) error { return nil })
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(dir, "nosuchdir")) || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("WriteAtomically into a missing directory = %v, want it named, no temporary file", err)
	}
}

func TestCreateModes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "a"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	checkFile(t, filepath.Join(dir, "a"), "", 0o644)
	tmp, err := CreateTemp(dir, "t-*", 0o640)
	if err != nil {
		t.Fatal(err)
	}
	tmp.Close()
	checkFile(t, tmp.Name(), "", 0o640)
}

// TestMkdirAll: a directory made, and one that was there with another mode, both end with the
// mode asked for.
func TestMkdirAll(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	made := filepath.Join(base, "a", "b")
	there := filepath.Join(base, "there")
	if err := os.Mkdir(there, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{made, there} {
		if err := MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o755 || !fi.IsDir() {
			t.Errorf("%s: %v %v, want a directory of mode 0755", dir, fi.Mode(), err)
		}
	}
}
