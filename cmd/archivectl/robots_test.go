package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// robotsLine is the part of an output line the tests check.
type robotsLine struct {
	URL          string            `json:"url"`
	Allowed      bool              `json:"allowed"`
	EmbargoDays  *int              `json:"embargo_days"`
	ContentUsage []string          `json:"content_usage"`
	Usage        map[string]string `json:"usage"`
	Rule         struct {
		Line    int    `json:"line"`
		Kind    string `json:"kind"`
		Pattern string `json:"pattern"`
	} `json:"rule"`
	CrawlDelay *float64 `json:"crawl_delay"`
	Robots     struct {
		Availability string `json:"availability"`
		Status       int    `json:"status"`
	} `json:"robots"`
}

// decodeRobotsLines parses the command's output, one JSON object a line.
func decodeRobotsLines(t *testing.T, out string) []robotsLine {
	t.Helper()
	var lines []robotsLine
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var r robotsLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("output line %q is not JSON: %v", l, err)
		}
		lines = append(lines, r)
	}
	return lines
}

// robotsDays renders embargo_days: "-" for null.
func robotsDays(d *int) string {
	if d == nil {
		return "-"
	}
	return fmt.Sprint(*d)
}

// summary renders a line as "allowed days [content_usage] train-ai line:kind"; n/a when not allowed.
func (r robotsLine) summary() string {
	usage := "n/a"
	if r.Usage != nil {
		usage = r.Usage["train-ai"]
	}
	return fmt.Sprintf("%v %s %q %s %d:%s", r.Allowed, robotsDays(r.EmbargoDays), r.ContentUsage, usage, r.Rule.Line, r.Rule.Kind)
}

const robotsE2 = "User-Agent: *\nArchive-Embargo: m\nEmbargo-Allow: /news\nDisallow: /\nContent-Usage: train-ai=n\nCrawl-delay: 2.5\n"

func TestRobotsCommandFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "robots.txt")
	if err := os.WriteFile(file, []byte(robotsE2), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  []string // summaries, one per URL
	}{
		{"embargo-allow path", []string{"--agent", "archivectl", "--robots", file, "https://a.example/news/x"}, "", []string{`true 31 ["train-ai=n"] disallow 3:embargo-allow`}},
		{"disallowed path", []string{"--agent", "archivectl", "--robots", file, "https://a.example/about"}, "", []string{`false - [] n/a 4:disallow`}},
		{"robots.txt implicit", []string{"--agent", "archivectl", "--robots", file, "https://a.example/robots.txt"}, "", []string{`true - [] unknown 0:implicit`}},
		{"several URLs in order, flags after", []string{"https://a.example/news", "/about", "--agent", "archivectl", "--robots", file}, "", []string{`true 31 ["train-ai=n"] disallow 3:embargo-allow`, `false - [] n/a 4:disallow`}},
		{"stdin", []string{"--agent", "ExampleBot", "--robots", "-", "https://a.example/x"}, "User-agent: ExampleBot\nDisallow: /x\n", []string{`false - [] n/a 2:disallow`}},
		{"odd URLs taken as written", []string{"--robots", "-", "https://a.example/100%", "https://u:p@a.example", "HTTPS://A.example:443?q", "https://a.example/p#frag"},
			"User-agent: *\nDisallow: /100%\nDisallow: /$\nDisallow: /?q\nDisallow: /p$\n",
			[]string{`false - [] n/a 2:disallow`, `false - [] n/a 3:disallow`, `false - [] n/a 4:disallow`, `false - [] n/a 5:disallow`}},
		{"default agent from config", []string{"--robots", "-", "https://a.example/x"}, "User-agent: archivectl\nDisallow: /x\n", []string{`false - [] n/a 2:disallow`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := runRobots(context.Background(), tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr.String())
			}
			lines := decodeRobotsLines(t, stdout.String())
			if len(lines) != len(tc.want) {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), len(tc.want), stdout.String())
			}
			for i, l := range lines {
				if got := l.summary(); got != tc.want[i] {
					t.Errorf("line %d = %s, want %s", i, got, tc.want[i])
				}
			}
		})
	}
}

func TestRobotsCommandBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"invalid agent", []string{"--agent", "bot/1.0", "--robots", "-", "https://a.example/"}, "invalid --agent"},
		{"empty agent", []string{"--agent", "", "--robots", "-", "https://a.example/"}, "invalid --agent"},
		{"unreadable file", []string{"--robots", "/nonexistent/robots.txt", "https://a.example/"}, "cannot read robots.txt file"},
		{"directory as file", []string{"--robots", os.TempDir(), "https://a.example/"}, "is a directory"},
		{"invalid URL", []string{"--robots", "-", "http://a b/"}, "invalid URL"},
		{"relative URL without a file", []string{"/x"}, "not absolute"},
		{"no host", []string{"https:///x"}, "no host"},
		{"opaque URL", []string{"--robots", "-", "mailto:a@b.example"}, "not absolute"},
		{"unfetchable scheme", []string{"ftp://a.example/x"}, "only http and https"},
		{"no URL", []string{"--robots", "-"}, "no URL given"},
		{"unknown flag", []string{"--nope", "https://a.example/"}, "flag provided but not defined: -nope; run"},
		{"flag without value", []string{"https://a.example/", "--agent"}, "flag needs an argument"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := runRobots(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tc.msg) || stdout.Len() != 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout.String(), stderr.String(), tc.msg)
			}
			if strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
				t.Errorf("stderr is not one line: %q", stderr.String())
			}
		})
	}
}

