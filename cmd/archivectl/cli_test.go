package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/lockfile"
)

// runCmd runs exe with args like runBinary, but kills it after 30 s: a command that should have
// failed at once (serve, demo) must not hang the test when it does not.
func runCmd(t *testing.T, exe string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Errorf("%q still ran after 30 s: killed", args)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// oneLine reports whether s is exactly one line.
func oneLine(s string) bool { return strings.Count(s, "\n") == 1 && strings.HasSuffix(s, "\n") }

// TestDataDirectoryIsAnArchive: serve, release and verify over a path that holds no archive exit
// 1 with one line saying what the path is and what to do, create nothing, and print nothing on
// stdout; serve --init alone starts an archive where there is none.
func TestDataDirectoryIsAnArchive(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	base := t.TempDir()
	file := filepath.Join(base, "afile")
	os.WriteFile(file, []byte("not an archive\n"), 0o644)
	other := filepath.Join(base, "other")
	os.MkdirAll(filepath.Join(other, "photos"), 0o755)
	sealedOnly := filepath.Join(base, "sealed-only")
	os.MkdirAll(filepath.Join(sealedOnly, layout.SealedDir), 0o700)
	dirs := []struct {
		name, path string
		want       map[string]string // command → what stderr says
	}{
		{"missing", filepath.Join(base, "none"), map[string]string{"": "does not exist: no archive; crawl into it first or pass --data",
			"serve": ", or --init to start an empty archive there"}},
		{"file", file, map[string]string{"": "afile is a file, not a data directory; pass --data DIR"}},
		{"empty", "", map[string]string{"": "is an empty directory: no archive; crawl into it first",
			"serve": ", or --init to start an empty archive there"}},
		{"other things", other, map[string]string{"": "holds no archive (no sealed/, index.db, public/)"}},
		{"sealed/ without index.db", sealedOnly, map[string]string{"release": "holds sealed/ but no index.db; rebuild it with archivectl verify --reindex"}},
	}
	for _, d := range dirs {
		for _, cmd := range []string{"serve", "release", "verify"} {
			want := d.want[cmd]
			if want == "" {
				want = d.want[""]
			}
			if want == "" {
				continue
			}
			t.Run(d.name+"/"+cmd, func(t *testing.T) {
				t.Parallel()
				path := d.path
				if path == "" {
					path = t.TempDir()
				}
				args := []string{cmd, "--data", path}
				if cmd == "serve" {
					args = append(args, "--listen", "127.0.0.1:0")
				}
				stdout, stderr, code := runCmd(t, exe, args...)
				if code != 1 || stdout != "" || !oneLine(stderr) || !strings.Contains(stderr, want) {
					t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", code, stdout, stderr, want)
				}
				if d.name == "empty" {
					if entries, _ := os.ReadDir(path); len(entries) != 0 {
						t.Errorf("%s created %d entries in an empty directory", cmd, len(entries))
					}
				}
				if _, err := os.Stat(filepath.Join(base, "none")); err == nil {
					t.Errorf("%s created the missing directory", cmd)
				}
			})
		}
	}
	t.Run("serve --init", func(t *testing.T) {
		t.Parallel()
		data := filepath.Join(t.TempDir(), "new")
		s := startServe(t, exe, "--data", data, "--init")
		if code, _ := s.get(t, "/api/v1/captures?url=https%3A%2F%2Fexample.com%2F", nil); code != http.StatusNotFound {
			t.Errorf("a capture of an empty archive: status %d, want 404", code)
		}
		if code := s.stop(t, syscall.SIGTERM); code != 0 {
			t.Errorf("exit %d; stderr:\n%s", code, s.stderr)
		}
	})
}

// TestReleaseUnitStartsFresh: the release service's ExecStart, run as systemd runs it on a fresh
// machine (an empty StateDirectory, the shipped config), starts and stops cleanly.
func TestReleaseUnitStartsFresh(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	unit, err := os.ReadFile("../../configs/archivectl-release.service")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^ExecStart=/usr/local/bin/archivectl serve (.*)$`).FindSubmatch(unit)
	if m == nil {
		t.Fatal("archivectl-release.service: no ExecStart running archivectl serve")
	}
	state := t.TempDir() // what StateDirectory= makes: empty
	var args []string
	for _, a := range strings.Fields(string(m[1])) {
		switch a {
		case "/var/lib/archivectl":
			a = state
		case "/etc/archivectl/archivectl.yaml":
			a = "../../configs/archivectl.yaml"
		}
		args = append(args, a)
	}
	s := startServe(t, exe, args...)
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("serve %q over an empty StateDirectory: exit %d; stderr:\n%s", args, code, s.stderr)
	}
}

// TestConfigOutOfRange: a value out of range in the config file is exit 2 with one line naming
// the key and its line, whatever the command; one given by a flag names the flag.
func TestConfigOutOfRange(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	tests := []struct {
		name, yaml, want string
	}{
		{"concurrency 0", "crawl:\n  concurrency: 0\n", "line 2: invalid crawl.concurrency 0: must be at least 1"},
		{"negative max_body", "crawl:\n  max_body: -1\n", "line 2: invalid crawl.max_body -1: must be at least 1"},
		{"negative duration", "crawl:\n  max_delay: -30s\n", "line 2: invalid crawl.max_delay -30s: cannot be negative"},
		{"zero timeout", "crawl:\n  timeout: 0s\n", "line 2: invalid crawl.timeout 0s: must be more than 0s"},
		{"negative retries", "crawl:\n  retries: -1\n", "line 2: invalid crawl.retries -1: cannot be negative"},
		{"too many retries", "crawl:\n  retries: 40\n", "line 2: invalid crawl.retries 40: must be at most 10"},
		{"unreachable days", "crawl:\n  robots_unreachable_days: 200000\n", "line 2: invalid crawl.robots_unreachable_days 200000: must be at most 36500"},
		{"digest", "store:\n  digest: md5\n", `line 2: invalid store.digest "md5": not supported: use sha256 or sha1`},
		{"shard size", "release:\n  shard_size: 0\n", "line 2: invalid release.shard_size 0: must be at least 1"},
		{"schedule", "release:\n  schedule: every day\n", `line 2: invalid release.schedule "every day": not a cron spec`},
		{"listen", "serve:\n  listen: nonsense\n", `line 2: invalid serve.listen "nonsense": not HOST:PORT`},
		{"replay url", "serve:\n  replay_url: javascript:alert(1)\n", `line 2: invalid serve.replay_url "javascript:alert(1)": not an absolute http(s) URL`},
		{"user agent", "crawl:\n  user_agent: \"a\\r\\nX: y\"\n", `line 2: invalid crawl.user_agent "a\r\nX: y": holds a control character`},
		{"the first bad line", "serve:\n  listen: x\ncrawl:\n  concurrency: 0\n", "line 2: invalid serve.listen"},
		{"wrong type", "crawl:\n  concurrency: lots\n", `line 2: crawl.concurrency: "lots" is not a whole number`},
		{"unknown key", "crawl: {delai: 1s}\n", "line 1: unknown key crawl.delai (did you mean crawl.delay?)"},
		{"scope", "crawl:\n  scope: planet\n", `line 2: invalid crawl.scope "planet": use origin, host, domain or prefix`},
		{"snapshot", "crawl:\n  browser:\n    snapshot: video\n", `line 3: invalid crawl.browser.snapshot "video": unknown snapshot: use off, dom, screenshot or both`},
		{"sitemaps", "crawl:\n  sitemaps: some\n", `line 2: invalid crawl.sitemaps "some": use robots, all or off`},
		{"exclude", "crawl:\n  exclude: ['ftp://h.example/x']\n", `line 2: invalid crawl.exclude "ftp://h.example/x": "ftp://h.example" is not an http(s) origin`},
		{"resolve", "crawl:\n  resolve:\n    a.test: 10.0.0\n", `line 2: invalid crawl.resolve "a.test: 10.0.0": not an IP address`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := filepath.Join(t.TempDir(), "archivectl.yaml")
			os.WriteFile(cfg, []byte(tc.yaml), 0o644)
			for _, cmd := range []string{"crawl", "release", "serve"} {
				stdout, stderr, code := runCmd(t, exe, cmd, "--config", cfg, "--data", t.TempDir())
				want := "archivectl " + cmd + ": config " + cfg + " " + tc.want
				if code != 2 || stdout != "" || !oneLine(stderr) || !strings.HasPrefix(stderr, want) {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", cmd, code, stdout, stderr, want)
				}
			}
		})
	}
	flags := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--listen", "nonsense"}, `archivectl serve: invalid --listen "nonsense": not HOST:PORT`},
		{[]string{"serve", "--listen", "127.0.0.1:99999"}, `archivectl serve: invalid --listen "127.0.0.1:99999": the port is a number from 0 to 65535`},
		{[]string{"serve", "--check", "nope"}, `archivectl serve: invalid --check "nope": use on, paste or off`},
		{[]string{"serve", "--replay-url", "replayweb.page"}, `archivectl serve: invalid --replay-url "replayweb.page": not an absolute http(s) URL of a ReplayWeb.page instance, nor off`},
		{[]string{"demo", "--listen", "nonsense"}, `archivectl demo: invalid --listen "nonsense"`},
		{[]string{"serve", "--schedule", "@every 1ms"}, `archivectl serve: invalid --schedule "@every 1ms": @every takes whole seconds, at least 1s`},
		{[]string{"serve", "--schedule", "@every 1500ms"}, `archivectl serve: invalid --schedule "@every 1500ms": @every takes whole seconds`},
		{[]string{"demo", "--delay", "-5s"}, "archivectl demo: invalid --delay -5s: cannot be negative"},
		{[]string{"crawl", "--max-pages", "-1", "seeds.txt"}, "archivectl crawl: invalid --max-pages -1: cannot be negative"},
		{[]string{"crawl", "--scope", "planet", "seeds.txt"}, `archivectl crawl: invalid --scope "planet": use origin, host, domain or prefix`},
		{[]string{"crawl", "--include", "/ok/", "--include", "news", "seeds.txt"}, `archivectl crawl: invalid --include "news": start it with / (any origin) or http(s)://host/`},
		{[]string{"crawl", "--sitemaps", "some", "seeds.txt"}, `archivectl crawl: invalid --sitemaps "some": use robots, all or off`},
	}
	for _, tc := range flags {
		data := filepath.Join(t.TempDir(), "data")
		stdout, stderr, code := runCmd(t, exe, append(tc.args, "--data", data)...)
		if code != 2 || stdout != "" || !oneLine(stderr) || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", tc.args, code, stdout, stderr, tc.want)
		}
		if _, err := os.Stat(data); err == nil {
			t.Errorf("%q created the data directory", tc.args)
		}
	}
}

