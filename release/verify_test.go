package release

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/internal/warcfields"
	"github.com/archivectl/archivectl/public"
	"github.com/archivectl/archivectl/store"
)

// TestVerifyFindsTampering publishes a week's releases and tombstones, damages the public side
// in one way per case, and expects Verify to name the damage.
func TestVerifyFindsTampering(t *testing.T) {
	t.Parallel()
	now := t0.Add(8 * 24 * time.Hour)
	firstShard := func(dir string) string {
		m, _ := filepath.Glob(filepath.Join(dir, "public", "shards", "*.warc.gz"))
		return m[0]
	}
	firstLog := func(t *testing.T, dir, event string) public.LogEntry {
		var out public.LogEntry
		public.ReadLog(os.DirFS(filepath.Join(dir, "public")), func(e public.LogEntry) error {
			if e.Event == event && out.ID == "" {
				out = e
			}
			return nil
		})
		if out.ID == "" {
			t.Fatalf("no %s entry in the log", event)
		}
		return out
	}
	tests := []struct {
		name   string
		damage func(t *testing.T, a *archive)
		want   string
	}{
		{"a flipped byte in a released record", func(t *testing.T, a *archive) {
			e := firstLog(t, a.dir, public.EventReleased)
			p := filepath.Join(a.dir, "public", filepath.FromSlash(e.File))
			b, _ := os.ReadFile(p)
			b[e.Offset+e.Length/2] ^= 0xff
			os.WriteFile(p, b, 0o644)
		}, "offset"},
		{"a record nobody logged", func(t *testing.T, a *archive) {
			p := firstShard(a.dir)
			b, _ := os.ReadFile(p)
			e := firstLog(t, a.dir, public.EventReleased)
			os.WriteFile(p, append(b, b[e.Offset:e.Offset+e.Length]...), 0o644)
		}, "does not account for"},
		{"a body inside a tombstone", func(t *testing.T, a *archive) {
			e := firstLog(t, a.dir, public.EventTombstoned)
			ix, _ := store.OpenIndex(filepath.Join(a.dir, "index.db"), time.Second)
			ent, _, _ := ix.Get(e.ID)
			ent.Headers = append(ent.Headers, [2]string{"X-Leak", "<p>" + a.secrets[e.ID] + "</p>"})
			body, _ := sealedPayload(filepath.Join(a.dir, "sealed"), ent.Response)
			ent.Headers = append(ent.Headers, [2]string{"X-Body", string(body)})
			rec, err := tombstoneRecord(ent, now)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(a.dir, "public", filepath.FromSlash(e.File))
			cp := newCopier()
			defer cp.close()
			w, _ := createWARCFile(t.TempDir(), "tombstones/x.warc.gz", cp)
			w.writeRecord(rec)
			w.bw.Flush()
			w.f.Close()
			leak, _ := os.ReadFile(w.tmp)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, append(append(append([]byte{}, b[:e.Offset]...), leak...), b[e.Offset+e.Length:]...), 0o644)
		}, "holds the capture's body"},
		{"a release logged before its time", func(t *testing.T, a *archive) {
			b, _ := os.ReadFile(layout.ReleaseLog(a.dir))
			var out bytes.Buffer
			for _, line := range bytes.SplitAfter(b, []byte("\n")) {
				var e public.LogEntry
				if json.Unmarshal(line, &e) == nil && e.Event == public.EventReleased && e.ReleaseAt.After(t0) {
					e.Pass = t0
					line, _ = json.Marshal(e)
					line = append(line, '\n')
				}
				out.Write(line)
			}
			os.WriteFile(layout.ReleaseLog(a.dir), out.Bytes(), 0o644)
		}, "before its release time"},
		{"a capture released twice", func(t *testing.T, a *archive) {
			p := firstShard(a.dir)
			c := strings.TrimSuffix(p, ".warc.gz") + ".cdxj"
			b, _ := os.ReadFile(c)
			os.WriteFile(c, append(b, b...), 0o644)
		}, "released twice"},
		{"an unsorted CDXJ", func(t *testing.T, a *archive) {
			c := strings.TrimSuffix(firstShard(a.dir), ".warc.gz") + ".cdxj"
			b, _ := os.ReadFile(c)
			lines := bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
			if len(lines) < 2 {
				t.Skip("one line")
			}
			lines[0], lines[1] = append(lines[1], '\n'), bytes.TrimSuffix(lines[0], []byte("\n"))
			os.WriteFile(c, bytes.Join(lines, nil), 0o644)
		}, "not byte-sorted"},
		{"a shard nobody may read", func(t *testing.T, a *archive) {
			os.Chmod(firstShard(a.dir), 0o600)
		}, "not world-readable"},
		{"an access rule dropped", func(t *testing.T, a *archive) {
			p := firstDayFile(t, layout.Access(a.dir))
			b, _ := os.ReadFile(p)
			_, rest, _ := bytes.Cut(b, []byte("\n"))
			os.WriteFile(p, rest, 0o644)
		}, "do not count the tombstoned captures"},
		{"access rules out of order", func(t *testing.T, a *archive) {
			p := lastDayFile(t, layout.Access(a.dir))
			b, _ := os.ReadFile(p)
			first, rest, _ := bytes.Cut(b, []byte("\n"))
			os.WriteFile(p, append(rest, append(first, '\n')...), 0o644)
		}, "not in descending order"},
		{"a tombstone line dropped from pywb's view", func(t *testing.T, a *archive) {
			p := firstDayFile(t, layout.Embargoed(a.dir))
			b, _ := os.ReadFile(p)
			_, rest, _ := bytes.Cut(b, []byte("\n"))
			os.WriteFile(p, rest, 0o644)
		}, "tombstone lines"},
		{"a released capture's tombstone line left in pywb's view", func(t *testing.T, a *archive) {
			r, _ := publicLines(t, a.dir)
			for _, b := range snapshot(t, a.dir) {
				for _, line := range bytes.SplitAfter(b, []byte("\n")) {
					if l, err := public.ParseLine(line); err == nil && l.State == public.StateReleased && r[l.ID] > 0 && l.ReleaseAt != "" {
						l.State = public.StateTombstone
						nb, _ := public.FormatLine(l.SURT, mustTime(t, l.Time), l.CDXJ)
						p := firstDayFile(t, layout.Embargoed(a.dir))
						old, _ := os.ReadFile(p)
						os.WriteFile(p, sortedLines(append(old, nb...)), 0o644)
						return
					}
				}
			}
			t.Skip("nothing released")
		}, "tombstone lines"},
		{"rules of an earlier version beside the days", func(t *testing.T, a *archive) {
			os.WriteFile(layout.EmbargoACL(a.dir), []byte("com,example)/### - {\"access\":\"block\",\"url\":\"https://example.com/\",\"captures\":1}\n"), 0o644)
		}, "beside the rules by release day"},
		{"a pending commit", func(t *testing.T, a *archive) {
			os.WriteFile(layout.ReleaseJournal(a.dir), []byte("{}"), 0o600)
		}, "pending"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := buildArchive(t, t.TempDir(), 12)
			mustPass(t, newTestReleaser(a.dir), now)
			mustVerify(t, a.dir)
			tc.damage(t, a)
			problems, err := Verify(context.Background(), a.dir)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range problems {
				found = found || strings.Contains(p, tc.want)
			}
			if !found {
				t.Errorf("no problem mentions %q; got:\n%s", tc.want, strings.Join(problems, "\n"))
			}
		})
	}
}

