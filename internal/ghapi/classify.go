package ghapi

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/retrywise/retrywise/internal/failure"
)

const remedyRateLimit = "rate limited: waiting for the reset GitHub announced; authenticate (GITHUB_TOKEN) or slow down if it recurs"

// Classify turns an error of go-github into a classified failure; now is the
// time the reset is measured from. A *github.RateLimitError (a real 403 with
// X-RateLimit-Remaining: 0, or go-github's own refusal before the reset) and
// a *github.AbuseRateLimitError are transient with the reset as RetryAfter;
// a *github.ErrorResponse (a 429 among them) is classified by its status,
// headers and body; anything else as a Go error.
func Classify(err error, now time.Time) *failure.Failure {
	var (
		rle   *github.RateLimitError
		abuse *github.AbuseRateLimitError
		er    *github.ErrorResponse
	)
	switch {
	case errors.As(err, &rle):
		reset := rle.Rate.Reset.Time
		var ev []string
		if refused(rle.Response) {
			ev = []string{"go-github refused the call without sending it: " + rle.Message}
		} else {
			ev = append(statusEvidence(rle.Response), "X-RateLimit-Remaining: 0", rle.Message)
		}
		f := failure.New(failure.Transient, fmt.Sprintf("GitHub API rate limit of %d exhausted until %s", rle.Rate.Limit, reset.UTC().Format(time.RFC3339)), remedyRateLimit, nonEmpty(ev)...)
		f.RetryAfter = until(reset, now)
		f.Err = err
		return f
	case errors.As(err, &abuse):
		f := failure.New(failure.Transient, "GitHub secondary rate limit exceeded", remedyRateLimit, nonEmpty(append(statusEvidence(abuse.Response), abuse.Message))...)
		if refused(abuse.Response) {
			f.Evidence = []string{"go-github refused the call without sending it: " + abuse.Message}
		}
		if abuse.Response != nil {
			f.RetryAfter, _ = failure.RetryAfter(abuse.Response.Header, now)
		}
		if f.RetryAfter == 0 && abuse.RetryAfter != nil && *abuse.RetryAfter > 0 {
			f.RetryAfter = *abuse.RetryAfter
		}
		f.Err = err
		return f
	case errors.As(err, &er) && er.Response != nil:
		r := er.Response
		method := ""
		if r.Request != nil {
			method = r.Request.Method
		}
		var body []byte
		if r.Body != nil {
			// CheckResponse put the body back as an in-memory reader.
			body, _ = io.ReadAll(io.LimitReader(r.Body, 64<<10))
		}
		if len(body) == 0 {
			body = []byte(er.Message)
		}
		f := failure.FromHTTP(failure.Response{Method: method, Status: r.StatusCode, Header: r.Header, Body: body, Now: now})
		f.Err = err
		return f
	}
	return failure.FromError(err)
}

// refused reports whether r is the stand-in response go-github makes when it
// refuses a call by itself: it carries none of the server's headers.
func refused(r *http.Response) bool {
	return r == nil || len(r.Header) == 0
}

func statusEvidence(r *http.Response) []string {
	if r == nil {
		return nil
	}
	if t := http.StatusText(r.StatusCode); t != "" {
		return []string{fmt.Sprintf("HTTP %d %s", r.StatusCode, t)}
	}
	return []string{fmt.Sprintf("HTTP %d", r.StatusCode)}
}

func nonEmpty(ss []string) []string {
	out := ss[:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func until(t, now time.Time) time.Duration {
	if d := t.Sub(now); d > 0 {
		return d
	}
	return 0
}
