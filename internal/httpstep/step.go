// Package httpstep sends one HTTP request per attempt as a retry.Step: it
// classifies the answer (or the transport error) through internal/failure,
// keeps a per-host circuit breaker informed, delivers the body of an expected
// answer, extracts --field values, and says when a failed request may not be
// sent again (idempotency).
//
// Absence is an answer: a 404/410 on a lookup is classified absent; it is
// never retried and never counts against the host's breaker.
package httpstep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/failure/teamrules"
)

// Limits on what is kept of a response body.
const (
	// maxFailureBody is how much of a failure answer's body is read for classification (64 KiB).
	maxFailureBody = 64 << 10
	// MaxFieldBody is the largest body --field extracts from (8 MiB).
	MaxFieldBody = 8 << 20
	// maxValueBody is the largest JSON body carried in Result.Value (64 KiB).
	maxValueBody = 64 << 10
)

// Options configures a Step.
type Options struct {
	// Team are a team's rules (--rules): the first that matches an error
	// answer (its status and body) decides before the built-in reading.
	Team *teamrules.Rules
	// Method is the request method; "" means GET.
	Method string
	// URL is the request URL, already expanded.
	URL string
	// Header holds the request headers; it is not modified.
	Header http.Header
	// Body is the request body, sent again on every attempt; nil means none.
	Body []byte
	// Timeout bounds each attempt, from sending to the last byte of the body; 0 means none.
	Timeout time.Duration
	// Client sends the requests; nil means NewClient(NewTransport(TransportOptions{}), true).
	Client *http.Client
	// Expect is the set of statuses that succeed; empty means any 2xx.
	Expect Expect
	// Fields are the values to extract from a successful JSON answer.
	Fields []Field
	// Stdout receives the body of a successful answer when OutputFile is "" (the caller masks secrets).
	Stdout io.Writer
	// OutputFile, when set, receives the body instead; it is written to a
	// temporary file beside it and renamed on success, so a retry never appends.
	OutputFile string
	// MaxBody bounds the body of an expected answer in bytes, wherever it
	// goes: a longer one fails the attempt (failure.BodyTooLarge) with at most
	// MaxBody bytes written to Stdout and OutputFile left as it was; 0 means
	// no bound.
	MaxBody int64
	// RetryUnsafe allows retrying POST and PATCH requests after they may have reached the server.
	RetryUnsafe bool
	// Breaker is the target host's circuit breaker; nil means none.
	Breaker *breaker.Breaker
	// Clock gives the time for Retry-After dates and X-RateLimit-Reset; nil means the wall clock.
	Clock clock.Clock
	// MaxElapsed is the step's whole max elapsed: a rate limit whose reset is
	// further away is policy (failure.JudgeWait); 0 means failure.DefaultMaxElapsed.
	MaxElapsed time.Duration
	// UserAgent is sent when Header has none; "" means "retrywise".
	UserAgent string
}

// Result is what the step found: the JSON report's "result".
type Result struct {
	// Method and URL are the request's (the caller masks secrets in the report).
	Method string `json:"method"`
	URL    string `json:"url"`
	// Status is the last answer's HTTP status; 0 when none arrived.
	Status int `json:"status,omitempty"`
	// Found is false when the answer was absent (404/410, or a --field that yields null or nothing).
	Found bool `json:"found"`
	// Value is the body of a successful answer when it is JSON of at most 64 KiB; null otherwise.
	Value json.RawMessage `json:"value"`
	// Fields holds each --field's value by NAME; null when absent.
	Fields map[string]any `json:"fields,omitempty"`
}

// Step sends the request once per attempt; it implements retry.Step.
type Step struct {
	opts   Options
	method string
	key    string // host:port, the breaker's key
	clk    clock.Clock
	last   attemptState
	result Result
}

