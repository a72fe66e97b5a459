package main

import (
	"bufio"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/public"
)

// TestServeCDXAndMemento: over a real crawl and release pass, the built command's /cdx answers
// exactly the released lines of the public CDXJ, lists the tombstones only when asked, and its
// TimeGate and TimeMap name the released records; an embargoed URL answers 451.
func TestServeCDXAndMemento(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	data, embargoed, open := crawledAndReleased(t)
	s := startServe(t, exe, "--data", data)
	defer s.stop(t, os.Interrupt)

	// What the public CDXJ says, as CDX lines: the released captures of each site, by key then time.
	want := map[string][]string{}
	files, _ := public.CDXJFiles(os.DirFS(filepath.Join(data, "public"))) // beside the WARC files (not pywb's view, embargoed/)
	for _, name := range files {
		name = filepath.Join(data, "public", name)
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			l, err := public.ParseLine(sc.Bytes())
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			key, _ := surt.Key(l.URL)
			for _, site := range []string{embargoed, open} {
				if !strings.HasPrefix(l.URL, site) {
					continue
				}
				line := key + " " + l.Timestamp + " " + l.URL + " " + l.Mime + " " + strconv.Itoa(l.Status) + " " + l.Digest + " "
				if l.State == public.StateReleased {
					want[site] = append(want[site], line+strconv.FormatInt(l.Length, 10)+" "+strconv.FormatInt(l.Offset, 10)+" "+path.Base(l.Filename)+" released")
				} else {
					want[site+"tomb"] = append(want[site+"tomb"], line+"- - - embargoed")
				}
			}
		}
		f.Close()
	}
	want[embargoed+"tomb"] = append(want[embargoed+"tomb"], want[embargoed]...) // showEmbargoed: both
	for _, k := range []string{open, embargoed, embargoed + "tomb"} {
		slices.Sort(want[k])
	}
	if len(want[open]) < 2 || len(want[embargoed+"tomb"]) < 2 {
		t.Fatalf("the crawl made %d released lines of the open site, %d of the embargoed, %d tombstones", len(want[open]), len(want[embargoed]), len(want[embargoed+"tomb"]))
	}
	lines := func(q string) []string {
		code, body := s.get(t, "/cdx?"+q, nil)
		if code != 200 {
			t.Fatalf("/cdx?%s: %d %s", q, code, body)
		}
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(body), " ", "\x00"))
	}
	split := func(ls []string) []string {
		for i := range ls {
			ls[i] = strings.ReplaceAll(ls[i], "\x00", " ")
		}
		return ls
	}
	const fl = "&fl=urlkey,timestamp,original,mimetype,statuscode,digest,length,offset,filename,state"
	if got := split(lines("url=" + url.QueryEscape(open+"*") + fl)); !slices.Equal(got, want[open]) {
		t.Errorf("/cdx of the open site:\n got %q\nwant %q", got, want[open])
	}
	if got := split(lines("url=" + url.QueryEscape(embargoed+"*") + fl)); !slices.Equal(got, want[embargoed]) {
		t.Errorf("/cdx of the embargoed site (its robots.txt only is released):\n got %q\nwant %q", got, want[embargoed])
	}
	if got := split(lines("showEmbargoed=true&url=" + url.QueryEscape(embargoed+"*") + fl)); !slices.Equal(got, want[embargoed+"tomb"]) {
		t.Errorf("/cdx showEmbargoed:\n got %q\nwant %q", got, want[embargoed+"tomb"])
	}

	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("GET", s.base+"/timegate/"+open, nil)
	req.Header.Set("Accept-Datetime", time.Now().UTC().Format(http.TimeFormat))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != 302 || !strings.HasPrefix(loc, s.base+"/api/v1/record?url=") || resp.Header.Get("Vary") != "accept-datetime" ||
		!strings.Contains(resp.Header.Get("Link"), `rel="original"`) || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("TimeGate: %d Location %q Link %q", resp.StatusCode, loc, resp.Header.Get("Link"))
	}
	resp, err = client.Get(loc)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Memento-Datetime") == "" || !strings.Contains(resp.Header.Get("Link"), `rel="timegate"`) {
		t.Errorf("the memento: %d Memento-Datetime %q Link %q", resp.StatusCode, resp.Header.Get("Memento-Datetime"), resp.Header.Get("Link"))
	}
	code, body := s.get(t, "/timemap/link/"+open, nil)
	if code != 200 || strings.Count(body, `memento"; datetime=`) != 1 || !strings.HasPrefix(body, "<"+open+`>; rel="original"`) {
		t.Errorf("TimeMap: %d\n%s", code, body)
	}
	resp, err = client.Get(s.base + "/timegate/" + embargoed)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ra, err := http.ParseTime(resp.Header.Get("Retry-After")); resp.StatusCode != 451 || err != nil || !ra.After(time.Now()) {
		t.Errorf("TimeGate of the embargoed site: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}
