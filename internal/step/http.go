package step

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	goio "io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/interrupt"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/httpstep"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
	"github.com/retrywise/retrywise/internal/userfile"
)

const httpSynopsis = `Usage: retrywise http [flags] URL

Sends one HTTP request, classifies the answer, and retries only transient
failures on the schedule. A 404/410 on a lookup is an answer, not a failure:
exit 66, or 0 with --absent-ok. GET, HEAD, PUT, DELETE and OPTIONS are
retried; POST and PATCH only when the request cannot have been processed
(DNS failure, connection refused, 429), with an Idempotency-Key header, or
with --retry-unsafe. A per-host circuit breaker, shared by every HTTP step of
the process, stops after --breaker-threshold consecutive transient or
unknown failures.

${NAME} in the URL, header values and --data is replaced by the environment
variable NAME ($$ is a literal $); an unset NAME exits 78.

The body of an expected answer goes to stdout (or --output FILE) and nothing
else does; progress, --field values and the report go to stderr. A body over
--max-body (default 1GiB) fails the attempt as structural (65,
http-body-too-large): stdout gets at most --max-body bytes, --output is left
as it was.`

// noFollowDoc is --no-follow's doc.
var noFollowDoc = fmt.Sprintf("do not follow redirects (followed by default, at most %d)", httpstep.MaxRedirects)

// HTTPKind is the http step: one HTTP request.
var HTTPKind = &Kind{
	Name: "http", Synopsis: httpSynopsis, Args: "url", Expands: true,
	Outputs: httpFixedOutputs,
	declare: httpOutputNames,
	new:     func() Config { return &HTTPConfig{} },
}

// httpFixedOutputs are the outputs of every http step.
var httpFixedOutputs = []string{"status", "found", "value", "body-file"}

// httpOutputNames are an http step's outputs: the fixed ones, then each
// field's NAME (field: NAME=EXPR).
func httpOutputNames(get func(name string) ([]string, bool)) ([]string, bool) {
	names := slices.Clone(httpFixedOutputs)
	fields, _ := get("field")
	for _, f := range fields {
		if name, _, ok := strings.Cut(f, "="); ok && name != "" {
			names = append(names, name)
		}
	}
	return names, true
}

// MaxRequestBody bounds a request's body (--data, --data-file FILE or -):
// it is held in memory to be sent again on each attempt. Past it the step
// fails before anything is sent (78).
const MaxRequestBody = 64 << 20

// HTTPConfig is an http step: one request.
type HTTPConfig struct {
	Common
	// URL is the request's URL, before ${NAME} expansion.
	URL string
	// Method is the request's method; "" means GET, or POST with a body.
	Method string
	// Headers are 'Name: value' lines.
	Headers []string
	// Data is the body, before expansion; DataFile is read as the body ("-" is stdin).
	Data, DataFile string
	// Timeout bounds each request up to the body's last byte; 0 means none.
	Timeout time.Duration
	// NoFollow does not follow redirects.
	NoFollow bool
	// Expect are the statuses that succeed; none means any 2xx.
	Expect []string
	// AbsentOK exits 0 when the answer is 404/410.
	AbsentOK bool
	// Output receives the body instead of stdout.
	Output string
	// MaxBody bounds the body of an expected answer.
	MaxBody string
	// Fields are NAME=EXPR jq expressions printed after an answer.
	FieldExprs []string
	// RetryUnsafe retries POST and PATCH even when they may have been processed.
	RetryUnsafe bool
	// BreakerThreshold is the consecutive failures that open the host's breaker; 0 disables it.
	BreakerThreshold int

	header  http.Header
	expect  httpstep.Expect
	maxBody int64
	fields  []httpstep.Field
}

