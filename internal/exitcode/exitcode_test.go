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

func TestForProbe(t *testing.T) {
	f := func(c failure.Class) *failure.Failure { return failure.New(c, failure.CodeUnknown, "r", "") }
	tests := []struct {
		name     string
		findings []*failure.Failure
		want     int
	}{
		{"no targets", nil, OK},
		{"allowed or direct", []*failure.Failure{nil, nil}, OK},
		{"denied", []*failure.Failure{f(failure.Policy)}, Policy},
		{"unreachable", []*failure.Failure{nil, f(failure.Transient)}, Transient},
		{"denied wins over unreachable", []*failure.Failure{f(failure.Transient), f(failure.Policy), f(failure.Transient)}, Policy},
		{"unclear does not fail", []*failure.Failure{f(failure.Unknown)}, OK},
		{"rejected does not fail", []*failure.Failure{f(failure.Structural), nil}, OK},
		{"unreachable wins over unclear", []*failure.Failure{f(failure.Unknown), f(failure.Transient)}, Transient},
	}
	for _, tt := range tests {
		if got := ForProbe(tt.findings); got != tt.want {
			t.Errorf("%s: ForProbe = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestForProbeVerdicts pins the preflight's promise (probe --help): exit 77
// if any target is denied, 75 if any is unreachable, 0 otherwise.
func TestForProbeVerdicts(t *testing.T) {
	for v, want := range map[failure.ProbeVerdict]int{
		failure.ProbeAllowed:             OK,
		failure.ProbeDirect:              OK,
		failure.ProbeUnclear:             OK,
		failure.ProbeRejected:            OK,
		failure.ProbeDenied:              Policy,
		failure.ProbeUpstreamUnreachable: Transient,
		failure.ProbeProxyUnreachable:    Transient,
		failure.ProbeProxyFailing:        Transient,
	} {
		if got := ForProbe([]*failure.Failure{failure.Probe{Verdict: v}.Failure()}); got != want {
			t.Errorf("%s (summary %s): ForProbe = %d, want %d", v, v.Summary(), got, want)
		}
	}
}