// New validates opts and returns a Step.
func New(opts Options) (*Step, error) {
	m := strings.ToUpper(strings.TrimSpace(opts.Method))
	if m == "" {
		m = http.MethodGet
	}
	req, err := http.NewRequest(m, opts.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("invalid request: %w", err)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return nil, fmt.Errorf("invalid URL %q: want an http:// or https:// URL", req.URL.Redacted())
	}
	if req.URL.Host == "" {
		return nil, fmt.Errorf("invalid URL %q: no host", req.URL.Redacted())
	}
	if opts.Client == nil {
		opts.Client = NewClient(NewTransport(TransportOptions{}), true)
	}
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Header == nil {
		opts.Header = http.Header{}
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "retrywise"
	}
	if opts.OutputFile != "" {
		// Fail before anything is sent when the file's folder cannot be written.
		f, err := os.CreateTemp(filepath.Dir(opts.OutputFile), "."+filepath.Base(opts.OutputFile)+".check-*")
		if err != nil {
			return nil, fmt.Errorf("cannot write --output %s: %w", opts.OutputFile, err)
		}
		f.Close()
		os.Remove(f.Name())
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	s := &Step{opts: opts, method: m, key: HostKey(req.URL.Scheme, req.URL.Host), clk: clk}
	s.result = Result{Method: m, URL: opts.URL}
	return s, nil
}

// HostKey returns the breaker key "host:port" of a URL's scheme and host,
// with the scheme's default port when none is given.
func HostKey(scheme, host string) string {
	h, p, err := net.SplitHostPort(host)
	if err != nil {
		h, p = strings.Trim(host, "[]"), "443"
		if strings.EqualFold(scheme, "http") {
			p = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(h), p)
}

// Key returns the target's host:port, the key of its breaker.
func (s *Step) Key() string { return s.key }

// Method returns the request method.
func (s *Step) Method() string { return s.method }

// Result returns what the last attempt found.
func (s *Step) Result() Result { return s.result }

// Attempt sends the request once. It returns nil when the answer's status is
// expected (and every --field was found), else the classified failure.
func (s *Step) Attempt(ctx context.Context, n int) error {
	s.last = attemptState{}
	s.result = Result{Method: s.method, URL: s.opts.URL}
	f, open := s.opts.Breaker.Do(ctx, func() (*failure.Failure, bool) { return s.do(ctx) })
	s.last.open = open
	if f == nil {
		return nil
	}
	return f
}

// do sends the request and handles the answer; neutral says the failure
// tells nothing about the host's health (a status --expect did not list, a
// local write error).
func (s *Step) do(ctx context.Context) (f *failure.Failure, neutral bool) {
	actx, cancel := ctx, context.CancelFunc(func() {})
	if s.opts.Timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, s.opts.Timeout)
	}
	defer cancel()
	var body io.Reader
	if s.opts.Body != nil {
		body = bytes.NewReader(s.opts.Body)
	}
	req, err := http.NewRequestWithContext(actx, s.method, s.opts.URL, body)
	if err != nil {
		return failure.InvalidRequest(err), true
	}
	req.Header = s.opts.Header.Clone()
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", s.opts.UserAgent)
	}
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h
	}
	s.last.sent = true
	resp, err := s.opts.Client.Do(req)
	if err != nil {
		return s.transportFailure(ctx, actx, err), false
	}
	defer resp.Body.Close()
	s.last.status = resp.StatusCode
	s.result.Status = resp.StatusCode
	if s.opts.Expect.Has(resp.StatusCode) {
		return s.deliver(ctx, actx, resp)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxFailureBody))
	if resp.StatusCode < 400 {
		return failure.UnexpectedStatus(resp.StatusCode, s.opts.Expect.String(), resp.Header, b), true
	}
	if tf := failure.TeamVerdict(failure.Input{Rules: s.opts.Team, Ctx: ctx, Tool: failure.ToolHTTP, Status: resp.StatusCode, Method: s.method, Text: string(b), ExitCode: failure.NoExitCode}); tf != nil {
		f = tf
	} else {
		f = failure.FromHTTP(failure.Response{Method: s.method, Status: resp.StatusCode, Header: resp.Header, Body: b, Now: s.clk.Now(), MaxElapsed: s.opts.MaxElapsed})
	}
	if f.Class == failure.Absent {
		s.absent()
	}
	return f, false
}

// transportFailure classifies an error of Client.Do (or of reading the
// body) with failure.FromRequest and records whether the request can have
// reached the server, as the failure's trace says.
func (s *Step) transportFailure(ctx, actx context.Context, err error) *failure.Failure {
	f := failure.FromRequest(err, failure.Request{
		Timeout:          s.opts.Timeout,
		TimedOut:         ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded),
		TooManyRedirects: errors.Is(err, errTooManyRedirects),
		RedirectScheme:   redirectScheme(err),
		MaxRedirects:     MaxRedirects,
	})
	s.last.sent = !f.Trace.NotSent
	s.last.timedOut = f.Code == failure.CodeRequestTimeout
	return f
}

// absent records an answer that says "not there".
func (s *Step) absent() {
	s.result.Found = false
	s.result.Value = nil
	s.result.Fields = nil
	if len(s.opts.Fields) > 0 {
		s.result.Fields = make(map[string]any, len(s.opts.Fields))
		for _, fd := range s.opts.Fields {
			s.result.Fields[fd.Name] = nil
		}
	}
}

// redirectScheme returns the scheme of a redirect that was not followed
// because it is not http(s), or "".
func redirectScheme(err error) string {
	var e *UnsupportedSchemeError
	if errors.As(err, &e) {
		return e.Scheme
	}
	return ""
}
