// Package strictyaml decodes a YAML document strictly into a struct of sections, the way an
// operator's configuration file is read: keys are the fields' yaml tags, nested structs are
// sections, and every mistake (an unknown key, with the nearest known one suggested; a key set
// twice; a value of the wrong kind or type; a second document) is one *LineError naming the key
// and its line. It returns the line of every key set, so that a later check of the values can
// name the line of the first bad one. Fields may be strings, booleans, integers, durations,
// lists of them and maps of strings.
package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// LineError is a document's mistake at a line: a key unknown or set twice, a value of the wrong
// kind or type.
type LineError struct {
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Decode decodes the YAML document b over the struct v points to, key by key, and returns the
// line of every key it set ("crawl.delay": 12). A null value keeps what v holds. A mistake
// naming a key and its line is a *LineError; a document that is not YAML is the parser's error.
func Decode(b []byte, v any) (map[string]int, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return map[string]int{}, nil // an empty file: the defaults
		}
		return nil, fmt.Errorf("is not valid YAML: %w", err) // the parser's own words name the line

	}
	var more yaml.Node
	switch err := dec.Decode(&more); {
	case errors.Is(err, io.EOF):
	case err != nil: // what follows the document is not YAML
		return nil, fmt.Errorf("is not valid YAML: %w", err)
	default:
		return nil, &LineError{more.Line, "a second YAML document; the config is one mapping of keys"}
	}
	lines := map[string]int{}
	root := doc.Content[0]
	if root.Tag == "!!null" {
		return lines, nil
	}
	return lines, decodeSection(root, "", reflect.ValueOf(v).Elem(), lines)
}

// decodeSection decodes the mapping n into the struct v, whose keys are prefix + its yaml tags.
func decodeSection(n *yaml.Node, prefix string, v reflect.Value, lines map[string]int) error {
	names, fields := sectionFields(v)
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		what := "the config"
		if prefix != "" {
			what = strings.TrimSuffix(prefix, ".")
		}
		return &LineError{n.Line, fmt.Sprintf("%s takes a mapping of keys, not %s", what, describeNode(n))}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		key := prefix + k.Value
		f, ok := fields[k.Value]
		if !ok {
			return &LineError{k.Line, unknownKey(prefix, k.Value, names)}
		}
		if first, dup := lines[key]; dup {
			return &LineError{k.Line, fmt.Sprintf("%s is set twice (first at line %d)", key, first)}
		}
		lines[key] = k.Line
		if val.Kind == yaml.AliasNode {
			val = val.Alias
		}
		if val.Tag == "!!null" {
			continue // "key:" with no value keeps the default
		}
		var err error
		switch f.Kind() {
		case reflect.Struct:
			err = decodeSection(val, key+".", f, lines)
		case reflect.Slice:
			err = decodeList(val, key, f)
		case reflect.Map:
			err = decodeMap(val, key, f)
		default:
			err = decodeScalar(val, key, f)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// decodeScalar decodes the scalar n into v, the value of key.
func decodeScalar(n *yaml.Node, key string, v reflect.Value) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return &LineError{n.Line, fmt.Sprintf("%s takes %s, not %s", key, wants(v.Type()), describeNode(n))}
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		return &LineError{n.Line, fmt.Sprintf("%s: %q is not %s", key, n.Value, wants(v.Type()))}
	}
	return nil
}

// decodeList decodes the sequence n into the slice v, the value of key; an empty one is nil.
func decodeList(n *yaml.Node, key string, v reflect.Value) error {
	if n.Kind != yaml.SequenceNode {
		return &LineError{n.Line, fmt.Sprintf("%s takes %s, not %s", key, wants(v.Type()), describeNode(n))}
	}
	list := reflect.Zero(v.Type())
	for _, item := range n.Content {
		e := reflect.New(v.Type().Elem()).Elem()
		if err := decodeScalar(item, key+" item", e); err != nil {
			return err
		}
		list = reflect.Append(list, e)
	}
	v.Set(list)
	return nil
}

// decodeMap decodes the mapping n into the map v, the value of key; an empty one is nil.
func decodeMap(n *yaml.Node, key string, v reflect.Value) error {
	if n.Kind != yaml.MappingNode {
		return &LineError{n.Line, fmt.Sprintf("%s takes %s, not %s", key, wants(v.Type()), describeNode(n))}
	}
	m := reflect.Zero(v.Type())
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		if err := decodeScalar(kn, key+" name", k); err != nil {
			return err
		}
		if first, dup := seen[kn.Value]; dup {
			return &LineError{kn.Line, fmt.Sprintf("%s sets %s twice (first at line %d)", key, kn.Value, first)}
		}
		seen[kn.Value] = kn.Line
		if err := decodeScalar(vn, key+"."+kn.Value, e); err != nil {
			return err
		}
		if m.IsNil() {
			m = reflect.MakeMap(v.Type())
		}
		m.SetMapIndex(k, e)
	}
	v.Set(m)
	return nil
}

// sectionFields lists the keys of a config struct in order, and their fields.
func sectionFields(v reflect.Value) ([]string, map[string]reflect.Value) {
	var names []string
	fields := map[string]reflect.Value{}
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
		names = append(names, name)
		fields[name] = v.Field(i)
	}
	return names, fields
}

// wants names what a field of type t takes.
func wants(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[time.Duration]():
		return "a duration such as 500ms, 30s or 5m"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() == reflect.Slice:
		return "a list of " + strings.TrimPrefix(wants(t.Elem()), "a ") + "s"
	case t.Kind() == reflect.Map:
		return "a mapping of " + strings.TrimPrefix(wants(t.Key()), "a ") + "s to " + strings.TrimPrefix(wants(t.Elem()), "a ") + "s"
	}
	return "a whole number"
}

// describeNode names what a YAML node holds, for an error.
func describeNode(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Tag == "!!null":
		return "nothing"
	}
	return strconv.Quote(n.Value)
}

// unknownKey says that key is not one of names, suggesting the nearest.
func unknownKey(prefix, key string, names []string) string {
	best, dist := "", 3 // a suggestion at most two edits away
	for _, n := range names {
		if d := editDistance(key, n); d < dist {
			best, dist = n, d
		}
	}
	if best != "" {
		return fmt.Sprintf("unknown key %s%s (did you mean %s%s?)", prefix, key, prefix, best)
	}
	where := "the config takes"
	if prefix != "" {
		where = strings.TrimSuffix(prefix, ".") + " takes"
	}
	return fmt.Sprintf("unknown key %s%s; %s %s", prefix, key, where, strings.Join(names, ", "))
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
