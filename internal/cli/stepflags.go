package cli

import (
	"flag"
	"fmt"
	"sync"
	"time"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/retry"
)

// stepFlags are the flags every step command shares: the loop's policy, the
// JSON report, extra values to mask and the egress probe's settings.
type stepFlags struct {
	schedule      string
	maxAttempts   int
	forceAttempts bool
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

// stepFlagUsage are the usage texts of the step flags that name the retry
// limits, formatted on first use: every step of a job file defines the
// flags again.
var stepFlagUsage = sync.OnceValue(func() (u struct{ maxAttempts, forceAttempts, maxElapsed string }) {
	u.maxAttempts = fmt.Sprintf("attempts in all, the first included; 0 means the schedule's length plus one; at most %d without --max-attempts-force", retry.MaxAttemptsLimit)
	u.forceAttempts = fmt.Sprintf("allow more than %d attempts (still bounded by --max-elapsed)", retry.MaxAttemptsLimit)
	u.maxElapsed = fmt.Sprintf("bound on the whole loop, at most %s; a wait that would cross it is not started", fmtLimit(retry.MaxElapsedLimit))
	return u
})

// addStepFlags registers the step flags on fs with the given default schedule.
func addStepFlags(fs *flag.FlagSet, defaultSchedule string) *stepFlags {
	r := &stepFlags{}
	fs.StringVar(&r.schedule, "schedule", defaultSchedule, "comma-separated `waits` before each retry; the last repeats")
	u := stepFlagUsage()
	fs.IntVar(&r.maxAttempts, "max-attempts", 0, u.maxAttempts)
	fs.BoolVar(&r.forceAttempts, "max-attempts-force", false, u.forceAttempts)
	fs.DurationVar(&r.maxElapsed, "max-elapsed", 15*time.Minute, u.maxElapsed)
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
	if r.maxElapsed > retry.MaxElapsedLimit {
		return retry.Policy{}, fmt.Errorf("invalid --max-elapsed %s: over the limit of %s", r.maxElapsed, fmtLimit(retry.MaxElapsedLimit))
	}
	p, err := retry.Policy{Schedule: sched, MaxAttempts: r.maxAttempts, MaxElapsed: r.maxElapsed, RetryAfterCap: r.retryAfterCap, OnUnknown: ou}.Normalize()
	if err != nil {
		return p, err
	}
	if p.MaxAttempts > retry.MaxAttemptsLimit && !r.forceAttempts {
		what := fmt.Sprintf("--max-attempts %d", p.MaxAttempts)
		if r.maxAttempts == 0 {
			what = fmt.Sprintf("--schedule of %d waits (%d attempts)", len(p.Schedule), p.MaxAttempts)
		}
		return retry.Policy{}, fmt.Errorf("invalid %s: over the cap of %d attempts; add --max-attempts-force to allow more (the loop stays bounded by --max-elapsed)", what, retry.MaxAttemptsLimit)
	}
	return p, nil
}

// fmtLimit renders a limit of whole hours as "24h".
func fmtLimit(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return d.String()
}
