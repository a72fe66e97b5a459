package robots

import (
	"reflect"
	"testing"
)

// collect returns the records Parse emits for body.
func collect(body string) []Record {
	var out []Record
	Parse([]byte(body), HandlerFunc(func(r Record) { out = append(out, r) }))
	return out
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       []Record
	}{
		{"empty", "", nil},
		{"LF", "User-agent: a\nDisallow: /x\n", []Record{{1, KeyUserAgent, "User-agent", "a"}, {2, KeyDisallow, "Disallow", "/x"}}},
		{"CR only", "User-agent: a\rDisallow: /x\r", []Record{{1, KeyUserAgent, "User-agent", "a"}, {2, KeyDisallow, "Disallow", "/x"}}},
		{"CRLF counts as one line end", "a: 1\r\n\r\nb: 2", []Record{{1, KeyUnknown, "a", "1"}, {3, KeyUnknown, "b", "2"}}},
		{"LF CR is two line ends", "a: 1\n\rb: 2", []Record{{1, KeyUnknown, "a", "1"}, {3, KeyUnknown, "b", "2"}}},
		{"BOM skipped", "\xEF\xBB\xBFAllow: /", []Record{{1, KeyAllow, "Allow", "/"}}},
		{"partial BOM skipped", "\xEF\xBBAllow: /", []Record{{1, KeyAllow, "Allow", "/"}}},
		{"BOM on a later line is garbage", "a: 1\n\xEF\xBB\xBFAllow: /", []Record{{1, KeyUnknown, "a", "1"}, {2, KeyUnknown, "\xEF\xBB\xBFAllow", "/"}}},
		{"comments and whitespace", " \tDisallow \t: \t/a b # c\n# only\n   \n", []Record{{1, KeyDisallow, "Disallow", "/a b"}}},
		{"empty value", "Disallow:\n", []Record{{1, KeyDisallow, "Disallow", ""}}},
		{"value with colons", "Sitemap: https://a.example/s.xml\n", []Record{{1, KeySitemap, "Sitemap", "https://a.example/s.xml"}}},
		{"no key", ": /x\n", nil},
		{"one word", "Disallow\n", nil},
		{"missing colon, two words", "Disallow\t/x\n", []Record{{1, KeyDisallow, "Disallow", "/x"}}},
		{"missing colon, three words", "Disallow /x y\n", nil},
		{"extension keys any case", "ARCHIVE-EMBARGO: q\nembargo-ALLOW: /n\nContent-usage: train-ai=n\nCRAWL-DELAY: 1\n", []Record{
			{1, KeyArchiveEmbargo, "ARCHIVE-EMBARGO", "q"}, {2, KeyEmbargoAllow, "embargo-ALLOW", "/n"},
			{3, KeyContentUsage, "Content-usage", "train-ai=n"}, {4, KeyCrawlDelay, "CRAWL-DELAY", "1"}}},
		{"long unknown key", "archive-embargo-extra: q\n", []Record{{1, KeyUnknown, "archive-embargo-extra", "q"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := collect(tc.body); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("records = %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestContentUsageRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value, path, pref string
	}{
		{"train-ai=n", "", "train-ai=n"},
		{"/a/ train-ai=n", "/a/", "train-ai=n"},
		{"/a/\t \ttrain-ai=n, search=y", "/a/", "train-ai=n, search=y"},
		{"/only", "/only", ""},
		{"*.pdf train-ai=n", "", "*.pdf train-ai=n"},
		{"", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			t.Parallel()
			p := NewPolicy([]byte("User-agent: *\nContent-Usage: " + tc.value + "\n"))
			if len(p.usage) != 1 || p.usage[0].raw != tc.path || p.usage[0].pref != tc.pref {
				t.Errorf("usage rules = %+v, want path %q pref %q", p.usage, tc.path, tc.pref)
			}
		})
	}
}