// TestNothingOnStdoutBeforeAnError: a crawl that cannot start prints no summary.
func TestNothingOnStdoutBeforeAnError(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	os.WriteFile(seeds, []byte("http://127.0.0.1:1/\n"), 0o644)

	locked := filepath.Join(dir, "locked")
	os.MkdirAll(locked, 0o755)
	l, err := lockfile.Acquire(layout.SealedLock(locked), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	stdout, stderr, code := runCmd(t, exe, "crawl", "--data", locked, seeds)
	if code != 1 || stdout != "" || !oneLine(stderr) || !strings.Contains(stderr, "is busy") {
		t.Errorf("crawl of a locked store: exit %d, stdout %q, stderr %q; want exit 1, nothing on stdout, one line", code, stdout, stderr)
	}

	cfg := filepath.Join(dir, "md5.yaml")
	os.WriteFile(cfg, []byte("store:\n  digest: md5\n"), 0o644)
	stdout, stderr, code = runCmd(t, exe, "crawl", "--config", cfg, "--data", filepath.Join(dir, "d"), seeds)
	if code != 2 || stdout != "" || !oneLine(stderr) || !strings.Contains(stderr, "store.digest") {
		t.Errorf("crawl with digest md5: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, one line", code, stdout, stderr)
	}
}

// TestDemoCommandLine: demo's help names the command and its own data directory; a busy
// --listen fails at once, before the demo crawls anything.
func TestDemoCommandLine(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	stdout, stderr, code := runCmd(t, exe, "demo", "--help")
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "usage: archivectl demo ") ||
		!strings.Contains(stdout, `data directory (default "./demo-data")`) || strings.Contains(stdout, "archive-data") || strings.Contains(stdout, "Usage of") {
		t.Errorf("demo --help: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	data := filepath.Join(t.TempDir(), "demo")
	start := time.Now()
	stdout, stderr, code = runCmd(t, exe, "demo", "--data", data, "--listen", ln.Addr().String())
	if code != 1 || stdout != "" || !oneLine(stderr) || !strings.Contains(stderr, "cannot listen on "+ln.Addr().String()) {
		t.Errorf("demo on a busy address: exit %d, stdout %q, stderr %q; want exit 1 before any step", code, stdout, stderr)
	}
	if _, err := os.Stat(data); err == nil {
		t.Errorf("demo on a busy address made its data directory (after %s)", time.Since(start))
	}
}

// TestReleaseNowBounds: --now before 1970 is a usage error; far in the future it warns in days.
func TestReleaseNowBounds(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	data := t.TempDir()
	sealReleaseArchive(t, data, 2)
	stdout, stderr, code := runCmd(t, exe, "release", "--data", data, "--now", "0001-01-01T00:00:00Z")
	if code != 2 || stdout != "" || !oneLine(stderr) || !strings.Contains(stderr, "before 1970") {
		t.Errorf("--now in year 1: exit %d, stdout %q, stderr %q; want exit 2", code, stdout, stderr)
	}
	stdout, stderr, code = runCmd(t, exe, "release", "--data", data, "--now", "9999-12-31T00:00:00Z")
	days := regexp.MustCompile(`ahead="(\d+) days"`).FindStringSubmatch(stderr)
	if code != 0 || days == nil || len(days[1]) != 7 || !strings.Contains(stdout, "released:     2") {
		t.Errorf("--now in 9999: exit %d, stdout %q, stderr %q; want a warning that it is some 2.9 million days ahead", code, stdout, stderr)
	}
}

// TestRobotsOnlyHTTP: a non-http(s) URL is a usage error with a robots.txt file at hand too, as a seed.
func TestRobotsOnlyHTTP(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	file := filepath.Join(t.TempDir(), "r.txt")
	os.WriteFile(file, []byte("User-agent: *\nAllow: /\n"), 0o644)
	for _, u := range []string{"ftp://example.com/", "FTP://example.com/x", "gopher://example.com/"} {
		stdout, stderr, code := runCmd(t, exe, "robots", "--robots", file, u)
		if code != 2 || stdout != "" || !oneLine(stderr) || !strings.Contains(stderr, "not an absolute http or https URL") {
			t.Errorf("robots %s: exit %d, stdout %q, stderr %q; want exit 2", u, code, stdout, stderr)
		}
	}
	if stdout, stderr, code := runCmd(t, exe, "robots", "--robots", file, "/a", "HTTPS://example.com/b"); code != 0 || strings.Count(stdout, "\n") != 2 {
		t.Errorf("a path and an https URL: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestCrawlOutcomes: a byte order mark does not spoil the seeds file; a crawl whose every
// robots.txt was unreachable captures nothing and exits 1, its summary counting the errors.
func TestCrawlOutcomes(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	site := func(robots int) string {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path == "/sitemap.xml":
				http.NotFound(w, r) // read by default; missing, it is not archived
			case r.URL.Path != "/robots.txt":
				w.Write([]byte("<html>a page</html>"))
			case robots == http.StatusForbidden: // a robots.txt that disallows everything
				w.Write([]byte("User-agent: *\nDisallow: /\n"))
			default:
				w.WriteHeader(robots)
			}
		}))
		t.Cleanup(s.Close)
		return s.URL + "/"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/"
	ln.Close()
	tests := []struct {
		name, seeds string
		code        int
		stdout      []string
		stderr      string
	}{
		{"byte order mark", "\uFEFF" + site(http.StatusOK) + "\n", 0, []string{"pages        1 ", "errors       none"}, "done"},
		{"no answer", refused + "\n", 1, []string{"pages        0 ", "disallowed   0\n", "errors       robots-unreachable=1\n"},
			"no page was captured: 1 URL(s) failed"},
		{"503", site(http.StatusServiceUnavailable) + "\n", 1, []string{"pages        0 ", "disallowed   1\n", "errors       none"},
			"no page was captured: 1 disallowed because their robots.txt answered 429 or 5xx"},
		{"some reachable", refused + "\n" + site(http.StatusOK) + "\n", 0, []string{"pages        1 ", "errors       robots-unreachable=1\n"}, "done"},
		{"disallowed by robots.txt", site(http.StatusForbidden) + "\n", 0, []string{"pages        0 ", "disallowed   1\n", "errors       none"}, "done"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			seeds := filepath.Join(dir, "seeds.txt")
			os.WriteFile(seeds, []byte(tc.seeds), 0o644)
			stdout, stderr, code := runCmd(t, exe, "crawl", "--data", filepath.Join(dir, "d"), "--delay", "0s", seeds)
			ok := code == tc.code && strings.Contains(stderr, tc.stderr)
			for _, w := range tc.stdout {
				ok = ok && strings.Contains(stdout, w)
			}
			if !ok {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
		})
	}
}

// TestHelpCommand: "archivectl help COMMAND", "archivectl COMMAND --help" and "-h" print the
// command's usage and flags on stdout (so that `archivectl crawl --help | less` shows them) and
// exit 0, nothing on stderr; so do "archivectl help", "-h" and "--help" with the list of commands.
// Bad usage stays on stderr with exit 2: an unknown command or flag, no command at all.
func TestHelpCommand(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	for _, cmd := range []string{"crawl", "release", "serve", "robots", "verify", "reindex-public", "export", "demo", "version"} {
		for _, args := range [][]string{{"help", cmd}, {cmd, "--help"}, {cmd, "-h"}, {cmd, "-help"}} {
			stdout, stderr, code := runCmd(t, exe, args...)
			if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "usage: archivectl "+cmd) || cmd != "version" && !strings.Contains(stdout, "\n  -") {
				t.Errorf("%q: exit %d, stderr %q, stdout:\n%s", args, code, stderr, stdout)
			}
		}
	}
	if stdout, _, _ := runCmd(t, exe, "crawl", "--help"); !strings.Contains(stdout, "130 stopped by SIGINT") || !strings.Contains(stdout, "143 stopped\nby SIGTERM") {
		t.Errorf("crawl --help does not document the exit statuses of a stopped crawl:\n%s", stdout)
	}
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		if stdout, stderr, code := runCmd(t, exe, args...); code != 0 || stderr != "" || !strings.HasPrefix(stdout, "usage: archivectl COMMAND") {
			t.Errorf("%q: exit %d, stderr %q, stdout:\n%s", args, code, stderr, stdout)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage: archivectl COMMAND"},
		{[]string{"help", "nope"}, `unknown command "nope"`},
		{[]string{"nope", "--help"}, `unknown command "nope"`},
		{[]string{"crawl", "--no-such-flag"}, "flag provided but not defined: -no-such-flag"},
		{[]string{"release", "--now", "yesterday"}, "--now"},
	} {
		if stdout, stderr, code := runCmd(t, exe, tc.args...); code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q on stderr", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

// TestDaemonLogsNoNextRelease: a pass after which nothing waits logs next=none, not the zero time.
func TestDaemonLogsNoNextRelease(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	data := t.TempDir()
	sealReleaseArchive(t, data, 1) // one capture, not embargoed: released by the first pass
	s := startServe(t, exe, "--data", data, "--schedule", "@hourly")
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, metrics := s.get(t, "/metrics", nil)
		if strings.Contains(metrics, `archivectl_release_passes_total{result="ok"} 1`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon's first pass did not finish in 20 s")
		}
		time.Sleep(50 * time.Millisecond) // polling a separate process
	}
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit %d", code)
	}
	line := regexp.MustCompile(`(?m)^.*msg="release pass".*$`).FindString(s.stderr.String())
	if !strings.Contains(line, " released=1 ") || !strings.Contains(line, " next=none ") {
		t.Errorf("the pass logged %q; want released=1 and next=none\n%s", line, s.stderr)
	}
}
