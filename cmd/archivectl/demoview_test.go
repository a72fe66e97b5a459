package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestDemoServesBothStates: the demo runs its four passes, then serves the public side of the
// pass at +32 days with its clock there, and prints one embargoed and one released capture to
// open: the first is a tombstone whose record is refused, the second a released capture whose
// record is served; the home page counts both states.
func TestDemoServesBothStates(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the whole demo")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb lockedBuffer
	done := make(chan int, 1)
	data := filepath.Join(t.TempDir(), "demo")
	go func() {
		done <- runDemo(ctx, []string{"--data", data, "--listen", "127.0.0.1:0", "--delay", "10ms"}, nil, &out, &errb)
	}()
	re := regexp.MustCompile(`an embargoed capture: +(http://\S+)\n +a released capture: +(http://\S+)\n`)
	var m []string
	for deadline := time.Now().Add(2 * time.Minute); m == nil; time.Sleep(100 * time.Millisecond) {
		select {
		case code := <-done:
			t.Fatalf("demo exited %d before serving:\n%s\n%s", code, out.String(), errb.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo printed no captures to open:\n%s\n%s", out.String(), errb.String())
		}
		m = re.FindStringSubmatch(out.String())
	}
	if !strings.Contains(out.String(), "== Release pass 4 at now + 91 days") || !strings.Contains(out.String(), "as the pass at now + 32 days left it") {
		t.Errorf("the demo did not run its four passes and say which it shows:\n%s", out.String())
	}
	fetch := func(u string) (int, string) {
		t.Helper()
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	base := m[1][:strings.Index(m[1], "/?")]
	for _, tc := range []struct {
		url, state, other string
		record            int
	}{{m[1], "embargoed", "released", 451}, {m[2], "released", "embargoed", 200}} {
		code, page := fetch(tc.url)
		if code != 200 || !strings.Contains(page, `<span class="badge `+tc.state+`">`) || strings.Contains(page, `<span class="badge `+tc.other+`">`) {
			t.Errorf("%s: status %d, want a page with the capture %s only", tc.url, code, tc.state)
		}
		q := tc.url[strings.Index(tc.url, "?url=")+len("?url="):]
		if code, body := fetch(base + "/api/v1/record?format=payload&url=" + q); code != tc.record {
			t.Errorf("the %s capture's record: status %d %.200s, want %d", tc.state, code, body, tc.record)
		}
	}
	_, home := fetch(base + "/")
	for _, re := range []string{`<span class="label">Released</span><strong>[1-9]\d*</strong>`, `<span class="label">Under embargo</span><strong>[1-9]\d*</strong>`} {
		if !regexp.MustCompile(re).MatchString(home) {
			t.Errorf("the home page lacks %s", re)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("demo exit %d after its context ended:\n%s", code, errb.String())
		}
	case <-time.After(40 * time.Second):
		t.Fatal("the demo did not stop")
	}
}
