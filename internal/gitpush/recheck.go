package gitpush

import (
	"context"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
)

// --auth-recheck D: a freshly minted token can be refused (401/403) for a
// few seconds until it propagates. On a refusal of the credentials, and only
// once per run, wait D on the injected clock and push once more; the report
// says so.

// recheckCandidate reports whether res is a refusal of the credentials that
// may be checked once more.
func (s *Step) recheckCandidate(res pushResult) bool {
	return s.opts.AuthRecheck > 0 && !s.rechecked && res.fail != nil && res.fail.Class == failure.Policy && res.fail.Trace.AuthRefused
}

// recheck waits, pushes once more and replaces res; it returns false when
// the context ended during the wait.
func (s *Step) recheck(ctx context.Context, res *pushResult) bool {
	s.rechecked = true
	first := res.fail
	if !clock.Sleep(ctx, s.clk, s.opts.AuthRecheck) {
		s.note("--auth-recheck: attempt %d was refused (%s); cancelled while waiting %s to check again", s.n, first.Reason, s.opts.AuthRecheck)
		return false
	}
	*res = s.pushOnce(ctx)
	verdict := "accepted"
	if res.fail != nil {
		verdict = "still refused (" + res.fail.Class.String() + ": " + res.fail.Reason + ")"
	}
	s.note("--auth-recheck: attempt %d was refused (%s); waited %s once for the credentials to propagate and pushed again: %s",
		s.n, first.Reason, s.opts.AuthRecheck, verdict)
	return true
}
