// Package exitcode is the one table of retrywise's exit codes and the
// functions that map an outcome to a code.
package exitcode

import (
	"context"
	"errors"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/interrupt"
	"github.com/retrywise/retrywise/internal/retry"
)

// The exit codes; the numbers follow BSD sysexits where one fits.
const (
	// OK: the step succeeded, or was absent and the user said absence is fine.
	OK = 0
	// Unknown: the failure was not recognised; retrywise stopped rather than guess.
	Unknown = 1
	// Usage: the command line was malformed (EX_USAGE).
	Usage = 64
	// Structural: the request itself must change, e.g. non-fast-forward (EX_DATAERR).
	Structural = 65
	// Absent: the thing is not there, and --absent-ok was not given (EX_NOINPUT).
	Absent = 66
	// Transient: the final failure was transient; attempts, time, cap or safety stopped the loop (EX_TEMPFAIL).
	Transient = 75
	// Policy: a decision already made: denied, unauthorised, not allowed (EX_NOPERM).
	Policy = 77
	// Config: retrywise's own configuration is wrong: an unset variable, a bad file (EX_CONFIG).
	Config = 78
	// Interrupted: cancelled by SIGINT (SIGTERM gives 143: 128 plus the signal number).
	Interrupted = 130
	// Terminated: cancelled by SIGTERM.
	Terminated = 143
)

// ForClass returns the code for a final failure of class c.
func ForClass(c failure.Class, absentOK bool) int {
	switch c {
	case failure.Transient:
		return Transient
	case failure.Policy:
		return Policy
	case failure.Structural:
		return Structural
	case failure.Absent:
		if absentOK {
			return OK
		}
		return Absent
	}
	return Unknown
}

// ForProbe returns the exit code of an egress preflight from each target's finding (nil: allowed or direct).
func ForProbe(findings []*failure.Failure) int {
	// The worst finding decides: Policy when any is a policy failure (a
	// denial), else Transient when any is transient (an outage at or behind
	// the proxy), else OK. A finding of another class (an unclear or rejected
	// answer) is reported but does not fail the preflight.
	code := OK
	for _, f := range findings {
		switch {
		case f == nil:
		case f.Class == failure.Policy:
			return Policy
		case f.Class == failure.Transient:
			code = Transient
		}
	}
	return code
}

// ForCause is the exit code of work its context stopped: 128 plus the
// signal's number (130 for SIGINT, 143 for SIGTERM) when a signal did
// (the context's cause, internal/interrupt), else Interrupted.
func ForCause(ctx context.Context) int {
	var s *interrupt.Signal
	if errors.As(context.Cause(ctx), &s) {
		return s.ExitCode()
	}
	return Interrupted
}

// For maps a loop's outcome to the process exit code.
func For(out *retry.Outcome, absentOK bool) int {
	switch {
	case out.OK():
		return OK
	case out.Stop == retry.StopCancelled:
		var s *interrupt.Signal
		if errors.As(out.Cause, &s) {
			return s.ExitCode()
		}
		return Interrupted
	case out.Final == nil:
		return Unknown
	}
	return ForClass(out.Final.Class, absentOK)
}
