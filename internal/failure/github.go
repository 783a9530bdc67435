package failure

import (
	"fmt"
	"time"
)

// The GitHub API's rate limits, as internal/ghapi reads them from go-github's
// error types: every one of them passes once its reset comes.

// RemedyGitHubRate is the remedy of a GitHub rate limit.
const RemedyGitHubRate = "rate limited: waiting for the reset GitHub announced; authenticate (GITHUB_TOKEN) or slow down if it recurs"

// GitHubRateLimit is the primary rate limit of limit calls exhausted until
// reset: transient, with the time to the reset (from now) as RetryAfter.
func GitHubRateLimit(limit int, reset, now time.Time, evidence ...string) *Failure {
	f := New(Transient, CodeGitHubRateLimit, fmt.Sprintf("GitHub API rate limit of %d exhausted until %s", limit, reset.UTC().Format(time.RFC3339)), RemedyGitHubRate, evidence...)
	f.RetryAfter = until(reset, now)
	return f
}

// GitHubSecondaryRateLimit is GitHub's secondary (abuse) rate limit:
// transient, waiting retryAfter when GitHub said how long.
func GitHubSecondaryRateLimit(retryAfter time.Duration, evidence ...string) *Failure {
	f := New(Transient, CodeGitHubSecondary, "GitHub secondary rate limit exceeded", RemedyGitHubRate, evidence...)
	f.RetryAfter = max(retryAfter, 0)
	return f
}

// GitHubQuotaLow is a quota read that came back under the minimum the step
// asks for: transient, since the quota refills at reset; RetryAfter is the
// time from now to the reset (0 when it has passed).
func GitHubQuotaLow(resource string, remaining, limit, minRemaining int, reset, now time.Time) *Failure {
	at := reset.UTC().Format(time.RFC3339)
	f := New(Transient, CodeGitHubQuotaLow,
		fmt.Sprintf("GitHub %s quota %d of %d is under --min-remaining %d until its reset at %s", resource, remaining, limit, minRemaining, at),
		"wait for the reset (raise --max-wait, and --retry-after-cap for a reset further away, to let retrywise wait), or use a token with its own quota",
		fmt.Sprintf("%s: remaining %d, limit %d, reset %s", resource, remaining, limit, at))
	f.RetryAfter = until(reset, now)
	return f
}

// GitHubNoBucket is a rate-limit answer without the bucket the step checks:
// unknown, since the server answered but not what was asked.
func GitHubNoBucket(resource string) *Failure {
	return New(Unknown, CodeGitHubNoBucket, fmt.Sprintf("GitHub reported no %s bucket", resource),
		"check --resource against the server's GET /rate_limit answer")
}