func TestLeaks(t *testing.T) {
	t.Parallel()
	body := []byte(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 4))
	facts := map[string]bool{"text/html": true, string(body[:60]): true}
	tests := []struct {
		name  string
		block string
		want  bool
	}{
		{"facts only", `{"mime":"text/html","status":200}`, false},
		{"whole body in a field", `{"note":` + strconvQuote(string(body)) + `}`, true},
		{"a 64-byte run of the body", `{"note":"xx` + string(body[10:74]) + `yy"}`, true},
		{"body text that is an indexed fact", `{"headers":[["X-Title",` + strconvQuote(string(body[:60])) + `]]}`, false},
		{"escaped in JSON", `{"note":"\u003c` + string(body[:70]) + `"}`, true},
		{"not JSON", `junk ` + string(body), true},
		{"named fields, facts only", "format: archivectl-tombstone/1\r\nmime: text/html\r\n", false},
		{"named fields, a 64-byte run of the body", "format: archivectl-tombstone/1\r\nnote: xx" + string(body[10:74]) + "yy\r\n", true},
		{"named fields, an indexed fact", "format: archivectl-tombstone/1\r\nheader: " + string(body[:60]) + "\r\n", false},
		{"named fields, encoded", "format: archivectl-tombstone/1\r\nnote: " + warcfields.Encode("=?"+string(body[:70])) + "\r\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := leaks([]byte(tc.block), body, facts); got != tc.want {
				t.Errorf("leaks = %v, want %v", got, tc.want)
			}
		})
	}
	if leaks([]byte(`{"a":"OK"}`), []byte("OK"), nil) {
		t.Errorf("a 2-byte body is found everywhere by chance; it must not count")
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
