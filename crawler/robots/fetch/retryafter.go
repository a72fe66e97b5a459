package fetch

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfter caps a delay-seconds Retry-After: 2^31 seconds, about 68 years, far above any
// ceiling a caller applies, and far below time.Duration's limit.
const maxRetryAfter = (1 << 31) * time.Second

// RetryAfter reads a Retry-After field value (RFC 9110 §10.2.3) as the wait from now:
// delay-seconds (at most 2^31 seconds) or an HTTP-date (0 once past). ok is false when v is
// empty, negative or neither form. Callers apply their own ceiling.
func RetryAfter(v string, now time.Time) (wait time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		return time.Duration(min(n, int64(maxRetryAfter/time.Second))) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
