package main

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestServeRefusesDamage: through the built binary, a released record with a byte flipped on
// disk is not served: 500 JSON, one ERROR naming file and offset, counted in /metrics. Plain
// serve (no --schedule) also exports the release metrics from state.json.
func TestServeRefusesDamage(t *testing.T) {
	t.Parallel()
	exe := archivectlBinary(t)
	data, _, open := crawledAndReleased(t)

	var a struct {
		Captures []struct {
			WARC struct {
				File   string `json:"file"`
				Offset int64  `json:"offset"`
				Length int64  `json:"length"`
			} `json:"warc"`
		} `json:"captures"`
	}
	s := startServe(t, exe, "--data", data)
	if code, body := s.get(t, "/api/v1/captures?url="+url.QueryEscape(open), &a); code != 200 || len(a.Captures) != 1 || a.Captures[0].WARC.File == "" {
		t.Fatalf("open site: %d %s", code, body)
	}
	_, metrics := s.get(t, "/metrics", nil)
	for _, re := range []string{`(?m)^archivectl_release_last_pass_timestamp_seconds [1-9]`, `(?m)^archivectl_release_captures_released_total [1-9]`,
		`(?m)^archivectl_lookup_damaged_records_total 0$`} {
		if !regexp.MustCompile(re).MatchString(metrics) {
			t.Errorf("/metrics of plain serve lacks %s", re)
		}
	}
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit %d", code)
	}

	loc := a.Captures[0].WARC
	shard := filepath.Join(data, "public", filepath.FromSlash(loc.File))
	b, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	b[loc.Offset+loc.Length/2] ^= 0xff
	if err := os.WriteFile(shard, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s = startServe(t, exe, "--data", data)
	for _, format := range []string{"warc", "warc.gz", "payload"} {
		code, body := s.get(t, "/api/v1/record?format="+format+"&url="+url.QueryEscape(open), nil)
		var e struct{ Error string }
		if code != 500 || json.Unmarshal([]byte(body), &e) != nil || !strings.Contains(e.Error, "is damaged and is not served") {
			t.Errorf("%s: %d %.300s; want 500 JSON saying the record is damaged", format, code, body)
		}
		if strings.Contains(body, "BODY OF") {
			t.Errorf("%s: the damaged record's body went out", format)
		}
	}
	if _, metrics = s.get(t, "/metrics", nil); !strings.Contains(metrics, "\narchivectl_lookup_damaged_records_total 3\n") {
		t.Errorf("/metrics does not count the 3 damaged answers")
	}
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit %d", code)
	}
	errs := regexp.MustCompile(`(?m)^.*level=ERROR.*$`).FindAllString(s.stderr.String(), -1)
	if len(errs) != 3 {
		t.Fatalf("%d ERROR lines, want one per damaged answer:\n%s", len(errs), s.stderr)
	}
	for _, l := range errs {
		if !strings.Contains(l, "file="+loc.File) || !strings.Contains(l, "offset="+itoa64(loc.Offset)) {
			t.Errorf("the ERROR does not name file and offset: %s", l)
		}
	}
}

func itoa64(n int64) string { b, _ := json.Marshal(n); return string(b) }
