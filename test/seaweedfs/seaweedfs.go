// Package seaweedfs starts a real SeaweedFS server with its S3 gateway on loopback for tests:
// `weed server -ip=127.0.0.1 -s3` with a data directory of the test's own, test credentials
// (a writer, a read-only identity and one reading a single bucket) and free ports. The binary is the one install.sh builds,
// named by ARCHIVECTL_WEED or found in install.sh's cache; without it a test is skipped, and
// fails when CI=true.
package seaweedfs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/testkit"
)

// Version is the SeaweedFS module version that install.sh pins and builds.
const Version = "v0.0.0-20261109003541-7506e5f91cd6"

// The test identities of every server: a writer (a release node) and a reader (a lookup node).
const (
	WriterKey    = "archivectl-writer"
	WriterSecret = "writer-secret-0a1b2c3d4e5f"
	ReaderKey    = "archivectl-reader"
	ReaderSecret = "reader-secret-6a7b8c9d0e1f"
	// PublicKey may read and list the bucket PublicBucket only: a lookup node's identity in a
	// deployment whose other buckets (hand-offs, sealed files) it must not read.
	PublicKey    = "archivectl-public"
	PublicSecret = "public-secret-2b3c4d5e6f7a"
	PublicBucket = "public"
	Region       = "us-east-1"
)

// Identity is a set of test credentials.
type Identity struct{ Key, Secret string }

// Writer may read, list, write and create buckets; Reader may only read and list; Public may
// only read and list PublicBucket.
var (
	Writer = Identity{WriterKey, WriterSecret}
	Reader = Identity{ReaderKey, ReaderSecret}
	Public = Identity{PublicKey, PublicSecret}
)

// Server is one running SeaweedFS (master, volume, filer and S3 gateway in one process).
type Server struct {
	Endpoint string // http://127.0.0.1:PORT, the S3 gateway
	Log      string // the server's output, for failure messages

	bin, dir, sockDir string
	ports             [4]int // master, volume, filer, s3
	mu                sync.Mutex
	cmd               *exec.Cmd
	done              chan struct{}
}

// Binary returns the weed binary to use: $ARCHIVECTL_WEED, else install.sh's cache for
// Version. ok is false when there is none.
func Binary() (string, bool) {
	if p := os.Getenv("ARCHIVECTL_WEED"); p != "" {
		_, err := os.Stat(p)
		return p, err == nil
	}
	root := os.Getenv("ARCHIVECTL_WEED_CACHE")
	if root == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", false
		}
		root = filepath.Join(cache, "archivectl", "seaweedfs")
	}
	p := filepath.Join(root, Version, "weed")
	_, err := os.Stat(p)
	return p, err == nil
}

// Require returns the weed binary, skipping the test without one (failing it when CI=true).
func Require(t testing.TB) string {
	t.Helper()
	bin, ok := Binary()
	if !ok {
		msg := "no SeaweedFS binary: run test/seaweedfs/install.sh and set ARCHIVECTL_WEED to the path it prints"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// Start starts a server for the test, waits until its S3 gateway stores objects, and stops it
// when the test ends. Buckets are made with CreateBucket.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Require(t)
	sock, err := os.MkdirTemp("", "weed-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sock) })
	s := &Server{bin: bin, dir: t.TempDir(), sockDir: sock}
	if err := s.writeConfig(); err != nil {
		t.Fatal(err)
	}
	var last error
	for attempt := 0; attempt < 4; attempt++ {
		if s.ports, err = freePorts(); err != nil {
			t.Fatal(err)
		}
		s.Endpoint = "http://127.0.0.1:" + strconv.Itoa(s.ports[3])
		if last = s.start(); last == nil {
			if last = s.waitReady(90 * time.Second); last == nil {
				t.Cleanup(func() {
					s.Kill() // its data goes with the test: no need to wait for a clean exit
					s.removeSockets()
				})
				return s
			}
		}
		s.Kill()
		if !strings.Contains(s.output(), "address already in use") {
			break // not a port race: trying other ports would not help
		}
	}
	t.Fatalf("SeaweedFS did not start: %v\n%s", last, tail(s.output(), 40))
	return nil
}

// writeConfig writes the -s3.config file with the test identities.
func (s *Server) writeConfig() error {
	type cred struct {
		AccessKey string `json:"accessKey"`
		SecretKey string `json:"secretKey"`
	}
	type identity struct {
		Name        string   `json:"name"`
		Credentials []cred   `json:"credentials"`
		Actions     []string `json:"actions"`
	}
	b, err := json.Marshal(map[string][]identity{"identities": {
		{"writer", []cred{{WriterKey, WriterSecret}}, []string{"Admin", "Read", "List", "Tagging", "Write"}},
		{"reader", []cred{{ReaderKey, ReaderSecret}}, []string{"Read", "List"}},
		{"public", []cred{{PublicKey, PublicSecret}}, []string{"Read:" + PublicBucket, "List:" + PublicBucket}},
	}})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.dir, "s3.json"), b, 0o600)
}

