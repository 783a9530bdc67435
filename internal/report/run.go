package report

import (
	"encoding/json"
	"io"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/retry"
)

// NewRun starts the record of a run of job at start.
func NewRun(job string, start time.Time) *Run {
	return &Run{Version: Version, Run: RunInfo{Job: job, Start: start}, Steps: []*Step{}}
}

// Single is the record of a step command: a run of one step, named for the
// command, from start to end.
func Single(step *Step, start, end time.Time) *Run {
	r := NewRun(step.Kind, start)
	r.Steps = append(r.Steps, step)
	r.Finish(end, step.ExitCode, "")
	return r
}

// Finish records the run's end, exit code and result: success on exit 0,
// cancelled on 130/143, failure otherwise; detail explains it when the
// steps do not.
func (r *Run) Finish(end time.Time, exitCode int, detail string) {
	r.Run.End, r.Run.ExitCode, r.Run.Detail = end, exitCode, detail
	switch exitCode {
	case exitcode.OK:
		r.Run.Result = Success
	case exitcode.Interrupted, exitcode.Terminated:
		r.Run.Result = Cancelled
	default:
		r.Run.Result = Failure
	}
}

// Step returns the step with id, or nil.
func (r *Run) Step(id string) *Step {
	for _, s := range r.Steps {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// WriteJSON writes the run as one indented JSON object, in the layout of
// docs/report.schema.json (Schema): absent steps or attempts are written as
// empty arrays, never null.
func (r *Run) WriteJSON(w io.Writer) error {
	out := *r
	out.Steps = make([]*Step, len(r.Steps))
	for i, s := range r.Steps {
		if s != nil && s.Attempts == nil {
			c := *s
			c.Attempts = []retry.Attempt{}
			s = &c
		}
		out.Steps[i] = s
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&out)
}

// NotRun is the record of a step that failed before its first attempt (a
// setting, a file, an unset variable): no attempt, the exit code and why.
func NotRun(kind, target string, exitCode int, reason string, pol retry.Policy) *Step {
	return &Step{ID: kind, Kind: kind, Target: target, Result: Failure, ExitCode: exitCode, Reason: reason, Policy: pol, Attempts: []retry.Attempt{}}
}

// Skip is the record of a step that did not run: skipped (its if: was false,
// or an earlier step failed) or cancelled (the run was cancelled first).
func Skip(id, kind string, result Result, detail string, pol retry.Policy) *Step {
	return &Step{ID: id, Kind: kind, Result: result, Detail: detail, Policy: pol, Attempts: []retry.Attempt{}}
}
