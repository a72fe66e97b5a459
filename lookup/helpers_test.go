package lookup

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/archivectl/archivectl/internal/testkit"
)

var discard = slog.New(slog.DiscardHandler)

// get asks h for target and returns the recorded answer.
var get = testkit.Get

// decode reads a JSON body into v.
func decode(t testing.TB, r io.Reader, v any) {
	t.Helper()
	if err := json.NewDecoder(r).Decode(v); err != nil {
		t.Fatalf("decode: %v", err)
	}
}

// httptestDo sends one request with the given method.
func httptestDo(h http.Handler, method, target string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec
}
