package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

// output is what a step command prints and writes: its masked streams and its
// JSON report file.
type output struct {
	red            *redact.Redactor
	stdout, stderr *redact.Writer
	report         *os.File
}

// openOutput masks the command's streams with masks, the environment's secrets
// and the proxies' credentials, and creates the JSON report file when
// reportPath is set, so that a bad path fails before anything runs.
func (c *Command) openOutput(masks []string, reportPath string) (*output, error) {
	o := &output{red: c.redactor(append(masks, egress.ProxyCredentials(c.Env)...))}
	if reportPath != "" {
		f, err := os.OpenFile(reportPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("cannot create the report file: %w", err)
		}
		o.report = f
	}
	o.stdout, o.stderr = o.red.Writer(c.Stdout), o.red.Writer(c.Stderr)
	return o, nil
}

// close flushes the streams; a report file that finish never wrote (the
// command failed before it ran) is removed rather than left empty.
func (o *output) close() {
	o.stdout.Close()
	o.stderr.Close()
	if o.report != nil {
		o.report.Close()
		os.Remove(o.report.Name())
	}
}

// fail prints the one-line reason, masked, last on stderr and returns code.
func (o *output) fail(code int, msg string) int {
	o.stdout.Flush()
	o.stderr.Flush()
	fmt.Fprintf(o.stderr, "retrywise: %s\n", msg)
	o.stderr.Flush()
	return code
}

// progress is the coordinator's Progress: one line per failed attempt that will be retried.
func (o *output) progress(a retry.Attempt, maxAttempts int) {
	o.stderr.Flush()
	fmt.Fprintf(o.stderr, "retrywise: %s\n", report.ProgressLine(a, maxAttempts))
}

// coordinator returns the one retry loop for a step command, with o's
// progress lines and diagnose (the egress probe) as its Diagnose.
func (c *Command) coordinator(pol retry.Policy, o *output, diagnose egress.DiagnoseFunc) *retry.Coordinator {
	return &retry.Coordinator{Policy: pol, Clock: c.Clock, Progress: o.progress, Diagnose: diagnose}
}

// finish writes the report to stderr and the JSON file, then the one-line
// reason last on a non-zero exit; it returns the report's exit code.
func (o *output) finish(rep *report.Report) int {
	o.stdout.Flush()
	o.stderr.Flush()
	rep.WriteText(o.stderr)
	if f := o.report; f != nil {
		o.report = nil
		var b strings.Builder
		rep.WriteJSON(&b)
		_, werr := io.WriteString(f, o.red.String(b.String()))
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			fmt.Fprintf(o.stderr, "retrywise: cannot write the JSON report: %v\n", werr)
		}
	}
	if rep.ExitCode != exitcode.OK {
		fmt.Fprintf(o.stderr, "retrywise: %s\n", rep.Headline())
	}
	o.stderr.Flush()
	return rep.ExitCode
}
