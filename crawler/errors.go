package crawler

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/archivectl/archivectl/crawler/robots"
)

// errBodyTimeout is a response cut short by the whole-exchange timeout.
var errBodyTimeout = errors.New("response body timed out")

// errKind names the kind of a fetch error for logs and the summary.
func errKind(err error) string {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var rec tls.RecordHeaderError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &dns):
		return "dns"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, syscall.EPIPE):
		return "reset"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, errBodyTimeout), isTimeout(err):
		return "timeout"
	case errors.Is(err, errRecording):
		return "recording"
	case errors.As(err, &cert), errors.As(err, &rec):
		return "tls"
	case strings.Contains(err.Error(), "response headers exceeded"):
		return "headers-too-large"
	case strings.Contains(err.Error(), "malformed HTTP"):
		return "malformed"
	}
	return "other"
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// retriable reports whether a fetch error may go away on its own.
func retriable(err error) bool {
	switch errKind(err) {
	case "refused", "reset", "timeout":
		return true
	}
	return false
}

// errRobotsUnreachable is the error kind of a URL not crawled because its origin's robots.txt
// could not be fetched at all (no HTTP answer; a 429 or 5xx answer disallows instead).
const errRobotsUnreachable = "robots-unreachable"

// unanswered reports whether r is unreachable because its fetch got no HTTP answer: a network
// failure, possibly after redirects, rather than a 429 or 5xx status.
func unanswered(r *robots.File) bool {
	if r.Availability != robots.Unreachable {
		return false
	}
	n := len(r.Hops)
	return n == 0 || r.Hops[n-1].Status/100 == 3
}

// availability names a robots.txt's availability for logs.
func availability(r *robots.File) string {
	switch r.Availability {
	case robots.Available:
		if r.Stale {
			return "unreachable, cached copy"
		}
		return "available"
	case robots.Unavailable:
		return "unavailable (allow all)"
	case robots.Unreachable:
		return "unreachable (disallow all)"
	}
	return "unknown"
}
