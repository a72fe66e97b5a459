package crawlertest

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestServerLogs(t *testing.T) {
	t.Parallel()
	s := NewServer(Pages(map[string]string{"/robots.txt": "User-agent: *\n", "/": "<p>home</p>"}))
	defer s.Close()
	for _, p := range []string{"/robots.txt", "/?q=1", "/missing"} {
		req, _ := http.NewRequest(http.MethodGet, s.URL+p, nil)
		req.Header.Set("User-Agent", "testbot")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if got := s.Paths(); !slices.Equal(got, []string{"/robots.txt", "/?q=1", "/missing"}) {
		t.Fatalf("paths %v", got)
	}
	for _, h := range s.Log() {
		if h.UserAgent != "testbot" || h.End.Before(h.Start) || h.Abandoned {
			t.Errorf("hit %+v", h)
		}
	}
	if err := s.CheckPolite(0); err != nil {
		t.Errorf("sequential requests: %v", err)
	}
}

func TestCheckPolite(t *testing.T) {
	t.Parallel()
	at := func(ms int) time.Time {
		return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond)
	}
	tests := []struct {
		name string
		hits []Hit
		gap  time.Duration
		want []string // in the error; none: no error
	}{
		{"polite", []Hit{{Path: "/robots.txt", Start: at(0), End: at(10)}, {Path: "/", Start: at(110), End: at(120)}}, 100 * time.Millisecond, nil},
		{"no request", nil, 0, []string{"no request"}},
		{"robots.txt not first", []Hit{{Path: "/", Start: at(0), End: at(10)}}, 0, []string{"first request /, want /robots.txt"}},
		{"two in flight", []Hit{{Path: "/robots.txt", Start: at(0), End: at(10)}, {Path: "/", Start: at(5), End: at(20)}}, 0, []string{"/ started before /robots.txt ended"}},
		{"too soon", []Hit{{Path: "/robots.txt", Start: at(0), End: at(10)}, {Path: "/", Start: at(50), End: at(60)}}, 100 * time.Millisecond, []string{"/ came 40ms after /robots.txt ended, want at least 100ms"}},
		{"after an abandoned request only the order counts", []Hit{{Path: "/robots.txt", Start: at(0), End: at(10)}, {Path: "/slow", Start: at(10), End: at(500), Abandoned: true}, {Path: "/", Start: at(400), End: at(410)}}, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &Server{hits: tc.hits}
			err := s.CheckPolite(tc.gap)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
