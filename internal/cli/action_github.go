package cli

import (
	"context"

	"github.com/retrywise/retrywise/internal/report"
)

// issueMode is the report-issue input.
type issueMode string

func parseIssueMode(s string) (issueMode, error) { return issueMode(s), nil }

func (a *actionRun) reportIssue(ctx context.Context, run *report.Run, markdown string) {}

func (a *actionRun) explainRefusal(ctx context.Context, rep *report.Step) {}
