package cli

import (
	"context"
	"fmt"

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/exitcode"
)

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
	if code, done := f.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return f.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q: the action takes its settings from its inputs (INPUT_*)", fs.Arg(0)))
	}
	return action.Main(ctx, &action.Host{
		Stdin: f.stdin, Stdout: f.stdout, Env: f.env, Clock: f.clock, UserAgent: f.userAgent(),
		Services: f.services, Redactor: f.redactor, Fail: f.fail,
	})
}