// start runs weed on s.ports with s.dir as its data directory.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	data := filepath.Join(s.dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	p := s.ports
	cmd := exec.Command(s.bin, "server",
		"-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir="+data,
		"-master.port="+strconv.Itoa(p[0]), "-volume.port="+strconv.Itoa(p[1]),
		"-filer", "-filer.port="+strconv.Itoa(p[2]), "-filer.localSocket="+filepath.Join(s.sockDir, "filer.sock"),
		"-s3", "-s3.port="+strconv.Itoa(p[3]), "-s3.config="+filepath.Join(s.dir, "s3.json"),
		"-s3.localSocket="+filepath.Join(s.sockDir, "s3.sock"),
		"-s3.port.iceberg=0", "-s3.port.lance=0",
		"-master.volumeSizeLimitMB=256", "-volume.max=64", "-volume.preStopSeconds=0",
		// Hashicorp raft: a restarted single master is leader again within a second (the
		// default raft takes about 16 s to elect it).
		"-master.raftHashicorp",
	)
	logf, err := os.OpenFile(filepath.Join(s.dir, "weed.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	s.cmd, s.done = cmd, make(chan struct{})
	go func(done chan struct{}) {
		cmd.Wait()
		logf.Close()
		close(done)
	}(s.done)
	s.Log = filepath.Join(s.dir, "weed.log")
	return nil
}

// waitReady waits until the gateway creates a bucket and stores an object in it.
func (s *Server) waitReady(limit time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var err error
	for ctx.Err() == nil {
		select {
		case <-s.done:
			return errors.New("weed exited")
		default:
		}
		if err = s.probe(ctx); err == nil {
			return nil
		}
		time.Sleep(150 * time.Millisecond)
	}
	return fmt.Errorf("not ready after %s: %w", limit, err)
}

// Restart starts the server again after Stop or Kill, on the same ports and data.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	if err := s.waitReady(90 * time.Second); err != nil {
		t.Fatalf("SeaweedFS did not restart: %v\n%s", err, tail(s.output(), 40))
	}
}

// Stop ends the server with SIGTERM, then SIGKILL after 3 s (weed's own shutdown takes
// longer than that, up to 10 s, on 2 busy cores).
func (s *Server) Stop() { s.signal(syscall.SIGTERM, 3*time.Second) }

// Kill ends the server at once (SIGKILL), as a crash would.
func (s *Server) Kill() { s.signal(syscall.SIGKILL, 0) }

func (s *Server) signal(sig syscall.Signal, grace time.Duration) {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, sig)
	select {
	case <-done:
	case <-time.After(grace):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// removeSockets removes the Unix sockets weed makes in /tmp for its gRPC ports, which a killed
// weed leaves behind.
func (s *Server) removeSockets() {
	for _, p := range s.ports {
		m, _ := filepath.Glob(fmt.Sprintf("/tmp/seaweedfs-*-grpc-%d.sock", p+10000))
		for _, f := range m {
			os.Remove(f)
		}
	}
}

// Env is the AWS environment of a process that uses the server as id: the endpoint, the
// credentials and the region, with every shared file and the instance metadata service
// turned off, so that nothing from the machine's own AWS setup is used or reached.
func (s *Server) Env(id Identity) []string {
	return []string{
		"AWS_ENDPOINT_URL=" + s.Endpoint,
		"AWS_ACCESS_KEY_ID=" + id.Key,
		"AWS_SECRET_ACCESS_KEY=" + id.Secret,
		"AWS_REGION=" + Region,
		"AWS_CONFIG_FILE=" + os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull,
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_PROFILE=",
		"AWS_SESSION_TOKEN=",
	}
}

// Setenv sets Env(id) in this process for the rest of the test (so the test cannot be parallel).
func (s *Server) Setenv(t testing.TB, id Identity) {
	t.Helper()
	for _, kv := range s.Env(id) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

func (s *Server) output() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "weed.log"))
	return string(b)
}

// freePorts picks four loopback ports, each with port+10000 (its gRPC port) free too: from
// 10000 to 21999, so that both stay below the kernel's ephemeral ports (32768 and up), which
// any outgoing connection may take between this check and weed's bind.
func freePorts() ([4]int, error) {
	var ports [4]int
	used := map[int]bool{}
	for i := 0; i < len(ports); {
		p := 10000 + rand.IntN(12000)
		if used[p] || used[p+10000] || used[p-10000] || !free(p) || !free(p+10000) {
			continue
		}
		used[p] = true
		ports[i] = p
		i++
	}
	return ports, nil
}

// free reports whether a loopback port can be bound now.
func free(p int) bool {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// CPU is the processor time (user and system) the server's process has used so far.
func (s *Server) CPU() (time.Duration, error) {
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return 0, errors.New("seaweedfs: not running")
	}
	return testkit.ProcessCPU(cmd.Process.Pid)
}