// Fields is http's field table.
func (c *HTTPConfig) Fields() []*Field {
	s := c.newFields()
	c.Retry.fields(s, "10s,20s,60s", defaultJitter)
	c.commandFields(s)
	c.Egress.fields(s)
	c.rulesField(s)
	bind(s, Field{Name: "method", Short: "X", ShortDoc: "request `METHOD` (same as --method)", Doc: "request `METHOD`; empty means GET, or POST with --data/--data-file"}, &c.Method)
	bindList(s, Field{Name: "header", Short: "H", ShortDoc: "request header `'Name: value'` (same as --header)", Doc: "request header `'Name: value'` (repeatable)"}, &c.Headers)
	bind(s, Field{Name: "data", Doc: "request body `STRING`, ${NAME} expanded"}, &c.Data)
	bind(s, Field{Name: "data-file", Doc: "read the request body from `FILE` as it is (- for stdin)"}, &c.DataFile)
	bind(s, Field{Name: "timeout", Default: "30s", Min: "0", Doc: "bound on each request, up to the body's last byte; 0 means none"}, &c.Timeout)
	bind(s, Field{Name: "no-follow", Doc: noFollowDoc}, &c.NoFollow)
	bindCSV(s, Field{Name: "expect", Doc: "`STATUSES` that succeed, e.g. 200,201 or 200-299; empty means any 2xx"}, &c.Expect)
	bind(s, Field{Name: "absent-ok", Doc: "exit 0 with found=false and a null value when the answer is 404/410 (not there)"}, &c.AbsentOK)
	bind(s, Field{Name: "output", Doc: "write the body to `FILE` instead of stdout (replaced only on success)"}, &c.Output)
	bind(s, Field{Name: "max-body", Default: "1GiB", Doc: "the largest body an expected answer may have (`SIZE`: bytes, KiB, MiB, GiB); a longer one fails the attempt as structural"}, &c.MaxBody)
	bindList(s, Field{Name: "field", Doc: "print the value of a jq expression as `NAME=EXPR`, e.g. id=.items[0].id or ids=[.items[].id] (repeatable);\n" +
		"null or no value is absent (66, or 0 with --absent-ok), a jq error or several values structural (65);\n" +
		"a key with a dot is .[\"a.b\"]; env and $ENV are {}"}, &c.FieldExprs)
	bind(s, Field{Name: "retry-unsafe", Doc: "retry POST and PATCH even when the server may have processed them"}, &c.RetryUnsafe)
	bind(s, Field{Name: "breaker-threshold", RunWide: true, Default: strconv.Itoa(breaker.DefaultThreshold), Min: "0", MinMsg: "must not be negative (0 disables the breaker)", Doc: "consecutive transient/unknown failures of a host that open its circuit breaker; 0 disables it"}, &c.BreakerThreshold)
	bind(s, Field{Name: "url", Positional: true, Doc: "the request's URL"}, &c.URL)
	return s.fields
}

func (c *HTTPConfig) validate(ctx context.Context) error {
	var errs []error
	if c.URL == "" {
		errs = append(errs, &FieldError{Field: "url", Plain: true, Msg: "want exactly one URL: use retrywise http [flags] URL", Fix: "give url: https://host/path"})
	}
	errs = append(errs, c.validateCommon()...)
	var err error
	if err := c.loadRules(ctx); err != nil {
		errs = append(errs, err)
	}
	if c.maxBody, err = ParseSize(c.MaxBody); err != nil {
		errs = append(errs, &FieldError{Field: "max-body", Msg: err.Error()})
	}
	if c.expect, err = httpstep.ParseExpect(strings.Join(c.Expect, ",")); err != nil {
		errs = append(errs, &FieldError{Field: "expect", Msg: err.Error()})
	}
	c.fields = nil
	for _, s := range c.FieldExprs {
		fd, err := httpstep.ParseField(s)
		if err != nil {
			errs = append(errs, &FieldError{Field: "field", Msg: err.Error()})
			continue
		}
		c.fields = append(c.fields, fd)
	}
	if c.Given("data") && c.DataFile != "" {
		errs = append(errs, &FieldError{Field: "data-file", Msg: "--data and --data-file exclude each other"})
	}
	if c.header, err = ParseHeaders(c.Headers); err != nil {
		errs = append(errs, err)
	}
	return joinErrs(errs)
}

