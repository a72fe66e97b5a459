package configs_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// units are the systemd units shipped here; services lists those that run archivectl.
var (
	units    = []string{"archivectl-release.service", "archivectl-crawl.service", "archivectl-crawl.timer", "archivectl-lookup.service"}
	services = []string{"archivectl-release.service", "archivectl-crawl.service", "archivectl-lookup.service"}
)

// dropIn is the crawl node's drop-in for archivectl-release.service (its [Service] lines are
// appended to that unit to check them).
const dropIn = "archivectl-s3.conf"

// withDropIn is archivectl-release.service with the drop-in applied.
func withDropIn(t *testing.T) string {
	t.Helper()
	text := readUnit(t, dropIn)
	_, section, ok := strings.Cut(text, "[Service]\n")
	if !ok {
		t.Fatalf("%s has no [Service] section", dropIn)
	}
	unit := readUnit(t, "archivectl-release.service")
	i := strings.Index(unit, "\n[Install]")
	return unit[:i] + "\n" + section + unit[i:]
}

const (
	installedBinary = "/usr/local/bin/archivectl" // where README.md's Install section puts the binary
	maxExposure     = 2.5                         // the highest score systemd-analyze security rates "OK"
)

// unsandboxed is a service with no hardening at all: systemd-analyze must rate it far above
// maxExposure, or the security check below could not fail.
const unsandboxed = "[Service]\nExecStart=/bin/true\n"

// systemdTool returns the path of a systemd command-line tool, skipping the test where it
// is absent or older than systemd 250 (the first with security --offline).
func systemdTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not found, so the systemd units are not checked: apt-get install systemd (it need not run as init)", name)
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		t.Skipf("%s --version cannot run here (%v), so the systemd units are not checked", name, err)
	}
	m := regexp.MustCompile(`^systemd (\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("%s --version: no systemd version in %q", name, out)
	}
	if v, _ := strconv.Atoi(string(m[1])); v < 250 {
		t.Skipf("%s is systemd %d; checking the units offline needs systemd 250 or newer", name, v)
	}
	return path
}

// readUnit returns a shipped unit file.
func readUnit(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// verify runs systemd-analyze verify on the files and returns what it printed: it warns about
// unknown keys and bad values but still exits 0, so anything printed is a finding.
func verify(t *testing.T, analyze string, files []string) (string, error) {
	t.Helper()
	out, err := exec.Command(analyze, append([]string{"verify", "--no-pager"}, files...)...).CombinedOutput()
	return string(bytes.TrimSpace(out)), err
}

// TestUnitsVerify runs systemd-analyze verify on copies of the units whose ExecStart names an
// executable that exists here (verify checks that it does) instead of /usr/local/bin/archivectl.
func TestUnitsVerify(t *testing.T) {
	analyze := systemdTool(t, "systemd-analyze")
	standIn, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		extra  string // appended to archivectl-crawl.timer
		wantOK bool
	}{
		{name: "shipped units", wantOK: true},
		{name: "control: an unknown key is reported", extra: "\nNoSuchKey=1\n", wantOK: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var files []string
			for _, name := range units {
				text := readUnit(t, name)
				if strings.HasSuffix(name, ".service") {
					if !strings.Contains(text, "\nExecStart="+installedBinary+" ") {
						t.Fatalf("%s: ExecStart does not start %s", name, installedBinary)
					}
					text = strings.ReplaceAll(text, installedBinary, standIn)
				} else {
					text += tc.extra
				}
				path := filepath.Join(dir, name)
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				files = append(files, path)
			}
			// The release daemon with the crawl node's drop-in, under a name of its own.
			withS3 := filepath.Join(dir, "archivectl-release-s3.service")
			if err := os.WriteFile(withS3, []byte(strings.ReplaceAll(withDropIn(t), installedBinary, standIn)), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, withS3)
			out, err := verify(t, analyze, files)
			if ok := err == nil && out == ""; ok != tc.wantOK {
				t.Errorf("systemd-analyze verify: ok %v, want %v (err %v)\n%s", ok, tc.wantOK, err, out)
			}
		})
	}
}

// overall is the summary line of systemd-analyze security.
var overall = regexp.MustCompile(`Overall exposure level for (\S+): (\d+\.\d+) (\S+)`)

// exposure runs systemd-analyze security --offline on a unit file and returns its overall exposure.
func exposure(t *testing.T, analyze, path string) (float64, string) {
	t.Helper()
	out, err := exec.Command(analyze, "security", "--offline=true", "--no-pager", path).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security %s: %v\n%s", path, err, out)
	}
	m := overall.FindSubmatch(out)
	if m == nil {
		t.Fatalf("systemd-analyze security %s: no overall exposure level in\n%s", path, out)
	}
	score, err := strconv.ParseFloat(string(m[2]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return score, string(out)
}

// TestUnitsSecurity requires every service to be rated OK (exposure ≤ 2.5) by systemd-analyze security.
func TestUnitsSecurity(t *testing.T) {
	analyze := systemdTool(t, "systemd-analyze")
	control := filepath.Join(t.TempDir(), "unsandboxed.service")
	if err := os.WriteFile(control, []byte(unsandboxed), 0o644); err != nil {
		t.Fatal(err)
	}
	withS3 := filepath.Join(t.TempDir(), "archivectl-release-s3.service")
	if err := os.WriteFile(withS3, []byte(withDropIn(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path   string
		wantOK bool
	}{
		{path: services[0], wantOK: true},
		{path: services[1], wantOK: true},
		{path: services[2], wantOK: true},
		{path: withS3, wantOK: true},
		{path: control, wantOK: false},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			score, out := exposure(t, analyze, tc.path)
			t.Logf("%s: exposure %.1f", filepath.Base(tc.path), score)
			switch ok := score <= maxExposure; {
			case tc.wantOK && !ok:
				t.Errorf("exposure %.1f is above %.1f; the findings:\n%s", score, maxExposure, out)
			case !tc.wantOK && ok:
				t.Errorf("a service with no sandbox rated %.1f, not above %.1f: this check cannot fail", score, maxExposure)
			}
		})
	}
}

// TestUnitsAgree checks that the services and the sysusers file name one user, one data
// directory (the StateDirectory) and the config file that README.md installs.
func TestUnitsAgree(t *testing.T) {
	for _, name := range services {
		t.Run(name, func(t *testing.T) {
			text := readUnit(t, name)
			for _, want := range []string{
				"\nUser=archivectl\n",
				"\nStateDirectory=archivectl\n",
				"\nWorkingDirectory=/var/lib/archivectl\n",
				" --config /etc/archivectl/archivectl.yaml ",
				" --data /var/lib/archivectl ",
				"\nWants=network-online.target\n",
				"\nAfter=network-online.target\n",
			} {
				// An argument may also end the command line.
				if !strings.Contains(text, want) && !(strings.HasPrefix(want, " --") && strings.Contains(text, strings.TrimSuffix(want, " ")+"\n")) {
					t.Errorf("%s lacks %q", name, strings.TrimSpace(want))
				}
			}
		})
	}
	sysusers := readUnit(t, "archivectl.sysusers")
	if !regexp.MustCompile(`(?m)^u archivectl - "[^"]*" /var/lib/archivectl /usr/sbin/nologin$`).MatchString(sysusers) {
		t.Errorf("archivectl.sysusers does not declare the archivectl user with home /var/lib/archivectl:\n%s", sysusers)
	}
}

