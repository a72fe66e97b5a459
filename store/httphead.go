package store

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// responseHead is what the index keeps of an HTTP response's head.
type responseHead struct {
	Status  int
	Headers [][2]string // field lines in order, names as sent, values trimmed
	Body    int         // offset of the payload in the raw response
}

// parseResponseHead reads the status line and header fields of a raw HTTP/1.x response.
// Lines may end in CRLF or LF; an obsolete folded line continues the previous field's value.
func parseResponseHead(raw []byte) (responseHead, error) {
	var h responseHead
	end, sep := bytes.Index(raw, []byte("\r\n\r\n")), 4
	if lf := bytes.Index(raw, []byte("\n\n")); lf >= 0 && (end < 0 || lf < end) {
		end, sep = lf, 2
	}
	if end < 0 {
		return h, fmt.Errorf("http response: no end of header block")
	}
	h.Body = end + sep
	lines := strings.Split(strings.ReplaceAll(string(raw[:end]), "\r\n", "\n"), "\n")
	status := strings.SplitN(lines[0], " ", 3)
	if len(status) < 2 || !strings.HasPrefix(status[0], "HTTP/") {
		return h, fmt.Errorf("http response: bad status line %q", lines[0])
	}
	code, err := strconv.Atoi(status[1])
	if err != nil || code < 100 || code > 999 {
		return h, fmt.Errorf("http response: bad status code in %q", lines[0])
	}
	h.Status = code
	for _, l := range lines[1:] {
		if l == "" {
			continue
		}
		if l[0] == ' ' || l[0] == '\t' {
			if len(h.Headers) == 0 {
				return h, fmt.Errorf("http response: continuation line before any field")
			}
			last := &h.Headers[len(h.Headers)-1]
			last[1] = strings.TrimSpace(last[1] + " " + strings.TrimSpace(l))
			continue
		}
		name, value, ok := strings.Cut(l, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return h, fmt.Errorf("http response: bad header line %q", l)
		}
		h.Headers = append(h.Headers, [2]string{name, strings.Trim(value, " \t")})
	}
	return h, nil
}

// values returns the values of every field line named name (case-insensitively), in order.
func (h responseHead) values(name string) []string {
	var vs []string
	for _, f := range h.Headers {
		if strings.EqualFold(f[0], name) {
			vs = append(vs, f[1])
		}
	}
	return vs
}

// mime is the media type of the Content-Type field, lowercased, without parameters.
func (h responseHead) mime() string {
	vs := h.values("Content-Type")
	if len(vs) == 0 {
		return ""
	}
	t, _, _ := strings.Cut(vs[0], ";")
	return strings.ToLower(strings.TrimSpace(t))
}
