package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/archivectl/archivectl/crawler/robots"
)

// Func performs one GET of url without following redirects and reads at most limit bytes
// of the body. Its error means the exchange failed: network error, timeout, or a body cut short.
type Func func(ctx context.Context, url string, limit int64) (*robots.Fetched, error)

// HTTP is a Func over net/http: client's transport and timeout, redirects returned
// rather than followed, userAgent as the User-Agent header, and the Cache's Validators as
// conditional request headers.
func HTTP(client *http.Client, userAgent string) Func {
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return func(ctx context.Context, url string, limit int64) (*robots.Fetched, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, fmt.Errorf("robots.txt request %s: %w", url, err)
		}
		req.Header.Set("User-Agent", userAgent)
		if v, ok := ValidatorsFrom(ctx); ok {
			if v.ETag != "" {
				req.Header.Set("If-None-Match", v.ETag)
			}
			if v.LastModified != "" {
				req.Header.Set("If-Modified-Since", v.LastModified)
			}
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err // a *url.Error, which names the method and URL
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read %s: %w", url, err)
		}
		f := &robots.Fetched{URL: url, Status: resp.StatusCode, Header: resp.Header, Body: body}
		if int64(len(body)) > limit {
			f.Body, f.Truncated = body[:limit], true
		}
		return f, nil
	}
}
