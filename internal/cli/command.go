// Package cli is the retrywise command line: it parses flags, wires streams,
// runs a subcommand and returns the exit code. cmd/retrywise only calls Main.
//
// Every command is two functions over one options struct: parseX fills
// xOptions from the flags (one parser, parseFlags) and validates them, and
// runX(ctx, opts) calls the use case of internal/app and renders what it
// returns, so tests can call runX with hand-built options. The services the
// commands share (masked output, egress prober, breaker registry, clock,
// HTTP transport, user agent) come from the factory Main builds; no command
// sets them up itself.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/step"
)

// Command holds a run's collaborators, so the whole CLI runs in-process in tests.
type Command struct {
	// Stdin, Stdout and Stderr are the process's streams.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Env is the environment as KEY=VALUE pairs; it is given to children and scanned for secrets.
	Env []string
	// Clock drives every wait; nil means the wall clock.
	Clock clock.Clock
	// Version is printed by `retrywise version`.
	Version string
	// Rand draws the jitter of each wait, a number in [0, 1); nil means
	// math/rand/v2's. Tests inject a seeded source.
	Rand func() float64
	// Breakers holds the per-host circuit breakers shared by every HTTP step of
	// this process (http, github-quota); nil means Main creates one on first use.
	Breakers *breaker.Registry
}

// subcommand is one verb of the CLI.
type subcommand struct {
	summary string
	run     func(ctx context.Context, f *factory, args []string) int
}

// command returns a subcommand's run: parse fills its options from the
// flags and validates them, and only that (done is true when parsing ended
// the command with code: help or a usage error); run does the work.
func command[O any](parse func(f *factory, args []string) (opts *O, code int, done bool), run func(ctx context.Context, opts *O) int) func(context.Context, *factory, []string) int {
	return func(ctx context.Context, f *factory, args []string) int {
		opts, code, done := parse(f, args)
		if done {
			return code
		}
		return run(ctx, opts)
	}
}

// subcommands returns the CLI's verbs by name.
func (c *Command) subcommands() map[string]subcommand {
	return map[string]subcommand{
		"exec":     {"run a command, retrying only transient failures", stepCommand(step.ExecKind)},
		"classify": {"explain a failure text without running anything", command(parseClassify, runClassify)},
		"probe":    {"ask the egress proxy whether targets are allowed, denied or unreachable", runProbeCommand},
		"push":     {"git push, retrying only network failures", stepCommand(step.PushKind)},
		"version":  {"print the version", command(parseVersion, runVersion)},
		"explain":  {"classify a failed GitHub Actions run from its logs; re-run it only if waiting can help", command(parseExplain, runExplain)},
		"run":      {"run a job of a job file: many steps, one report", command(parseRun, runRun)},
		"validate": {"check a job file and print every error with its position", command(parseValidate, runValidate)},
		"demo":     {"run an offline demo of every failure class on 127.0.0.1", runDemo},
		"schedule": {"run the job file's jobs on their cron: triggers, outside GitHub", command(parseSchedule, runSchedule)},
		"action":   {"run as the GitHub Action's entry point (inputs from INPUT_*)", runAction},

		"http":         {"send an HTTP request, retrying only transient failures", stepCommand(step.HTTPKind)},
		"github-quota": {"check the GitHub API rate-limit quota, waiting for its reset if allowed", stepCommand(step.QuotaKind)},
	}
}

// Main runs the command line args (args[0] is the program name) and returns the exit code.
func (c *Command) Main(ctx context.Context, args []string) int {
	f := c.factory()
	defer f.flushText()
	if len(args) > 1 {
		f.args = args[1:]
	}
	if len(args) < 2 {
		c.usage(f, f.stderr)
		return f.fail(exitcode.Usage, "no command given")
	}
	name := args[1]
	switch name {
	case "-h", "--help", "help":
		c.usage(f, f.stdout)
		return exitcode.OK
	case "-v", "--version":
		name = "version"
	}
	sub, ok := c.subcommands()[name]
	if !ok {
		c.usage(f, f.stderr)
		return f.fail(exitcode.Usage, fmt.Sprintf("unknown command %q", name))
	}
	return sub.run(ctx, f, args[2:])
}

// usage prints the list of commands on out, masked like a usage error.
func (c *Command) usage(f *factory, out io.Writer) {
	w := f.usageRedactor().Writer(out)
	defer w.Close()
	fmt.Fprintf(w, "retrywise classifies every failure before it decides to retry.\n\nUsage: retrywise COMMAND [flags]\n\nCommands:\n")
	subs := c.subcommands()
	names := make([]string, 0, len(subs))
	for n := range subs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-13s %s\n", n, subs[n].summary)
	}
	fmt.Fprintf(w, "\nRun 'retrywise COMMAND --help' for a command's flags and defaults.\n")
}

