package crawler

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/archivectl/archivectl/store"
)

func TestStoreArchiveCaptured(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	st, err := store.Open(t.TempDir(), store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := StoreArchive(st)
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok")
	req := []byte("GET /a HTTP/1.1\r\nHost: a.example\r\n\r\n")
	es, err := a.Seal(context.Background(), []store.Capture{{URL: "http://a.example/a", Time: at, IP: "127.0.0.1", Request: req, Response: resp}})
	if err != nil || len(es) != 1 || es[0].URL != "http://a.example/a" {
		t.Fatalf("Seal: %v, %+v", err, es)
	}
	tests := []struct {
		name string
		url  string
		at   time.Time
		want bool
	}{
		{"same URL and time", "http://a.example/a", at, true},
		{"the frontier's nanoseconds", "http://a.example/a", at.Add(400 * time.Millisecond), true},
		{"another time", "http://a.example/a", at.Add(2 * time.Second), false},
		{"another URL", "http://a.example/b", at, false},
		{"not a URL", "::", at, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id, err := a.Captured(context.Background(), tc.url, tc.at)
			if got := id != ""; err != nil || got != tc.want || got && id != es[0].ID {
				t.Fatalf("Captured(%q, %v) = %q, %v; want found %v (%s)", tc.url, tc.at, id, err, tc.want, es[0].ID)
			}
		})
	}
}
