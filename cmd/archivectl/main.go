// Command archivectl crawls politely into a sealed WARC repository, releases embargoed
// captures on schedule into public shards, and serves a lookup of what exists.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// command is one subcommand: it parses its own flags and returns the process exit status
// (0 success, 1 failure with one line on stderr, 2 bad usage).
type command func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int

var commands = map[string]command{
	"crawl":          runCrawl,
	"release":        runRelease,
	"serve":          runServe,
	"robots":         runRobots,
	"verify":         runVerify,
	"reindex-public": runReindexPublic,
	"export":         runExport,
	"demo":           runDemo,
	"version":        runVersion,
}

const usage = `usage: archivectl COMMAND [flags]

commands:
  crawl SEEDS       crawl the seeds politely into the sealed repository
  release           run one release pass (--now RFC3339)
  serve             serve the lookup API and page (--schedule CRON runs release passes)
  robots URL...     evaluate robots.txt for URLs and print one JSON object per URL
  verify            check sealed and public records against the index
  reindex-public    rebuild the lookup's public index from the public CDXJ files
  export            write the released captures as a WACZ package and/or a CDXJ index
  demo              crawl an embedded demo web, release it over 91 days, serve the result
  version           print the version and the VCS commit (also --version)

Every command takes --data DIR (default ./archive-data) and --config FILE.
Run "archivectl help COMMAND" (or "archivectl COMMAND -h") for a command's flags.
`

func main() {
	ctx, stop := notifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	limitCrawlMemory(os.Args[1:])
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) >= 2 && args[0] == "help" {
		args = []string{args[1], "-h"} // "archivectl help crawl" is "archivectl crawl -h"
	}
	if len(args) == 0 { // bad usage: the list of commands goes to stderr
		fmt.Fprint(stderr, usage)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" { // asked for: stdout
		fmt.Fprint(stdout, usage)
		return 0
	}
	if args[0] == "--version" {
		args = append([]string{"version"}, args[1:]...)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "archivectl: unknown command %q\n%s", args[0], usage)
		return 2
	}
	return cmd(ctx, args[1:], stdin, stdout, stderr)
}

// signalled is the cause of a context ended by a signal (context.Cause): which signal. It is a
// context.Canceled, as the cause signal.NotifyContext gives.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string        { return s.sig.String() + " signal received" }
func (s signalled) Is(target error) bool { return target == context.Canceled }

// notifyContext is signal.NotifyContext whose cause keeps the signal received (signalled), so
// that a command stopped by one can exit with the status of its own that names it
// (interruptedStatus).
func notifyContext(parent context.Context, sigs ...os.Signal) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	go func() {
		select {
		case s := <-ch:
			cancel(signalled{s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(context.Canceled)
	}
}

// Exit statuses of a crawl stopped before its end, told apart from a failure (1): 128 plus the
// signal's number, what a shell reports for a process a signal killed.
const (
	exitSIGINT  = 128 + 2  // SIGINT, Ctrl-C: 130
	exitSIGTERM = 128 + 15 // SIGTERM, systemctl stop and shutdown: 143
)

// interruptedStatus is the exit status of a command that ctx stopped: 128 plus the number of the
// signal that ended ctx (130 for SIGINT, 143 for SIGTERM); 130, as for Ctrl-C, when ctx ended
// otherwise (a caller's own cancellation).
func interruptedStatus(ctx context.Context) int {
	var s signalled
	if errors.As(context.Cause(ctx), &s) {
		if n, ok := s.sig.(syscall.Signal); ok {
			return 128 + int(n)
		}
	}
	return exitSIGINT
}
