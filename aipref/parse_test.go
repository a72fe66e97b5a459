package aipref

import (
	"errors"
	"maps"
	"testing"
)

// u, y and n abbreviate the three values in the tables.
const (
	u = Unknown
	y = Allow
	n = Disallow
)

// prefs builds the expected Prefs from (train-ai, ai-use, search), leaving unknowns out.
func prefs(trainAI, aiUse, search Value) Prefs {
	p := Prefs{}
	for label, v := range map[string]Value{TrainAI: trainAI, AIUse: aiUse, Search: search} {
		if v != Unknown {
			p[label] = v
		}
	}
	return p
}

// TestParseStatements runs docs/rules.md#conformance-preferences: the input is the byte string handed to the SF parser.
func TestParseStatements(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                   string
		in                     string
		trainAI, aiUse, search Value
		wantErr                bool
	}{
		{"T122 official example", "train-ai=y, search=n", y, u, n, false},
		{"T123 last duplicate is Boolean or String", `train-ai=y, train-ai, search=n, search="n"`, u, u, u, false},
		{"T124 last member wins with its own params", "train-ai;allow=n, train-ai=y", y, u, u, false},
		{"T125 trailing semicolon fails", `train-ai;has;parameters="?";`, u, u, u, true},
		{"T126 Boolean true with params", `train-ai;has;parameters="?"`, u, u, u, false},
		{"T127 tokens are case-sensitive", "train-ai=Y", u, u, u, false},
		{"T128 uppercase key fails whole field", "search=n, TRAIN-AI=n", u, u, u, true},
		{"T129 token other than y or n", "train-ai=yes", u, u, u, false},
		{"T130 Boolean", "train-ai=?0", u, u, u, false},
		{"T131 String", `train-ai="n"`, u, u, u, false},
		{"T132 Inner List", "train-ai=(n)", u, u, u, false},
		{"T133 trailing comma fails", "train-ai=n,", u, u, u, true},
		{"T134 parameters ignored", "train-ai=n;q=1, search=y", n, u, y, false},
		{"T135 ai-use is a category in -08", "ai-use=n", u, n, u, false},
		{"T136 old labels are ignored", "train-genai=n, bots=n, all=n, tdm=n", u, u, u, false},
		{"T137 empty dictionary", "", u, u, u, false},
		{"T138 space after equals fails", "train-ai= n", u, u, u, true},
		{"T139 HTAB between members", "train-ai=n,\tsearch=y", n, u, y, false},
		{"T140 last duplicate wins", "search=n, search=y", u, u, y, false},
		{"T141 RFC 9651 Date parses", "train-ai=@1700000000, search=n", u, u, n, false},
		{"T142 non-ASCII fails", "train-ai=n\xC3\xA9", u, u, u, true},
		{"T143 SP around the field", " train-ai=n ", n, u, u, false},
		{"T144 star key is no category", "*=n", u, u, u, false},
		{"T145 empty parameter key fails", "train-ai=n;", u, u, u, true},
		{"T146 two joined lines, n last", "train-ai=y, train-ai=n", n, u, u, false},
		{"T147 two joined lines, y last", "train-ai=n, train-ai=y", y, u, u, false},
		{"T148 space before equals fails", "train-ai =n", u, u, u, true},
		{"T149 missing comma fails", "train-ai=n search=y", u, u, u, true},
		{"T150 params ignored", "train-ai=y;foo=bar", y, u, u, false},
		{"T151 RFC 9651 Display String parses", `train-ai=n, search=%"x"`, n, u, u, false},
		{"T152 leading HTAB is not skipped by the SF parser", "\ttrain-ai=n", u, u, u, true},
		{"non-ASCII inside a string fails", "search=y, x=\"\xC3\xA9\"", u, u, u, true},
		{"Byte Sequence is unknown", "train-ai=:bg==:", u, u, u, false},
		{"Integer is unknown", "search=1", u, u, u, false},
		{"all three categories", "train-ai=n, ai-use=y, search=y", n, y, y, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parse(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("parse(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			}
			if want := prefs(tc.trainAI, tc.aiUse, tc.search); !maps.Equal(got, want) {
				t.Errorf("parse(%q) = %v, want %v", tc.in, got.Expressions(), want.Expressions())
			}
		})
	}
}

// TestParseStripsWhitespace checks docs/rules.md#d9: Parse strips SP and HTAB before the SF parser sees the statement.
func TestParseStripsWhitespace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    Prefs
		wantErr bool
	}{
		{"T152 leading HTAB stripped (docs/rules.md#d9)", "\ttrain-ai=n", Prefs{TrainAI: n}, false},
		{"T143 SP around", " train-ai=n ", Prefs{TrainAI: n}, false},
		{"trailing HTAB stripped", "search=y\t", Prefs{Search: y}, false},
		{"only whitespace is empty", " \t \t", Prefs{}, false},
		{"inner HTAB after equals still fails", "train-ai=\tn", Prefs{}, true},
		{"non-ASCII fails", "\ttrain-ai=n\xC3\xA9", Prefs{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Parse(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			}
			if got == nil || !maps.Equal(got, tc.want) {
				t.Errorf("Parse(%q) = %#v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

// TestParseHeader checks that field lines are joined into one Dictionary (RFC 9651 §4.2,
// docs/rules.md#header-field-lines).
func TestParseHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		lines   []string
		want    Prefs
		wantErr bool
	}{
		{"no lines", nil, Prefs{}, false},
		{"T146 y then n: last wins", []string{"train-ai=y", "train-ai=n"}, Prefs{TrainAI: n}, false},
		{"T147 n then y: last wins", []string{"train-ai=n", "train-ai=y"}, Prefs{TrainAI: y}, false},
		{"T157 two lines, two categories", []string{"train-ai=n", "search=y"}, Prefs{TrainAI: n, Search: y}, false},
		{"T155 uppercase key", []string{"Train-AI=n"}, Prefs{}, true},
		{"one bad line fails all", []string{"search=y", "train-ai=n,"}, Prefs{}, true},
		{"empty line adds nothing", []string{"search=y", "", " \t"}, Prefs{Search: y}, false},
		{"HTAB around lines", []string{"\tsearch=y\t", "\ttrain-ai=n"}, Prefs{Search: y, TrainAI: n}, false},
		{"member split across lines fails", []string{"train-ai=", "n"}, Prefs{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseHeader(tc.lines)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseHeader(%q) error = %v, want error %v", tc.lines, err, tc.wantErr)
			}
			if got == nil || !maps.Equal(got, tc.want) {
				t.Errorf("ParseHeader(%q) = %#v, want %v", tc.lines, got, tc.want)
			}
		})
	}
}

// TestParseErrorIsOneLine checks the error wraps the cause and reads as one line.
func TestParseErrorIsOneLine(t *testing.T) {
	t.Parallel()
	_, err := Parse("train-ai=n\xC3\xA9")
	if !errors.Is(err, errNonASCII) {
		t.Fatalf("Parse non-ASCII: error %v does not wrap errNonASCII", err)
	}
	_, err = Parse("TRAIN-AI=n")
	if err == nil || errors.Unwrap(err) == nil {
		t.Fatalf("Parse uppercase key: error %v does not wrap the parser's error", err)
	}
	for _, r := range err.Error() {
		if r == '\n' {
			t.Fatalf("error %q spans several lines", err)
		}
	}
}
