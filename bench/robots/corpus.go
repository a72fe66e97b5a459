// Package robotsbench measures crawler/robots against github.com/temoto/robotstxt on one
// corpus of generated robots.txt files: three shaped like large real sites and one hostile
// file of 500 KB. It is its own module so that the product never depends on temoto.
//
// Run it from this directory: go test -run '^$' -bench . -benchmem -count 5 > new.txt, then
// compare the archivectl and temoto lines (benchstat new.txt).
package robotsbench

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// corpusFile is one robots.txt with the URLs (path-and-query) evaluated against it.
type corpusFile struct {
	name  string
	agent string // the crawler evaluated
	body  []byte
	paths []string
}

// aiBots are product tokens commonly given their own group in news sites' robots.txt.
var aiBots = []string{"GPTBot", "ChatGPT-User", "CCBot", "Google-Extended", "anthropic-ai", "ClaudeBot", "Bytespider",
	"PerplexityBot", "Amazonbot", "Applebot-Extended", "FacebookBot", "Meta-ExternalAgent", "cohere-ai", "Diffbot",
	"ImagesiftBot", "Omgilibot", "Timpibot", "YouBot", "omgili", "magpie-crawler", "img2dataset", "Scrapy", "PetalBot"}

var words = []string{"news", "world", "politics", "sport", "business", "tech", "science", "health", "culture", "opinion",
	"video", "live", "search", "account", "login", "print", "amp", "tag", "author", "archive", "category", "product",
	"cart", "checkout", "wishlist", "compare", "api", "static", "media", "img", "feeds", "rss", "comments", "share"}

// corpus builds the benchmark files deterministically.
func corpus() []corpusFile {
	return []corpusFile{newsSite(), shopSite(), wikiSite(), hostile()}
}

func pick(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }

// randPath is a plausible path of n segments.
func randPath(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString("/")
		b.WriteString(pick(r, words))
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, "-%d", r.IntN(10000))
		}
	}
	return b.String()
}

// samplePaths mixes plausible URLs of the site with query strings and long slugs.
func samplePaths(r *rand.Rand, n int) []string {
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		p := randPath(r, 1+r.IntN(5))
		switch r.IntN(5) {
		case 0:
			p += fmt.Sprintf("?utm_source=%s&sort=%s&page=%d", pick(r, words), pick(r, words), r.IntN(50))
		case 1:
			p += "/" + strings.Repeat(pick(r, words)+"-", 8) + "story.html"
		case 2:
			p += ".html"
		}
		out = append(out, p)
	}
	return out
}

// newsSite is shaped like a large news publisher: many AI crawler groups, a long "*" group
// with wildcards and query rules, Content-Usage and embargo rules, many sitemaps.
func newsSite() corpusFile {
	r := rand.New(rand.NewPCG(1, 1))
	var b strings.Builder
	b.WriteString("# robots.txt for a large news site\n\n")
	for _, bot := range aiBots {
		fmt.Fprintf(&b, "User-agent: %s\nDisallow: /\n\n", bot)
	}
	b.WriteString("User-agent: archivectl\nArchive-Embargo: m\nEmbargo-Allow: /news/\nDisallow: /\nContent-Usage: train-ai=n\n\n")
	b.WriteString("User-agent: *\nCrawl-delay: 1\n")
	for i := 0; i < 1500; i++ {
		switch r.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "Disallow: /*?*%s=\n", pick(r, words))
		case 1:
			fmt.Fprintf(&b, "Disallow: %s/*/print$\n", randPath(r, 1))
		case 2:
			fmt.Fprintf(&b, "Allow: %s/\n", randPath(r, 2))
		case 3:
			fmt.Fprintf(&b, "Content-Usage: %s/ train-ai=n, search=y\n", randPath(r, 1))
		default:
			fmt.Fprintf(&b, "Disallow: %s\n", randPath(r, 1+r.IntN(3)))
		}
	}
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "Sitemap: https://www.news.example/sitemaps/%s-%d.xml\n", pick(r, words), i)
	}
	return corpusFile{"news", "SomeBot", []byte(b.String()), samplePaths(r, 100)}
}

