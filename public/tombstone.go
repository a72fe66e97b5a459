package public

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/internal/warcfields"
)

// The Content-Types of a tombstone record's block: named fields, written now, and the JSON
// document of tombstones written before, read forever.
const (
	TombstoneType     = "application/warc-fields"
	TombstoneTypeJSON = "application/json"
)

// TombstoneFormat is the first field of a tombstone's named fields.
const TombstoneFormat = "archivectl-tombstone/1"

// Tombstone is the block of a public tombstone record: the facts of an embargoed capture
// that anyone may see (embargo draft §2) — never a byte of its body. The json tags name the
// keys of the JSON form.
type Tombstone struct {
	ID            string      `json:"id"` // the sealed capture's id
	URL           string      `json:"url"`
	Time          time.Time   `json:"time"` // capture time
	Status        int         `json:"status"`
	Mime          string      `json:"mime,omitempty"`
	Headers       [][2]string `json:"headers"` // the response header fields as received
	PayloadDigest string      `json:"payload_digest"`
	ReleaseAt     time.Time   `json:"release_at"`
	PeriodDays    int         `json:"period_days"`
	Usage         []string    `json:"usage,omitempty"`        // combined Content-Usage preferences
	UsageHeader   []string    `json:"usage_header,omitempty"` // Content-Usage header field lines, raw
	UsageRobots   []string    `json:"usage_robots,omitempty"` // robots.txt Content-Usage expressions, raw
	Revisit       bool        `json:"revisit,omitempty"`
	RefersTo      string      `json:"refers_to,omitempty"`
}

// MarshalFields renders the tombstone as application/warc-fields: format, then one field per
// fact in the order of the struct, a header field as "header: Name: value", a list as one field
// per element; mime, usage, revisit and refers_to are left out when empty or false.
func (t Tombstone) MarshalFields() ([]byte, error) {
	var w warcfields.Builder
	w.Add("format", TombstoneFormat)
	w.Add("id", t.ID)
	w.Add("url", t.URL)
	w.Add("time", t.Time.UTC().Format(time.RFC3339Nano))
	w.Add("status", strconv.Itoa(t.Status))
	w.AddNonEmpty("mime", t.Mime)
	for _, h := range t.Headers {
		w.Add("header", h[0]+": "+h[1])
	}
	w.Add("payload_digest", t.PayloadDigest)
	w.Add("release_at", t.ReleaseAt.UTC().Format(time.RFC3339Nano))
	w.Add("period_days", strconv.Itoa(t.PeriodDays))
	w.AddAll("usage", t.Usage)
	w.AddAll("usage_header", t.UsageHeader)
	w.AddAll("usage_robots", t.UsageRobots)
	if t.Revisit {
		w.Add("revisit", "true")
	}
	w.AddNonEmpty("refers_to", t.RefersTo)
	b, err := w.Bytes()
	if err != nil {
		return nil, fmt.Errorf("tombstone of %s: %w", t.ID, err)
	}
	return b, nil
}

// ParseTombstone reads a tombstone block of either Content-Type, strictly: an unknown field or
// key, a missing id or a value of the wrong form is an error. Headers is never nil.
func ParseTombstone(contentType string, block []byte) (Tombstone, error) {
	var t Tombstone
	var err error
	switch strings.ToLower(strings.TrimSpace(contentType)) {
	case TombstoneTypeJSON:
		dec := json.NewDecoder(bytes.NewReader(block))
		dec.DisallowUnknownFields()
		err = dec.Decode(&t)
	case TombstoneType:
		t, err = tombstoneFromFields(block)
	default:
		err = fmt.Errorf("content type %q is neither %s nor %s", contentType, TombstoneType, TombstoneTypeJSON)
	}
	if err == nil && t.ID == "" {
		err = errors.New("no capture id")
	}
	if err != nil {
		return t, fmt.Errorf("tombstone: %w", err)
	}
	if t.Headers == nil {
		t.Headers = [][2]string{}
	}
	t.Time, t.ReleaseAt = t.Time.UTC(), t.ReleaseAt.UTC()
	return t, nil
}

func tombstoneFromFields(block []byte) (Tombstone, error) {
	var t Tombstone
	fs, err := warcfields.Parse(block)
	if err != nil {
		return t, err
	}
	if fs[0].Name != "format" || fs[0].Value != TombstoneFormat {
		return t, fmt.Errorf("format %q, want %q first", fs[0].Value, TombstoneFormat)
	}
	strs := map[string]*string{"id": &t.ID, "url": &t.URL, "mime": &t.Mime, "payload_digest": &t.PayloadDigest, "refers_to": &t.RefersTo}
	lists := map[string]*[]string{"usage": &t.Usage, "usage_header": &t.UsageHeader, "usage_robots": &t.UsageRobots}
	times := map[string]*time.Time{"time": &t.Time, "release_at": &t.ReleaseAt}
	ints := map[string]*int{"status": &t.Status, "period_days": &t.PeriodDays}
	for _, f := range fs[1:] {
		switch {
		case strs[f.Name] != nil:
			*strs[f.Name] = f.Value
		case lists[f.Name] != nil:
			*lists[f.Name] = append(*lists[f.Name], f.Value)
		case times[f.Name] != nil:
			if *times[f.Name], err = time.Parse(time.RFC3339Nano, f.Value); err != nil {
				return t, fmt.Errorf("%s: %w", f.Name, err)
			}
		case ints[f.Name] != nil:
			if *ints[f.Name], err = strconv.Atoi(f.Value); err != nil {
				return t, fmt.Errorf("%s: %w", f.Name, err)
			}
		case f.Name == "header":
			name, value, ok := strings.Cut(f.Value, ": ")
			if !ok {
				return t, fmt.Errorf("header %q is not \"Name: value\"", f.Value)
			}
			t.Headers = append(t.Headers, [2]string{name, value})
		case f.Name == "revisit":
			if t.Revisit, err = strconv.ParseBool(f.Value); err != nil {
				return t, fmt.Errorf("revisit: %w", err)
			}
		default:
			return t, fmt.Errorf("unknown field %q", f.Name)
		}
	}
	return t, nil
}
