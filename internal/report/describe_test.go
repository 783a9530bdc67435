package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/retry"
)

// TestDescribeEveryStop: the words next to the class say what happened for
// every stop and class: "same answer" only for a decided stop, an unknown
// failure says it was not recognised (and whether it was retried), and a
// loop of one attempt never claims it retried; the text, Markdown and
// headline agree.
func TestDescribeEveryStop(t *testing.T) {
	const sameAnswer = "stopped at once: sending the same request again would get the same answer"
	tests := []struct {
		name     string
		class    failure.Class
		code     failure.Code
		stop     retry.Stop
		attempts int
		want     string
	}{
		{"structural", failure.Structural, failure.CodeGitNonFastForward, retry.StopNotRetryable, 1, sameAnswer},
		{"policy", failure.Policy, failure.CodeProxyDenied, retry.StopNotRetryable, 1, sameAnswer},
		{"absent", failure.Absent, failure.HTTPCode(404), retry.StopNotRetryable, 1, sameAnswer},
		{"unknown", failure.Unknown, failure.CodeUnknown, retry.StopNotRetryable, 1, "not recognised, so not retried"},
		{"no output", failure.Unknown, failure.CodeNoOutput, retry.StopNotRetryable, 1, "not recognised, so not retried"},
		{"unknown, recognised", failure.Unknown, failure.CodeRuleStopOn, retry.StopNotRetryable, 1, "not known to pass on a retry, so not retried"},
		{"transient exhausted", failure.Transient, failure.CodeTimeout, retry.StopAttemptsExhausted, 4, "retried; every attempt failed"},
		{"transient, one attempt", failure.Transient, failure.CodeRefused, retry.StopAttemptsExhausted, 1, "not retried: max attempts is 1"},
		{"unknown retried, exhausted", failure.Unknown, failure.CodeUnknown, retry.StopAttemptsExhausted, 3, "not recognised; retried, as on-unknown retry asks; every attempt failed"},
		{"unknown retried, one attempt", failure.Unknown, failure.CodeUnknown, retry.StopAttemptsExhausted, 1, "not recognised; not retried: max attempts is 1"},
		{"elapsed", failure.Transient, failure.CodeTimeout, retry.StopElapsedExhausted, 3, "retried until the time budget ran out"},
		{"elapsed, first attempt", failure.Transient, failure.CodeTimeout, retry.StopElapsedExhausted, 1, "not retried: the time budget ran out"},
		{"retry-after over cap", failure.Transient, failure.HTTPCode(429), retry.StopRetryAfterOverCap, 1, "the server's requested wait is over the cap"},
		{"cannot retry", failure.Transient, failure.HTTPCode(503), retry.StopCannotRetry, 1, "retryable, but not safe to resend in this context"},
		{"unknown, cannot retry", failure.Unknown, failure.CodeUnknown, retry.StopCannotRetry, 1, "not recognised; retryable, but not safe to resend in this context"},
		{"clean-up failed", failure.Transient, failure.CodeTimeout, retry.StopCleanupFailed, 2, "retryable, but the clean-up before the retry failed"},
		{"cancelled", failure.Transient, failure.CodeTimeout, retry.StopCancelled, 2, "cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := failure.New(tt.class, tt.code, "the reason", "the remedy")
			out := &retry.Outcome{Policy: policy(), Stop: tt.stop, Final: f}
			for n := 1; n <= tt.attempts; n++ {
				out.Attempts = append(out.Attempts, retry.Attempt{N: n, Start: start, Class: tt.class, Reason: f.Reason})
			}
			r := New("exec", "true", out, exitcode.For(out, false))
			if got := describe(r); got != tt.want {
				t.Errorf("describe = %q, want %q", got, tt.want)
			}
			var text, md bytes.Buffer
			r.WriteText(&text)
			Single(r, start, start.Add(time.Second)).WriteMarkdown(&md)
			if line := "class:    " + tt.class.String() + " (" + tt.want + ")"; !strings.Contains(text.String(), line) {
				t.Errorf("text has no %q:\n%s", line, text.String())
			}
			if !strings.Contains(md.String(), "- **stopped:** "+mdText(tt.want)) {
				t.Errorf("Markdown does not say %q:\n%s", tt.want, md.String())
			}
			if tt.want != sameAnswer && strings.Contains(text.String()+md.String(), "same answer") {
				t.Errorf("claims the same answer:\n%s", text.String())
			}
		})
	}
}

