package crawlertest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"time"
)

// HostileCase is one hostile behaviour mounted at Path.
type HostileCase struct {
	Name    string
	Path    string
	Handler http.Handler
}

// HostileCases returns every hostile behaviour, each under its own path below /hostile/,
// plus the page at /hostile/ that links to all of them.
func HostileCases() []HostileCase {
	cs := []HostileCase{
		{"endless body", "/hostile/endless", EndlessBody()},
		{"one byte a second", "/hostile/slow", SlowBody(time.Second)},
		{"redirect loop", "/hostile/loop/a", RedirectLoop("/hostile/loop/a", "/hostile/loop/b")},
		{"redirect loop", "/hostile/loop/b", RedirectLoop("/hostile/loop/a", "/hostile/loop/b")},
		{"1 MB of headers", "/hostile/headers", HugeHeaders(1 << 20)},
		{"gzip bomb", "/hostile/bomb", GzipBomb(256 << 20)},
		{"invalid Last-Modified", "/hostile/bad-date", LastModified("yesterday, probably")},
		{"future Last-Modified", "/hostile/future-date", LastModified("Fri, 01 Jan 2100 00:00:00 GMT")},
		{"reset mid-body", "/hostile/reset", ResetMidBody(1000)},
		{"binary garbage as HTML", "/hostile/garbage", Garbage(64 << 10)},
	}
	var links strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&links, "<a href=%q>%s</a>\n", c.Path, c.Name)
	}
	index := []byte("<!doctype html><title>hostile</title>\n" + links.String())
	return append(cs, HostileCase{"index", "/hostile/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(index)
	})})
}

// HostileMux mounts every case of HostileCases on a new ServeMux.
func HostileMux() *http.ServeMux {
	m := http.NewServeMux()
	for _, c := range HostileCases() {
		m.Handle(c.Path, c.Handler)
	}
	return m
}

// EndlessBody streams HTML forever, until the client goes away.
func EndlessBody() http.Handler {
	chunk := bytes.Repeat([]byte("<p>more</p>\n"), 1024)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
}

// SlowBody announces a 1 MB body and sends one byte per interval.
func SlowBody(interval time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", "1048576")
		w.WriteHeader(http.StatusOK)
		t := time.NewTicker(interval)
		defer t.Stop()
		for range 1 << 20 {
			if _, err := w.Write([]byte{'x'}); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-t.C:
			case <-r.Context().Done():
				return
			}
		}
	})
}

// RedirectLoop answers a with a 302 to b and anything else with a 302 to a.
func RedirectLoop(a, b string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		to := a
		if r.URL.Path == a {
			to = b
		}
		http.Redirect(w, r, to, http.StatusFound)
	})
}

// HugeHeaders sends about n bytes of header fields before a small body.
func HugeHeaders(n int) http.Handler {
	v := strings.Repeat("h", 1000)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i*1020 < n; i++ {
			w.Header().Add(fmt.Sprintf("X-Filler-%d", i), v)
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<p>after the headers</p>"))
	})
}

// GzipBomb sends a small gzip body (Content-Encoding: gzip, text/html) that inflates to n bytes.
func GzipBomb(n int) http.Handler {
	body := bomb(n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write(body)
	})
}

// bomb is a gzip stream of n bytes: an HTML start, then zeros.
func bomb(n int) []byte { return GzipFill("<html><body>", 0, n) }

// Gzip is s gzip-compressed.
func Gzip(s string) []byte { return GzipFill(s, 0, 0) }

// GzipFill is a small gzip stream that inflates to head and then n bytes of fill: head's
// member, then one 1 MiB member of fill repeated (a gzip stream may hold many members;
// readers join them). 1 GiB of fill costs about 1 MB.
func GzipFill(head string, fill byte, n int) []byte {
	member := func(p []byte) []byte {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write(p)
		zw.Close()
		return b.Bytes()
	}
	out := member([]byte(head))
	mib := member(bytes.Repeat([]byte{fill}, 1<<20))
	for i := 0; i < n; i += 1 << 20 {
		out = append(out, mib...)
	}
	return out
}

// LastModified serves a small page whose Last-Modified field is v, verbatim.
func LastModified(v string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Last-Modified"] = []string{v}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<p>dated " + v + "</p>"))
	})
}

// ResetMidBody announces a body of 10 × n bytes, sends n and resets the connection.
func ResetMidBody(n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer conn.Close()
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", 10*n, bytes.Repeat([]byte("r"), n))
		buf.Flush()
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0) // close sends RST
		}
	})
}

// Garbage serves n random bytes labelled text/html.
func Garbage(n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, n)
		rng := rand.NewChaCha8([32]byte{1})
		rng.Read(b)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
	})
}

// HugeRobots serves a robots.txt of n bytes: a group for every agent that disallows
// /private, then comment lines until the size is reached.
func HugeRobots(n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", fmt.Sprint(n))
		head := "User-agent: *\nDisallow: /private\n"
		w.Write([]byte(head))
		line := []byte("# " + strings.Repeat("padding ", 12) + "\n")
		for left := n - len(head); left > 0; left -= len(line) {
			if _, err := w.Write(line[:min(len(line), left)]); err != nil {
				return
			}
		}
	})
}
