package surt

import (
	"strings"
	"testing"
)

// sid is the 32-character session id of the session-id cases.
const sid = "0123456789abcdefghijklemopqrstuv"

// TestKey holds the cases of Python surt's own tests (tests/test_surt.py of
// internetarchive/surt 0.3.1, which ports the Java tests of WaybackURLKeyMaker, the Google and
// IA canonicalisers and handyurl) as surt.surt(url) answers them with its default options:
// where a Python test exercises one stage (a canonicaliser, the host massage, the IP formats,
// the session-id removal), the case is the whole URL through every stage.
func TestKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		// test_surt (WaybackURLKeyMakerTest)
		{"www dropped", "http://www.archive.org/", "org,archive)/"},
		{"plain host", "http://archive.org/", "org,archive)/"},
		{"trailing slash dropped", "http://archive.org/goo/", "org,archive)/goo"},
		{"empty query dropped", "http://archive.org/goo/?", "org,archive)/goo"},
		{"query sorted", "http://archive.org/goo/?b&a", "org,archive)/goo?a&b"},
		{"query sorted by name then value", "http://archive.org/goo/?a=2&b&a=1", "org,archive)/goo?a=1&a=2&b"},
		{"PHP session id", "http://archive.org/index.php?PHPSESSID=" + sid + "&action=profile;u=4221", "org,archive)/index.php?action=profile;u=4221"},
		{"Yahoo web bug", "http://visit.webhosting.yahoo.com/visit.gif?&r=http%3A//web.archive.org/web/20090517140029/http%3A//anthonystewarthead.electric-chi.com/&b=Netscape%205.0%20%28Windows%3B%20en-US%29&s=1366x768&o=Win32&c=24&j=true&v=1.2",
			"com,yahoo,webhosting,visit)/visit.gif?&b=netscape%205.0%20(windows;%20en-us)&c=24&j=true&o=win32&r=http://web.archive.org/web/20090517140029/http://anthonystewarthead.electric-chi.com/&s=1366x768&v=1.2"},
		{"www.example.com", "http://www.example.com/", "com,example)/"},
		{"non-ASCII escapes lowercased", "http://example.com/app?item=Wroc%C5%82aw", "com,example)/app?item=wroc%c5%82aw"},
		{"IPv4 reversed", "http://192.168.1.254/info/", "254,1,168,192)/info"},
		// Python's xfail test: an escaped "&" in a value is decoded before the query is split.
		{"escaped & splits (as Python does)", "http://example.com/script?type=a+b+%26+c&grape=wine", "com,example)/script?+c&grape=wine&type=a+b+"},

		// test_DefaultIAURLCanonicalizer
		{"www of alexa", "http://www.alexa.com/", "com,alexa)/"},
		{"file", "http://archive.org/index.html", "org,archive)/index.html"},
		{"file, empty query", "http://archive.org/index.html?", "org,archive)/index.html"},
		{"file, query", "http://archive.org/index.html?a=b", "org,archive)/index.html?a=b"},
		{"file, two parameters", "http://archive.org/index.html?b=b&a=b", "org,archive)/index.html?a=b&b=b"},
		{"file, repeated parameter", "http://archive.org/index.html?b=a&b=b&a=b", "org,archive)/index.html?a=b&b=a&b=b"},
		{"www34 dropped", "http://www34.archive.org/index.html?b=a&b=b&a=b", "org,archive)/index.html?a=b&b=a&b=b"},

		// test_GoogleURLCanonicalizer
		{"escaped %", "http://host/%25%32%35", "host)/%25"},
		{"escaped % twice", "http://host/%25%32%35%25%32%35", "host)/%25%25"},
		{"escaped % repeatedly", "http://host/%2525252525252525", "host)/%25"},
		{"escaped % inside", "http://host/asdf%25%32%35asd", "host)/asdf%25asd"},
		{"stray %", "http://host/%%%25%32%35asd%%", "host)/%25%25%25asd%25%25"},
		{"google", "http://www.google.com/", "com,google)/"},
		{"escaped IP host and path", "http://%31%36%38%2e%31%38%38%2e%39%39%2e%32%36/%2E%73%65%63%75%72%65/%77%77%77%2E%65%62%61%79%2E%63%6F%6D/", "26,99,188,168)/.secure/www.ebay.com"},
		{"escaped spaces kept", "http://195.127.0.11/uploads/%20%20%20%20/.verify/.eBaysecure=updateuserdataxplimnbqmn-xplmvalidateinfoswqpcmlx=hgplmcx/",
			"11,0,127,195)/uploads/%20%20%20%20/.verify/.ebaysecure=updateuserdataxplimnbqmn-xplmvalidateinfoswqpcmlx=hgplmcx"},
		{"minimal escaping", "http://host%23.com/%257Ea%2521b%2540c%2523d%2524e%25f%255E00%252611%252A22%252833%252944_55%252B", "com,host%23)/~a!b@c%23d$e%25f^00&11*22(33)44_55+"},
		{"IPv4 as one number", "http://3279880203/blah", "11,0,127,195)/blah"},
		{"dot-dot segment", "http://www.google.com/blah/..", "com,google)/"},
		{"no scheme (Python adds http://)", "http://www.google.com/", "com,google)/"},
		{"no path", "http://www.google.com", "com,google)/"},
		{"fragment dropped", "http://www.evil.com/blah#frag", "com,evil)/blah"},
		{"host case", "http://www.GOOgle.com/", "com,google)/"},
		{"trailing dots", "http://www.google.com.../", "com,google)/"},
		{"tab, CR, LF removed", "http://www.google.com/foo\tbar\rbaz\n2", "com,google)/foobarbaz2"},
		{"lone ?", "http://www.google.com/q?", "com,google)/q"},
		{"? in query", "http://www.google.com/q?r?", "com,google)/q?r?"},
		{"? in query, more", "http://www.google.com/q?r?s", "com,google)/q?r?s"},
		{"two fragments", "http://evil.com/foo#bar#baz", "com,evil)/foo"},
		{"semicolon", "http://evil.com/foo;", "com,evil)/foo;"},
		{"semicolon in query", "http://evil.com/foo?bar;", "com,evil)/foo?bar;"},
		{"host IDNA refuses", "http://\u0001\u0080.com/", "com,%01%c2%80)/"},
		{"IDNA, port", "http://B\u00fccher.ch:8080", "ch,xn--bcher-kva:8080)/"},
		{"IDNA snowman", "http://☃.com", "com,xn--n3h)/"},
		{"escaped host IDNA refuses", "http://www.t%EF%BF%BD%04.82.net/", "net,82,t%ef%bf%bd%04)/"},
		{"no trailing slash", "http://notrailingslash.com", "com,notrailingslash)/"},
		{"port kept", "http://www.gotaport.com:1234/", "com,gotaport:1234)/"},
		{"surrounding spaces", "  http://www.google.com/  ", "com,google)/"},
		{"space in host", "http:// leadingspace.com/", "com,%20leadingspace)/"},
		{"escaped space in host", "http://%20leadingspace.com/", "com,%20leadingspace)/"},
		{"escaped space, http added", "http://%20leadingspace.com/", "com,%20leadingspace)/"},
		{"https", "https://www.securesite.com/", "com,securesite)/"},
		{"escaped #", "http://host.com/ab%23cd", "com,host)/ab%23cd"},
		{"double slashes", "http://host.com//twoslashes?more//slashes", "com,host)/twoslashes?more//slashes"},

		// test_handyurl_parse
		{"slashes before the host", "http:////////////////www.vikings.com", "com,vikings)/"},
		{"two schemes", "http://https://order.1and1.com", "com,1and1,order)/"},
		{"colon without port", "http://mineral.galleries.com:/minerals/silicate/chabazit/chabazit.htm", "com,galleries,mineral)/minerals/silicate/chabazit/chabazit.htm"},
		{"port, query, fragment", "http://www.archive.org:8080/index.html?query#foo", "org,archive:8080)/index.html?query"},
		{"port, empty query, fragment", "http://www.archive.org:8080?#foo", "org,archive:8080)/"},

		// test_IAURLCanonicalizer, test_massageHost, test_getDefaultPort
		{"upper-case host", "http://ARCHIVE.ORG/", "org,archive)/"},
		{"default http port", "http://www.archive.org:80/", "org,archive)/"},
		{"https on 80 keeps the port", "https://www.archive.org:80/", "org,archive:80)/"},
		{"http on 443 keeps the port", "http://www.archive.org:443/", "org,archive:443)/"},
		{"default https port", "https://www.archive.org:443/", "org,archive)/"},
		{"directory", "http://www.archive.org/big/", "org,archive)/big"},
		{"www12 dropped", "http://www12.foo.com/", "com,foo)/"},
		{"www2foo is no www label", "http://www2foo.com/", "com,www2foo)/"},
		{"only the first www label", "http://www2.www2foo.com/", "com,www2foo)/"},

		// test_hostToSURT, test_attemptIPFormats
		{"numeric labels", "http://123.123.net/", "net,123,123)/"},
		{"four numbers, then a name", "http://100.100.100.100.org/", "org,100,100,100,100)/"},
		{"IPv4", "http://123.45.167.89/", "89,167,45,123)/"},
		{"not an IPv4 address", "http://10.162.1024.3/", "3,1024,162,10)/"},
		{"not an IPv4 address either", "http://990.991.992.993/", "993,992,991,990)/"},
		{"loopback", "http://127.0.0.1/", "1,0,0,127)/"},
		{"octal", "http://017.0.0.1/", "1,0,0,15)/"},
		{"three parts", "http://10.0.258/", "2,1,0,10)/"},
		{"part out of range", "http://1.2.3.256/", "256,3,2,1)/"},
		{"number over 32 bits", "http://39024579298/", "226,210,11,22)/"},

		// test_stripPathSessionID
		{"ASP.NET session id", "http://e.com/(S(4hqa0555fwsecu455xqckv45))/mileg.aspx", "com,e)/mileg.aspx"},
		{"ASP.NET session id, short form", "http://e.com/(4hqa0555fwsecu455xqckv45)/mileg.aspx", "com,e)/mileg.aspx"},
		{"ASP.NET session ids", "http://e.com/(a(4hqa0555fwsecu455xqckv45)S(4hqa0555fwsecu455xqckv45)f(4hqa0555fwsecu455xqckv45))/mileg.aspx?page=sessionschedules", "com,e)/mileg.aspx?page=sessionschedules"},
		{"@ in the path", "http://e.com/photos/36050182@N05/", "com,e)/photos/36050182@n05"},

		// test_stripQuerySessionID (on http://www.archive.org/index.html)
		{"jsessionid alone", "http://www.archive.org/index.html?jsessionid=" + sid, "org,archive)/index.html"},
		{"jsessionid of 33", "http://www.archive.org/index.html?jsessionid=" + sid + "0", "org,archive)/index.html?jsessionid=" + sid + "0"},
		{"jsessionid, then more", "http://www.archive.org/index.html?jsessionid=" + sid + "&x=y", "org,archive)/index.html?x=y"},
		{"jsessionid between", "http://www.archive.org/index.html?one=two&jsessionid=" + sid + "&x=y", "org,archive)/index.html?one=two&x=y"},
		{"jsessionid last", "http://www.archive.org/index.html?one=two&jsessionid=" + sid, "org,archive)/index.html?&one=two"},
		{"aspsessionid", "http://www.archive.org/index.html?aspsessionidABCDEFGH=ABCDEFGHIJKLMNOPQRSTUVWX&x=y", "org,archive)/index.html?x=y"},
		{"phpsessid", "http://www.archive.org/index.html?phpsessid=" + sid + "&x=y", "org,archive)/index.html?x=y"},
		{"phpsessid between", "http://www.archive.org/index.html?one=two&phpsessid=" + sid + "&x=y", "org,archive)/index.html?one=two&x=y"},
		{"phpsessid last", "http://www.archive.org/index.html?one=two&phpsessid=" + sid, "org,archive)/index.html?&one=two"},
		{"sid", "http://www.archive.org/index.html?sid=9682993c8daa2c5497996114facdc805&x=y", "org,archive)/index.html?x=y"},
		{"sid and jsessionid", "http://www.archive.org/index.html?sid=9682993c8daa2c5497996114facdc805&jsessionid=" + sid, "org,archive)/index.html"},
		{"ColdFusion", "http://www.archive.org/index.html?CFID=1169580&CFTOKEN=48630702&dtstamp=22%2F08%2F2006%7C06%3A58%3A11", "org,archive)/index.html?dtstamp=22/08/2006|06:58:11"},
		{"ColdFusion, then a value", "http://www.archive.org/index.html?CFID=12412453&CFTOKEN=15501799&dt=19_08_2006_22_39_28", "org,archive)/index.html?dt=19_08_2006_22_39_28"},
		{"ColdFusion, then two", "http://www.archive.org/index.html?CFID=14475712&CFTOKEN=2D89F5AF-3048-2957-DA4EE4B6B13661AB&r=468710288378&m=forgotten", "org,archive)/index.html?m=forgotten&r=468710288378"},
		{"ColdFusion alone", "http://www.archive.org/index.html?CFID=16603925&CFTOKEN=2AE13EEE-3048-85B0-56CEDAAB0ACA44B8", "org,archive)/index.html"},
		{"ColdFusion, escaped dot", "http://www.archive.org/index.html?CFID=4308017&CFTOKEN=63914124&requestID=200608200458360%2E39414378", "org,archive)/index.html?requestid=200608200458360.39414378"},

		// test_alphaReorderQuery
		{"query of one", "http://e.com/?a", "com,e)/?a"},
		{"trailing &", "http://e.com/?a=1&", "com,e)/?&a=1"},
		{"equal parameters", "http://e.com/?a=a&a=a", "com,e)/?a=a&a=a"},
		{"by value", "http://e.com/?a=b&a=a", "com,e)/?a=a&a=b"},
		{"by name then value", "http://e.com/?b=b&a=b&b=a&a=a", "com,e)/?a=a&a=b&b=a&b=b"},
		{"name before name-dash", "http://e.com/?a-b=1&a=1", "com,e)/?a=1&a-b=1"},

		// archivectl's own: what the demo and the crawler meet.
		{"loopback with port", "http://127.0.0.1:32805/", "1,0,0,127:32805)/"},
		{"IPv6", "http://[::1]:8080/x", "::1:8080)/x"},
		{"IPv6 upper case", "https://[2001:DB8::1]/", "2001:db8::1)/"},
		{"www as the whole name", "https://www.com/", "com)/"},
		{"raw space in the query escaped", "https://example.com/a?q=a b", "com,example)/a?q=a%20b"},
		{"user information dropped", "https://user:pw@example.com/a", "com,example)/a"},
		{"scheme case", "HTTPS://Example.COM/A/B", "com,example)/a/b"},
		{"dot segment", "https://example.com/a/./b/../c", "com,example)/a/c"},
		{"dot-dot above the root stays", "https://example.com/../a", "com,example)/../a"},
		{"port 0 is none", "http://example.com:0/", "com,example)/"},
		{"escaped slash decoded", "https://example.com/a%2Fb", "com,example)/a/b"},
		{"bytes that are not UTF-8 escaped", "https://example.com/\xe9\t\xff?q=\xfe", "com,example)/%e9%ff?q=%fe"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Key(tc.in)
			if err != nil || got != tc.want {
				t.Errorf("Key(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

// TestKeyRejects: Python's surt answers these too ("-" for nothing, the URL itself for
// filedesc:, dns:, mailto:, a key for ftp: and for a URL without a scheme, which it takes as
// http), but archivectl keys absolute http(s) URLs only.
func TestKeyRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "   ", "ftp://example.com/", "mailto:a@example.com", "dns:archive.org", "filedesc:foo.arc.gz",
		"localhost:8080/", "www.google.com/", "☃.com", "example.com/news", "https:///", "http://.../", "http://example.com:99999/", "http://example.com:8x/", "http://"} {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			if got, err := Key(in); err == nil {
				t.Errorf("Key(%q) = %q, want an error", in, got)
			}
		})
	}
}

