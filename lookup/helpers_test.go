package lookup

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
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

// checkPage fails unless the page holds every string of want, none of not, and one <h1>.
func checkPage(t *testing.T, body string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	for _, n := range not {
		if strings.Contains(body, n) {
			t.Errorf("page has %q", n)
		}
	}
	if n := strings.Count(body, "<h1"); n != 1 {
		t.Errorf("%d <h1>, want 1", n)
	}
}
