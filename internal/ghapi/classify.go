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

// Classify turns an error of go-github into a classified failure; now (the
// injected clock's) is the time every wait is measured from. It reads
// go-github's types; the rules are failure's (GitHubRateLimit,
// GitHubSecondaryRateLimit, FromHTTP, FromError). A *github.RateLimitError (a
// 403 with X-RateLimit-Remaining: 0) and a *github.AbuseRateLimitError are
// transient with the reset as RetryAfter; a *github.ErrorResponse (a 429
// among them) is classified by its status, headers and body; anything else
// as a Go error. go-github's own refusal to call before a reset never
// applies: GET /rate_limit, the only call retrywise makes, is exempt from it.
func Classify(err error, now time.Time) *failure.Failure {
	return ClassifyFor(err, now, 0)
}

// ClassifyFor is Classify for a step whose whole max elapsed is maxElapsed
// (0 means failure.DefaultMaxElapsed): a rate limit whose reset, measured
// from the answer's Date, is further away than that is policy
// (failure.JudgeWait, code rate-limit-window), not a wait.
func ClassifyFor(err error, now time.Time, maxElapsed time.Duration) *failure.Failure {
	var (
		rle   *github.RateLimitError
		abuse *github.AbuseRateLimitError
		er    *github.ErrorResponse
	)
	switch {
	case errors.As(err, &rle):
		ev := append(statusEvidence(rle.Response), "X-RateLimit-Remaining: 0", rle.Message)
		f := failure.GitHubRateLimit(rle.Rate.Limit, rle.Rate.Reset.Time, served(rle.Response, now), nonEmpty(ev)...)
		f.Err = err
		return judge(f, rle.Response, now, maxElapsed)
	case errors.As(err, &abuse):
		ev := nonEmpty(append(statusEvidence(abuse.Response), abuse.Message))
		f := failure.GitHubSecondaryRateLimit(secondaryWait(abuse, now), ev...)
		f.Err = err
		return judge(f, abuse.Response, now, maxElapsed)
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
		f := failure.FromHTTP(failure.Response{Method: method, Status: r.StatusCode, Header: r.Header, Body: body, Now: now, MaxElapsed: maxElapsed})
		f.Err = err
		return f
	}
	return failure.FromError(err)
}

// served returns the answer's Date (the server's clock, which a reset is
// measured against), else now.
func served(r *http.Response, now time.Time) time.Time {
	if r != nil {
		if d, err := http.ParseTime(r.Header.Get("Date")); err == nil {
			return d
		}
	}
	return now
}

// judge decides a rate limit by its wait against the step's max elapsed
// (failure.JudgeWait), with the wait the answer's headers give.
func judge(f *failure.Failure, r *http.Response, now time.Time, maxElapsed time.Duration) *failure.Failure {
	var h http.Header
	if r != nil {
		h = r.Header
	}
	hw, ok := failure.ReadWait(h, now)
	return failure.JudgeWait(f, hw, ok, maxElapsed, now)
}

// secondaryWait is the wait a secondary rate limit asks for, measured from
// now: Retry-After, else X-RateLimit-Reset (which go-github turns into a
// wait on the wall clock, so it is read again here), else go-github's value.
func secondaryWait(e *github.AbuseRateLimitError, now time.Time) time.Duration {
	if e.Response != nil {
		h := e.Response.Header
		if d, ok := failure.RetryAfter(h, now); ok {
			return d
		}
		if d, ok := failure.ResetWait(h.Get("X-RateLimit-Reset"), now); ok {
			return d
		}
	}
	if e.RetryAfter != nil && *e.RetryAfter > 0 {
		return *e.RetryAfter
	}
	return 0
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