func TestRobotsBinary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := archivectlBinary(t)
	file := filepath.Join(dir, "robots.txt")
	if err := os.WriteFile(file, []byte(robotsE2), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var requests []string
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.Header.Get("User-Agent"))
		mu.Unlock()
		fmt.Fprint(w, "User-agent: *\nDisallow: /private\nContent-Usage: /ai/ train-ai=y\n")
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	defer gone.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	defer down.Close()

	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
		want  []string
	}{
		{"file", []string{"robots", "--agent", "archivectl", "--robots", file, "https://a.example/news/1", "https://a.example/x"}, "", 0,
			[]string{`true 31 ["train-ai=n"] disallow 3:embargo-allow`, `false - [] n/a 4:disallow`}},
		{"stdin", []string{"robots", "--agent", "archivectl", "--robots", "-", "https://a.example/x"}, "User-agent: *\nDisallow: /x\n", 0,
			[]string{`false - [] n/a 2:disallow`}},
		{"fetched from the origin", []string{"robots", "--agent", "archivectl", site.URL + "/private/a", site.URL + "/ai/b"}, "", 0,
			[]string{`false - [] n/a 2:disallow`, `true - ["train-ai=y"] allow 0:implicit`}},
		{"404 allows all", []string{"robots", "--agent", "archivectl", gone.URL + "/x"}, "", 0, []string{`true - [] unknown 0:unavailable`}},
		{"503 disallows all", []string{"robots", "--agent", "archivectl", down.URL + "/x"}, "", 0, []string{`false - [] n/a 0:unreachable`}},
		{"bad agent", []string{"robots", "--agent", "x1", "--robots", file, "https://a.example/"}, "", 2, nil},
		{"bad URL", []string{"robots", "--robots", file, "::"}, "", 2, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(exe, tc.args...)
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(tc.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Fatalf("exit %d (%v), want %d; stderr %q", code, err, tc.code, stderr.String())
			}
			if tc.code != 0 {
				if lines := strings.Count(stderr.String(), "\n"); lines != 1 {
					t.Errorf("stderr has %d lines, want one: %q", lines, stderr.String())
				}
				return
			}
			lines := decodeRobotsLines(t, stdout.String())
			if len(lines) != len(tc.want) {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), len(tc.want), stdout.String())
			}
			for i, l := range lines {
				if got := l.summary(); got != tc.want[i] {
					t.Errorf("line %d = %s, want %s", i, got, tc.want[i])
				}
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(requests) != 1 || !strings.Contains(requests[0], "archivectl") {
		t.Errorf("robots.txt requests with User-Agent %q; want one, naming archivectl", requests)
	}
}

// TestRobotsCommandSpec runs every case T1–T121 of docs/rules.md#conformance-evaluation through the command.
func TestRobotsCommandSpec(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../crawler/robots/testdata/spec_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		ID           string   `json:"id"`
		Robots       string   `json:"robots"`
		Agent        string   `json:"agent"`
		Path         string   `json:"path"`
		Allowed      bool     `json:"allowed"`
		EmbargoDays  *int     `json:"embargo_days"`
		ContentUsage []string `json:"content_usage"`
		Usage        string   `json:"usage"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pad := "# " + strings.Repeat("x", 512000) + "\n"
	for i, tc := range cases {
		file := filepath.Join(dir, fmt.Sprintf("robots%d.txt", i))
		if err := os.WriteFile(file, []byte(strings.ReplaceAll(tc.Robots, "{PAD}", pad)), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(tc.ID, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			args := []string{"--agent", tc.Agent, "--robots", file, "https://example.com" + tc.Path}
			if code := runRobots(context.Background(), args, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			lines := decodeRobotsLines(t, stdout.String())
			if len(lines) != 1 {
				t.Fatalf("%d lines, want 1", len(lines))
			}
			got := lines[0]
			if got.Allowed != tc.Allowed || robotsDays(got.EmbargoDays) != robotsDays(tc.EmbargoDays) {
				t.Errorf("allowed %v embargo %s, want %v %s", got.Allowed, robotsDays(got.EmbargoDays), tc.Allowed, robotsDays(tc.EmbargoDays))
			}
			if fmt.Sprintf("%q", got.ContentUsage) != fmt.Sprintf("%q", append([]string{}, tc.ContentUsage...)) {
				t.Errorf("content_usage %q, want %q", got.ContentUsage, tc.ContentUsage)
			}
			if want := specUsage(tc.Usage); fmt.Sprint(got.Usage) != fmt.Sprint(want) {
				t.Errorf("usage %v, want %v (%s)", got.Usage, want, tc.Usage)
			}
		})
	}
}

// specUsage turns the conformance table's "train-ai=allow, search=disallow" into the command's usage object.
func specUsage(s string) map[string]string {
	if s == "N/A" {
		return nil
	}
	u := map[string]string{"ai-use": "unknown", "search": "unknown", "train-ai": "unknown"}
	if s == "unknown" || s == "all unknown" {
		return u
	}
	for _, e := range strings.Split(s, ", ") {
		label, v, _ := strings.Cut(e, "=")
		u[label] = v
	}
	return u
}
