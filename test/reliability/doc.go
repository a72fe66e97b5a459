// Package reliability holds the reliability campaign of archivectl (issue 8) as tests: the
// embargo leak property test, the kill -9 crash campaign, hostile inputs and fuzz targets for
// the parsers other packages do not fuzz. It has no code of its own outside its tests; run it
// with `go test ./test/...`, or the full campaign with test/campaign.sh.
package reliability
