package robots

import (
	"strings"
	"testing"

	"github.com/archivectl/archivectl/aipref"
	"github.com/archivectl/archivectl/embargo"
)

// Fixtures of docs/rules.md#fixtures.
const (
	F1 = "User-Agent: *\nDisallow: *.gif$\nDisallow: /example/\nAllow: /publications/\n\n" +
		"User-Agent: foobot\nDisallow:/\nAllow:/example/page.html\nAllow:/example/allowed.gif\n\n" +
		"User-Agent: barbot\nUser-Agent: bazbot\nDisallow: /example/page.html\n\n" +
		"User-Agent: quxbot\n"
	F2 = "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n"
	F3 = "user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n"
	F4 = "user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz\n"
	E1 = "User-Agent: ExampleBot\nArchive-Embargo: q\nAllow: /news\n"
	E2 = "User-Agent: *\nArchive-Embargo: m\nEmbargo-Allow: /news\nDisallow: /\n"
	C1 = "User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n\n" +
		"User-Agent: ExampleBot\nAllow: /\nContent-Usage: train-ai=y\n"
)

// PAD is a 512,003-byte comment line (docs/rules.md#fixtures).
var PAD = "# " + strings.Repeat("x", 512000) + "\n"

// specCases are the rows T1–T121 of docs/rules.md#conformance-evaluation, generated from the table: id, robots.txt,
// agent, path-and-query, allowed, embargo days, Content-Usage statements, combined result.
var specCases = []struct {
	id, body, agent, path string
	allowed               bool
	days                  int
	usage                 []string
	combined              string
}{
	{"T1", F1, "otherbot", "/publications/x", true, 0, nil, "unknown"},                                                                                                                            // * group, Allow /publications/
	{"T2", F1, "otherbot", "/example/x", false, 0, nil, "N/A"},                                                                                                                                    //
	{"T3", F1, "otherbot", "/images/a.gif", false, 0, nil, "N/A"},                                                                                                                                 // *.gif$ (pattern need not start with /)
	{"T4", F1, "otherbot", "/publications/a.gif", true, 0, nil, "unknown"},                                                                                                                        // Allow(14) beats *.gif$(6)
	{"T5", F1, "otherbot", "/a.gif?x=1", true, 0, nil, "unknown"},                                                                                                                                 // $ anchors end of path+query
	{"T6", F1, "foobot", "/example/page.html", true, 0, nil, "unknown"},                                                                                                                           // rules written without space after :
	{"T7", F1, "foobot", "/example/allowed.gif", true, 0, nil, "unknown"},                                                                                                                         // foobot group does not inherit *.gif$
	{"T8", F1, "foobot", "/publications/", false, 0, nil, "N/A"},                                                                                                                                  // foobot reaches only its two allowed prefixes
	{"T9", F1, "FOOBOT", "/example/page.html", true, 0, nil, "unknown"},                                                                                                                           // product token matched case-insensitively
	{"T10", F1, "barbot", "/example/page.html", false, 0, nil, "N/A"},                                                                                                                             // two user-agent lines, one group
	{"T11", F1, "bazbot", "/example/other", true, 0, nil, "unknown"},                                                                                                                              //
	{"T12", F1, "bazbot", "/x.gif", true, 0, nil, "unknown"},                                                                                                                                      // specific group replaces * entirely
	{"T13", F1, "quxbot", "/example/x", true, 0, nil, "unknown"},                                                                                                                                  // empty last group allows everything
	{"T14", F1, "barbot", "/example/page.html.bak", false, 0, nil, "N/A"},                                                                                                                         // prefix semantics
	{"T15", F2, "foobot", "/example/page/disallowed.gif", false, 0, nil, "N/A"},                                                                                                                   // longest match wins
	{"T16", F2, "foobot", "/example/page/disallow.gif", true, 0, nil, "unknown"},                                                                                                                  // the RFC prose names .../disallow.gif, which the Disallow pattern does not match: typo in RFC
	{"T17", F3, "ExampleBot", "/baz", false, 0, nil, "N/A"},                                                                                                                                       // groups for the same token are merged
	{"T18", F3, "ExampleBot", "/foo/x", false, 0, nil, "N/A"},                                                                                                                                     //
	{"T19", F3, "ExampleBot", "/qux", true, 0, nil, "unknown"},                                                                                                                                    //
	{"T20", F4, "ExampleBot", "/foo", false, 0, nil, "N/A"},                                                                                                                                       // no specific group: * group applies
	{"T21", F4, "ExampleBot", "/baz", true, 0, nil, "unknown"},                                                                                                                                    // BazBot's rule never applies to ExampleBot
	{"T22", "user-agent: FooBot\ndisallow: /\n", "BarBot", "/x", true, 0, nil, "unknown"},                                                                                                         // no matching group and no *: no rules
	{"T23", "", "FooBot", "/x", true, 0, nil, "unknown"},                                                                                                                                          // empty file
	{"T24", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "FooBot", "/x/page", true, 0, nil, "unknown"},                                                                    //
	{"T25", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "FooBot", "/y/page", false, 0, nil, "N/A"},                                                                       //
	{"T26", "User-agent: examplebot\nDisallow: /\n", "ExampleBot", "/", false, 0, nil, "N/A"},                                                                                                     //
	{"T27", "User-agent: ExampleBot/1.0\nDisallow: /\n", "ExampleBot", "/a", false, 0, nil, "N/A"},                                                                                                // value cut at first char outside [A-Za-z_-]
	{"T28", "User-agent: Example\nDisallow: /\n", "ExampleBot", "/a", true, 0, nil, "unknown"},                                                                                                    // no prefix matching of tokens
	{"T29", "User-agent: ExampleBot-News\nDisallow: /\n", "ExampleBot", "/a", true, 0, nil, "unknown"},                                                                                            // longer token is a different crawler
	{"T30", "User-agent: *\nDisallow: /X/\n", "archivectl", "/x/y", true, 0, nil, "unknown"},                                                                                                      // path matching is case-sensitive
	{"T31", "User-agent: *\nDisallow: /x/page.html\nAllow: /x/page.html\n", "archivectl", "/x/page.html", true, 0, nil, "unknown"},                                                                // tie: allow wins
	{"T32", "User-agent: *\nallow: /page\ndisallow: /*.html\n", "archivectl", "/page.html", false, 0, nil, "N/A"},                                                                                 // 7 octets beat 5
	{"T33", "User-agent: *\nallow: /page\ndisallow: /*.html\n", "archivectl", "/page", true, 0, nil, "unknown"},                                                                                   //
	{"T34", "User-agent: *\nAllow: /a\nDisallow: /*\n", "archivectl", "/abc", true, 0, nil, "unknown"},                                                                                            // priority = pattern length (2 vs 2, tie -> allow), not octets of URL consumed
	{"T35", "User-agent: *\ndisallow: /x\nallow: /x/\n", "archivectl", "/x", false, 0, nil, "N/A"},                                                                                                //
	{"T36", "User-agent: *\ndisallow: /x\nallow: /x/\n", "archivectl", "/x/", true, 0, nil, "unknown"},                                                                                            //
	{"T37", "User-agent: *\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "archivectl", "/foo/bar", false, 0, nil, "N/A"},                                                                          // $ = end of pattern
	{"T38", "User-agent: *\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "archivectl", "/foo/bar/", true, 0, nil, "unknown"},                                                                      //
	{"T39", "User-agent: *\nallow: /$\ndisallow: /\n", "archivectl", "/", true, 0, nil, "unknown"},                                                                                                //
	{"T40", "User-agent: *\nallow: /$\ndisallow: /\n", "archivectl", "/page.html", false, 0, nil, "N/A"},                                                                                          //
	{"T41", "User-agent: *\ndisallow: /\nallow: /fish*\n", "archivectl", "/fish.html", true, 0, nil, "unknown"},                                                                                   // trailing * is redundant for matching
	{"T42", "User-agent: *\ndisallow: /\nallow: /fish*\n", "archivectl", "/catfish", false, 0, nil, "N/A"},                                                                                        // match is anchored at first octet
	{"T43", "User-agent: *\ndisallow: /\nallow: /fish*\n", "archivectl", "/Fish.asp", false, 0, nil, "N/A"},                                                                                       //
	{"T44", "User-agent: *\ndisallow: /\nallow: /*.php$\n", "archivectl", "/filename.php", true, 0, nil, "unknown"},                                                                               //
	{"T45", "User-agent: *\ndisallow: /\nallow: /*.php$\n", "archivectl", "/filename.php?parameters", false, 0, nil, "N/A"},                                                                       // query is part of the matched string
	{"T46", "User-agent: *\ndisallow: /\nallow: /*.php$\n", "archivectl", "/filename.php/", false, 0, nil, "N/A"},                                                                                 //
	{"T47", "User-agent: *\nDisallow:\n", "archivectl", "/anything", true, 0, nil, "unknown"},                                                                                                     // empty Disallow matches nothing
	{"T48", "User-agent: *\nDisallow: /\n", "archivectl", "/robots.txt", true, 0, nil, "unknown"},                                                                                                 // implicitly allowed (Google's library leaves this to the caller)
	{"T49", "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", "FooBot", "/foo/bar", true, 0, nil, "unknown"},                                                               // comment lines ignored
	{"T50", "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", "FooBot", "/foo/quz", false, 0, nil, "N/A"},                                                                  // inline # ends the value
	{"T51", "\xEF\xBB\xBFUser-agent: FooBot\nDisallow: /\n", "FooBot", "/x", false, 0, nil, "N/A"},                                                                                                // leading UTF-8 BOM skipped
	{"T52", "User-agent: FooBot\rDisallow: /a\r", "FooBot", "/a", false, 0, nil, "N/A"},                                                                                                           // CR-only line ends
	{"T53", "User-agent: FooBot\r\nDisallow: /a", "FooBot", "/a", false, 0, nil, "N/A"},                                                                                                           // CRLF; last line without newline still parsed
	{"T54", "Disallow: /\n\nUser-agent: FooBot\nAllow: /x\n", "FooBot", "/y", true, 0, nil, "unknown"},                                                                                            // rule before first user-agent ignored
	{"T55", "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n", "FooBot", "/", false, 0, nil, "N/A"},                                                               // unknown line does not end the user-agent run
	{"T56", "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n", "BarBot", "/", false, 0, nil, "N/A"},                                                            // Sitemap must not terminate a group
	{"T57", "User-agent: BazBot\n\nUser-agent: FooBot\nallow: /z/\ndisallow: /\n", "BazBot", "/z/d", true, 0, nil, "unknown"},                                                                     // blank line inside the user-agent run
	{"T58", "User-agent: BazBot\n\nUser-agent: FooBot\nallow: /z/\ndisallow: /\n", "BazBot", "/a", false, 0, nil, "N/A"},                                                                          //
	{"T59", "  uSeR-aGeNt \t:  FooBot \n\tDiSaLlOw\t:\t/x \n", "FooBot", "/x", false, 0, nil, "N/A"},                                                                                              // keys case-insensitive; SP/HTAB anywhere around key, colon, value
	{"T60", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/\xE3\x83\x84\n", "FooBot", "/foo/bar/%E3%83%84", true, 0, nil, "unknown"},                                                           // UTF-8 in pattern percent-encoded before comparing
	{"T61", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%e3%83%84\n", "FooBot", "/foo/bar/%E3%83%84", true, 0, nil, "unknown"},                                                              // hex case normalised
	{"T62", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "FooBot", "/foo/bar/baz", true, 0, nil, "unknown"},                                                                    // unreserved %XX decoded. Google's library: disallowed
	{"T63", "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "archivectl", "/path/file-with-a-*.html", false, 0, nil, "N/A"},                                                              // %2A = literal *. Google's library: allowed
	{"T64", "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "archivectl", "/path/file-with-a-x.html", true, 0, nil, "unknown"},                                                           // %2A is not a wildcard
	{"T65", "User-agent: *\nDisallow: /path/foo-%24\n", "archivectl", "/path/foo-$", false, 0, nil, "N/A"},                                                                                        // %24 = literal $. Google's library: allowed
	{"T66", "User-agent: *\nDisallow: /*?\n", "archivectl", "/page?x=1", false, 0, nil, "N/A"},                                                                                                    //
	{"T67", "User-agent: *\nDisallow: /*?\n", "archivectl", "/page", true, 0, nil, "unknown"},                                                                                                     //
	{"T68", "User-agent: *\nDisallow: fish\n", "archivectl", "/fish", true, 0, nil, "unknown"},                                                                                                    // pattern not starting with / or * can never match
	{"T69", "User-agent: *\nDisallow: /a*b*c\n", "archivectl", "/a1b2c3", false, 0, nil, "N/A"},                                                                                                   //
	{"T70", "User-agent: *\nDisallow: /a*b*c\n", "archivectl", "/acb", true, 0, nil, "unknown"},                                                                                                   //
	{"T71", "User-agent: *\n" + PAD + "Disallow: /late\n", "archivectl", "/late", true, 0, nil, "unknown"},                                                                                        // rule starts after byte 512,000: implementation-defined, we ignore it; Google's library: disallowed
	{"T72", "User-agent: *\nDisallow: /early\n" + PAD, "archivectl", "/early", false, 0, nil, "N/A"},                                                                                              // rules inside the first 500 KiB MUST be honoured
	{"T73", E1, "ExampleBot", "/news/today", true, 90, nil, "unknown"},                                                                                                                            // official example
	{"T74", E1, "ExampleBot", "/other", true, 90, nil, "unknown"},                                                                                                                                 // no Disallow, so allowed; group embargo covers it
	{"T75", E1, "OtherBot", "/news", true, 0, nil, "unknown"},                                                                                                                                     // no group for OtherBot, no *
	{"T76", E2, "archivectl", "/news/2026/a.html", true, 31, nil, "unknown"},                                                                                                                      // official example. Legacy parser: disallowed
	{"T77", E2, "archivectl", "/about", false, 0, nil, "N/A"},                                                                                                                                     // official example
	{"T78", E2, "archivectl", "/newsletter", true, 31, nil, "unknown"},                                                                                                                            // prefix semantics apply to Embargo-Allow too; Google's library: disallowed
	{"T79", E2, "archivectl", "/robots.txt", true, 0, nil, "unknown"},                                                                                                                             // robots.txt itself: allowed, never embargoed; Google's library: disallowed
	{"T80", "User-Agent: *\nArchive-Embargo: m\nEmbargo-Allow: /news\nDisallow: /news\n", "archivectl", "/news", true, 31, nil, "unknown"},                                                        // Embargo-Allow beats an equal-length Disallow; Google's library: disallowed
	{"T81", "User-Agent: *\nEmbargo-Allow: /news\nDisallow: /\n", "archivectl", "/news", false, 0, nil, "N/A"},                                                                                    // no Archive-Embargo: Embargo-Allow MUST be ignored
	{"T82", "User-Agent: *\nArchive-Embargo: 90d\nEmbargo-Allow: /news\nDisallow: /\n", "archivectl", "/news", false, 0, nil, "N/A"},                                                              // invalid value ignored, so Embargo-Allow ignored too
	{"T83", "User-Agent: *\nArchive-Embargo: Q\nAllow: /\n", "archivectl", "/x", true, 90, nil, "unknown"},                                                                                        // value case-insensitive
	{"T84", "user-agent: *\n  ARCHIVE-EMBARGO :w # weekly\n", "archivectl", "/x", true, 7, nil, "unknown"},                                                                                        // key case-insensitive, WS, trailing comment
	{"T85", "User-agent: *\nArchive-Embargo: w\nArchive-Embargo: q\n", "archivectl", "/x", true, 90, nil, "unknown"},                                                                              // several valid values: longest period
	{"T86", "User-agent: *\nArchive-Embargo: y\nArchive-Embargo: m\n", "archivectl", "/x", true, 31, nil, "unknown"},                                                                              // invalid line ignored, valid one kept
	{"T87", "User-agent: *\nArchive-Embargo:\nEmbargo-Allow: /a\nDisallow: /\n", "archivectl", "/a", false, 0, nil, "N/A"},                                                                        // empty value is invalid
	{"T88", "User-agent: *\nArchive-Embargo: q m\n", "archivectl", "/x", true, 0, nil, "unknown"},                                                                                                 // extra token makes the value invalid
	{"T89", "User-agent: *\nArchive-Embargo: q\nEmbargo-Allow: /news\nDisallow: /\n\nUser-agent: archivectl\nDisallow: /private\n", "archivectl", "/news", true, 0, nil, "unknown"},               // specific group wins; * group's embargo irrelevant
	{"T90", "User-agent: *\nArchive-Embargo: q\nEmbargo-Allow: /news\nDisallow: /\n\nUser-agent: archivectl\nDisallow: /private\n", "archivectl", "/private", false, 0, nil, "N/A"},               //
	{"T91", "User-agent: archivectl\nArchive-Embargo: w\n\nUser-agent: archivectl\nEmbargo-Allow: /news\nDisallow: /\n", "archivectl", "/news", true, 7, nil, "unknown"},                          // validity checked on the merged group; Google's library: disallowed
	{"T92", "Archive-Embargo: q\nUser-agent: *\nEmbargo-Allow: /news\nDisallow: /\n", "archivectl", "/news", false, 0, nil, "N/A"},                                                                // Archive-Embargo outside any group ignored
	{"T93", "User-agent: *\nArchive-Embargo: m\nEmbargo-Allow: /news\nDisallow: /news/private\n", "archivectl", "/news/private/x", false, 0, nil, "N/A"},                                          // longer Disallow beats Embargo-Allow
	{"T94", "User-agent: *\nArchive-Embargo: m\nEmbargo-Allow: /news\nDisallow: /news/private\n", "archivectl", "/news/public", true, 31, nil, "unknown"},                                         //
	{"T95", "User-agent: *\nArchive-Embargo: w\nAllow: /public\nDisallow: /\n", "archivectl", "/public/a", true, 7, nil, "unknown"},                                                               // plain Allow under an embargo group is embargoed too
	{"T96", "User-agent: archivectl\nArchive-Embargo: q\n\nUser-agent: *\nDisallow: /\n", "archivectl", "/x", true, 90, nil, "unknown"},                                                           // extension rule ends the user-agent run. Legacy parser: disallowed
	{"T97", "User-agent: archivectl\nContent-Usage: train-ai=n\nUser-agent: *\nDisallow: /\n", "archivectl", "/x", true, 0, []string{"train-ai=n"}, "train-ai=disallow"},                          // same, with Content-Usage. Legacy parser: disallowed
	{"T98", "User-agent: archivectl\nCrawl-delay: 5\nUser-agent: *\nDisallow: /\n", "archivectl", "/x", false, 0, nil, "N/A"},                                                                     // Crawl-delay is not a rule: one group for both agents
	{"T99", C1, "OtherBot", "/test", true, 0, []string{"train-ai=n"}, "train-ai=disallow"},                                                                                                        // official table row 1
	{"T100", C1, "OtherBot", "/never/test", false, 0, nil, "N/A"},                                                                                                                                 // official table row 2 (N/A)
	{"T101", C1, "OtherBot", "/ai-ok/test", true, 0, []string{"train-ai=y"}, "train-ai=allow"},                                                                                                    // official table row 3
	{"T102", C1, "ExampleBot", "/never/test", true, 0, []string{"train-ai=y"}, "train-ai=allow"},                                                                                                  // ExampleBot uses the second group
	{"T103", C1, "ExampleBot", "/ai-ok/test", true, 0, []string{"train-ai=y"}, "train-ai=allow"},                                                                                                  // * group's rules do not leak
	{"T104", "User-Agent: *\nAllow: /\nContent-Usage: train-ai=n\n", "archivectl", "/any", true, 0, []string{"train-ai=n"}, "train-ai=disallow"},                                                  // official intro example
	{"T105", "User-Agent: *\nContent-Usage: train-ai=y, search=n\n", "archivectl", "/x", true, 0, []string{"train-ai=y, search=n"}, "train-ai=allow, search=disallow"},                            //
	{"T106", "User-Agent: *\nContent-Usage: /a/ train-ai=y\nContent-Usage: /a/ train-ai=n\n", "archivectl", "/a/x", true, 0, []string{"train-ai=y", "train-ai=n"}, "train-ai=disallow"},           // identical paths: both apply, combined
	{"T107", "User-Agent: *\nContent-Usage: /a/ train-ai=y\nContent-Usage: /a/ search=n\n", "archivectl", "/a/x", true, 0, []string{"train-ai=y", "search=n"}, "train-ai=allow, search=disallow"}, //
	{"T108", "User-Agent: *\nContent-Usage: /docs/\ttrain-ai=n\n", "archivectl", "/docs/x", true, 0, []string{"train-ai=n"}, "train-ai=disallow"},                                                 // HTAB separates path and preference
	{"T109", "User-Agent: *\nContent-Usage: train-ai=n # no training\n", "archivectl", "/x", true, 0, []string{"train-ai=n"}, "train-ai=disallow"},                                                // # ends the value
	{"T110", "User-Agent: *\nContent-Usage: train-ai=n, note=\"a#b\"\n", "archivectl", "/x", true, 0, []string{`train-ai=n, note="a`}, "all unknown"},                                             // # cuts a string: parse fails, all unknown
	{"T111", "User-Agent: *\nContent-Usage: *.pdf train-ai=n\n", "archivectl", "/x.pdf", true, 0, []string{"*.pdf train-ai=n"}, "all unknown"},                                                    // no leading /: whole value is the preference; parse fails
	{"T112", "User-Agent: *\nContent-Usage: /*.pdf$ train-ai=n\n", "archivectl", "/doc.pdf", true, 0, []string{"train-ai=n"}, "train-ai=disallow"},                                                // wildcards work in Content-Usage paths
	{"T113", "User-Agent: *\nContent-Usage: /*.pdf$ train-ai=n\n", "archivectl", "/doc.pdf?x=1", true, 0, nil, "unknown"},                                                                         // no matching rule: unknown
	{"T114", "User-agent: *\nDisallow: /p/\nContent-Usage: /p/ train-ai=y\n", "archivectl", "/p/x", false, 0, nil, "N/A"},                                                                         // disallowed: no preferences
	{"T115", "User-agent: *\nContent-Usage: train-ai=n\n\nUser-agent: archivectl\nAllow: /\n", "archivectl", "/x", true, 0, nil, "unknown"},                                                       // specific group without Content-Usage: unknown
	{"T116", "User-agent: *\nContent-Usage: / train-ai=n\nContent-Usage: /a train-ai=y\n", "archivectl", "/abc", true, 0, []string{"train-ai=y"}, "train-ai=allow"},                               // longest path wins
	{"T117", "User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: / train-ai=y\n", "archivectl", "/x", true, 0, []string{"train-ai=y"}, "train-ai=allow"},                                    // absent path = 0 octets, so / (1 octet) wins
	{"T118", "User-agent: *\nContent-Usage: /a* train-ai=n\nContent-Usage: /ab train-ai=y\n", "archivectl", "/abc", true, 0, []string{"train-ai=n", "train-ai=y"}, "train-ai=disallow"},           // equal length, different patterns: combined
	{"T119", "User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /x/ train-ai=y search=n\n", "archivectl", "/x/1", true, 0, []string{"train-ai=y search=n"}, "all unknown"},                 // longest rule unparseable: unknown, no fallback
	{"T120", E2 + "Content-Usage: train-ai=n\n", "archivectl", "/news", true, 31, []string{"train-ai=n"}, "train-ai=disallow"},                                                                    // embargo + preference on an Embargo-Allow path; Google's library: disallowed
	{"T121", "User-agent: *\nContent-Usage: /caf%C3%A9/ train-ai=n\n", "archivectl", "/caf%c3%a9/menu", true, 0, []string{"train-ai=n"}, "train-ai=disallow"},                                     // same percent-encoding normalisation as Allow/Disallow
}

func TestEvaluateSpec(t *testing.T) {
	t.Parallel()
	policies := map[string]*Policy{}
	for _, tc := range specCases {
		if policies[tc.body] == nil {
			policies[tc.body] = NewPolicy([]byte(tc.body))
		}
	}
	for _, tc := range specCases {
		t.Run(tc.id, func(t *testing.T) {
			t.Parallel()
			d := policies[tc.body].Evaluate(tc.agent, tc.path)
			if d.Allowed != tc.allowed {
				t.Errorf("allowed = %v (rule %v), want %v", d.Allowed, d.Rule, tc.allowed)
			}
			if d.Period != embargo.Period(tc.days) {
				t.Errorf("embargo = %d days, want %d", d.Period.Days(), tc.days)
			}
			if !equalStrings(d.ContentUsage, tc.usage) {
				t.Errorf("content usage = %q, want %q", d.ContentUsage, tc.usage)
			}
			if got := combined(d); got != wantCombined(tc.combined) {
				t.Errorf("combined usage = %q, want %q (%s)", got, wantCombined(tc.combined), tc.combined)
			}
		})
	}
}

// combined renders the combined preferences of a decision as sorted "label=y|n", or "N/A".
func combined(d Decision) string {
	if !d.Allowed {
		return "N/A"
	}
	var ps []aipref.Prefs
	for _, s := range d.ContentUsage {
		p, _ := aipref.Parse(s)
		ps = append(ps, p)
	}
	return aipref.Combine(ps...).String()
}

// wantCombined turns the table's "train-ai=allow, search=disallow" into aipref's rendering.
func wantCombined(s string) string {
	switch s {
	case "N/A":
		return s
	case "unknown", "all unknown":
		return ""
	}
	p := aipref.Prefs{}
	for _, e := range strings.Split(s, ", ") {
		label, v, _ := strings.Cut(e, "=")
		p[label] = map[string]aipref.Value{"allow": aipref.Allow, "disallow": aipref.Disallow}[v]
	}
	return p.String()
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
