// Package warcfields writes and reads application/warc-fields blocks: "name: value" lines ending
// in CRLF, the form of WARC named fields, which Heritrix uses for its metadata records and replay
// indexers recognise and skip. It uses the standard library only, so that the public format can
// share it without linking the store.
//
// A value is written as it is when it survives every reader unchanged: valid UTF-8 without
// control characters, without a leading or trailing space and without "=?". Any other value is
// written as RFC 2047 encoded-words ("=?utf-8?b?…?=", the encoding WARC named fields allow for
// text that is not plain), which Parse decodes back to the exact bytes. gowarc's strict reader
// takes every block Builder writes (it decodes encoded-words too, but trims the decoded value).
package warcfields

import (
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"
)

// Field is one named field.
type Field struct{ Name, Value string }

// Builder writes a block field by field.
type Builder struct {
	b   strings.Builder
	err error
}

// Add writes one field. A name must be a non-empty token without ":", space or control characters.
func (w *Builder) Add(name, value string) {
	if !validName(name) {
		if w.err == nil {
			w.err = fmt.Errorf("warc-fields: bad field name %q", name)
		}
		return
	}
	w.b.WriteString(name)
	w.b.WriteByte(':')
	if value != "" {
		w.b.WriteByte(' ')
		w.b.WriteString(Encode(value))
	}
	w.b.WriteString("\r\n")
}

// AddNonEmpty writes the field when value is not empty.
func (w *Builder) AddNonEmpty(name, value string) {
	if value != "" {
		w.Add(name, value)
	}
}

// AddAll writes one field per value, in order.
func (w *Builder) AddAll(name string, values []string) {
	for _, v := range values {
		w.Add(name, v)
	}
}

// Bytes is the block written so far, or the first error.
func (w *Builder) Bytes() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	return []byte(w.b.String()), nil
}

func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c <= ' ' || c >= 0x7f || c == ':' {
			return false
		}
	}
	return true
}

// plain reports whether v can be written as it is.
func plain(v string) bool {
	if !utf8.ValidString(v) || strings.Contains(v, "=?") {
		return false
	}
	if v != "" && (v[0] == ' ' || v[len(v)-1] == ' ') {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

// wordBytes is how many bytes one encoded-word carries: 60 base64 characters, so that a word
// stays within RFC 2047's 75.
const wordBytes = 45

// Encode is value as a field carries it: itself when plain, else encoded-words separated by spaces.
func Encode(value string) string {
	if plain(value) {
		return value
	}
	var b strings.Builder
	for len(value) > 0 {
		n := min(wordBytes, len(value))
		for n < len(value) && n > wordBytes-utf8.UTFMax && !utf8.RuneStart(value[n]) {
			n-- // end the word between two characters where it can
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("=?utf-8?b?")
		b.WriteString(base64.StdEncoding.EncodeToString([]byte(value[:n])))
		b.WriteString("?=")
		value = value[n:]
	}
	return b.String()
}

// Parse reads a block: one field per line (CRLF or LF), a line starting with a space or a tab
// continuing the one before, an empty line ending the block. Names and values are trimmed of
// surrounding spaces and tabs, and encoded-words in values are decoded.
func Parse(block []byte) ([]Field, error) {
	var fs []Field
	var dec mime.WordDecoder
	lines := strings.Split(string(block), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for n, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(fs) == 0 {
				return nil, fmt.Errorf("warc-fields: line %d continues no field", n+1)
			}
			if rest := strings.Trim(line, " \t"); rest != "" { // a fold is one space, never a value's edge
				if v := &fs[len(fs)-1].Value; *v == "" {
					*v = rest
				} else {
					*v += " " + rest
				}
			}
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("warc-fields: line %d has no ':'", n+1)
		}
		fs = append(fs, Field{Name: strings.Trim(name, " \t"), Value: strings.Trim(value, " \t")})
	}
	for i := range fs {
		if !strings.Contains(fs[i].Value, "=?") {
			continue
		}
		v, err := dec.DecodeHeader(fs[i].Value)
		if err != nil {
			return nil, fmt.Errorf("warc-fields: field %s: %w", fs[i].Name, err)
		}
		fs[i].Value = v
	}
	if len(fs) == 0 {
		return nil, errors.New("warc-fields: no field")
	}
	return fs, nil
}
