package action

import (
	"io"
	"slices"

	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/workflowtext"
)

// Neutral returns s as text the runner shows and never runs
// (workflowtext.Neutral): the one function every outside text goes through
// before retrywise prints it in action mode.
func Neutral(s string) string { return workflowtext.Neutral(s) }

// writeNeutralText writes run's terminal text to w as the log shows it:
// from a copy whose every text (ids, targets, reasons, evidence, notes,
// refs, attempts) is Neutral, each line then defused.
func writeNeutralText(w io.Writer, run *report.Run) error {
	c := *run
	c.Run.Job, c.Run.Detail = Neutral(run.Run.Job), Neutral(run.Run.Detail)
	c.Steps = make([]*report.Step, len(run.Steps))
	for i, s := range run.Steps {
		cs := *s
		cs.ID, cs.Kind = Neutral(s.ID), Neutral(s.Kind) // the class is one of failure's names
		cs.Evidence, cs.Notes, cs.Refs, cs.Attempts = slices.Clone(s.Evidence), slices.Clone(s.Notes), slices.Clone(s.Refs), slices.Clone(s.Attempts)
		cs.Outputs = nil // the text shows none
		cs.Mask(Neutral)
		for j := range cs.Attempts {
			cs.Attempts[j].Command, cs.Attempts[j].Why = Neutral(cs.Attempts[j].Command), Neutral(cs.Attempts[j].Why)
		}
		c.Steps[i] = &cs
	}
	text := workflowtext.NewLines(w)
	if err := c.WriteText(text); err != nil {
		return err
	}
	return text.Flush()
}
