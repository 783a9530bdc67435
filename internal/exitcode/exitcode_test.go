package exitcode

import (
	"context"
	"syscall"
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/interrupt"
	"github.com/retrywise/retrywise/internal/retry"
)

func TestFor(t *testing.T) {
	f := func(c failure.Class) *failure.Failure { return failure.New(c, failure.CodeUnknown, "r", "") }
	tests := []struct {
		name     string
		out      retry.Outcome
		absentOK bool
		want     int
	}{
		{"success", retry.Outcome{Stop: retry.StopSucceeded}, false, OK},
		{"transient exhausted", retry.Outcome{Stop: retry.StopAttemptsExhausted, Final: f(failure.Transient)}, false, Transient},
		{"transient elapsed", retry.Outcome{Stop: retry.StopElapsedExhausted, Final: f(failure.Transient)}, false, Transient},
		{"transient unsafe to resend", retry.Outcome{Stop: retry.StopCannotRetry, Final: f(failure.Transient)}, false, Transient},
		{"transient retry-after over cap", retry.Outcome{Stop: retry.StopRetryAfterOverCap, Final: f(failure.Transient)}, false, Transient},
		{"policy", retry.Outcome{Stop: retry.StopNotRetryable, Final: f(failure.Policy)}, false, Policy},
		{"structural", retry.Outcome{Stop: retry.StopNotRetryable, Final: f(failure.Structural)}, false, Structural},
		{"absent", retry.Outcome{Stop: retry.StopNotRetryable, Final: f(failure.Absent)}, false, Absent},
		{"absent ok", retry.Outcome{Stop: retry.StopNotRetryable, Final: f(failure.Absent)}, true, OK},
		{"absent ok does not hide policy", retry.Outcome{Stop: retry.StopNotRetryable, Final: f(failure.Policy)}, true, Policy},
		{"unknown", retry.Outcome{Stop: retry.StopNotRetryable, Final: f(failure.Unknown)}, false, Unknown},
		{"SIGINT", retry.Outcome{Stop: retry.StopCancelled, Cause: &interrupt.Signal{Sig: syscall.SIGINT}}, false, Interrupted},
		{"SIGTERM", retry.Outcome{Stop: retry.StopCancelled, Cause: &interrupt.Signal{Sig: syscall.SIGTERM}, Final: f(failure.Transient)}, false, Terminated},
		{"cancelled without signal", retry.Outcome{Stop: retry.StopCancelled, Cause: context.Canceled}, false, Interrupted},
	}
	for _, tt := range tests {
		if got := For(&tt.out, tt.absentOK); got != tt.want {
			t.Errorf("%s: For = %d, want %d", tt.name, got, tt.want)
		}
	}
}
