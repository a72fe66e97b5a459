package selfcheck

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/archivectl/archivectl/aipref"
)

// The paths the handler answers; Wrap sends every other one on.
const (
	PagePath  = "/check"
	StylePath = "/check.css"
	APIPath   = "/api/v1/check"
)

//go:embed templates/check.html
var templates embed.FS

//go:embed static/check.css
var stylesheet []byte

var pageTemplate = template.Must(template.New("check.html").ParseFS(templates, "templates/check.html"))

// Wrap answers the self-check's paths and hands every other request to next.
func (h *Handler) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case PagePath, StylePath, APIPath:
			h.ServeHTTP(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// ServeHTTP answers the page (GET, and POST of its form), its stylesheet, and the API (POST).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for k, v := range security {
		w.Header()[k] = v
	}
	switch r.URL.Path {
	case StylePath:
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			methodNotAllowed(w, "GET, HEAD")
			return
		}
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Write(stylesheet)
	case PagePath:
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			h.page(w, http.StatusOK, pageData{Mode: "paste", Agent: h.opt.Agent, Fetch: !h.opt.NoFetch})
		case http.MethodPost:
			h.handleForm(w, r)
		default:
			methodNotAllowed(w, "GET, HEAD, POST")
		}
	case APIPath:
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			writeError(w, http.StatusMethodNotAllowed, "POST a JSON check to "+APIPath+" (docs/formats.md#check-json)")
			return
		}
		h.handleAPI(w, r)
	default:
		http.NotFound(w, r)
	}
}

// security are the header fields of every answer, as strict as the lookup's: nothing framed,
// sniffed or loaded from elsewhere; the page needs only same-origin stylesheets.
var security = http.Header{
	"Content-Security-Policy": {"default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"},
	"X-Content-Type-Options":  {"nosniff"},
	"Referrer-Policy":         {"no-referrer"},
	"X-Frame-Options":         {"DENY"},
	"Cache-Control":           {"no-store"},
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
}

// status maps a check's error to its HTTP status.
func status(err error) int {
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &mb), errors.Is(err, ErrTooLarge), errors.Is(err, ErrTimeLimit):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrRateLimited):
		return http.StatusTooManyRequests
	case errors.Is(err, ErrBusy):
		return http.StatusServiceUnavailable
	case errors.Is(err, ErrInvalid), errors.Is(err, ErrNotPublic), errors.Is(err, ErrDisabled):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// apiError is the body of every API error.
type apiError struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, apiError{Error: msg})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		code, b = http.StatusInternalServerError, *bytes.NewBufferString(`{"error":"encoding the answer failed"}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

// errMessage is what a person is told: the error without the sentinel's own words at its end.
func errMessage(err error) string {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return fmt.Sprintf("the request is larger than %d bytes; a check holds at most a %d-byte robots.txt and %d URLs", mb.Limit, MaxRobotsBytes, MaxURLs)
	}
	return err.Error()
}

// handleAPI answers POST /api/v1/check.
func (h *Handler) handleAPI(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		writeError(w, http.StatusUnsupportedMediaType, "send the check as application/json (docs/formats.md#check-json)")
		return
	}
	var req Request
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	dec.DisallowUnknownFields()
	err := dec.Decode(&req)
	if err == nil && dec.More() {
		err = fmt.Errorf("one JSON object only: %w", ErrInvalid)
	}
	if err != nil {
		var mb *http.MaxBytesError
		if !errors.As(err, &mb) && !errors.Is(err, ErrInvalid) {
			err = fmt.Errorf("the request is not a JSON check object: %v: %w", err, ErrInvalid)
		}
		h.log.Info("self-check refused", "status", status(err), "err", err)
		writeError(w, status(err), errMessage(err))
		return
	}
	res, err := h.Check(r.Context(), req)
	if err != nil {
		if status(err) == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "60")
		}
		h.log.Info("self-check refused", "status", status(err), "err", err)
		writeError(w, status(err), errMessage(err))
		return
	}
	h.log.Info("self-check", "urls", len(res.Results), "robots", res.Robots.URL, "took", time.Since(start))
	writeJSON(w, http.StatusOK, res)
}

// pageData is what the page shows: the form as submitted, and the check's answer or error.
type pageData struct {
	Mode, Robots, Origin, URLs, Agent, LastModified string
	Fetch                                           bool // origins may be fetched
	Error                                           string
	Res                                             *Response
	Rows                                            []row
	Categories                                      []aipref.Category
}

// row is one URL's result in words.
type row struct {
	Result
	Embargo string // e.g. "q — 90 days"
	Usage   []usageCell
}

type usageCell struct{ Name, Value string }

// handleForm answers POST /check: the form's check, rendered.
func (h *Handler) handleForm(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxRequestBytes)
	d := pageData{Mode: "paste", Agent: h.opt.Agent, Fetch: !h.opt.NoFetch}
	if err := r.ParseForm(); err != nil {
		var mb *http.MaxBytesError
		if !errors.As(err, &mb) {
			err = fmt.Errorf("the form could not be read: %v: %w", err, ErrInvalid)
		}
		d.Error = errMessage(err)
		h.page(w, status(err), d)
		return
	}
	f := r.PostForm
	d.Mode, d.Robots, d.Origin, d.URLs, d.LastModified = f.Get("source"), f.Get("robots_txt"), f.Get("origin"), f.Get("urls"), f.Get("last_modified")
	if a := f.Get("agent"); a != "" {
		d.Agent = a
	}
	req := Request{Agent: d.Agent, LastModified: d.LastModified}
	if d.Mode == "origin" {
		if req.Origin = strings.TrimSpace(d.Origin); req.Origin == "" {
			d.Error = "Name the origin whose /robots.txt to fetch, such as https://example.com, or paste the file."
			h.page(w, http.StatusBadRequest, d)
			return
		}
	} else {
		d.Mode = "paste"
		req.RobotsTxt = &d.Robots
	}
	for _, line := range strings.Split(d.URLs, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			req.URLs = append(req.URLs, line)
		}
	}
	res, err := h.Check(r.Context(), req)
	if err != nil {
		d.Error = errMessage(err)
		h.page(w, status(err), d)
		return
	}
	d.Res, d.Categories = res, aipref.Vocabulary()
	for _, x := range res.Results {
		rw := row{Result: x}
		if x.EmbargoDays != nil {
			rw.Embargo = fmt.Sprintf("%d days", *x.EmbargoDays)
		}
		if x.Allowed {
			for _, c := range d.Categories {
				rw.Usage = append(rw.Usage, usageCell{Name: c.Name, Value: x.Usage[c.Label]})
			}
		}
		d.Rows = append(d.Rows, rw)
	}
	h.page(w, http.StatusOK, d)
}

// page renders the page.
func (h *Handler) page(w http.ResponseWriter, code int, d pageData) {
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, d); err != nil {
		h.log.Error("self-check page", "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(code)
	io.Copy(w, &b)
}
