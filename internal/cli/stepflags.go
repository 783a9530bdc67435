package cli

import (
	"flag"
	"fmt"
	"time"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/retry"
)

// stepFlags are the flags every step command shares: the loop's policy, the
// JSON report, extra values to mask and the egress probe's settings.
type stepFlags struct {
	schedule      string
	maxAttempts   int
	maxElapsed    time.Duration
	retryAfterCap time.Duration
	onUnknown     string
	report        string
	masks         stringList
	egress        *egressFlags
}

// stepOptions are the settings every step command shares, resolved from its
// stepFlags.
type stepOptions struct {
	// policy is the loop's normalised policy snapshot.
	policy retry.Policy
	// report is the JSON report's path; "" means none.
	report string
	// masks are extra values to mask (--mask).
	masks []string
	// prober asks the egress proxy about a failure that went through it; it
	// may be nil when diagnose is set.
	prober *egress.Prober
	// diagnose, when not nil, replaces the egress probe as the loop's
	// Diagnose (tests).
	diagnose egress.DiagnoseFunc
}

// addStepFlags registers the step flags on fs with the given default schedule.
func addStepFlags(fs *flag.FlagSet, defaultSchedule string) *stepFlags {
	r := &stepFlags{}
	fs.StringVar(&r.schedule, "schedule", defaultSchedule, "comma-separated `waits` before each retry; the last repeats")
	fs.IntVar(&r.maxAttempts, "max-attempts", 0, "attempts in all, the first included; 0 means the schedule's length plus one")
	fs.DurationVar(&r.maxElapsed, "max-elapsed", 15*time.Minute, "bound on the whole loop; a wait that would cross it is not started")
	fs.DurationVar(&r.retryAfterCap, "retry-after-cap", 5*time.Minute, "longest server-requested wait (Retry-After) honoured; a longer one stops")
	fs.StringVar(&r.onUnknown, "on-unknown", "stop", "what to do with an unrecognised failure: stop or retry")
	fs.StringVar(&r.report, "report", "", "also write the report as JSON to `FILE`")
	fs.Var(&r.masks, "mask", "also mask `VALUE` wherever it appears (repeatable)")
	r.egress = addEgressFlags(fs)
	return r
}

// options returns the flags' report and masks; the caller resolves the
// policy (policy) and the prober (factory.prober) where its checks run.
func (r *stepFlags) options() stepOptions {
	return stepOptions{report: r.report, masks: r.masks}
}

// policy resolves the flags into a normalised policy snapshot.
func (r *stepFlags) policy() (retry.Policy, error) {
	sched, err := retry.ParseSchedule(r.schedule)
	if err != nil {
		return retry.Policy{}, err
	}
	ou, err := retry.ParseOnUnknown(r.onUnknown)
	if err != nil {
		return retry.Policy{}, err
	}
	if r.maxAttempts < 0 {
		return retry.Policy{}, fmt.Errorf("invalid --max-attempts %d: must be at least 1 (0 derives it from the schedule)", r.maxAttempts)
	}
	return retry.Policy{Schedule: sched, MaxAttempts: r.maxAttempts, MaxElapsed: r.maxElapsed, RetryAfterCap: r.retryAfterCap, OnUnknown: ou}.Normalize()
}
