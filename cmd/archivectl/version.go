package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
)

// runVersion prints the module version and the VCS commit the binary was built from.
func runVersion(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	_, pos, code, ok := cli{name: "version", usage: "usage: archivectl version (or archivectl --version)\n"}.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "archivectl version: unexpected argument %q; see archivectl version -h\n", pos[0])
		return 2
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(info))
	return 0
}

// versionLine describes a build: "archivectl v1.2.0" (go install), "archivectl (devel) commit 496c6f5
// (modified)" (a checkout; Go 1.24+ puts a pseudo-version in place of "(devel)" when it stamps the
// commit); info is nil when the binary has no build information.
func versionLine(info *debug.BuildInfo) string {
	if info == nil || info.Main.Version == "" {
		return "archivectl (unknown)"
	}
	line := "archivectl " + info.Main.Version
	var revision string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if revision == "" {
		return line
	}
	if len(revision) > 7 {
		revision = revision[:7]
	}
	line += " commit " + revision
	if modified {
		line += " (modified)"
	}
	return line
}