// TestCrawlUnitStopStatus: the crawl unit counts as success the exit statuses of a crawl stopped
// by a signal (128 + its number: 143 for its KillSignal, SIGTERM, and 130 for SIGINT), and never
// 1, the status of a failed crawl (cmd/archivectl/main.go, interruptedStatus).
func TestCrawlUnitStopStatus(t *testing.T) {
	text := readUnit(t, "archivectl-crawl.service")
	if !strings.Contains(text, "\nKillSignal=SIGTERM\n") {
		t.Fatalf("archivectl-crawl.service stops the crawl with another signal than SIGTERM")
	}
	m := regexp.MustCompile(`(?m)^SuccessExitStatus=(.*)$`).FindAllStringSubmatch(text, -1)
	if len(m) != 1 {
		t.Fatalf("archivectl-crawl.service has %d SuccessExitStatus= lines, want 1", len(m))
	}
	codes := strings.Fields(m[0][1])
	if !slices.Equal(codes, []string{"130", "143"}) {
		t.Errorf("SuccessExitStatus=%s, want 130 143 (SIGINT, SIGTERM), and not 1 (a failed crawl)", m[0][1])
	}
}

// TestSysusers creates the archivectl user from archivectl.sysusers in an empty root.
func TestSysusers(t *testing.T) {
	sysusers := systemdTool(t, "systemd-sysusers")
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("archivectl.sysusers")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(sysusers, "--root="+root, "-")
	cmd.Stdin = f
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("systemd-sysusers: %v\n%s", err, out)
	}
	passwd, err := os.ReadFile(filepath.Join(root, "etc", "passwd"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^archivectl:x:\d+:\d+:[^:]*:/var/lib/archivectl:/usr/sbin/nologin$`).Match(passwd) {
		t.Errorf("systemd-sysusers wrote no archivectl system user:\n%s", passwd)
	}
}
