package explain

import (
	"fmt"
	"io"
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
)

// WriteText renders the explanation for a terminal: the run's verdict,
// then each failed step's class, code, reason, evidence and remedy, then
// the re-run decision.
func (r *Result) WriteText(w io.Writer, run string) error {
	var b strings.Builder
	n := len(r.Report.Steps)
	fmt.Fprintf(&b, "retrywise explain %s: ", failure.Printable(run))
	switch {
	case r.Run != nil:
		fmt.Fprintf(&b, "attempt %d, %s %s; ", r.Run.GetRunAttempt(), r.Run.GetStatus(), r.Run.GetConclusion())
	}
	heading := "step"
	if r.Unread {
		// explain's own failure: its API call, not a step of the run.
		fmt.Fprintf(&b, "%s (exit %d)\n", r.Headline, r.ExitCode)
		heading = "explain's own API call:"
	} else {
		fmt.Fprintf(&b, "%d failed %s (exit %d)\n", n, map[bool]string{true: "step", false: "steps"}[n == 1], r.ExitCode)
	}
	for _, s := range r.Report.Steps {
		fmt.Fprintf(&b, "\n%s %s:\n", heading, failure.Printable(s.ID))
		field := func(name, v string) {
			if v != "" {
				fmt.Fprintf(&b, "    %-9s %s\n", name+":", failure.Printable(v))
			}
		}
		field("class", s.Class.String())
		field("code", string(s.Code))
		field("reason", s.Reason)
		for i, e := range s.Evidence {
			if i == 0 {
				field("evidence", strings.TrimSpace(e))
			} else {
				fmt.Fprintf(&b, "    %-9s %s\n", "", failure.Printable(strings.TrimSpace(e)))
			}
		}
		field("remedy", s.Remedy)
		for _, note := range s.Notes {
			field("note", note)
		}
	}
	if r.Cut != nil {
		fmt.Fprintf(&b, "\njobs:     %s\n", r.Cut.Error())
	}
	if r.LogCut != "" {
		fmt.Fprintf(&b, "\nlog:      %s\n", r.LogCut)
	}
	if r.RerunWhy != "" {
		fmt.Fprintf(&b, "\nrerun:    %s\n", r.RerunWhy)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
