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

// Classify turns an error of go-github into a classified failure; now is the
// time the reset is measured from. It reads go-github's types; the rules are
// failure's (GitHubRateLimit, GitHubSecondaryRateLimit, FromHTTP, FromError). A *github.RateLimitError (a real 403 with
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
		var ev []string
		if refused(rle.Response) {
			ev = []string{"go-github refused the call without sending it: " + rle.Message}
		} else {
			ev = append(statusEvidence(rle.Response), "X-RateLimit-Remaining: 0", rle.Message)
		}
		f := failure.GitHubRateLimit(rle.Rate.Limit, rle.Rate.Reset.Time, now, nonEmpty(ev)...)
		f.Err = err
		return f
	case errors.As(err, &abuse):
		ev := nonEmpty(append(statusEvidence(abuse.Response), abuse.Message))
		if refused(abuse.Response) {
			ev = []string{"go-github refused the call without sending it: " + abuse.Message}
		}
		var wait time.Duration
		if abuse.Response != nil {
			wait, _ = failure.RetryAfter(abuse.Response.Header, now)
		}
		if wait == 0 && abuse.RetryAfter != nil && *abuse.RetryAfter > 0 {
			wait = *abuse.RetryAfter
		}
		f := failure.GitHubSecondaryRateLimit(wait, ev...)
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
