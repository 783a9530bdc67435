package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/retrywise/retrywise/internal/app"
	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/userfile"
	"github.com/retrywise/retrywise/internal/workflowtext"
)

// factory gives every command the services of the process, each built in
// one place: the masked output, the egress prober, the HTTP transport and
// user agent, over the process's streams, environment, clock and breaker
// registry. Command.Main builds one per command line; commands never build
// these themselves.
type factory struct {
	stdin io.Reader
	// stdout and stderr take retrywise's own text. Inside a workflow
	// (GITHUB_ACTIONS=true) the runner reads workflow commands in what a
	// run: step prints, and that text may quote an outsider (an API's
	// names, a server's answer, a log line): there each line is defused
	// (workflowtext.Lines), so none of it is ever a command.
	stdout, stderr io.Writer
	// rawStdout and rawStderr are the process's streams as they are: a
	// child's output goes there (its workflow commands are its own), and
	// the action's, which writes commands of its own.
	rawStdout, rawStderr io.Writer
	// flushText writes out what stdout and stderr hold of a line not yet
	// ended; Command.Main calls it last.
	flushText func()
	// env is the environment as KEY=VALUE pairs: given to children, scanned
	// for secrets and proxies.
	env     []string
	version string
	// clock drives every wait.
	clock clock.Clock
	// rand draws each wait's jitter; nil means math/rand/v2's.
	rand func() float64
	// diagnose, when set, replaces the egress probe as every step's
	// Diagnose (tests of the loop's use of it).
	diagnose egress.DiagnoseFunc
	// breakers holds the per-host circuit breakers of the process, shared by
	// every HTTP step (http, github-quota).
	breakers *breaker.Registry
	// args is the command line without the program name; usage errors mask
	// its credentials.
	args []string
}

// factory returns the factory of one command line: c's collaborators with
// their defaults. The breaker registry is created on first use and kept in
// c.Breakers, so that every command line c runs shares it, as the commands
// of one process do.
func (c *Command) factory() *factory {
	f := &factory{stdin: c.Stdin, stdout: c.Stdout, stderr: c.Stderr, rawStdout: c.Stdout, rawStderr: c.Stderr,
		env: c.Env, version: c.Version, clock: c.Clock, breakers: c.Breakers, rand: c.Rand, flushText: func() {}}
	if v, _ := environ.Lookup(c.Env, "GITHUB_ACTIONS"); v == "true" {
		out, err := workflowtext.NewLines(c.Stdout), workflowtext.NewLines(c.Stderr)
		f.stdout, f.stderr = out, err
		f.flushText = func() { out.Flush(); err.Flush() }
	}
	if f.clock == nil {
		f.clock = clock.Real{}
	}
	if f.stdin == nil {
		f.stdin = strings.NewReader("")
	}
	if f.breakers == nil {
		f.breakers = breaker.NewRegistry(f.clock)
		c.Breakers = f.breakers
	}
	return f
}

// application is the application layer (internal/app) over the
// process's environment and services.
func (f *factory) application() *app.App {
	return &app.App{Env: f.env, Clock: f.clock, Rand: f.rand, Breakers: f.breakers, UserAgent: f.userAgent(), Diagnose: f.diagnose}
}

// failErr renders err, a use case's: an invalid job file's errors with
// their positions on stderr, masked, then the one-line reason; it returns
// code.
func (f *factory) failErr(code int, err error) int {
	var invalid *app.InvalidJobFile
	if errors.As(err, &invalid) {
		w := f.redactor().Writer(f.stderr)
		invalid.Errs.WriteText(w)
		w.Close()
	}
	return f.fail(code, err.Error())
}

// failOpen is fail for a file that could not be opened: 78, or the
// signal's code when a signal abandoned the wait (a FIFO no one opened).
func (f *factory) failOpen(ctx context.Context, err error) int {
	code := exitcode.Config
	if userfile.IsWait(err) {
		code = exitcode.ForCause(ctx)
	}
	return f.fail(code, err.Error())
}

// fail prints the one-line reason, masked by usageRedactor, last on stderr
// and returns code.
func (f *factory) fail(code int, msg string) int {
	fmt.Fprintf(f.stderr, "retrywise: %s\n", f.usageRedactor().String(msg))
	return code
}

// usageRedactor masks what is printed about the command line itself (usage
// errors, --help): f.redactor's secrets and the credentials the command
// line holds (redact.ArgSecrets), since a usage error may quote any
// argument, before the flags naming secrets (--mask) are even parsed.
func (f *factory) usageRedactor() *redact.Redactor {
	return f.redactor(redact.ArgSecrets(f.args)...)
}

// redactor returns the secret masker of a command: the environment's
// secrets, the proxies' credentials and masks.
func (f *factory) redactor(masks ...string) *redact.Redactor {
	return f.application().Redactor(masks...)
}

// output masks a step command's streams with f.redactor(masks...), and
// creates the JSON report file when reportPath is set, so that a bad path
// fails before anything runs. A FIFO is opened once its reader comes; ctx
// abandons the wait (userfile.Open).
func (f *factory) output(ctx context.Context, masks []string, reportPath string) (*output, error) {
	o := &output{start: f.clock.Now(), red: f.redactor(masks...)}
	if reportPath != "" {
		file, err := userfile.Open(ctx, reportPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("cannot create the report file: %w", err)
		}
		o.report = file
	}
	o.stdout, o.stderr, o.text = o.red.Writer(f.rawStdout), o.red.Writer(f.rawStderr), o.red.Writer(f.stderr)
	return o, nil
}

// userAgent is the User-Agent of retrywise's own requests.
func (f *factory) userAgent() string {
	if f.version == "" {
		return "retrywise"
	}
	return "retrywise/" + f.version
}

// stdoutTerminal reports whether the process's stdout is a terminal.
func (f *factory) stdoutTerminal() bool {
	file, ok := f.stdout.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && file.Name() != os.DevNull
}
