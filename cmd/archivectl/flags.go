package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// cli is one subcommand's command line. Every subcommand parses its arguments with cli.parse.
type cli struct {
	name   string                       // the subcommand: "archivectl NAME"
	usage  string                       // what -h prints above the flags
	config bool                         // it takes --data and --config, and reads the configuration
	adjust func(c *Config)              // the subcommand's own defaults over the configuration (demo)
	flags  func(fs *flagSet, c *Config) // registers its flags; those bound to c's fields default to c's values
}

// flagSet registers one subcommand's flags. A flag bound to a configuration key (stringKey,
// durationKey, intKey, boolKey, listKey) writes into the configuration and shows the configured
// value as its default.
type flagSet struct {
	*flag.FlagSet
	keys map[string]string // configuration key → flag name
}

func (fs *flagSet) stringKey(p *string, name, key, usage string) {
	fs.StringVar(p, name, *p, usage)
	fs.keys[key] = name
}

func (fs *flagSet) durationKey(p *time.Duration, name, key, usage string) {
	fs.DurationVar(p, name, *p, usage)
	fs.keys[key] = name
}

func (fs *flagSet) intKey(p *int, name, key, usage string) {
	fs.IntVar(p, name, *p, usage)
	fs.keys[key] = name
}

func (fs *flagSet) boolKey(p *bool, name, key, usage string) {
	fs.BoolVar(p, name, *p, usage)
	fs.keys[key] = name
}

// listKey binds a repeatable flag to a list key: its first use replaces the configured list,
// each further one adds to it.
func (fs *flagSet) listKey(p *[]string, name, key, usage string) {
	fs.Var(&listFlag{p: p}, name, usage)
	fs.keys[key] = name
}

// listFlag is a repeatable string flag over a list of the configuration.
type listFlag struct {
	p   *[]string
	set bool // given on the command line: the configured list is replaced
}

func (l *listFlag) String() string {
	if l == nil || l.p == nil {
		return ""
	}
	return strings.Join(*l.p, ", ")
}

func (l *listFlag) Set(v string) error {
	if !l.set {
		*l.p, l.set = nil, true
	}
	*l.p = append(*l.p, v)
	return nil
}

// parse reads the command line: flags and positional arguments in any order, everything after
// "--" positional. With config, the file named by --config is read first (strictly, see
// loadConfig) and its values are the flags' defaults; the configuration is checked again once the
// flags are applied, and a bad value names its flag. ok is false when the command is over: after
// -h or --help, whose usage goes to stdout (code 0: `archivectl crawl --help | less` shows it),
// or a usage error, reported in one line on stderr (code 2).
func (c cli) parse(args []string, stdout, stderr io.Writer) (cfg Config, pos []string, code int, ok bool) {
	cfg = defaultConfig()
	if c.config {
		// A first pass finds --config; a bad command line is reported by the second.
		probe, path := defaultConfig(), ""
		if _, err := parseArgs(c.flagSet(&probe, &path).FlagSet, args); (err == nil || errors.Is(err, flag.ErrHelp)) && path != "" {
			loaded, err := loadConfig(path)
			if err != nil {
				fmt.Fprintf(stderr, "archivectl %s: %v\n", c.name, err)
				return cfg, nil, 2, false
			}
			cfg = loaded
		}
		if c.adjust != nil {
			c.adjust(&cfg)
		}
	}
	var path string
	fs := c.flagSet(&cfg, &path)
	pos, err := parseArgs(fs.FlagSet, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, c.usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return cfg, nil, 0, false
	}
	if err != nil {
		fmt.Fprintf(stderr, "archivectl %s: %v; run \"archivectl %s -h\" for the flags\n", c.name, err, c.name)
		return cfg, nil, 2, false
	}
	if c.config {
		// The file was checked: a value out of range now came from a flag.
		if ps := cfg.problems(); len(ps) > 0 {
			name := ps[0].key
			if f, ok := fs.keys[name]; ok {
				name = "--" + f
			}
			fmt.Fprintf(stderr, "archivectl %s: %s\n", c.name, ps[0].in(name))
			return cfg, nil, 2, false
		}
	}
	return cfg, pos, 0, true
}

// flagSet registers the subcommand's flags over cfg; --config goes to path.
func (c cli) flagSet(cfg *Config, path *string) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet("archivectl "+c.name, flag.ContinueOnError), keys: map[string]string{}}
	fs.SetOutput(io.Discard) // parse reports errors in one line, and prints the usage for -h
	fs.Usage = func() {}
	if c.config {
		fs.stringKey(&cfg.Data, "data", "data", "data directory")
		fs.StringVar(path, "config", "", "YAML configuration file (configs/archivectl.yaml documents every option)")
	}
	if c.flags != nil {
		c.flags(fs, cfg)
	}
	return fs
}

// parseArgs parses flags that may stand before, between or after the positional arguments,
// and returns the positional ones; everything after "--" is positional.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