// shopSite is shaped like a large shop: thousands of faceted-navigation rules with wildcards
// and percent-encoded category names.
func shopSite() corpusFile {
	r := rand.New(rand.NewPCG(2, 2))
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	cats := []string{"/c/%C3%A9t%C3%A9", "/c/k%C3%BCche", "/c/garten", "/c/b%C3%BCro", "/c/spielzeug", "/c/mode"}
	for i := 0; i < 3000; i++ {
		switch r.IntN(5) {
		case 0:
			fmt.Fprintf(&b, "Disallow: /*?*%s=*&%s=\n", pick(r, words), pick(r, words))
		case 1:
			fmt.Fprintf(&b, "Disallow: %s/*/filter/%s\n", pick(r, cats), pick(r, words))
		case 2:
			fmt.Fprintf(&b, "Allow: %s/%s-%d$\n", pick(r, cats), pick(r, words), r.IntN(100000))
		case 3:
			fmt.Fprintf(&b, "Disallow: /*%s*.json$\n", pick(r, words))
		default:
			fmt.Fprintf(&b, "Disallow: /p/%d/%s\n", r.IntN(1000000), pick(r, words))
		}
	}
	b.WriteString("Sitemap: https://shop.example/sitemap.xml\n")
	paths := samplePaths(r, 80)
	for i := 0; i < 20; i++ {
		paths = append(paths, fmt.Sprintf("%s/%s-%d?%s=%d&%s=x", pick(r, cats), pick(r, words), r.IntN(100000), pick(r, words), i, pick(r, words)))
	}
	return corpusFile{"shop", "archivectl", []byte(b.String()), paths}
}

// wikiSite is shaped like a large wiki: a hundred named crawler groups, then a "*" group with
// special pages in several encodings, comments and CRLF line ends.
func wikiSite() corpusFile {
	r := rand.New(rand.NewPCG(3, 3))
	var b strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "# crawler %d misbehaved\r\nUser-agent: %s%c\r\nDisallow: /\r\n\r\n", i, pick(r, aiBots), 'a'+rune(i%26))
	}
	b.WriteString("User-agent: *\r\nAllow: /w/api.php?action=mobileview&\r\n")
	specials := []string{"Special:Search", "Special:Random", "Spezial:Suche", "%D0%A1%D0%BB%D1%83%D0%B6%D0%B5%D0%B1%D0%BD%D0%B0%D1%8F:Search", "Служебная:Random", "特別:検索"}
	for i := 0; i < 1500; i++ {
		fmt.Fprintf(&b, "Disallow: /wiki/%s/%s%d\r\n", pick(r, specials), pick(r, words), i)
		if i%10 == 0 {
			fmt.Fprintf(&b, "Disallow: /wiki/%s:%s # talk pages\r\n", pick(r, words), pick(r, specials))
		}
	}
	paths := samplePaths(r, 70)
	for i := 0; i < 30; i++ {
		paths = append(paths, fmt.Sprintf("/wiki/%s/%s%d", pick(r, specials), pick(r, words), r.IntN(2000)))
	}
	return corpusFile{"wiki", "archivectl", []byte(b.String()), paths}
}

// hostile is a 500 KB file built to hurt matchers: patterns made of many wildcards that
// almost match, very long lines, thousands of user-agent lines and a huge single group.
func hostile() corpusFile {
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "User-agent: bot%c%c\n", 'a'+rune(i%26), 'a'+rune(i/26%26))
	}
	b.WriteString("User-agent: *\n")
	for i := 0; b.Len() < 400_000; i++ {
		switch i % 4 {
		case 0:
			b.WriteString("Disallow: /" + strings.Repeat("*a", 40) + "b$\n")
		case 1:
			b.WriteString("Disallow: /*" + strings.Repeat("a*", 60) + "\n")
		case 2:
			b.WriteString("Allow: /" + strings.Repeat("aaaa*", 30) + "$\n")
		default:
			b.WriteString("Disallow: /" + strings.Repeat("%61", 50) + "*\n")
		}
	}
	b.WriteString("Disallow: /" + strings.Repeat("x*", 20000) + "\n") // one 40 KB line
	for b.Len() < 500_000 {
		b.WriteString("Disallow: /*.php$\n")
	}
	body := b.String()[:500_000]
	paths := []string{"/" + strings.Repeat("a", 200), "/" + strings.Repeat("a", 199) + "c", "/" + strings.Repeat("ab", 100) + "b", "/index.php", "/x"}
	return corpusFile{"hostile", "archivectl", []byte(body), paths}
}
