package publish

import (
	"context"
	"fmt"
	"slices"

	"github.com/archivectl/archivectl/objectstore"
)

// Verify checks every node's latest generation in s: each object its manifest lists is there
// with its size and, when deep, its SHA-256 (reading every byte). It returns each problem found,
// one line each; err is for a store that could not be read.
func Verify(ctx context.Context, s objectstore.Store, deep bool) (problems []string, err error) {
	gens, err := Committed(ctx, s)
	if err != nil {
		return nil, err
	}
	for _, node := range sortedKeys(gens) {
		g := gens[node][len(gens[node])-1]
		m, err := ReadManifest(ctx, s, node, g)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, f := range slices.Concat(m.Files, m.Log) {
			name := NodePrefix(node) + f.Object
			o, err := s.Stat(ctx, name)
			switch {
			case err != nil:
				problems = append(problems, fmt.Sprintf("node %s generation %d: %s (public/%s): %v", node, g, name, f.Path, err))
				continue
			case o.Size != f.Size:
				problems = append(problems, fmt.Sprintf("node %s generation %d: %s (public/%s) is %d bytes, the manifest says %d", node, g, name, f.Path, o.Size, f.Size))
				continue
			case !deep:
				continue
			}
			sum, err := objectSum(ctx, s, name)
			if err != nil {
				return problems, err
			}
			if sum != f.SHA256 {
				problems = append(problems, fmt.Sprintf("node %s generation %d: %s (public/%s) has SHA-256 %s, the manifest says %s", node, g, name, f.Path, sum, f.SHA256))
			}
		}
	}
	return problems, nil
}

// objectSum reads an object and returns its hex SHA-256.
func objectSum(ctx context.Context, s objectstore.Store, name string) (string, error) {
	r, err := s.Read(ctx, name, 0, -1)
	if err != nil {
		return "", err
	}
	defer r.Close()
	_, sum, err := objectstore.Sum(r)
	if err != nil {
		return "", fmt.Errorf("%s: read %s: %w", s, name, err)
	}
	return sum, nil
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
