package failure

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The rules of an HTTP step (internal/httpstep) beyond the answer itself:
// how a transport error is read, a status the caller did not expect, the
// values a step extracts, and the per-host circuit breaker.

// Request describes how an HTTP request failed before a full answer arrived.
type Request struct {
	// Timeout is the step's own bound on each request; 0 means none.
	Timeout time.Duration
	// TimedOut is true when that bound ended the request.
	TimedOut bool
	// TooManyRedirects is true when the client gave up following redirects.
	TooManyRedirects bool
	// MaxRedirects is the client's redirect limit, for the reason.
	MaxRedirects int
	// RedirectScheme is the scheme of a redirect the client refused to
	// follow because it is not http or https (file://); "" when none.
	RedirectScheme string
}

// FromRequest classifies an error of an HTTP client's request (or of
// reading the body): too many redirects is structural, the step's own
// timeout transient, anything else a Go error (FromError). The trace says
// whether the request can have reached the server.
func FromRequest(err error, r Request) *Failure {
	tr := errorTrace(err)
	switch {
	case r.TooManyRedirects:
		f := New(Structural, CodeTooManyRedirects, fmt.Sprintf("more than %d redirects", r.MaxRedirects),
			"the URL redirects in a loop or too far: request the final location, or use --no-follow to see the first answer", EvidenceLine(err.Error()))
		f.Err, f.Trace = err, Trace{URL: tr.URL}
		return f
	case r.RedirectScheme != "":
		f := New(Structural, CodeRedirectScheme, fmt.Sprintf("redirected to a %s: URL, which is not followed", r.RedirectScheme),
			"the server redirects to a scheme other than http or https: request a URL that answers itself, or use --no-follow to see the redirect", EvidenceLine(err.Error()))
		f.Err, f.Trace = err, Trace{URL: tr.URL}
		return f
	case r.TimedOut:
		f := New(Transient, CodeRequestTimeout, fmt.Sprintf("no complete answer within --timeout %s", r.Timeout),
			"the server or the network was too slow: retrying (raise --timeout if it keeps happening)", EvidenceLine(err.Error()))
		f.Err, f.Trace = err, Trace{Network: true, URL: tr.URL}
		return f
	}
	return FromError(err)
}

// RedirectSchemeError ends a redirect to a scheme other than http or https
// (file://, ftp://, data:, gopher://): every client of retrywise that
// follows redirects (an http step's, the GitHub API's, explain's log
// download) returns it instead of following, and FromError reads it as
// http-redirect-unsupported-scheme.
type RedirectSchemeError struct {
	// Scheme is the redirect's scheme, as written.
	Scheme string
}

func (e *RedirectSchemeError) Error() string {
	return "redirected to an unsupported scheme " + strconv.Quote(e.Scheme) + ": only http and https are followed"
}

// redirectScheme is the failure of a redirect to a scheme other than http
// or https, outside an http step (whose own remedy names --no-follow).
func redirectScheme(err error, scheme string) *Failure {
	f := New(Structural, CodeRedirectScheme, fmt.Sprintf("redirected to a %s: URL, which is not followed", Clip(strings.ToLower(scheme))),
		"the server redirects to a scheme other than http or https, which retrywise never follows: fix the server's redirect, or request a URL that answers itself", EvidenceLine(err.Error()))
	f.Err, f.Trace = err, Trace{URL: errorTrace(err).URL}
	return f
}

// InvalidRequest is the failure of a request that cannot be built.
func InvalidRequest(err error) *Failure {
	f := New(Structural, CodeInvalidRequest, "invalid request: "+err.Error(), "fix the URL or method")
	f.Err = err
	return f
}

// UnexpectedStatus is the failure of an answer below 400 whose status the
// step was not told to expect (expected names the expected set): unknown,
// because nothing failed at the HTTP level; a redirect names its Location.
func UnexpectedStatus(status int, expected string, h http.Header, body []byte) *Failure {
	st := strconv.Itoa(status)
	if t := http.StatusText(status); t != "" {
		st += " " + t
	}
	remedy := "if this status is a valid answer, list it in --expect"
	ev := []string{"HTTP " + st}
	if loc := headerGet(h, "Location"); loc != "" && status >= 300 {
		ev = append(ev, EvidenceLineAt("Location: "+loc, 0))
		remedy = "follow the redirect (drop --no-follow), request the new location, or list the status in --expect"
	}
	if len(body) > 0 {
		ev = append(ev, EvidenceLine(string(body)))
	}
	f := New(Unknown, CodeUnexpectedStatus, fmt.Sprintf("HTTP %s is not an expected status (%s)", st, expected), remedy, ev...)
	f.Trace.Status = status
	return f
}

