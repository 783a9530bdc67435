package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

// WriteText renders the run for a terminal: a run of one step exactly as
// its step's WriteText; a job as a header, a table of its steps and, for
// every step that failed or was cancelled, the step's fields.
func (r *Run) WriteText(w io.Writer) error {
	if len(r.Steps) == 1 {
		return r.Steps[0].WriteText(w)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "retrywise job %s %s in %s (exit %d)\n", r.Run.Job, runStatus(r.Run.Result), r.duration(), r.Run.ExitCode)
	if len(r.Steps) == 0 {
		b.WriteString("  no steps ran\n")
	} else {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  step\tkind\tresult\tclass\tattempts\ttime")
		for _, s := range r.Steps {
			row := summaryRow(s)
			for i, c := range row {
				row[i] = cellText(c)
			}
			fmt.Fprintln(tw, "  "+strings.Join(row, "\t"))
		}
		tw.Flush()
	}
	if r.Run.Detail != "" {
		fmt.Fprintf(&b, "  %-9s %s\n", "detail:", r.Run.Detail)
	}
	// A step that needs no block still has its notes (a rebase that let
	// a push land, a re-check that passed) read: one line each.
	for _, s := range r.Steps {
		if needsBlock(s) {
			continue
		}
		for _, n := range s.Notes {
			b.WriteString(oneLine(fmt.Sprintf("  step %s: %s", s.ID, n)) + "\n")
		}
	}
	for _, s := range r.Steps {
		if !needsBlock(s) {
			continue
		}
		fmt.Fprintf(&b, "\nstep %s%s:\n", s.ID, coeMark(s))
		s.writeFields(&b, "    ")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ProgressStart is the line a job run prints when a step starts, e.g.
// "step quota (http GET https://api.github.com/rate_limit) ...".
func ProgressStart(id, kind, target string) string {
	what := kind
	if target != "" {
		what += " " + target
	}
	return fmt.Sprintf("step %s (%s) ...", id, oneLine(what))
}

// StepLine is the line a job run prints when a step ends, e.g.
// "step quota: success after 1 attempt in 120ms" or "step post: skipped (if: failure())".
func StepLine(s *Step) string {
	head := "step " + s.ID + ": "
	var line string
	switch {
	case s.Result == Skipped:
		line = head + "skipped"
		if s.Detail != "" {
			line += " (" + s.Detail + ")"
		}
		return oneLine(line)
	case s.Result == Success && s.Class != failure.None:
		line = head + "success (" + classCode(s) + ", allowed)"
	case s.Result == Success:
		line = head + "success"
	case s.Result == Cancelled:
		line = head + "cancelled"
	default:
		line = head + string(s.Result)
		if s.Class != failure.None {
			line += " (" + classCode(s) + ")"
		}
	}
	line += fmt.Sprintf(" after %s in %s", Count(s.AttemptCount(), "attempt"), s.Elapsed.Round(time.Millisecond))
	if s.Result == Cancelled && s.Detail != "" {
		line += " (" + s.Detail + ")"
	}
	line += coeMark(s)
	return oneLine(line)
}

// runStatus words a run's result for the job header.
func runStatus(res Result) string {
	switch res {
	case Success:
		return "succeeded"
	case Cancelled:
		return "was cancelled"
	}
	return "failed"
}

// duration is the run's wall time, rounded for people.
func (r *Run) duration() time.Duration {
	return r.Run.End.Sub(r.Run.Start).Round(time.Millisecond)
}

// summaryRow is a step's cells in the summary table: step, kind, result,
// class, attempts, time; "-" where there is nothing to show.
func summaryRow(s *Step) []string {
	result := string(s.Result) + coeMark(s)
	class := s.Class.String()
	if class == "" {
		class = "-"
	}
	if s.Result == Skipped {
		return []string{s.ID, s.Kind, result, class, "-", "-"}
	}
	return []string{s.ID, s.Kind, result, class, strconv.Itoa(s.AttemptCount()), s.Elapsed.Round(time.Millisecond).String()}
}

// needsBlock reports whether the run's renderings detail the step: it
// failed (continue-on-error or not) or was cancelled.
func needsBlock(s *Step) bool {
	return s.Result == Failure || s.Result == Cancelled
}

// coeMark marks a failure that did not fail the job.
func coeMark(s *Step) string {
	if s.ContinueOnError && s.Result == Failure {
		return " (continue-on-error)"
	}
	return ""
}

// classCode is "class code", or the class alone when there is no code.
func classCode(s *Step) string {
	if s.Code == "" {
		return s.Class.String()
	}
	return s.Class.String() + " " + string(s.Code)
}

// oneLine folds line breaks into spaces so a progress line stays one line.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// cellText keeps a table cell on one line and in its column.
func cellText(s string) string {
	return strings.ReplaceAll(oneLine(s), "\t", " ")
}
