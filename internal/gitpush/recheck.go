package gitpush

import (
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

// --auth-recheck D: a freshly minted token can be refused (401/403) for a
// few seconds until it propagates. On a refusal of the credentials (the
// failure's trace says AuthRefused), and only once per run, the retry loop
// waits D on its clock and runs one more attempt, recorded like any other;
// the report says so.

// Recheck implements retry.Rechecker: a refusal of the credentials may be
// checked once more after --auth-recheck.
func (s *Step) Recheck(f *failure.Failure) (time.Duration, string, bool) {
	if s.opts.AuthRecheck <= 0 || s.rechecked || f == nil || f.Class != failure.Policy || !f.Trace.AuthRefused {
		return 0, "", false
	}
	s.rechecked, s.recheckOf = true, s.n
	s.recheckWhy = f.Reason
	return s.opts.AuthRecheck, "--auth-recheck, a fresh token may take a few seconds to propagate", true
}

// noteRecheck records, after the re-check attempt, what it found.
func (s *Step) noteRecheck(fail *failure.Failure) {
	if s.recheckOf == 0 || s.n != s.recheckOf+1 {
		return
	}
	verdict := "accepted"
	if fail != nil {
		verdict = "still refused (" + fail.Class.String() + ": " + fail.Reason + ")"
	}
	s.note("--auth-recheck: attempt %d was refused (%s); waited %s once for the credentials to propagate and pushed again in attempt %d: %s",
		s.recheckOf, s.recheckWhy, s.opts.AuthRecheck, s.n, verdict)
}
