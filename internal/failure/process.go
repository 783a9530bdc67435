package failure

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/outputfile"
)

// How one attempt of a command ended, as internal/execstep saw it, and the
// rules that turn that into a class.

// Process is how one attempt of a command ended.
type Process struct {
	// Name is the command (argv[0]), for reasons.
	Name string
	// Tool says whose output Text is; "" means auto.
	Tool Tool
	// Text is the kept tail of the command's combined output.
	Text string
	// ExitCode is the exit status; NoExitCode when the process did not exit.
	ExitCode int
	// Signal names the signal that killed the process ("SIGKILL"); "" when it exited.
	Signal string
	// TimedOut is true when the attempt's own timeout stopped the process.
	TimedOut bool
	// Timeout is that timeout, for the reason.
	Timeout time.Duration
	// Rules are the user's --retry-on/--stop-on rules.
	Rules Rules
	// Env is the command's environment (see Input.Env); nil when not known.
	Env []string
	// MaxElapsed is the run's --max-elapsed (see Input.MaxElapsed).
	MaxElapsed time.Duration
	// Now is the run's clock at the end of the attempt, for the ages of
	// locks the output states by their creation time; zero → time.Now().
	Now time.Time
	// Team are a team's rules (--rules): the first that matches decides,
	// before the built-in recognisers and the --retry-on/--stop-on rules.
	Team Team
	// Ctx ends the matching of Team (see Input.Ctx); nil means it never ends.
	Ctx context.Context
}

// FromProcess classifies a command that did not succeed. A process stopped
// by its own timeout is transient. Otherwise its output and exit status are
// read by the recognisers, then the user's rules apply. A process killed by
// a signal is never a success: unrecognised, it stays unknown with the
// signal as its reason.
func FromProcess(p Process) *Failure {
	if p.TimedOut {
		f := New(Transient, CodeExecTimeout, fmt.Sprintf("%s timed out after %s", p.Name, p.Timeout),
			"the command was stopped after --timeout; if it needs longer, raise --timeout", lastLines(p.Text, 3)...)
		f.Trace.Network = true
		return f
	}
	code := p.ExitCode
	if p.Signal != "" {
		code = NoExitCode
	}
	ro := newRunOpts(p.Env, p.MaxElapsed)
	ro.now = p.Now
	if f := decideTeam(p.Ctx, p.Team, TeamInput{Tool: p.Tool, Command: p.Name, Text: p.Text, ExitCode: code, StatusOf: func() int {
		return statusRead(classifyTextRun(p.Tool, p.Text, code, "", ro))
	}}); f != nil {
		if p.Signal != "" {
			f.Reason += " (killed by signal " + p.Signal + ")"
		}
		return f
	}
	f := classifyTextRun(p.Tool, p.Text, code, "", ro)
	f = p.Rules.Apply(p.Text, code, f)
	if p.Signal != "" {
		if f.Class == Unknown {
			g := New(Unknown, CodeExecSignal, fmt.Sprintf("%s was killed by signal %s", p.Name, p.Signal),
				"a process killed by a signal is never a success; find out what sent it (out of memory, a supervisor)", lastLines(p.Text, 3)...)
			g.Trace = f.Trace
			return g
		}
		f.Reason += " (killed by signal " + p.Signal + ")"
	}
	return f
}

// CannotStart is the failure of a command that could not be started.
func CannotStart(name string, err error) *Failure {
	f := New(Structural, CodeExecCannotStart, "cannot start "+name+": "+err.Error(), "check the command and its path")
	f.Err = err
	return f
}

// NotRun is the failure of a command whose process never ran to an end.
func NotRun(name string, err error) *Failure {
	f := New(Unknown, CodeExecNotRun, fmt.Sprintf("%s did not run: %v", name, err), "check the command, its path and the machine's limits")
	f.Err = err
	return f
}

// OutputFileInvalid is the failure of a command that succeeded but whose
// outputs file, named by the environment variable (RETRYWISE_OUTPUT,
// GITHUB_OUTPUT), cannot be read as outputs: structural, since the same
// command would write the same file again. err comes from outputfile.Parse;
// a *outputfile.TooLargeError gets its own code. The reason names the line
// at fault and never quotes the file, whose values may be secrets.
func OutputFileInvalid(name, variable string, err error) *Failure {
	var f *Failure
	var se *outputfile.SyntaxError
	var tl *outputfile.TooLargeError
	switch {
	case errors.As(err, &tl):
		f = New(Structural, CodeExecOutputTooLarge, fmt.Sprintf("%s succeeded, but its $%s file is %v", name, variable, tl),
			"outputs are for short values: write large data to a file and output its path")
	case errors.As(err, &se):
		f = New(Structural, CodeExecOutputMalformed, fmt.Sprintf("%s succeeded, but its $%s file is malformed at line %d: %s", name, variable, se.Line, se.Reason),
			"write name=value lines, or name<<DELIMITER, the value's lines and DELIMITER alone on its line (end the value with a newline)")
	default:
		f = New(Structural, CodeExecOutputMalformed, fmt.Sprintf("%s succeeded, but its $%s file cannot be read: %v", name, variable, err),
			"append outputs to the file named by $"+variable+"; do not remove or replace it")
	}
	f.Err = err
	return f
}

// StdoutTooLarge is the failure of an attempt whose stdout outgrew the
// spool of --stdout final (limit bytes): keeping it whole is the mode's
// promise, so the attempt fails whatever its exit status.
func StdoutTooLarge(name string, limit int64) *Failure {
	return New(Structural, CodeExecStdoutTooLarge, fmt.Sprintf("%s wrote more than %s to stdout, the --stdout-max of --stdout final", name, byteSize(limit)),
		"raise --stdout-max, write the output to a file instead, or use --stdout live (a failed attempt's output then stays in the stream)")
}

// byteSize renders n bytes as KiB, MiB or GiB when it is a whole number of them.
func byteSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// HelperFailed is the failure of a command retrywise itself runs to help a
// step (git rev-parse, ls-remote or fetch for a push) when it cannot be run
// at all: unknown, the machine must change (install it, fix PATH).
func HelperFailed(err error) *Failure {
	f := New(Unknown, CodeGitCommandFailed, err.Error(), "install git and check PATH")
	f.Err = err
	return f
}

// lastLines returns the last n non-blank lines of s, trimmed, as evidence.
func lastLines(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			out = append([]string{EvidenceLineAt(l, 0)}, out...)
		}
	}
	return out
}
