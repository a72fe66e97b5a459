// Package fetch gets the robots.txt of each origin over HTTP and keeps it for its time to live:
// redirects followed within their bounds, the status of the last exchange turned into an
// availability (RFC 9309 §2.3.1), the last good copy used while the origin is unreachable, a
// conditional refetch once the copy expires (docs/rules.md#d10, docs/rules.md#d22). What it
// gives is a robots.File, which package robots evaluates; it also reads a Retry-After field
// (RetryAfter), which the crawler applies to every origin's answers.
package fetch
