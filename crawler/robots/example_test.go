package robots_test

import (
	"fmt"

	"github.com/archivectl/archivectl/crawler/robots"
)

// A publisher lets archives crawl the news under a month's embargo and nothing else, and says
// its content is not to train AI: what archivectl decides for two paths.
func ExamplePolicy_Evaluate() {
	p := robots.NewPolicy([]byte(`User-Agent: *
Archive-Embargo: m
Embargo-Allow: /news
Disallow: /
Content-Usage: train-ai=n
`))
	for _, path := range []string{"/news/bridge-reopens", "/shop/cart"} {
		d := p.Evaluate("archivectl", path)
		fmt.Printf("%s allowed=%v period=%q rule=%q usage=%v\n", path, d.Allowed, d.Period, d.Rule, d.ContentUsage)
	}
	// Output:
	// /news/bridge-reopens allowed=true period="m" rule="3 embargo-allow /news" usage=[train-ai=n]
	// /shop/cart allowed=false period="" rule="4 disallow /" usage=[]
}