// FieldsMissing is the answer when --field expressions (NAME=EXPR) yield
// null or nothing: absent, a valid "not there".
func FieldsMissing(fields []string) *Failure {
	return New(Absent, CodeFieldMissing, "not in the response: "+strings.Join(fields, ", "), "not there: treat it as not found (--absent-ok), or fix the expression")
}

// FieldExprFailed is the failure of a --field expression (NAME=EXPR) that
// jq stopped with an error, such as .items.id on an array: structural, the
// expression does not fit the answer's shape.
func FieldExprFailed(field string, err error) *Failure {
	f := New(Structural, CodeFieldExprFailed, "--field "+field+" failed: jq: "+err.Error(),
		"fix the expression for the answer's shape (.items[].id iterates an array; a trailing ? or // default covers a value that may be missing)")
	f.Err = err
	return f
}

// FieldSeveralResults is the failure of a --field expression (NAME=EXPR)
// that yields more than one value: structural, a field holds one value.
func FieldSeveralResults(field string) *Failure {
	return New(Structural, CodeFieldSeveral, "--field "+field+" yields more than one result",
		"collect the results with [...], e.g. [.items[].id], or pick one with first(...)")
}

// FieldNotJSON is the failure of --field on an answer that is not JSON:
// structural, the request must ask for JSON.
func FieldNotJSON(err error, body []byte) *Failure {
	return New(Structural, CodeFieldNotJSON, "the response is not JSON, so --field cannot read it: "+err.Error(),
		"request a JSON answer (an Accept: application/json header) or drop --field", EvidenceLine(string(body)))
}

// FieldBodyTooLarge is the failure of --field on a body over limit bytes.
func FieldBodyTooLarge(limit int) *Failure {
	return New(Structural, CodeFieldTooLarge, fmt.Sprintf("the response body is over %d MiB, too large for --field", limit>>20), "request a smaller document (filter or paginate)")
}

// BodyTooLarge is the failure of an expected answer whose body is over
// --max-body (limit bytes): structural, the request must ask for less; the
// body is not delivered. declared is the Content-Length when it alone
// showed the body too large, else -1.
func BodyTooLarge(limit, declared int64) *Failure {
	ev := fmt.Sprintf("more than %d bytes of body read", limit)
	if declared >= 0 {
		ev = fmt.Sprintf("Content-Length: %d", declared)
	}
	return New(Structural, CodeBodyTooLarge, fmt.Sprintf("the response body is over the --max-body of %s", byteSize(limit)),
		"raise --max-body if the body is meant to be that large, or request a smaller document (filter, paginate)", ev)
}

// APIResponseTooLarge is the failure of an API answer whose body is over
// limit bytes (a page of a list, an error's message): structural, since the
// same request gets the same document; nothing past the limit is read.
func APIResponseTooLarge(url string, limit int64) *Failure {
	f := New(Structural, CodeBodyTooLarge, fmt.Sprintf("the API's answer is over %s, more than any answer it documents", byteSize(limit)),
		"check the API URL (GITHUB_API_URL): the server that answered does not answer as GitHub's API does", fmt.Sprintf("more than %d bytes of body read", limit))
	f.Trace.URL = url
	return f
}

// OutputWrite is the failure to write what a step produced (its body, an
// --output file): unknown, since it is local and says nothing of the server.
func OutputWrite(what string, err error, remedy string) *Failure {
	f := New(Unknown, CodeOutputWrite, "cannot write "+what+": "+err.Error(), remedy)
	f.Err = err
	return f
}

// TimesInARow says how many times in a row something failed: "once", or
// "3 times in a row".
func TimesInARow(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times in a row", n)
}

// BreakerOpen is the failure of a request a host's open circuit breaker
// short-circuited: transient (the host may recover), with the last counted
// failure as evidence; left is the cooldown still to run (0 when a trial
// request is in flight).
func BreakerOpen(err error, failures int, last string, left time.Duration, trialInFlight bool) *Failure {
	remedy := "the host failed " + TimesInARow(failures) + " in this run; retrywise sends it nothing until the cooldown ends"
	if trialInFlight {
		remedy += " (a trial request is in flight)"
	} else if left > 0 {
		remedy += fmt.Sprintf(" in %s", left.Round(time.Second))
	}
	remedy += "; wait for the outage to end"
	var ev []string
	if last != "" {
		ev = append(ev, EvidenceLineAt("last failure: "+last, 0))
	}
	f := New(Transient, CodeBreakerOpen, err.Error(), remedy, ev...)
	f.Err, f.Trace.NotSent = err, true
	return f
}
