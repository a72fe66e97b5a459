package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/archivectl/archivectl/internal/strictyaml"
)

// loadConfig reads the YAML file at path over the defaults; an empty path means defaults only.
// The file is read strictly: an unknown key, a value of the wrong type and a value out of range
// are each an error of one line naming the key and its line.
func loadConfig(path string) (Config, error) {
	c := defaultConfig()
	if path == "" {
		return c, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return c, fmt.Errorf("config %s does not exist", path)
		}
		return c, fmt.Errorf("config: %w", err)
	}
	lines, err := strictyaml.Decode(b, &c)
	if err != nil {
		return c, fmt.Errorf("config %s %w", path, err)
	}
	if ps := c.problems(); len(ps) > 0 {
		first := slices.MinFunc(ps, func(a, b problem) int { return lines[a.key] - lines[b.key] })
		return c, fmt.Errorf("config %s line %d: %s", path, lines[first.key], first.in(first.key))
	}
	return c, nil
}
