package s3store_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/objectstore"
	"github.com/archivectl/archivectl/objectstore/s3store"
	"github.com/archivectl/archivectl/objectstore/storetest"
	"github.com/archivectl/archivectl/test/seaweedfs"
)

// open returns the store for loc with the environment as it is now.
func open(t *testing.T, loc string) *s3store.Store {
	t.Helper()
	l, err := objectstore.ParseLocation(loc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := s3store.Open(context.Background(), l, s3store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestS3 runs every check against one SeaweedFS server (they share it: starting one costs seconds).
func TestS3(t *testing.T) {
	srv := seaweedfs.Start(t)
	srv.CreateBucket(t, "conformance")
	srv.CreateBucket(t, "shared")
	srv.Setenv(t, seaweedfs.Writer)

	t.Run("conformance", func(t *testing.T) {
		storetest.Conformance(t, open(t, "s3://conformance/some/prefix"))
	})
	t.Run("prefixes keep stores apart", func(t *testing.T) {
		a, b := open(t, "s3://shared/a"), open(t, "s3://shared/ab")
		storetest.Put(t, a, "x", []byte("in a"))
		storetest.Put(t, b, "x", []byte("in ab"))
		if got := storetest.ReadAll(t, a, "x", 0, -1); string(got) != "in a" {
			t.Errorf("a/x = %q", got)
		}
		list, err := a.List(t.Context(), "")
		if err != nil || len(list) != 1 || list[0].Name != "x" {
			t.Errorf("List of a = %v, %v; want x alone", list, err)
		}
		whole := open(t, "s3://shared")
		list, err = whole.List(t.Context(), "")
		if err != nil || len(list) != 2 || list[0].Name != "a/x" || list[1].Name != "ab/x" {
			t.Errorf("List of the bucket = %v, %v", list, err)
		}
	})
	t.Run("faults give one clear line", func(t *testing.T) {
		storetest.Put(t, open(t, "s3://shared/ro"), "obj", []byte("readable"))
		dead := deadEndpoint(t)
		tests := []struct {
			name  string
			env   map[string]string
			loc   string
			write bool
			want  string
		}{
			{"read-only identity cannot write", map[string]string{"AWS_ACCESS_KEY_ID": seaweedfs.ReaderKey, "AWS_SECRET_ACCESS_KEY": seaweedfs.ReaderSecret}, "s3://shared/ro", true, "access denied"},
			{"wrong secret", map[string]string{"AWS_SECRET_ACCESS_KEY": "not-the-secret"}, "s3://shared/ro", false, "the credentials were refused"},
			{"unknown key", map[string]string{"AWS_ACCESS_KEY_ID": "nobody"}, "s3://shared/ro", false, "the credentials were refused"},
			{"missing bucket", nil, "s3://no-such-bucket/p", false, "bucket no-such-bucket does not exist"},
			{"unreachable endpoint", map[string]string{"AWS_ENDPOINT_URL": dead}, "s3://shared/ro", false, "cannot reach the endpoint " + dead},
			{"no credentials", map[string]string{"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""}, "s3://shared/ro", false, "no AWS credentials"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				for k, v := range tc.env {
					t.Setenv(k, v)
				}
				s := open(t, tc.loc)
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				defer cancel()
				var err error
				if tc.write {
					b := []byte("x")
					err = s.Put(ctx, "new", bytes.NewReader(b), 1, storetest.Sum(b))
				} else {
					err = s.Check(ctx)
				}
				if err == nil {
					t.Fatal("no error")
				}
				msg := err.Error()
				if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
					t.Errorf("error %q: want one line saying %q", msg, tc.want)
				}
				for _, secret := range []string{seaweedfs.WriterSecret, seaweedfs.ReaderSecret, "not-the-secret"} {
					if strings.Contains(msg, secret) {
						t.Errorf("error %q holds a secret", msg)
					}
				}
				var se *s3store.Error
				if !errors.As(err, &se) {
					t.Errorf("error %T is no *s3store.Error", err)
				}
			})
		}
	})
	t.Run("reader reads", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", seaweedfs.ReaderKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", seaweedfs.ReaderSecret)
		s := open(t, "s3://shared/ro")
		if err := s.Check(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := storetest.ReadAll(t, s, "obj", 2, 4); string(got) != "adab" {
			t.Errorf("ranged read = %q", got)
		}
	})
}

func TestOpenNeedsARegionWithoutEndpoint(t *testing.T) {
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	l, _ := objectstore.ParseLocation("s3://bucket/p")
	_, err := s3store.Open(t.Context(), l, s3store.Options{})
	if err == nil || !strings.Contains(err.Error(), "set AWS_REGION") {
		t.Fatalf("Open without a region: %v", err)
	}
}

// TestProfileEndpointOverEnvironment: a store given a profile takes the profile's endpoint, not
// the environment's AWS_ENDPOINT_URL (set for another store, the public one).
func TestProfileEndpointOverEnvironment(t *testing.T) {
	env, profile := deadEndpoint(t), deadEndpoint(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config")
	os.WriteFile(conf, []byte("[profile sealed]\nendpoint_url = "+profile+"\nregion = eu-west-3\n"), 0o600)
	creds := filepath.Join(dir, "credentials")
	os.WriteFile(creds, []byte("[sealed]\naws_access_key_id = a\naws_secret_access_key = b\n"), 0o600)
	t.Setenv("AWS_ENDPOINT_URL", env)
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", conf)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", creds)
	l, _ := objectstore.ParseLocation("s3://sealed/node")
	s, err := s3store.Open(t.Context(), l, s3store.Options{Profile: "sealed", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(t.Context()); err == nil || !strings.Contains(err.Error(), profile) {
		t.Errorf("Check: %v, want the profile's endpoint %s named (the environment's is %s)", err, profile, env)
	}
}

// deadEndpoint is a loopback URL where nothing listens.
func deadEndpoint(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}
