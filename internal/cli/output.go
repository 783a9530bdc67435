package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
	"github.com/retrywise/retrywise/internal/step"
	"github.com/retrywise/retrywise/internal/userfile"
)

// output is what a step command prints and writes: its masked streams and its
// JSON report file.
type output struct {
	// start is when the command's run began, for its report.
	start time.Time
	red   *redact.Redactor
	// stdout and stderr are the step's streams (a child's output), masked;
	// text is retrywise's own text on stderr (progress, the report, the
	// reason), masked and, inside a workflow, defused (factory.stderr).
	stdout, stderr, text *redact.Writer
	report               *os.File
}

// close flushes the streams; a report file that finish never wrote (the
// command failed before it ran) is removed rather than left empty.
func (o *output) close() {
	o.stdout.Close()
	o.stderr.Close()
	o.text.Close()
	if o.report != nil {
		o.report.Close()
		userfile.RemoveIfRegular(o.report.Name())
	}
}

// fail prints the one-line reason, masked, last on stderr and returns code.
func (o *output) fail(code int, msg string) int {
	o.stdout.Flush()
	o.stderr.Flush()
	fmt.Fprintf(o.text, "retrywise: %s\n", msg)
	o.text.Flush()
	return code
}

// progress is the coordinator's Progress: one line per failed attempt that
// will be retried, folded after the first ten (report.Progress).
func (o *output) progress(a retry.Attempt, maxAttempts int) {
	line, ok := report.Progress(a, maxAttempts)
	if !ok {
		return
	}
	o.stdout.Flush()
	o.stderr.Flush()
	fmt.Fprintf(o.text, "retrywise: %s\n", line)
	o.text.Flush()
}

// finish writes the report to stderr and the JSON file, then the one-line
// reason last on a non-zero exit; it returns the report's exit code. The
// file's write is abandoned on a signal, or FinishGrace after one that
// came before (userfile.Finishing): a FIFO whose reader does not read
// cannot hold the process.
func (o *output) finish(ctx context.Context, rep *report.Step, end time.Time) int {
	o.stdout.Flush()
	o.stderr.Flush()
	rep.WriteText(o.text)
	if f := o.report; f != nil {
		o.report = nil
		var b strings.Builder
		run := report.Single(rep, o.start, end)
		run.Mask(o.red.String)
		run.WriteJSON(&b)
		wctx, cancel := userfile.Finishing(ctx)
		werr := userfile.WriteClose(wctx, f, []byte(o.red.String(b.String())))
		cancel()
		if werr != nil {
			fmt.Fprintf(o.text, "retrywise: cannot write the JSON report: %v\n", werr)
		}
	}
	if rep.ExitCode != exitcode.OK {
		fmt.Fprintf(o.text, "retrywise: %s\n", rep.Headline())
	}
	o.text.Flush()
	return rep.ExitCode
}

// stepIO is the output's streams as a step command's step sees them, with
// the process's stdin and environment.
func (o *output) stepIO(f *factory) *step.IO {
	return &step.IO{Stdin: f.stdin, Stdout: o.stdout, Stderr: o.stderr, Red: o.red, Env: f.env, Progress: o.progress, StdoutTerminal: f.stdoutTerminal()}
}