// parse parses args into fs with parseFlags, flags anywhere; it returns
// the positional arguments, or done=true with the code to exit with when
// parsing ended the command (help or a usage error).
func (f *factory) parse(fs *flag.FlagSet, args []string) (pos []string, code int, done bool) {
	return f.parseUntil(fs, args, false)
}

// parseUntil is parse; with childArgs, the first positional argument ends
// the flags, and it and everything after it are the child's (exec, push).
func (f *factory) parseUntil(fs *flag.FlagSet, args []string, childArgs bool) (pos []string, code int, done bool) {
	pos, err := parseFlags(fs, args, childArgs)
	if errors.Is(err, flag.ErrHelp) {
		w := f.usageRedactor().Writer(f.stdout)
		fs.SetOutput(w)
		fs.Usage()
		w.Close()
		return nil, exitcode.OK, true
	}
	if err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()+" (see --help)"), true
	}
	return pos, 0, false
}

// parseFlags is the command line's one flag parser. It sets fs's flags
// from args and returns the positional arguments in their order. A flag is
// --name or -name, its value after "=" or in the next argument (a boolean
// takes only "="); "--" ends the flags, and so does the first positional
// argument when childArgs is set; otherwise flags may follow positional
// arguments. A flag is named in an error as the docs and --help name it:
// two dashes, one for a short alias (-X). -h and --help, unless defined,
// return flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string, childArgs bool) (pos []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(pos, args[i+1:]...), nil
		}
		if len(a) < 2 || a[0] != '-' {
			if childArgs {
				return append(pos, args[i:]...), nil
			}
			pos = append(pos, a)
			continue
		}
		name := a[1:]
		if name[0] == '-' {
			name = name[1:]
		}
		if name == "" || name[0] == '-' || name[0] == '=' {
			return nil, fmt.Errorf("bad flag syntax: %s", a)
		}
		name, value, hasValue := strings.Cut(name, "=")
		fl := fs.Lookup(name)
		if fl == nil {
			if name == "h" || name == "help" {
				return nil, flag.ErrHelp
			}
			return nil, fmt.Errorf("flag provided but not defined: %s", flagName(name))
		}
		if b, ok := fl.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			if !hasValue {
				if err := fs.Set(name, "true"); err != nil {
					return nil, fmt.Errorf("invalid boolean flag %s: %v", flagName(name), err)
				}
				continue
			}
			if err := fs.Set(name, value); err != nil {
				return nil, fmt.Errorf("invalid boolean value %q for %s: %v", value, flagName(name), err)
			}
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return nil, fmt.Errorf("flag needs an argument: %s", flagName(name))
			}
			i++
			value = args[i]
		}
		if err := fs.Set(name, value); err != nil {
			return nil, fmt.Errorf("invalid value %q for flag %s: %v", value, flagName(name), err)
		}
	}
	return pos, nil
}

// flagName is a flag's name with its dashes: two for a long flag, one for a short alias.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// fieldFlagSet returns a flag set whose flags are fields (a command's
// table, internal/options), each set to its default first.
func fieldFlagSet(name, synopsis string, fields []*step.Field) *flag.FlagSet {
	step.SetDefaults(fields)
	fs := newFlagSet(name, synopsis)
	step.Flags(fs, fields)
	return fs
}

// newFlagSet returns a flag set whose usage prints synopsis, then every flag with its default.
func newFlagSet(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\n\nFlags:\n", synopsis)
		fs.VisitAll(func(f *flag.Flag) {
			kind, usage := flag.UnquoteUsage(f)
			if n, ok := f.Value.(interface{ ValueName() string }); ok && kind == "value" {
				kind = n.ValueName() // a field's type, as the flag package names its own
			}
			if kind != "" {
				kind = " " + kind
			}
			dash := "--"
			if len(f.Name) == 1 {
				dash = "-" // short aliases such as -X and -H
			}
			fmt.Fprintf(fs.Output(), "  %s%s%s\n    \t%s", dash, f.Name, kind, strings.ReplaceAll(usage, "\n", "\n    \t"))
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" {
				fmt.Fprintf(fs.Output(), " (default %s)", f.DefValue)
			}
			fmt.Fprintln(fs.Output())
		})
	}
	return fs
}

const actionSynopsis = `Usage: retrywise action

The GitHub Action's entry point (action.yml: args: [action]). It reads the
action's inputs from INPUT_* as the runner sets them, runs the mode they
choose (run, push, url or config) with the mode's own defaults, and writes
the outputs, the step summary, one annotation and the JSON report under
$RUNNER_TEMP. It exits with the code the same work exits with on the
command line. See docs/github-action.md.`

// runAction is `retrywise action`: internal/action with the process's
// streams and services.
func runAction(ctx context.Context, f *factory, args []string) int {
	fs := newFlagSet("action", actionSynopsis)
	pos, code, done := f.parse(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return f.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q: the action takes its settings from its inputs (INPUT_*)", pos[0]))
	}
	return action.Main(ctx, &action.Host{Stdin: f.stdin, Stdout: f.rawStdout, Stderr: f.stderr, App: f.application()})
}
