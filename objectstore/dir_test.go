package objectstore_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/storetest"
)

func TestDirConformance(t *testing.T) {
	t.Parallel()
	storetest.Conformance(t, objectstore.NewDir(t.TempDir()))
}

func TestDirLeavesNoTempFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	d := objectstore.NewDir(root)
	storetest.Put(t, d, "x/y", []byte("hello"))
	storetest.Put(t, d, "x/y", []byte("hello"))
	left, err := os.ReadDir(filepath.Join(root, ".tmp"))
	if err != nil || len(left) != 0 {
		t.Fatalf(".tmp holds %d entries (%v) after two Puts", len(left), err)
	}
	got, err := d.List(t.Context(), "")
	if err != nil || len(got) != 1 || got[0].Name != "x/y" {
		t.Fatalf("List = %v, %v; want x/y alone (never .tmp)", got, err)
	}
	if err := d.Delete(t.Context(), "x/y"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "x")); !os.IsNotExist(err) {
		t.Errorf("Delete left the empty directory x: %v", err)
	}
}

func TestDirRefusesBadNames(t *testing.T) {
	t.Parallel()
	d := objectstore.NewDir(t.TempDir())
	for _, name := range []string{"", ".", "../x", "/abs", "a//b", ".tmp/x", ".tmp", "a/../b"} {
		if _, err := d.Stat(t.Context(), name); err == nil || os.IsNotExist(err) {
			t.Errorf("Stat(%q) = %v, want a bad-name error", name, err)
		}
	}
}

func TestSum(t *testing.T) {
	t.Parallel()
	n, sum, err := objectstore.Sum(strings.NewReader("abc"))
	if err != nil || n != 3 || sum != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("Sum(abc) = %d, %s, %v", n, sum, err)
	}
}
