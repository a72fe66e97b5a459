package public

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"
)

// The encoders below write exactly the bytes json.Marshal writes for a CDXJ block and a LogEntry
// (TestEncodersMatchJSON and FuzzEncoders check it), without reflection: a release pass writes
// one of each per capture. Should a field be added to either type and not to its encoder, the
// check made once at start (encodersMatch) finds that they disagree on a value with every field
// set, and json.Marshal is used instead.

// fastCDXJ and fastLog say whether appendCDXJ and AppendLogEntry write what json.Marshal writes.
var fastCDXJ, fastLog = encodersMatch()

// encodersMatch compares the encoders with json.Marshal on values with every field set.
func encodersMatch() (cdxj, log bool) {
	var c CDXJ
	var e LogEntry
	if fillAll(reflect.ValueOf(&c).Elem()) {
		want, err := json.Marshal(c)
		cdxj = err == nil && bytes.Equal(appendCDXJ(nil, &c), want)
	}
	if fillAll(reflect.ValueOf(&e).Elem()) {
		want, err := json.Marshal(e)
		got, gerr := appendLogEntry(nil, e)
		log = err == nil && gerr == nil && bytes.Equal(got, want)
	}
	return cdxj, log
}

// fillAll sets every field of the struct v to a value json.Marshal writes (none omitted), and
// reports false for a field of a kind it does not know.
func fillAll(v reflect.Value) bool {
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case f.Type() == reflect.TypeFor[time.Time]():
			f.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)))
		case f.Kind() == reflect.String:
			f.SetString(fmt.Sprintf("<%d>&\u2028", i))
		case f.CanInt():
			f.SetInt(int64(i + 1))
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		case f.Type() == reflect.TypeFor[[]string]():
			f.Set(reflect.ValueOf([]string{"a", fmt.Sprint(i)}))
		case f.Type() == reflect.TypeFor[[][2]string]():
			f.Set(reflect.ValueOf([][2]string{{"k", fmt.Sprint(i)}}))
		case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct:
			f.Set(reflect.New(f.Type().Elem()))
			if !fillAll(f.Elem()) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// appendJSONString appends s as json.Marshal writes a string: quoted, with <, > and & escaped,
// invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendKey appends ,"key": (without the comma for the first key, after '{').
func appendKey(b []byte, key string) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendCDXJ appends c as json.Marshal(c) writes it.
func appendCDXJ(b []byte, c *CDXJ) []byte {
	b = append(b, '{')
	b = appendJSONString(appendKey(b, "url"), c.URL)
	b = appendJSONString(appendKey(b, "mime"), c.Mime)
	if c.Status != 0 {
		b = strconv.AppendInt(appendKey(b, "status"), int64(c.Status), 10)
	}
	b = appendJSONString(appendKey(b, "digest"), c.Digest)
	b = strconv.AppendInt(appendKey(b, "length"), c.Length, 10)
	b = strconv.AppendInt(appendKey(b, "offset"), c.Offset, 10)
	b = appendJSONString(appendKey(b, "filename"), c.Filename)
	if len(c.Usage) > 0 {
		b = appendStrings(appendKey(b, "usage"), c.Usage)
	}
	if len(c.UsageRobots) > 0 {
		b = appendStrings(appendKey(b, "usage_robots"), c.UsageRobots)
	}
	if len(c.UsageHeader) > 0 {
		b = appendStrings(appendKey(b, "usage_header"), c.UsageHeader)
	}
	b = appendJSONString(appendKey(b, "release_at"), c.ReleaseAt)
	if c.EmbargoSource != "" {
		b = appendJSONString(appendKey(b, "embargo_source"), c.EmbargoSource)
	}
	b = appendJSONString(appendKey(b, "id"), c.ID)
	b = appendJSONString(appendKey(b, "state"), c.State)
	b = appendJSONString(appendKey(b, "time"), c.Time)
	if len(c.Headers) > 0 {
		b = append(appendKey(b, "headers"), '[')
		for i, h := range c.Headers {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendStrings(b, h[:])
		}
		b = append(b, ']')
	}
	if c.HeadersTruncated {
		b = append(appendKey(b, "headers_truncated"), "true"...)
	}
	if c.Revisit {
		b = append(appendKey(b, "revisit"), "true"...)
	}
	if c.RefersTo != "" {
		b = appendJSONString(appendKey(b, "refers_to"), c.RefersTo)
	}
	if c.PayloadMime != "" {
		b = appendJSONString(appendKey(b, "payload_mime"), c.PayloadMime)
	}
	return append(b, '}')
}

// jsonTimeOK says whether json.Marshal writes t as its RFC 3339 form (it fails on years outside
// 0–9999 and on zone offsets of a day or more).
func jsonTimeOK(t time.Time) bool {
	_, off := t.Zone()
	return t.Year() >= 0 && t.Year() <= 9999 && off > -24*3600 && off < 24*3600
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

func appendLocation(b []byte, l *Location) []byte {
	b = append(b, '{')
	b = appendJSONString(appendKey(b, "file"), l.File)
	b = strconv.AppendInt(appendKey(b, "offset"), l.Offset, 10)
	b = strconv.AppendInt(appendKey(b, "length"), l.Length, 10)
	return append(b, '}')
}

// AppendLogEntry appends e as json.Marshal(e) writes it.
func AppendLogEntry(b []byte, e LogEntry) ([]byte, error) {
	if !fastLog {
		js, err := json.Marshal(e)
		return append(b, js...), err
	}
	return appendLogEntry(b, e)
}

func appendLogEntry(b []byte, e LogEntry) ([]byte, error) {
	if !jsonTimeOK(e.Pass) || !jsonTimeOK(e.ReleaseAt) {
		js, err := json.Marshal(e) // its error
		return append(b, js...), err
	}
	b = append(b, '{')
	b = appendTime(appendKey(b, "pass"), e.Pass)
	b = appendJSONString(appendKey(b, "event"), e.Event)
	b = appendJSONString(appendKey(b, "id"), e.ID)
	b = appendJSONString(appendKey(b, "url"), e.URL)
	b = appendJSONString(appendKey(b, "digest"), e.Digest)
	b = appendTime(appendKey(b, "release_at"), e.ReleaseAt)
	b = appendJSONString(appendKey(b, "file"), e.File)
	b = strconv.AppendInt(appendKey(b, "offset"), e.Offset, 10)
	b = strconv.AppendInt(appendKey(b, "length"), e.Length, 10)
	if e.Request != nil {
		b = appendLocation(appendKey(b, "request"), e.Request)
	}
	if e.Metadata != nil {
		b = appendLocation(appendKey(b, "metadata"), e.Metadata)
	}
	return append(b, '}'), nil
}
