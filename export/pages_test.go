package export

import (
	"bufio"
	"strings"
	"testing"
)

func TestPageTitle(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", maxTitle)
	tests := []struct {
		name, head, body, want string
	}{
		{"plain", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n", "<html><head><title>A page</title></head></html>", "A page"},
		{"entities and white space", "HTTP/1.1 200 OK\r\n\r\n", "<title>\n  Fish &amp;\tchips&#33; </title>", "Fish & chips!"},
		{"no title", "HTTP/1.1 200 OK\r\n\r\n", "<html><body><h1>x</h1></body></html>", ""},
		{"title after body is not the page's", "HTTP/1.1 200 OK\r\n\r\n", "<body><title>late</title>", ""},
		{"svg title is not the page's", "HTTP/1.1 200 OK\r\n\r\n", "<svg><title>icon</title></svg><title>page</title>", ""},
		{"the first title", "HTTP/1.1 200 OK\r\n\r\n", "<title>one</title><title>two</title>", "one"},
		{"markup in a title is text", "HTTP/1.1 200 OK\r\n\r\n", "<title>a <b>b</b></title>", "a <b>b</b>"},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "5\r\n<titl\r\n8\r\ne>Hi</ti\r\n4\r\ntle>\r\n0\r\n\r\n", "Hi"},
		{"cut short", "HTTP/1.1 200 OK\r\n\r\n", "<title>Half a ti", "Half a ti"},
		{"unknown coding", "HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n", "<title>x</title>", ""},
		{"bad gzip", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n", "<title>x</title>", ""},
		{"invalid UTF-8", "HTTP/1.1 200 OK\r\n\r\n", "<title>caf\xe9</title>", "caf\uFFFD"},
		{"long", "HTTP/1.1 200 OK\r\n\r\n", "<title>" + long + "</title>", long[:maxTitle]},
		{"not HTTP", "garbage\r\n\r\n", "<title>x</title>", ""},
	}
	for _, tc := range tests {
		if got := pageTitle([]byte(tc.head), []byte(tc.body)); got != tc.want {
			t.Errorf("%s: title %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestReadHTTPHead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, block, head string
	}{
		{"CRLF", "HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody", "HTTP/1.1 200 OK\r\nA: b\r\n\r\n"},
		{"LF", "HTTP/1.1 200 OK\nA: b\n\nbody\r\n", "HTTP/1.1 200 OK\nA: b\n\n"},
		{"empty payload", "HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 204 No Content\r\n\r\n"},
		{"no blank line: all head", "HTTP/1.1 200 OK\r\nA: b\r\n", "HTTP/1.1 200 OK\r\nA: b\r\n"},
		{"a short line ends the head", "HTTP/1.1 200 OK\r\nx\nbody", "HTTP/1.1 200 OK\r\nx\n"},
		{"long line", "HTTP/1.1 200 OK\r\nA: " + strings.Repeat("b", 70000) + "\r\n\r\nz", "HTTP/1.1 200 OK\r\nA: " + strings.Repeat("b", 70000) + "\r\n\r\n"},
	}
	for _, tc := range tests {
		// The block is followed by the record's end, as in a WARC file.
		br := bufio.NewReaderSize(strings.NewReader(tc.block+"\r\n\r\n"), 16)
		head, err := readHTTPHead(br, int64(len(tc.block)))
		if err != nil || string(head) != tc.head {
			t.Errorf("%s: head %q, %v; want %q", tc.name, head, err, tc.head)
		}
	}
}
