package cli

import (
	"context"
	"fmt"

	"github.com/retrywise/retrywise/internal/app"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/step"
)

// A step command is its kind's one definition (internal/step): the flags
// are generated from the kind's field table, as the job file's keys and
// the action's inputs are, and a config is validated by the same code
// whichever surface set it.

// parseKind parses a step command's flags and positional arguments into a
// prepared step; a usage error is printed and exits 64.
func parseKind(ctx context.Context, f *factory, k *step.Kind, args []string) (*step.Prepared, int, bool) {
	fs := newFlagSet(k.Name, k.Synopsis)
	c := k.New()
	fields := c.Fields()
	step.Flags(fs, fields)
	// A child's arguments are never retrywise's flags: exec's command
	// and push's git arguments start at "--" or at the first argument.
	pos, code, done := f.parseUntil(fs, args, k == step.ExecKind || k == step.PushKind)
	if done {
		return nil, code, true
	}
	if msg := setArgs(k, fields, pos); msg != "" {
		return nil, f.fail(exitcode.Usage, msg), true
	}
	p, err := step.Prepare(ctx, k, c)
	if err != nil && ctx.Err() != nil {
		// A file a setting names (--rules) waited: a FIFO no one writes.
		return nil, f.fail(exitcode.ForCause(ctx), step.FieldErrors(err)[0].Render(step.FlagName)), true
	}
	if err != nil {
		return nil, f.fail(exitcode.Usage, step.FieldErrors(err)[0].Render(step.FlagName)), true
	}
	return p, 0, false
}

// setArgs sets a command's positional arguments on the kind's positional
// field; it returns what is wrong with them, or "".
func setArgs(k *step.Kind, fields []*step.Field, pos []string) string {
	if k.Args == "" {
		if len(pos) > 0 {
			return fmt.Sprintf("unexpected argument %q (see --help)", pos[0])
		}
		return ""
	}
	fd := step.Lookup(fields, k.Args)
	if fd.Type != step.List {
		if len(pos) != 1 {
			return fmt.Sprintf("want exactly one URL, got %d arguments: use retrywise %s [flags] URL", len(pos), k.Name)
		}
	}
	if len(pos) == 0 {
		return ""
	}
	if err := fd.SetValues(pos); err != nil {
		return err.Error()
	}
	return ""
}

// runKind runs a step command's prepared step with its own masked output
// and JSON report, and returns the exit code.
func runKind(ctx context.Context, f *factory, p *step.Prepared) int {
	c := p.Config.Shared()
	o, err := f.output(ctx, c.Masks, c.Report)
	if err != nil {
		return f.failOpen(ctx, err)
	}
	defer o.close()
	opts := app.StepOptions{Step: p, IO: o.stepIO(f)}
	var wf *workflowFiles
	if p.Kind == step.ExecKind || p.Kind == step.PushKind {
		if wf, err = f.workflowFiles(ctx, o.red, o.stderr); err != nil {
			return o.fail(exitcode.Config, err.Error())
		}
		opts.FileCommands = wf.forwarder()
	}
	rep, code, err := f.application().RunStep(ctx, opts)
	wf.writeSummary()
	if err != nil {
		return wf.exit(o.fail(code, err.Error()))
	}
	return wf.exit(o.finish(ctx, rep, f.clock.Now()))
}

// stepCommand is a kind's subcommand: parse with the kind's flags, run.
func stepCommand(k *step.Kind) func(context.Context, *factory, []string) int {
	return func(ctx context.Context, f *factory, args []string) int {
		p, code, done := parseKind(ctx, f, k, args)
		if done {
			return code
		}
		return runKind(ctx, f, p)
	}
}
