package cli

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/retrywise/retrywise/internal/demo"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/options"
)

const demoSynopsis = `Usage: retrywise demo [flags]

Runs an embedded job file against a world started on 127.0.0.1 only: an
endpoint that answers 503 twice and then 200 (a transient failure that
recovers), a lookup that answers 404 (an absence that is an answer), a
forward proxy that denies one host as Squid does (a policy denial, stopped
at once) and a local repository whose remote has moved on (a non-fast-forward
push, stopped at once with its remedy). The failing steps are
continue-on-error, so the job exits 0 and the report shows every class.
--print-config prints the job file, a valid one to copy.`

// runDemo is `retrywise demo`.
func runDemo(ctx context.Context, f *factory, args []string) int {
	var opt options.Demo
	fs := fieldFlagSet("demo", demoSynopsis, opt.Fields())
	pos, code, done := f.parse(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return f.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q (see --help)", pos[0]))
	}
	if opt.PrintConfig {
		f.stdout.Write(demo.Config())
		return exitcode.OK
	}
	dir, err := os.MkdirTemp("", "retrywise-demo-")
	if err != nil {
		return f.fail(exitcode.Config, "cannot create the demo's folder: "+err.Error())
	}
	defer os.RemoveAll(dir)
	world, err := demo.Start(ctx, dir)
	if err != nil {
		return f.fail(exitcode.Config, "cannot start the demo's world: "+err.Error())
	}
	defer world.Close()
	fmt.Fprintf(f.stderr, "retrywise demo: everything runs on 127.0.0.1; nothing leaves this machine\n")
	for _, line := range world.Describe() {
		fmt.Fprintf(f.stderr, "  %s\n", line)
	}
	// The demo's steps see the world's variables; nothing else changes.
	df := *f
	df.env = slices.Concat(f.env, world.Env)
	l, errs, err := df.loadJobSource(ctx, "demo.yml", demo.Config())
	if err != nil || len(errs) > 0 {
		return f.fail(exitcode.Config, fmt.Sprintf("the embedded job file is invalid: %v %v", err, errs))
	}
	return df.runJob(ctx, l, runOptions{reportPath: opt.Report, summaryPath: opt.Summary})
}
