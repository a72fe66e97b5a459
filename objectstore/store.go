// Package objectstore is where the public side of an archive is kept when it is shared beyond
// one machine: an object store with create-once names. Store has two implementations: Dir, a
// directory (a local disk or a shared file system), and the S3 one in package s3store (AWS,
// SeaweedFS, Ceph RGW, MinIO, ...). Objects are written once under names that are never
// reused and read by byte ranges; nothing is renamed or rewritten, which is all an object
// store offers.
//
// Location parses the `public:` setting (`--public`) that selects the store: empty for the
// data directory's own public/ (the default, laid out as package public describes), an
// s3://BUCKET/PREFIX URL, or a file:///DIR URL.
package objectstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/archivectl/archivectl/internal/invalid"
)

// Store is an object store with create-once names. Names are slash-separated paths relative to
// the store's root (fs.ValidPath). Errors for a missing object wrap fs.ErrNotExist.
type Store interface {
	// Put stores the size bytes of body under name with their SHA-256 (hex), only if name is
	// free. When name already holds an object of that size and SHA-256 (an earlier Put that
	// was not acknowledged) Put succeeds without writing; any other object there gives an error
	// wrapping ErrExists. body may be read more than once (for signing, then retries).
	Put(ctx context.Context, name string, body io.ReadSeeker, size int64, sha256 string) error
	// Read returns n bytes of name from offset off; n < 0 reads to the end.
	Read(ctx context.Context, name string, off, n int64) (io.ReadCloser, error)
	// Stat returns name's object.
	Stat(ctx context.Context, name string) (Object, error)
	// List returns the objects whose names start with prefix, in name order.
	List(ctx context.Context, prefix string) ([]Object, error)
	// Delete removes name; a missing name is no error.
	Delete(ctx context.Context, name string) error
	// Check tells whether the store can be reached and read, as one clear error.
	Check(ctx context.Context) error
	// String names the store for messages (never with credentials).
	String() string
}

// Object is one stored object.
type Object struct {
	Name string // relative to the store's root
	Size int64
}

// ErrExists is wrapped by Put when the name holds other bytes.
var ErrExists = errors.New("an object with other content already has this name")

// Kind is which store a Location selects.
type Kind int

// The kinds of Location.
const (
	Local Kind = iota // the data directory's public/ (the default)
	S3                // an S3 bucket
	File              // a directory given by a file:// URL
)

// Location is a parsed `public:` setting.
type Location struct {
	Kind   Kind
	Bucket string // S3: the bucket
	Prefix string // S3: the key prefix, without leading or trailing slash ("" for the whole bucket)
	Dir    string // File: the absolute directory
	raw    string
}

// String is the setting as given (for S3, s3://BUCKET/PREFIX).
func (l Location) String() string {
	if l.Kind == Local {
		return "the data directory's public/"
	}
	return l.raw
}

// bucketName is an S3 bucket name as AWS allows new ones: 3-63 lower-case letters, digits,
// dots and hyphens, starting and ending with a letter or digit.
var bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// ParseLocation parses the `public:` setting: "" (the data directory's public/),
// s3://BUCKET[/PREFIX] or file:///ABSOLUTE/DIR.
func ParseLocation(s string) (Location, error) {
	if s == "" {
		return Location{Kind: Local}, nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return Location{}, &invalid.Value{What: "public", Value: s, Reason: "not a URL: give s3://BUCKET/PREFIX or file:///DIR"}
	}
	switch u.Scheme {
	case "s3":
		if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Port() != "" {
			return Location{}, &invalid.Value{What: "public", Value: s, Reason: "an s3 URL is s3://BUCKET/PREFIX alone; credentials, region and endpoint come from the AWS environment and files"}
		}
		if !bucketName.MatchString(u.Host) || strings.Contains(u.Host, "..") {
			return Location{}, &invalid.Value{What: "public", Value: s, Reason: fmt.Sprintf("%q is not a bucket name (3-63 lower-case letters, digits, '.' and '-')", u.Host)}
		}
		prefix := strings.Trim(u.Path, "/")
		if prefix != "" && !fs.ValidPath(prefix) {
			return Location{}, &invalid.Value{What: "public", Value: s, Reason: fmt.Sprintf("the prefix %q has an empty, '.' or '..' segment", prefix)}
		}
		raw := "s3://" + u.Host
		if prefix != "" {
			raw += "/" + prefix
		}
		return Location{Kind: S3, Bucket: u.Host, Prefix: prefix, raw: raw}, nil
	case "file":
		if u.Host != "" && u.Host != "localhost" || !path.IsAbs(u.Path) || u.RawQuery != "" {
			return Location{}, &invalid.Value{What: "public", Value: s, Reason: "a file URL is file:///ABSOLUTE/DIR"}
		}
		dir := path.Clean(u.Path)
		return Location{Kind: File, Dir: dir, raw: "file://" + dir}, nil
	}
	return Location{}, &invalid.Value{What: "public", Value: s, Reason: "give s3://BUCKET/PREFIX, file:///DIR, or nothing for the data directory's public/"}
}

// validName checks an object name given to a Store.
func validName(name string) error {
	if !fs.ValidPath(name) || name == "." {
		return fmt.Errorf("%q is not an object name", name)
	}
	return nil
}

// Sum is the size and the hex SHA-256 of what r holds: the checksum Put takes and a store checks.
func Sum(r io.Reader) (int64, string, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	return n, hex.EncodeToString(h.Sum(nil)), err
}
