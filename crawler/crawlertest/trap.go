package crawlertest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// TrapSite serves two crawler traps without end (docs/rules.md#d26), every page a new URL:
// /a/ and every page under it link to a/ relative to themselves (/a/a/, /a/a/a/, …), and
// /x/1/ links to 2/ relative to itself, /x/1/2/ to 3/, and so on. The home page links to both,
// and to /ok, a plain page; robots.txt is 404.
func TrapSite() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		var link string
		switch {
		case p == "/":
			link = `<a href="/a/">a</a><a href="/x/1/">x</a><a href="/ok">ok</a>`
		case p == "/ok":
			link = "ok"
		case strings.HasPrefix(p, "/a/") && strings.Trim(strings.ReplaceAll(p, "a/", ""), "/") == "":
			link = `<a href="a/">deeper</a>`
		case strings.HasPrefix(p, "/x/") && strings.HasSuffix(p, "/"):
			segs := strings.Split(strings.Trim(p, "/"), "/")
			n, err := strconv.Atoi(segs[len(segs)-1])
			if err != nil {
				http.NotFound(w, r)
				return
			}
			link = fmt.Sprintf(`<a href="%d/">deeper</a>`, n+1)
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<!doctype html><title>%s</title>%s", p, link)
	})
}
