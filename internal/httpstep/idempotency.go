package httpstep

import (
	"fmt"
	"net/http"

	"github.com/retrywise/retrywise/internal/failure"
)

// attemptState is what the last attempt left for CanRetry.
type attemptState struct {
	status   int    // HTTP status; 0 when no answer arrived
	sent     bool   // the request may have reached the server
	timedOut bool   // --timeout ended the attempt
	partial  bool   // part of the body already went to Stdout
	open     bool   // the breaker short-circuited the attempt
	refusal  string // CanRetry's remedy when it refused
}

// SafeMethod reports whether m may be sent again after it reached the server:
// GET, HEAD, PUT, DELETE, OPTIONS and TRACE are idempotent (RFC 9110 9.2.2).
func SafeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// CanRetry answers whether the failure of the last attempt may be retried by
// sending the same request again. Never while the host's breaker is open.
// Idempotent methods always may; POST and PATCH only when the request cannot
// have been processed (it failed before reaching the server: DNS failure,
// connection refused; or the server answered 429), when an Idempotency-Key
// header is set, or with RetryUnsafe. A body already partly written to stdout
// is never repeated. RefusalRemedy then says what to do.
func (s *Step) CanRetry(*failure.Failure) (bool, string) {
	st := &s.last
	st.refusal = ""
	if st.open {
		return false, "no request was sent while the breaker is open"
	}
	if why, n := s.opts.Breaker.Refusal(); why != "" {
		st.refusal = "the host failed " + failure.TimesInARow(n) + " in this run, so its circuit breaker opened: retrywise sends it nothing until the cooldown ends; wait for the outage to end"
		return false, why
	}
	if st.partial {
		st.refusal = "run it again, or use --output FILE so that a cut-off download can be retried"
		return false, "part of the response body was already written to stdout, so a retry would repeat it"
	}
	switch {
	case SafeMethod(s.method), s.opts.RetryUnsafe, s.opts.Header.Get("Idempotency-Key") != "":
		return true, ""
	case !st.sent:
		return true, "" // nothing reached the server
	case st.status == http.StatusTooManyRequests:
		return true, "" // a 429 is answered before the request is processed
	}
	st.refusal = "find out whether the server acted on the request (look the resource up) before sending it again; an Idempotency-Key the server honours makes such retries safe"
	const how = "set an Idempotency-Key header, or --retry-unsafe if repeating it is harmless"
	switch {
	case st.timedOut:
		return false, fmt.Sprintf("the %s timed out after it was sent, so the server may have processed it: not replayed (%s)", s.method, how)
	case st.status != 0:
		return false, fmt.Sprintf("the %s was answered HTTP %d and may already have been processed: not replayed (%s)", s.method, st.status, how)
	}
	return false, fmt.Sprintf("the %s failed after it was sent, so the server may have processed it: not replayed (%s)", s.method, how)
}

// RefusalRemedy returns what to do about the last CanRetry refusal (an
// unsafe request not replayed, a breaker that opened, a body already
// written); "" when CanRetry did not refuse, or when the failure's own
// remedy says it (an attempt the breaker short-circuited).
func (s *Step) RefusalRemedy() string { return s.last.refusal }
