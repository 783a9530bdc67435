// Package report is the record of one run and its renderings for people
// (terminal text) and programs (JSON).
package report

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/retry"
)

// Version is the version of the JSON report's schema (docs/report.schema.json).
const Version = 1

// Result is how a step or a run ended.
type Result string

// The results of a step; a run is success, failure or cancelled.
const (
	Success   Result = "success"
	Failure   Result = "failure"
	Skipped   Result = "skipped"
	Cancelled Result = "cancelled"
)

// Run is the record of one run of a job (or of one step command, a run of one
// step): the document the JSON report serialises.
type Run struct {
	// Version is the schema's version (Version).
	Version int `json:"version"`
	// Run says which job ran, when, and how it ended.
	Run RunInfo `json:"run"`
	// Steps are the job's steps in order, skipped ones included.
	Steps []*Step `json:"steps"`
}

// RunInfo is the run's own record.
type RunInfo struct {
	// Job is the job's name; for a step command, the command's name.
	Job string `json:"job"`
	// Start and End bound the run.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// ExitCode is the code retrywise exits with.
	ExitCode int `json:"exit_code"`
	// Result is success, failure or cancelled.
	Result Result `json:"result"`
	// Detail explains a result the steps do not (the job's timeout, a signal).
	Detail string `json:"detail,omitempty"`
}