// ParseHeaders parses "Name: value" lines into a header; a line that is
// not one is not quoted (it may be a credential written without its colon).
func ParseHeaders(hs []string) (http.Header, error) {
	h := http.Header{}
	for _, raw := range hs {
		name, value, ok := strings.Cut(raw, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, &FieldError{Field: "header", Msg: "want 'Name: value' (a header line without its colon is not quoted: it may hold a credential)"}
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, nil
}

// method is the request's method: GET, or POST with a body.
func (c *HTTPConfig) method(body bool) string {
	if m := strings.ToUpper(c.Method); m != "" {
		return m
	}
	if body {
		return http.MethodPost
	}
	return http.MethodGet
}

// target is the method and the URL, before expansion.
func (c *HTTPConfig) target() string {
	return c.method(c.Given("data") || c.DataFile != "") + " " + c.URL
}

// run expands and sends the request in the retry loop, through the host's
// breaker; the body of an expected answer goes to stdout (or the output
// file), field values to stderr.
// cancelledBeforeRequest is the report of an http step a signal stopped
// before its request was sent (reading --data-file): cancelled, with the
// signal's exit code (130 without one).
func cancelledBeforeRequest(ctx context.Context, pol retry.Policy, detail string) *report.Step {
	rep := report.Skip("http", "http", report.Cancelled, detail, pol)
	rep.ExitCode = exitcode.Interrupted
	var sig *interrupt.Signal
	if errors.As(context.Cause(ctx), &sig) {
		rep.ExitCode = sig.ExitCode()
	}
	return rep
}

func (c *HTTPConfig) run(ctx context.Context, x *exe) (*report.Step, *Error) {
	io := x.io
	// Expand ${NAME} before anything is printed, and register every credential
	// the request carries, so that it is masked wherever it shows up.
	rawURL, serr := x.expand(c.URL, "the URL", true)
	if serr != nil {
		return nil, serr
	}
	headers := c.header.Clone()
	for name, vs := range headers {
		for i, v := range vs {
			if vs[i], serr = x.expand(v, "--header "+name, true); serr != nil {
				return nil, serr
			}
		}
	}
	dataFile, serr := x.expand(c.DataFile, "data-file", false)
	if serr != nil {
		return nil, serr
	}
	outputFile, serr := x.expand(c.Output, "output", false)
	if serr != nil {
		return nil, serr
	}
	var body []byte
	var err error
	switch {
	case c.Given("data"):
		d, serr := x.expand(c.Data, "--data", true)
		if serr != nil {
			return nil, serr
		}
		body = []byte(d)
	case dataFile == "-":
		// Read so that a signal stops it at once (the read abandoned).
		err = interrupt.Do(ctx, func() error {
			var rerr error
			body, rerr = goio.ReadAll(goio.LimitReader(io.Stdin, MaxRequestBody+1))
			return rerr
		})
		if ctx.Err() != nil {
			return cancelledBeforeRequest(ctx, c.pol, "cancelled while reading --data-file - (stdin): "+context.Cause(ctx).Error()), nil
		} else if err != nil {
			return nil, &Error{exitcode.Config, "cannot read --data-file - (stdin): " + err.Error()}
		} else if len(body) > MaxRequestBody {
			return nil, &Error{exitcode.Config, fmt.Sprintf("--data-file - (stdin) holds more than %d MiB: a request body is at most that (send a file's content as a stream with exec and curl)", MaxRequestBody>>20)}
		}
	case dataFile != "":
		// A FIFO no one writes: a signal abandons the open and the read.
		if body, err = userfile.ReadFile(ctx, dataFile, MaxRequestBody); err != nil {
			if ctx.Err() != nil {
				return cancelledBeforeRequest(ctx, c.pol, "cancelled while reading --data-file: "+err.Error()), nil
			}
			return nil, &Error{exitcode.Config, "cannot read --data-file: " + err.Error()}
		}
		if len(body) > MaxRequestBody {
			return nil, &Error{exitcode.Config, fmt.Sprintf("--data-file holds more than %d MiB: a request body is at most that (send a file's content as a stream with exec and curl)", MaxRequestBody>>20)}
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &Error{exitcode.Usage, fmt.Sprintf("invalid URL %q: want http(s)://host/path", rawURL)}
	}
	io.Red.AddRequest(u, headers)

	method := c.method(body != nil)
	stdout := goio.Writer(io.Stdout)
	clk := x.clock()
	if io.inJob() && outputFile == "" {
		// In a job the body is an output (body-file), not the run's stdout.
		outputFile = filepath.Join(io.TempDir, "body-"+strconv.FormatInt(clk.Now().UnixNano(), 36))
	}

	key := httpstep.HostKey(u.Scheme, u.Host)
	tr := transport(io.Env)
	defer tr.CloseIdleConnections()
	var br *breaker.Breaker
	if x.svc.Breakers != nil {
		br = x.svc.Breakers.Get(key, breaker.Settings{Threshold: c.BreakerThreshold})
	}
	step, err := httpstep.New(httpstep.Options{
		Method: method, URL: rawURL, Header: headers, Body: body, Timeout: c.Timeout,
		Client: httpstep.NewClientSecrets(tr, !c.NoFollow, io.Red.Masks), Expect: c.expect, Fields: c.fields,
		Stdout: stdout, OutputFile: outputFile, MaxBody: c.maxBody, RetryUnsafe: c.RetryUnsafe,
		Breaker: br, Clock: clk, UserAgent: x.svc.UserAgent, Team: c.teamRules(x.svc), MaxElapsed: c.pol.MaxElapsed,
	})
	if err != nil {
		return nil, &Error{exitcode.Config, err.Error()}
	}
	prober, serr := x.prober(&c.Egress, 0)
	if serr != nil {
		return nil, serr
	}
	out, err := x.coordinator(c.pol, prober.Diagnose(egress.Step{Client: egress.ClientGo, URL: rawURL, Env: io.Env})).Run(ctx, step)
	if err == nil && out.OK() {
		if t, terr := egress.ParseTarget(rawURL); terr == nil {
			prober.NoteReached(t) // a canary for later live checks of the run
		}
	}
	if err != nil {
		return nil, &Error{exitcode.Usage, err.Error()}
	}
	io.Stdout.Flush()
	code := exitcode.For(out, c.AbsentOK)
	rep := report.New("http", method+" "+rawURL, out, code)
	if r := step.RefusalRemedy(); out.Stop == retry.StopCannotRetry && r != "" {
		rep.Remedy = r
	}
	res := step.Result()
	rep.Outputs = httpOutputs(res)
	if out.OK() && outputFile != "" {
		rep.Outputs["body-file"] = outputFile
	}
	if done := out.OK() || (out.Final != nil && out.Final.Class == failure.Absent); done && !io.inJob() && !io.OutputsOnly {
		io.Stderr.Flush()
		if !res.Found {
			fmt.Fprintln(io.Stderr, "found=false")
		}
		for _, fd := range c.fields {
			fmt.Fprintf(io.Stderr, "%s=%s\n", fd.Name, httpstep.FormatValue(res.Fields[fd.Name]))
		}
	}
	return rep, nil
}

// httpOutputs are an http step's outputs: status, found, value (the JSON
// body, or null) and each field by name.
func httpOutputs(res httpstep.Result) map[string]any {
	out := map[string]any{"found": res.Found}
	if res.Status != 0 {
		out["status"] = res.Status
	}
	var v any
	if len(res.Value) > 0 {
		d := json.NewDecoder(bytes.NewReader(res.Value))
		d.UseNumber() // 12345678901234567890 stays exact
		if err := d.Decode(&v); err != nil {
			v = nil
		}
	}
	out["value"] = v
	for k, fv := range res.Fields {
		out[k] = fv
	}
	return out
}
