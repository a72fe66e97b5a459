package main

import (
	"bytes"
	"debug/buildinfo"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	build := func(version string, settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/archivectl/archivectl", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	const rev = "496c6f5a1b2c3d4e5f60718293a4b5c6d7e8f901"
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"checkout, modified", build("(devel)", "vcs", "git", "vcs.revision", rev, "vcs.modified", "true"), "archivectl (devel) commit 496c6f5 (modified)"},
		{"checkout, clean", build("(devel)", "vcs.revision", rev, "vcs.modified", "false"), "archivectl (devel) commit 496c6f5"},
		{"checkout, go 1.24 and later", build("v0.0.0-20261201143138-496c6f5a1b2c+dirty", "vcs.revision", rev, "vcs.modified", "true"),
			"archivectl v0.0.0-20261201143138-496c6f5a1b2c+dirty commit 496c6f5 (modified)"},
		{"tagged checkout", build("v1.2.0", "vcs.revision", rev, "vcs.modified", "false"), "archivectl v1.2.0 commit 496c6f5"},
		{"go install of a release", build("v1.2.0"), "archivectl v1.2.0"},
		{"short revision", build("v1.2.0", "vcs.revision", "abc"), "archivectl v1.2.0 commit abc"},
		{"no module version", build(""), "archivectl (unknown)"},
		{"no build information", nil, "archivectl (unknown)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionLine(tc.info); got != tc.want {
				t.Errorf("versionLine = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestVersionBinary runs archivectl --version and archivectl version on the built binary: each
// prints the line for the build information go build embedded in it.
func TestVersionBinary(t *testing.T) {
	exe := archivectlBinary(t)
	info, err := buildinfo.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if info.Main.Path != "github.com/archivectl/archivectl" || info.Main.Version == "" {
		t.Fatalf("the binary's main module is %s %q", info.Main.Path, info.Main.Version)
	}
	want := versionLine(info) + "\n"
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--version"}, 0},
		{[]string{"version"}, 0},
		{[]string{"version", "extra"}, 2},
		{[]string{"--version", "extra"}, 2},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := runBinary(t, exe, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, stderr)
			}
			if tc.code != 0 {
				if stdout != "" || strings.Count(stderr, "\n") != 1 {
					t.Errorf("stdout %q, stderr %q; want nothing and one line", stdout, stderr)
				}
				return
			}
			if stdout != want || stderr != "" {
				t.Errorf("stdout %q, stderr %q; want %q and nothing", stdout, stderr, want)
			}
		})
	}
}

// TestVersionCommit builds archivectl from a git repository holding a snapshot of this source
// tree plus an uncommitted file, and expects --version to name that repository's commit and
// "(modified)". (A git worktree, whose .git is a file, gets no VCS stamp from go build.)
func TestVersionCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=archivectl test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found: the VCS commit in --version is not checked")
	}
	if err := exec.Command("git", "rev-parse", "--show-toplevel").Run(); err != nil {
		t.Skip("not in a git checkout: the VCS commit in --version is not checked")
	}
	top := git(".", "rev-parse", "--show-toplevel")
	src := filepath.Join(t.TempDir(), "src")
	for _, name := range strings.Split(git(top, "ls-files", "--cached", "--others", "--exclude-standard", "-z"), "\x00") {
		b, err := os.ReadFile(filepath.Join(top, name))
		if errors.Is(err, fs.ErrNotExist) || name == "" {
			continue // deleted but not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(src, "init", "--quiet")
	git(src, "add", "--all")
	git(src, "commit", "--quiet", "--message", "snapshot")
	head := git(src, "rev-parse", "HEAD")
	if err := os.WriteFile(filepath.Join(src, "uncommitted"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "archivectl")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", exe, "./cmd/archivectl")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// go build stamps the main module with a pseudo-version of the commit, "+dirty" when modified.
	want := regexp.MustCompile(`^archivectl v0\.0\.0-\d{14}-` + head[:12] + `\+dirty commit ` + head[:7] + ` \(modified\)\n$`)
	if stdout, stderr, code := runBinary(t, exe, "--version"); code != 0 || !want.MatchString(stdout) {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 and %s", code, stdout, stderr, want)
	}
}

// runBinary runs exe with args and returns its stdout, stderr and exit status.
func runBinary(t *testing.T, exe string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// TestREADMEVersion: each --version line the README shows is what versionLine prints for that
// build: go install of a tag, a build in a clean and in a modified git clone (go 1.24 and later
// stamp a pseudo-version), and -buildvcs=false (no VCS information, "(devel)").
func TestREADMEVersion(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const rev, pseudo = "496c6f5a1b2c3d4e5f60718293a4b5c6d7e8f901", "v0.0.0-20261201143138-496c6f5a1b2c"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
	}{
		{"go install of a tag", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}},
		{"go install of an untagged commit", &debug.BuildInfo{Main: debug.Module{Version: pseudo}}},
		{"go build in a clean clone", &debug.BuildInfo{Main: debug.Module{Version: pseudo}, Settings: vcs("false")}},
		{"go build in a modified clone", &debug.BuildInfo{Main: debug.Module{Version: pseudo + "+dirty"}, Settings: vcs("true")}},
		{"go build -buildvcs=false", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}},
	} {
		if line := versionLine(tc.info); !bytes.Contains(readme, []byte("`"+line+"`")) {
			t.Errorf("%s: the README does not show %q", tc.name, line)
		}
	}
	if bytes.Contains(readme, []byte("(devel) commit")) {
		t.Errorf("the README shows \"(devel) commit\": go 1.24 and later stamp a pseudo-version with the commit")
	}
}