// Step is what a stop tells a person: what failed, the evidence, the class
// and the remedy, with every attempt and the policy that ran.
type Step struct {
	// ID is the step's id in the job file; a step command's name otherwise.
	ID string `json:"id"`
	// Kind is the step's kind: exec, push, http, probe, github-quota, explain.
	Kind string `json:"kind"`
	// Target is what was run or requested, secrets already masked by the writer.
	Target string `json:"target,omitempty"`
	// Result is success, failure, skipped or cancelled; an absence allowed
	// (absent-ok) is a success.
	Result Result `json:"result"`
	// ContinueOnError is true when the step's failure does not fail the job.
	ContinueOnError bool `json:"continue_on_error,omitempty"`
	// Class is the final failure's class; None on success (no "class" in
	// the JSON).
	Class failure.Class `json:"class,omitempty"`
	// Code is the final failure's stable code (failure.Code); empty on success.
	Code failure.Code `json:"code,omitempty"`
	// Decision is what the class alone recommends: retry or stop.
	Decision string `json:"decision,omitempty"`
	// Stop says why the loop ended; empty for a step that did not run.
	Stop retry.Stop `json:"stop,omitempty"`
	// Reason is the final failure's one-line reason.
	Reason string `json:"reason,omitempty"`
	// Detail explains the stop when the reason alone does not (bounds, caps, context, why skipped).
	Detail string `json:"detail,omitempty"`
	// Evidence quotes what the verdict rests on.
	Evidence []string `json:"evidence,omitempty"`
	// Remedy says what to do.
	Remedy string `json:"remedy,omitempty"`
	// Persistent, when set, says the failure repeated the runs before
	// (hindsight), so the step made no retries.
	Persistent *failure.Persistence `json:"persistent,omitempty"`
	// Notes are extra facts worth reading (a landed push, an unreplayable stdin).
	Notes []string `json:"notes,omitempty"`
	// Outputs are the step's outputs by name (http: fields, status, found,
	// body-file; push: pushed, landed, refs; ...), JSON values.
	Outputs map[string]any `json:"outputs,omitempty"`
	// Refs are the per-ref results of a multi-ref step (git push), in order,
	// for the terminal; the JSON report has them as the output "refs".
	Refs []Ref `json:"-"`
	// ExitCode is the code this step alone would exit with.
	ExitCode int `json:"exit_code"`
	// Policy is the snapshot resolved before the run started.
	Policy retry.Policy `json:"policy"`
	// Attempts records every attempt, up to retry.KeepAttempts (1000): a
	// longer run has its first and last 500, AttemptsOmitted counting the rest.
	Attempts []retry.Attempt `json:"attempts"`
	// AttemptsOmitted is how many attempts between the first and the last
	// 500 a run of more than 1000 does not list.
	AttemptsOmitted int `json:"attempts_omitted,omitempty"`
	// Elapsed is the loop's total time.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// OK reports whether the step succeeded (an allowed absence included).
func (r *Step) OK() bool { return r.Result == Success }

// AttemptCount returns how many attempts ran, listed or not.
func (r *Step) AttemptCount() int { return len(r.Attempts) + r.AttemptsOmitted }

// New builds the record of a step's loop outcome; the caller sets ID when it
// differs from the kind.
func New(kind, target string, out *retry.Outcome, exitCode int) *Step {
	r := &Step{
		ID: kind, Kind: kind, Target: target, Result: Failure, Stop: out.Stop, Detail: out.Detail,
		ExitCode: exitCode, Attempts: out.Attempts, AttemptsOmitted: out.Omitted, Policy: out.Policy, Elapsed: out.Elapsed,
	}
	switch {
	case out.OK():
		r.Result = Success
	case out.Stop == retry.StopCancelled:
		r.Result = Cancelled
	}
	if f := out.Final; f != nil && !out.OK() {
		r.Class, r.Code, r.Decision = f.Class, f.Code, string(f.Class.Decision())
		r.Reason, r.Remedy, r.Persistent = f.Reason, f.Remedy, f.Persistent
		// Evidence quotes output: escaped, it cannot drive the reader's terminal.
		for _, e := range f.Evidence {
			r.Evidence = append(r.Evidence, failure.Printable(e))
		}
		if out.Stop == retry.StopAttemptsExhausted && len(out.Attempts) <= 1 {
			r.Remedy = notRetried(f.Remedy)
		}
		if out.Stop == retry.StopRetryAfterOverCap && f.Remedy == failure.RemedyRateLimit {
			r.Remedy = failure.RemedyRateLimitOverCap
		}
		if exitCode == 0 {
			r.Result = Success
		}
		if f.Class == failure.Transient && (out.Stop == retry.StopAttemptsExhausted || out.Stop == retry.StopElapsedExhausted) {
			r.Notes = append(r.Notes, "the failure is transient: running the step again later may succeed")
		}
	}
	return r
}

// Headline is the one-line summary printed last on a non-zero exit.
func (r *Step) Headline() string {
	if r.OK() && r.Class == failure.None {
		return fmt.Sprintf("%s succeeded after %s", r.Kind, Count(r.AttemptCount(), "attempt"))
	}
	if r.Stop == retry.StopCancelled {
		return fmt.Sprintf("%s %s after %s", r.Kind, r.Detail, Count(r.AttemptCount(), "attempt"))
	}
	msg := r.Class.String()
	if r.Reason != "" {
		msg += ": " + r.Reason
	}
	if r.Detail != "" {
		msg += "; " + r.Detail
	}
	return msg
}

// WriteText renders the report for a terminal, one screen at most.
func (r *Step) WriteText(w io.Writer) error {
	var b strings.Builder
	status := "failed"
	switch {
	case r.OK() && r.Class == failure.None:
		status = "succeeded"
	case r.OK():
		status = "found nothing (" + r.Class.String() + ", allowed)"
	case r.Stop == retry.StopCancelled:
		status = "was cancelled"
	}
	fmt.Fprintf(&b, "retrywise %s %s after %s in %s (exit %d)\n", r.Kind, status, Count(r.AttemptCount(), "attempt"), r.Elapsed.Round(time.Millisecond), r.ExitCode)
	r.writeFields(&b, "  ")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFields writes the step's fields, one "name: value" line each with
// every line starting with indent: what Step.WriteText shows under its
// header and Run.WriteText under each failed step of a job.
func (r *Step) writeFields(b *strings.Builder, indent string) {
	field := func(name, value string) {
		if value != "" {
			fmt.Fprintf(b, "%s%-9s %s\n", indent, name+":", value)
		}
	}
	field("target", r.Target)
	for _, ref := range r.Refs {
		field("ref", refLine(ref))
	}
	if r.Class != failure.None {
		field("class", fmt.Sprintf("%s (%s)", r.Class, describe(r)))
		field("code", string(r.Code))
	}
	field("reason", r.Reason)
	field("stopped", r.Detail)
	for i, e := range r.Evidence {
		e = strings.TrimSpace(e)
		name := ""
		if i == 0 {
			name = "evidence"
		}
		if name == "" {
			fmt.Fprintf(b, "%s%-9s %s\n", indent, "", e)
		} else {
			field(name, e)
		}
	}
	field("remedy", r.Remedy)
	for _, n := range r.Notes {
		field("note", n)
	}
	if len(r.Attempts) > 1 || !r.OK() {
		head, tail, hidden := listAttempts(r.Attempts, r.AttemptsOmitted)
		for i, a := range slices.Concat(head, tail) {
			if i == len(head) && hidden > 0 {
				field("attempt", "... "+moreAttempts(hidden))
			}
			line := fmt.Sprintf("%d at %s, %s", a.N, a.Start.Format("15:04:05"), a.Duration.Round(time.Millisecond))
			switch {
			case a.Command == "" || a.N == 1:
			case a.Command == r.Attempts[0].Command:
				// the target line shows the command; a multi-line script is not repeated
				line += ", ran it again (" + a.Why + ")"
			default:
				line += ", ran " + oneLine(a.Command) + " (" + a.Why + ")"
			}
			if a.OK {
				line += ", ok"
			} else {
				line += fmt.Sprintf(", %s: %s", a.Class, a.Reason)
			}
			if a.Wait > 0 {
				line += "; waited " + Wait(a.Wait)
			}
			if a.Recheck != "" {
				line += " to check once more (" + a.Recheck + ")"
			}
			field("attempt", line)
		}
	}
	field("policy", r.Policy.String())
}

// describe says, in a few words, what the stop means for the step's class:
// whether anything was retried and why the loop ended.
func describe(r *Step) string {
	once := len(r.Attempts) <= 1
	unknown := r.Class == failure.Unknown
	// An unknown failure is retried only under on-unknown retry; the words
	// say so, and that it was not recognised (or recognised as undecided).
	prefix := ""
	if unknown {
		prefix = "not recognised; "
		if r.Code != "" && r.Code != failure.CodeUnknown && r.Code != failure.CodeNoOutput {
			prefix = "not known to pass on a retry; "
		}
	}
	var s string
	switch r.Stop {
	case retry.StopNotRetryable:
		switch {
		case unknown:
			return strings.TrimSuffix(prefix, "; ") + ", so not retried"
		case r.Decision == string(failure.Stop):
			return "stopped at once: sending the same request again would get the same answer"
		}
		return "stopped"
	case retry.StopAttemptsExhausted:
		s = "retried; every attempt failed"
		if unknown {
			s = "retried, as on-unknown retry asks; every attempt failed"
		}
		if once {
			s = "not retried: max attempts is 1"
		}
	case retry.StopElapsedExhausted:
		s = "retried until the time budget ran out"
		if once {
			s = "not retried: the time budget ran out"
		}
	case retry.StopRetryAfterOverCap:
		s = "the server's requested wait is over the cap"
	case retry.StopCannotRetry:
		s = "retryable, but not safe to resend in this context"
	case retry.StopCleanupFailed:
		s = "retryable, but the clean-up before the retry failed"
	case retry.StopCancelled:
		return "cancelled"
	default:
		return string(r.Stop)
	}
	return prefix + s
}

// retryingClause is a remedy's "retrying" clause, with the punctuation that
// joins it to the rest: what the loop was about to do. It is compiled on
// first use, so that starting retrywise does not pay for it.
var retryingClause = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[:;,] )(?:then )?retrying(?: with backoff)?(?:, as a --retry-on rule asks)?([;,]| \(|$)`)
})

// notRetried rewrites the remedy of a retryable failure that max attempts 1
// kept from being retried: its "retrying" clause is untrue, and raising
// max-attempts is the first thing to do.
func notRetried(remedy string) string {
	rest := strings.Trim(retryingClause().ReplaceAllString(remedy, "$2"), " ;,")
	const first = "raise max-attempts to retry it"
	if rest == "" {
		return first
	}
	return first + "; " + rest
}

// listEnds is how many attempts the text and Markdown reports list at each
// end of a run of more than 2*listEnds+1 attempts; one line counts those between.
const listEnds = 5

// listAttempts selects the attempts a report for people lists: all of a run
// of up to 2*listEnds+1, else the first and the last listEnds; hidden counts
// the attempts between them, recorded (as) or omitted from the record.
func listAttempts(as []retry.Attempt, omitted int) (head, tail []retry.Attempt, hidden int) {
	if omitted == 0 && len(as) <= 2*listEnds+1 {
		return as, nil, 0
	}
	n := min(listEnds, len(as)/2)
	return as[:n], as[len(as)-n:], len(as) - 2*n + omitted
}

// moreAttempts counts the attempts a report for people does not list.
func moreAttempts(n int) string {
	word := "attempts"
	if n == 1 {
		word = "attempt"
	}
	return fmt.Sprintf("%d more %s (the JSON report lists up to %d)", n, word, retry.KeepAttempts)
}

// Progress returns the progress line of a failed attempt that will be
// retried, and false when the line is folded into a later one, so that a
// long run's stderr stays short: each of the first 10 attempts has its own
// line (ProgressLine), then one line stands for 10 attempts up to attempt
// 100, for 100 up to 1000, and for 1000 after that; the attempt before the
// last always has one, closing its group. A re-check always has its own.
func Progress(a retry.Attempt, maxAttempts int) (string, bool) {
	if a.N <= 10 || a.Recheck != "" {
		return ProgressLine(a, maxAttempts), true
	}
	stride := 10
	switch {
	case a.N > 1000:
		stride = 1000
	case a.N > 100:
		stride = 100
	}
	if a.N%stride != 0 && a.N != maxAttempts-1 {
		return "", false
	}
	from := (a.N-1)/stride*stride + 1
	return fmt.Sprintf("attempts %d-%d/%d failed (last: %s: %s); retrying in %s", from, a.N, maxAttempts, a.Class, a.Reason, Wait(a.Wait)), true
}

// ProgressLine renders one failed attempt that will be retried, e.g.
// "attempt 2/4 failed (transient: curl 28, operation timed out); retrying in 20s".
func ProgressLine(a retry.Attempt, maxAttempts int) string {
	if a.Recheck != "" {
		return fmt.Sprintf("attempt %d/%d failed (%s: %s); %s: checking once more in %s", a.N, maxAttempts, a.Class, a.Reason, a.Recheck, Wait(a.Wait))
	}
	return fmt.Sprintf("attempt %d/%d failed (%s: %s); retrying in %s", a.N, maxAttempts, a.Class, a.Reason, Wait(a.Wait))
}

// Wait renders a wait for a person: rounded to 3 significant digits
// (1.17s, 20s, 1m13.5s, 123ms), so a jittered wait reads as one. The JSON
// report keeps the exact wait_ns.
func Wait(d time.Duration) string {
	unit := time.Duration(1)
	for x := d; x >= 1000; x /= 10 {
		unit *= 10
	}
	return d.Round(unit).String()
}

// Count renders n with word, singular when n is 1: "1 host", "2 hosts".
func Count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// CommandLine renders argv on one line for the report: arguments holding
// spaces, quotes, shell characters or newlines are Go-quoted, so a multi-line
// `sh -c` script stays one readable, unambiguous line.
func CommandLine(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\r\n'\"\\$`;&|<>(){}*?!#~") {
			parts[i] = strconv.Quote(a)
		} else {
			parts[i] = a
		}
	}
	return strings.Join(parts, " ")
}

// WithoutRetrying removes a remedy's "retrying" clause, for a failure
// explained after the fact (retrywise explain), which nothing retries.
func WithoutRetrying(remedy string) string {
	return strings.Trim(retryingClause().ReplaceAllString(remedy, "$2"), " ;,")
}
