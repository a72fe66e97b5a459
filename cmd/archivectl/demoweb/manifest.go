package demoweb

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// manifestFile is the per-origin description that sits next to its pages; it is never served.
const manifestFile = "origin.json"

// manifest is an origin's origin.json: its policy in words and what differs from a plain 200.
type manifest struct {
	Policy      string                         `json:"policy"`
	EmbargoDays int                            `json:"embargo_days"`
	Home        string                         `json:"home"`    // default "/"
	Status      map[string]int                 `json:"status"`  // URL path → status (default 200)
	Headers     map[string]map[string][]string `json:"headers"` // URL path → field name → lines
}

// relativeDate is a Last-Modified written as an age, "-25d": that many days before the site started.
var relativeDate = regexp.MustCompile(`^-([0-9]+)d$`)

// loadManifest reads origin.json and resolves relative dates against started.
func loadManifest(files fs.FS, started time.Time) (*manifest, error) {
	b, err := fs.ReadFile(files, manifestFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", manifestFile, err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("parse %s: %w", manifestFile, err)
	}
	if m.Home == "" {
		m.Home = "/"
	}
	for path, fields := range m.Headers {
		h := http.Header{}
		for name, lines := range fields {
			for _, v := range lines {
				if g := relativeDate.FindStringSubmatch(v); g != nil {
					days, err := strconv.Atoi(g[1])
					if err != nil {
						return nil, fmt.Errorf("%s: %s of %s: %w", manifestFile, name, path, err)
					}
					v = started.AddDate(0, 0, -days).Format(http.TimeFormat)
				}
				h.Add(name, v)
			}
		}
		m.Headers[path] = h
	}
	return &m, nil
}

// header returns the extra fields served with path (nil when none).
func (m *manifest) header(path string) http.Header { return m.Headers[path] }

// status returns the status served with path.
func (m *manifest) status(path string) int {
	if c, ok := m.Status[path]; ok {
		return c
	}
	return http.StatusOK
}