// TestOneAttemptRemedy: with max attempts 1 a retryable failure was not
// retried, so its remedy drops "retrying" and says to raise max-attempts.
func TestOneAttemptRemedy(t *testing.T) {
	const first = "raise max-attempts to retry it"
	tests := []struct{ remedy, want string }{
		{"nothing accepted the connection (a restart, a deploy, a blip): retrying; if it persists, check the host",
			first + "; nothing accepted the connection (a restart, a deploy, a blip); if it persists, check the host"},
		{"the network or the server was too slow: retrying (raise --max-time if it keeps happening)",
			first + "; the network or the server was too slow (raise --max-time if it keeps happening)"},
		{"the server failed: wait for the outage to end; retrying", first + "; the server failed: wait for the outage to end"},
		{"the provider's servers are down or overloaded: retrying with backoff; switch model or provider if it persists",
			first + "; the provider's servers are down or overloaded; switch model or provider if it persists"},
		{"a per-minute rate limit: waiting as the API asked (retryDelay), then retrying; lower the request rate",
			first + "; a per-minute rate limit: waiting as the API asked (retryDelay); lower the request rate"},
		{"retrying, as a --retry-on rule asks", first},
		{"", first},
		{"read the output; retrying will not help", first + "; read the output; retrying will not help"},
	}
	for _, tt := range tests {
		f := failure.New(failure.Transient, failure.CodeRefused, "connection refused", tt.remedy)
		p, _ := retry.Policy{MaxAttempts: 1, MaxElapsed: time.Minute, RetryAfterCap: time.Minute}.Normalize()
		out := &retry.Outcome{Policy: p, Stop: retry.StopAttemptsExhausted, Final: f, Detail: "the only attempt allowed (max attempts 1) failed",
			Attempts: []retry.Attempt{{N: 1, Start: start, Class: failure.Transient, Reason: f.Reason}}}
		if got := New("http", "GET /", out, exitcode.For(out, false)).Remedy; got != tt.want {
			t.Errorf("remedy %q\n got %q\nwant %q", tt.remedy, got, tt.want)
		}
	}
	// Two attempts did retry: the remedy stays as the recogniser wrote it.
	f := failure.New(failure.Transient, failure.CodeRefused, "connection refused", tests[0].remedy)
	out := &retry.Outcome{Policy: policy(), Stop: retry.StopAttemptsExhausted, Final: f,
		Attempts: []retry.Attempt{{N: 1, Start: start}, {N: 2, Start: start}}}
	if got := New("http", "GET /", out, exitcode.For(out, false)).Remedy; got != tests[0].remedy {
		t.Errorf("after a retry the remedy = %q", got)
	}
}

// TestAttemptLinesNameTheCommand: a retry of the same command does not repeat
// it (the target shows it, a script may span lines); a continuation is named
// on one line.
func TestAttemptLinesNameTheCommand(t *testing.T) {
	const script = "sh -c '\n  n=1\n  exit 28'"
	tests := []struct {
		name, second, why, want string
	}{
		{"same command", script, "the same command: no --continue-with", "2 at 10:00:00, 0s, ran it again (the same command: no --continue-with), transient: timed out\n"},
		{"continuation", "sh -c 'agent resume\n--last'", "--continue-with: a retry continues instead of starting over",
			"2 at 10:00:00, 0s, ran sh -c 'agent resume --last' (--continue-with: a retry continues instead of starting over), transient: timed out\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := failure.New(failure.Transient, failure.CodeTimeout, "timed out", "")
			out := &retry.Outcome{Policy: policy(), Stop: retry.StopAttemptsExhausted, Final: f, Attempts: []retry.Attempt{
				{N: 1, Start: start, Command: script, Why: "the command", Class: failure.Transient, Reason: "timed out"},
				{N: 2, Start: start, Command: tt.second, Why: tt.why, Class: failure.Transient, Reason: "timed out"},
			}}
			var b bytes.Buffer
			New("exec", "sh -c ...", out, exitcode.For(out, false)).WriteText(&b)
			if !strings.Contains(b.String(), "  attempt:  "+tt.want) || strings.Count(b.String(), "\n  n=1") > 0 {
				t.Errorf("want the line %q:\n%s", tt.want, b.String())
			}
		})
	}
}
