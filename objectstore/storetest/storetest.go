// Package storetest checks that a objectstore.Store keeps the contract: create-once names, an
// idempotent Put of the same bytes, ranged reads, sorted listings, quiet deletes. Every Store
// implementation runs Conformance in its tests.
package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/archivectl/archivectl/objectstore"
)

// Sum is the hex SHA-256 of b.
func Sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Put stores b under name, failing the test on an error.
func Put(t testing.TB, s objectstore.Store, name string, b []byte) {
	t.Helper()
	if err := s.Put(context.Background(), name, bytes.NewReader(b), int64(len(b)), Sum(b)); err != nil {
		t.Fatalf("Put %s: %v", name, err)
	}
}

// ReadAll reads n bytes of name from off, failing the test on an error.
func ReadAll(t testing.TB, s objectstore.Store, name string, off, n int64) []byte {
	t.Helper()
	r, err := s.Read(context.Background(), name, off, n)
	if err != nil {
		t.Fatalf("Read %s [%d,+%d): %v", name, off, n, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("Read %s: %v", name, err)
	}
	return b
}

// Conformance runs the contract's checks on s, which must be empty.
func Conformance(t *testing.T, s objectstore.Store) {
	ctx := context.Background()
	body := []byte(strings.Repeat("0123456789abcdef", 4096)) // 64 KiB
	other := append([]byte("other "), body...)

	t.Run("check", func(t *testing.T) {
		if err := s.Check(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("put then read whole and ranges", func(t *testing.T) {
		Put(t, s, "a/b/obj.bin", body)
		if got := ReadAll(t, s, "a/b/obj.bin", 0, -1); !bytes.Equal(got, body) {
			t.Fatalf("whole read: %d bytes, want %d", len(got), len(body))
		}
		for _, r := range []struct{ off, n int64 }{{0, 1}, {10, 100}, {65535, 1}, {1000, 0}, {60000, -1}} {
			want := body[r.off:]
			if r.n >= 0 {
				want = want[:r.n]
			}
			if got := ReadAll(t, s, "a/b/obj.bin", r.off, r.n); !bytes.Equal(got, want) {
				t.Errorf("read [%d,+%d): got %q…, want %q…", r.off, r.n, trunc(got), trunc(want))
			}
		}
		o, err := s.Stat(ctx, "a/b/obj.bin")
		if err != nil || o.Size != int64(len(body)) || o.Name != "a/b/obj.bin" {
			t.Fatalf("Stat = %+v, %v", o, err)
		}
	})
	t.Run("same bytes again is success", func(t *testing.T) {
		Put(t, s, "a/b/obj.bin", body)
	})
	t.Run("other bytes under a taken name are refused", func(t *testing.T) {
		err := s.Put(ctx, "a/b/obj.bin", bytes.NewReader(other), int64(len(other)), Sum(other))
		if !errors.Is(err, objectstore.ErrExists) {
			t.Fatalf("Put over another object: %v, want ErrExists", err)
		}
		same := append([]byte(nil), body...)
		same[0] ^= 1 // same size, other bytes
		err = s.Put(ctx, "a/b/obj.bin", bytes.NewReader(same), int64(len(same)), Sum(same))
		if !errors.Is(err, objectstore.ErrExists) {
			t.Fatalf("Put of other bytes of the same size: %v, want ErrExists", err)
		}
		if got := ReadAll(t, s, "a/b/obj.bin", 0, -1); !bytes.Equal(got, body) {
			t.Fatal("a refused Put changed the object")
		}
	})
	t.Run("missing objects", func(t *testing.T) {
		if _, err := s.Stat(ctx, "a/none"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat of a missing object: %v, want fs.ErrNotExist", err)
		}
		if r, err := s.Read(ctx, "a/none", 0, 10); !errors.Is(err, fs.ErrNotExist) {
			if r != nil {
				r.Close()
			}
			t.Errorf("Read of a missing object: %v, want fs.ErrNotExist", err)
		}
		if err := s.Delete(ctx, "a/none"); err != nil {
			t.Errorf("Delete of a missing object: %v", err)
		}
	})
	t.Run("list is sorted and by prefix", func(t *testing.T) {
		for _, n := range []string{"l/b", "l/a/2", "l/a/1", "l/c/x/y", "lx/z", "l-/q"} {
			Put(t, s, n, []byte(n))
		}
		for _, tc := range []struct{ prefix, want string }{
			{"l/", "l/a/1 l/a/2 l/b l/c/x/y"},
			{"l/a", "l/a/1 l/a/2"},
			{"l/c/x/", "l/c/x/y"},
			{"l", "l-/q l/a/1 l/a/2 l/b l/c/x/y lx/z"},
			{"nothing/", ""},
		} {
			got, err := s.List(ctx, tc.prefix)
			if err != nil {
				t.Fatalf("List %q: %v", tc.prefix, err)
			}
			var names []string
			for _, o := range got {
				names = append(names, o.Name)
				if o.Size != int64(len(o.Name)) {
					t.Errorf("List %q: %s has size %d, want %d", tc.prefix, o.Name, o.Size, len(o.Name))
				}
			}
			if strings.Join(names, " ") != tc.want {
				t.Errorf("List %q = %q, want %q", tc.prefix, strings.Join(names, " "), tc.want)
			}
		}
	})
	t.Run("delete", func(t *testing.T) {
		if err := s.Delete(ctx, "l/b"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Stat(ctx, "l/b"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Stat after Delete: %v", err)
		}
		Put(t, s, "l/b", []byte("l/b")) // a deleted name is free again (archivectl never reuses one)
	})
	t.Run("wrong size or sum is refused", func(t *testing.T) {
		err := s.Put(ctx, "bad/size", bytes.NewReader(body), int64(len(body))+5, Sum(body))
		if err == nil {
			t.Error("Put with a size larger than the body succeeded")
		}
		if _, err := s.Stat(ctx, "bad/size"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a failed Put left an object: %v", err)
		}
		err = s.Put(ctx, "bad/sum", bytes.NewReader(body), int64(len(body)), Sum(other))
		if err == nil {
			t.Error("Put with the SHA-256 of other bytes succeeded")
		}
		if _, err := s.Stat(ctx, "bad/sum"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a Put with a wrong SHA-256 left an object: %v", err)
		}
	})
}

func trunc(b []byte) string {
	if len(b) > 16 {
		return string(b[:16])
	}
	return string(b)
}
