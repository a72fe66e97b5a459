package seaweedfs

import (
	"bytes"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// TestPinMatchesInstall keeps Version and install.sh's pin the same.
func TestPinMatchesInstall(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("install.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^version=(\S+)$`).FindSubmatch(b)
	if m == nil || string(m[1]) != Version {
		t.Fatalf("install.sh pins %q, the harness %q", m, Version)
	}
}

func TestFreePorts(t *testing.T) {
	t.Parallel()
	for range 20 {
		ports, err := freePorts()
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for _, p := range ports {
			if p < 10000 || p+10000 >= 32768 {
				t.Fatalf("port %d: want 10000 ≤ p and p + 10000 below the ephemeral ports", p)
			}
			if seen[p] || seen[p+10000] || seen[p-10000] {
				t.Fatalf("ports %v overlap with their gRPC ports", ports)
			}
			seen[p] = true
		}
	}
}

// TestServer starts a server and checks what the other tests rely on: the three identities,
// conditional writes, a restart that keeps the data, and how long starting and stopping take.
func TestServer(t *testing.T) {
	start := time.Now()
	s := Start(t)
	t.Logf("started in %s on %s", time.Since(start).Round(time.Millisecond), s.Endpoint)
	for _, p := range s.ports {
		if p >= 55535 {
			t.Errorf("port %d is not below 55535", p)
		}
	}
	s.CreateBucket(t, "tbucket")
	w, r := s.Client(Writer), s.Client(Reader)
	put := func(c *s3.Client, key, body string, ifNoneMatch bool) error {
		in := &s3.PutObjectInput{Bucket: aws.String("tbucket"), Key: aws.String(key), Body: strings.NewReader(body)}
		if ifNoneMatch {
			in.IfNoneMatch = aws.String("*")
		}
		_, err := c.PutObject(t.Context(), in)
		return err
	}
	if err := put(w, "k", "one", true); err != nil {
		t.Fatalf("writer put: %v", err)
	}
	if err := put(w, "k", "two", true); Status(err) != http.StatusPreconditionFailed {
		t.Fatalf("second put with If-None-Match: * gave %v, want 412 Precondition Failed", err)
	}
	if err := put(r, "k2", "x", false); Status(err) != http.StatusForbidden {
		t.Fatalf("reader put gave %v, want 403", err)
	}
	get := func() string {
		out, err := r.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String("tbucket"), Key: aws.String("k")})
		if err != nil {
			t.Fatalf("reader get: %v", err)
		}
		defer out.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(out.Body)
		return b.String()
	}
	if got := get(); got != "one" {
		t.Fatalf("k = %q, want the first put's one", got)
	}
	// The identity of one bucket reads and lists it, and nothing of another.
	s.CreateBucket(t, PublicBucket)
	if _, err := w.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String(PublicBucket), Key: aws.String("p"), Body: strings.NewReader("pub")}); err != nil {
		t.Fatalf("writer put into %s: %v", PublicBucket, err)
	}
	p := s.Client(Public)
	if _, err := p.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(PublicBucket), Key: aws.String("p")}); err != nil {
		t.Fatalf("public identity get from %s: %v", PublicBucket, err)
	}
	if _, err := p.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String(PublicBucket)}); err != nil {
		t.Fatalf("public identity list of %s: %v", PublicBucket, err)
	}
	if _, err := p.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String("tbucket"), Key: aws.String("k")}); Status(err) != http.StatusForbidden {
		t.Fatalf("public identity get from tbucket gave %v, want 403", err)
	}
	if _, err := p.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String("tbucket")}); Status(err) != http.StatusForbidden {
		t.Fatalf("public identity list of tbucket gave %v, want 403", err)
	}

	stop := time.Now()
	s.Stop()
	t.Logf("stopped in %s", time.Since(stop).Round(time.Millisecond))
	if err := put(w, "k3", "x", false); err == nil {
		t.Fatal("a stopped server answered")
	}
	restart := time.Now()
	s.Restart(t)
	t.Logf("restarted in %s", time.Since(restart).Round(time.Millisecond))
	if got := get(); got != "one" {
		t.Fatalf("after a restart k = %q, want one", got)
	}
}
