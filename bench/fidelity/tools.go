package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// capture is what a tool's archive holds of a URL: its 14-digit timestamp (archivectl only).
type archived map[string]string // key(URL) -> timestamp

// toolRun is one tool's crawl of the seeds: its archive's URLs and what the crawl cost.
type toolRun struct {
	Name  string
	URLs  archived
	Usage usage
	WACZ  string // archivectl: the export of the released captures
	Err   error
}

// releaseAt is the release pass's now: far beyond any embargo, so every capture is public.
const releaseAt = "2100-01-01T00:00:00Z"

// crawlArchivectl runs `archivectl crawl` (with --browser when browser is set) on the seeds file,
// then a release pass far in the future and an export of the released captures (WACZ and CDXJ),
// and reads the CDXJ's URLs.
func crawlArchivectl(bin, work, seeds string, browser bool) toolRun {
	name := "plain"
	if browser {
		name = "browser"
	}
	r := toolRun{Name: name}
	data := filepath.Join(work, name+"-data")
	args := []string{"crawl", "--data", data, "--agent", "archivectl", "--delay", "0s", "--sitemaps", "off"}
	if browser {
		args = append(args, "--browser")
	}
	cmd := exec.Command(bin, append(args, seeds)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r.Usage, r.Err = measured(cmd)
	if r.Err != nil {
		r.Err = fmt.Errorf("archivectl %s: %w: %s", strings.Join(args, " "), r.Err, tail(stderr.String()))
		return r
	}
	// The crawl's summary (stdout) and log (stderr), kept for reading.
	os.WriteFile(filepath.Join(work, name+"-crawl.log"), []byte(stdout.String()+stderr.String()), 0o644)
	r.WACZ = filepath.Join(work, name+".wacz")
	cdx := filepath.Join(work, name+".cdxj")
	for _, a := range [][]string{
		{"release", "--data", data, "--now", releaseAt},
		{"export", "--data", data, "--wacz", r.WACZ, "--cdx", cdx},
	} {
		if out, err := exec.Command(bin, a...).CombinedOutput(); err != nil {
			r.Err = fmt.Errorf("archivectl %s: %w: %s", strings.Join(a, " "), err, tail(string(out)))
			return r
		}
	}
	r.URLs, r.Err = readCDXJ(cdx)
	return r
}

// readCDXJ reads the URL and timestamp of every line of a standard CDXJ index
// ("SURT TIMESTAMP {JSON}"), the export's.
func readCDXJ(path string) (archived, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	urls := archived{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		_, rest, _ := strings.Cut(sc.Text(), " ")
		ts, js, ok := strings.Cut(rest, " ")
		if !ok {
			continue
		}
		var fields struct {
			URL string `json:"url"`
		}
		if err := json.Unmarshal([]byte(js), &fields); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		urls[key(fields.URL)] = ts
	}
	return urls, sc.Err()
}

// crawlWget runs `wget -r -p -H` on the seeds (every origin is 127.0.0.1, so -D 127.0.0.1 keeps it
// on the corpus's origins) with a WARC file and its CDX, and reads the CDX's URLs.
func crawlWget(work, seeds string) toolRun {
	r := toolRun{Name: "wget"}
	dir := filepath.Join(work, "wget")
	warc := filepath.Join(work, "wget-warc")
	args := []string{"-r", "-p", "-H", "-D", "127.0.0.1", "-e", "robots=on", "-nv", "-P", dir,
		"--warc-file=" + warc, "--warc-cdx", "--no-warc-keep-log", "-i", seeds}
	cmd := exec.Command("wget", args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	r.Usage, r.Err = measured(cmd)
	// wget exits 8 when a server answered an error (a link to a page outside the corpus): the
	// crawl is still done.
	if ee, ok := r.Err.(*exec.ExitError); ok && ee.ExitCode() == 8 {
		r.Err = nil
	}
	if r.Err != nil {
		r.Err = fmt.Errorf("wget: %w: %s", r.Err, tail(stderr.String()))
		return r
	}
	f, err := os.Open(warc + ".cdx")
	if err != nil {
		r.Err = err
		return r
	}
	defer f.Close()
	r.URLs = archived{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		// " CDX a b a m s k r M V g u": the original URL first, its date second.
		fs := strings.Fields(sc.Text())
		if len(fs) < 2 || fs[0] == "CDX" {
			continue
		}
		r.URLs[key(fs[0])] = fs[1]
	}
	r.Err = sc.Err()
	return r
}

// tail is the end of a tool's messages, for an error.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	return s
}