func FuzzKey(f *testing.F) {
	for _, s := range []string{"https://example.com/a?b=1&a=2", "http://www.example.com:8080/", "http://[::1]/x", "https://Example.COM./A/", "http://1.2.3/%2e%2E/a?b=%26", "xn--n3h.com/☃"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		k, err := Key(in)
		if err != nil {
			return
		}
		if !strings.Contains(k, ")") || strings.ContainsAny(k, "\x00 \n\r") {
			t.Fatalf("Key(%q) = %q: no ')', or a NUL (the index's separator), a space or a line break (CDXJ's)", in, k)
		}
		if k2, err := Key(in); err != nil || k2 != k {
			t.Fatalf("Key(%q) not deterministic: %q vs %q", in, k, k2)
		}
	})
}

// TestNormalizePathShortcut: the shortcut for paths with nothing to resolve agrees with
// resolving every path of up to 8 characters of "/", "." and "a".
func TestNormalizePathShortcut(t *testing.T) {
	t.Parallel()
	paths := []string{""}
	for range 8 {
		n := len(paths)
		for _, p := range paths[:n] {
			for _, c := range []string{"/", ".", "a"} {
				paths = append(paths, p+c)
			}
		}
	}
	for _, p := range paths[1:] {
		if got, want := normalizePath(p), resolvePath(p); got != want {
			t.Fatalf("normalizePath(%q) = %q, want %q", p, got, want)
		}
	}
}
