package robots

// Pattern is a compiled robots.txt path pattern, for matching outside a robots.txt (the
// crawler's include and exclude rules): '*' matches any run of octets, a final '$' anchors
// the end, and pattern and path are normalised as for Allow and Disallow lines.
type Pattern struct{ p pattern }

// CompilePattern compiles a pattern written as in an Allow or Disallow line.
func CompilePattern(raw string) Pattern { return Pattern{compilePattern(raw)} }

// Match reports whether the pattern matches a path-and-query ("" means "/").
func (p Pattern) Match(pathQuery string) bool {
	if pathQuery == "" {
		pathQuery = "/"
	}
	return p.p.match(normalize(pathQuery, false))
}
