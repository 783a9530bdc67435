package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/expand"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/httpstep"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
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
else does; progress, --field values and the report go to stderr.`

// httpFlags are the request flags of `retrywise http`, as given.
type httpFlags struct {
	method      string
	headers     stringList
	data        string
	dataFile    string
	timeout     time.Duration
	noFollow    bool
	expect      string
	absentOK    bool
	output      string
	fields      stringList
	retryUnsafe bool
	threshold   int
}

// httpOptions is the request `retrywise http` sends.
type httpOptions struct {
	f    *factory
	step stepOptions
	// url and header are the request's, before ${NAME} expansion.
	url    string
	header http.Header
	// method is upper-cased; "" means GET, or POST when there is a body.
	method string
	// data is --data's body before expansion, sent when dataSet.
	data    string
	dataSet bool
	// dataFile is read as the body as it is; "-" is stdin, "" none.
	dataFile string
	// timeout bounds each request up to the body's last byte; 0 means none.
	timeout time.Duration
	// follow follows redirects (at most httpstep.MaxRedirects).
	follow bool
	// expect are the statuses that succeed.
	expect httpstep.Expect
	// absentOK exits 0 when the answer is 404/410.
	absentOK bool
	// outputFile receives the body instead of stdout; "" means stdout.
	outputFile string
	// fields are printed on stderr after an answer.
	fields []httpstep.Field
	// retryUnsafe retries POST and PATCH even when they may have been processed.
	retryUnsafe bool
	// breakerThreshold is the consecutive failures that open the host's breaker; 0 disables it.
	breakerThreshold int
}

// parseHTTP parses `retrywise http`'s flags, before or after the URL, into its options.
func parseHTTP(f *factory, args []string) (*httpOptions, int, bool) {
	fs := newFlagSet("http", httpSynopsis)
	rf := addStepFlags(fs, "10s,20s,60s")
	var hf httpFlags
	fs.StringVar(&hf.method, "X", "", "request `METHOD` (same as --method)")
	fs.StringVar(&hf.method, "method", "", "request `METHOD`; empty means GET, or POST with --data/--data-file")
	fs.Var(&hf.headers, "H", "request header `'Name: value'` (same as --header)")
	fs.Var(&hf.headers, "header", "request header `'Name: value'` (repeatable)")
	fs.StringVar(&hf.data, "data", "", "request body `STRING`, ${NAME} expanded")
	fs.StringVar(&hf.dataFile, "data-file", "", "read the request body from `FILE` as it is (- for stdin)")
	fs.DurationVar(&hf.timeout, "timeout", 30*time.Second, "bound on each request, up to the body's last byte; 0 means none")
	fs.BoolVar(&hf.noFollow, "no-follow", false, fmt.Sprintf("do not follow redirects (followed by default, at most %d)", httpstep.MaxRedirects))
	fs.StringVar(&hf.expect, "expect", "", "`STATUSES` that succeed, e.g. 200,201 or 200-299; empty means any 2xx")
	fs.BoolVar(&hf.absentOK, "absent-ok", false, "exit 0 with found=false and a null value when the answer is 404/410 (not there)")
	fs.StringVar(&hf.output, "output", "", "write the body to `FILE` instead of stdout (replaced only on success)")
	fs.Var(&hf.fields, "field", "print the value of a jq expression as `NAME=EXPR`, e.g. id=.items[0].id or ids=[.items[].id] (repeatable);\n"+
		"null or no value is absent (66, or 0 with --absent-ok), a jq error or several values structural (65);\n"+
		"a key with a dot is .[\"a.b\"]; env and $ENV are {}")
	fs.BoolVar(&hf.retryUnsafe, "retry-unsafe", false, "retry POST and PATCH even when the server may have processed them")
	fs.IntVar(&hf.threshold, "breaker-threshold", breaker.DefaultThreshold, "consecutive transient/unknown failures of a host that open its circuit breaker; 0 disables it")

	pos, code, done := f.parseInterspersed(fs, args)
	if done {
		return nil, code, true
	}
	opts := &httpOptions{f: f, step: rf.options(), method: strings.ToUpper(hf.method), data: hf.data, dataSet: flagSet(fs, "data"), dataFile: hf.dataFile,
		timeout: hf.timeout, follow: !hf.noFollow, absentOK: hf.absentOK, outputFile: hf.output, retryUnsafe: hf.retryUnsafe, breakerThreshold: hf.threshold}
	var err error
	if opts.step.prober, err = f.prober(rf.egress, 0); err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	if len(pos) != 1 {
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("want exactly one URL, got %d arguments: use retrywise http [flags] URL", len(pos))), true
	}
	opts.url = pos[0]
	if opts.step.policy, err = rf.policy(); err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	if opts.expect, err = httpstep.ParseExpect(hf.expect); err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	for _, s := range hf.fields {
		fd, err := httpstep.ParseField(s)
		if err != nil {
			return nil, f.fail(exitcode.Usage, err.Error()), true
		}
		opts.fields = append(opts.fields, fd)
	}
	switch {
	case opts.timeout < 0:
		return nil, f.fail(exitcode.Usage, "--timeout must not be negative"), true
	case opts.breakerThreshold < 0:
		return nil, f.fail(exitcode.Usage, "--breaker-threshold must not be negative (0 disables the breaker)"), true
	case opts.dataSet && opts.dataFile != "":
		return nil, f.fail(exitcode.Usage, "--data and --data-file exclude each other"), true
	}
	if opts.header, err = parseHeaders(hf.headers); err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	return opts, 0, false
}

// runHTTP expands and sends the request in the retry loop, through the
// host's breaker, and reports; the body of an expected answer goes to stdout
// (or the output file), --field values to stderr.
func runHTTP(ctx context.Context, opts *httpOptions) int {
	f := opts.f
	o, err := f.output(opts.step.masks, opts.step.report)
	if err != nil {
		return f.fail(exitcode.Config, err.Error())
	}
	defer o.close()
	// Expand ${NAME} before anything is printed, and register every credential
	// the request carries, so that it is masked wherever it shows up.
	lookup := expand.EnvLookup(f.env)
	rawURL, code, ok := f.expandArg(opts.url, "the URL", lookup)
	if !ok {
		return code
	}
	headers := opts.header.Clone()
	for name, vs := range headers {
		for i, v := range vs {
			if vs[i], code, ok = f.expandArg(v, "--header "+name, lookup); !ok {
				return code
			}
		}
	}
	var body []byte
	switch {
	case opts.dataSet:
		d, code, ok := f.expandArg(opts.data, "--data", lookup)
		if !ok {
			return code
		}
		body = []byte(d)
	case opts.dataFile == "-":
		if body, err = io.ReadAll(f.stdin); err != nil {
			return f.fail(exitcode.Config, "cannot read --data-file - (stdin): "+err.Error())
		}
	case opts.dataFile != "":
		if body, err = os.ReadFile(opts.dataFile); err != nil {
			return o.fail(exitcode.Config, "cannot read --data-file: "+err.Error())
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return o.fail(exitcode.Usage, fmt.Sprintf("invalid URL %q: want http(s)://host/path", rawURL))
	}
	o.red.AddRequest(u, headers)

	method := opts.method
	if method == "" {
		method = http.MethodGet
		if body != nil {
			method = http.MethodPost
		}
	}

	key := httpstep.HostKey(u.Scheme, u.Host)
	tr := f.transport()
	defer tr.CloseIdleConnections()
	step, err := httpstep.New(httpstep.Options{
		Method: method, URL: rawURL, Header: headers, Body: body, Timeout: opts.timeout,
		Client: httpstep.NewClient(tr, opts.follow), Expect: opts.expect, Fields: opts.fields,
		Stdout: o.stdout, OutputFile: opts.outputFile, RetryUnsafe: opts.retryUnsafe,
		Breaker: f.breakers.Get(key, breaker.Settings{Threshold: opts.breakerThreshold}),
		Clock:   f.clock, UserAgent: f.userAgent(),
	})
	if err != nil {
		return o.fail(exitcode.Config, err.Error())
	}
	diagnose := opts.step.diagnose
	if diagnose == nil {
		diagnose = opts.step.prober.DiagnoseFor(egress.ClientGo, rawURL)
	}
	out, err := f.coordinator(opts.step.policy, o, diagnose).Run(ctx, step)
	if err != nil {
		return o.fail(exitcode.Usage, err.Error())
	}
	o.stdout.Flush()
	code = exitcode.For(out, opts.absentOK)
	rep := report.New("http", method+" "+rawURL, out, code)
	if r := step.RefusalRemedy(); out.Stop == retry.StopCannotRetry && r != "" {
		rep.Remedy = r
	}
	res := step.Result()
	rep.Outputs = httpOutputs(res)
	if done := out.OK() || (out.Final != nil && out.Final.Class == failure.Absent); done {
		o.stderr.Flush()
		if !res.Found {
			fmt.Fprintln(o.stderr, "found=false")
		}
		for _, fd := range opts.fields {
			fmt.Fprintf(o.stderr, "%s=%s\n", fd.Name, httpstep.FormatValue(res.Fields[fd.Name]))
		}
	}
	return o.finish(rep, f.clock.Now())
}

// parseInterspersed parses flags that may come before or after the
// positional arguments (as curl allows); "--" ends the flags.
func (f *factory) parseInterspersed(fs *flag.FlagSet, args []string) (pos []string, code int, done bool) {
	for {
		if code, done := f.parse(fs, args); done {
			return nil, code, true
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, 0, false
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), 0, false
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// expandArg expands ${NAME} in v; on failure it prints the reason and returns
// the exit code: 78 for an unset variable, 64 for a malformed reference.
func (f *factory) expandArg(v, where string, lookup expand.Lookup) (string, int, bool) {
	out, err := expand.String(v, lookup)
	var unset *expand.UnsetError
	var syn *expand.SyntaxError
	switch {
	case errors.As(err, &unset):
		return "", f.fail(exitcode.Config, fmt.Sprintf("%s in %s: set the variable (an unset one is never sent as empty), or write $$ for a literal $", unset.Error(), where)), false
	case errors.As(err, &syn):
		return "", f.fail(exitcode.Usage, fmt.Sprintf("malformed ${NAME} in %s %s", where, syn.Error())), false
	}
	return out, 0, true
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
