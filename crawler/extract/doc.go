// Package extract reads what a fetched document refers to: the links and requisites of an HTML
// page (HTML), the url() and @import references of a stylesheet (CSS), the entries of a sitemap
// or sitemap index (ReadSitemap), after undoing the response's Content-Encoding (Decoded).
// Every reference comes out resolved and in the crawler's canonical URL form (Canonical).
//
// The package is pure: it parses the bytes it is given, within fixed bounds (MaxParseBytes,
// MaxLinks, the sitemaps.org limits), and does no I/O of its own, keeps no state (but a pool of
// gzip inflaters for reuse, gzipReaders) and logs nothing; deciding what to follow, and saying
// what a bound cut, is the crawler's.
package extract
