package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	goio "io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/expand"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/httpstep"
	"github.com/retrywise/retrywise/internal/jobs"
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
else does; progress, --field values and the report go to stderr. A body over
--max-body (default 1GiB) fails the attempt as structural (65,
http-body-too-large): stdout gets at most --max-body bytes, --output is left
as it was.`

// httpFlags are the request flags of `retrywise http`, as given.
type httpFlags struct {
	step        *stepFlags
	method      string
	headers     stringList
	data        string
	dataFile    string
	timeout     time.Duration
	noFollow    bool
	expect      string
	absentOK    bool
	output      string
	maxBody     string
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
	// maxBody bounds the body of an expected answer, in bytes.
	maxBody int64
	// fields are printed on stderr after an answer.
	fields []httpstep.Field
	// retryUnsafe retries POST and PATCH even when they may have been processed.
	retryUnsafe bool
	// breakerThreshold is the consecutive failures that open the host's breaker; 0 disables it.
	breakerThreshold int
}

// httpKind is the http step: one HTTP request.
func httpKind() *kindDef {
	return &kindDef{
		name: "http", synopsis: httpSynopsis, interspersed: true, expands: true,
		define: func(fs *flag.FlagSet) kindFlags {
			hf := &httpFlags{step: addStepFlags(fs, "10s,20s,60s")}
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
			fs.StringVar(&hf.maxBody, "max-body", "1GiB", "the largest body an expected answer may have (`SIZE`: bytes, KiB, MiB, GiB); a longer one fails the attempt as structural")
			fs.Var(&hf.fields, "field", "print the value of a jq expression as `NAME=EXPR`, e.g. id=.items[0].id or ids=[.items[].id] (repeatable);\n"+
				"null or no value is absent (66, or 0 with --absent-ok), a jq error or several values structural (65);\n"+
				"a key with a dot is .[\"a.b\"]; env and $ENV are {}")
			fs.BoolVar(&hf.retryUnsafe, "retry-unsafe", false, "retry POST and PATCH even when the server may have processed them")
			fs.IntVar(&hf.threshold, "breaker-threshold", breaker.DefaultThreshold, "consecutive transient/unknown failures of a host that open its circuit breaker; 0 disables it")
			return hf
		},
		args:       "url",
		positional: []jobs.Key{{Name: "url", Type: jobs.KeyString, Positional: true, Usage: "the request's URL"}},
		outputs:    []string{"status", "found", "value", "body-file"},
		fixed:      false, // each field is an output too
	}
}

// resolve validates http's flags and URL into its options.
func (hf *httpFlags) resolve(f *factory, pos []string, given func(string) bool) (runnable, error) {
	opts := &httpOptions{f: f, step: hf.step.options(), method: strings.ToUpper(hf.method), data: hf.data, dataSet: given("data"), dataFile: hf.dataFile,
		timeout: hf.timeout, follow: !hf.noFollow, absentOK: hf.absentOK, outputFile: hf.output, retryUnsafe: hf.retryUnsafe, breakerThreshold: hf.threshold}
	var err error
	if opts.step.prober, err = f.prober(hf.step.egress, 0); err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, &jobs.SettingError{Key: "url", Msg: fmt.Sprintf("want exactly one URL, got %d arguments: use retrywise http [flags] URL", len(pos)), Fix: "give url: https://host/path"}
	}
	opts.url = pos[0]
	if opts.step.policy, err = hf.step.policy(); err != nil {
		return nil, err
	}
	if opts.maxBody, err = parseSize(hf.maxBody); err != nil {
		return nil, fmt.Errorf("invalid --max-body: %w", err)
	}
	if opts.expect, err = httpstep.ParseExpect(hf.expect); err != nil {
		return nil, fmt.Errorf("invalid --expect: %w", err)
	}
	for _, s := range hf.fields {
		fd, err := httpstep.ParseField(s)
		if err != nil {
			return nil, fmt.Errorf("invalid --field: %w", err)
		}
		opts.fields = append(opts.fields, fd)
	}
	switch {
	case opts.timeout < 0:
		return nil, errors.New("--timeout must not be negative")
	case opts.breakerThreshold < 0:
		return nil, errors.New("--breaker-threshold must not be negative (0 disables the breaker)")
	case opts.dataSet && opts.dataFile != "":
		return nil, errors.New("--data and --data-file exclude each other")
	}
	if opts.header, err = parseHeaders(hf.headers); err != nil {
		return nil, fmt.Errorf("invalid --header: %w", err)
	}
	return opts, nil
}

// options are the settings every step shares.
func (opts *httpOptions) options() *stepOptions { return &opts.step }

// target is the method and the URL, before expansion.
func (opts *httpOptions) target() string {
	m := opts.method
	if m == "" {
		m = http.MethodGet
		if opts.dataSet || opts.dataFile != "" {
			m = http.MethodPost
		}
	}
	return m + " " + opts.url
}

// run expands and sends the request in the retry loop, through the host's
// breaker; the body of an expected answer goes to stdout (or the output
// file), --field values to stderr.
func (opts *httpOptions) run(ctx context.Context, io *stepIO) (*report.Step, *stepError) {
	f := opts.f
	// Expand ${NAME} before anything is printed, and register every credential
	// the request carries, so that it is masked wherever it shows up.
	exp := f.expander(io)
	rawURL, serr := exp(opts.url, "the URL")
	if serr != nil {
		return nil, serr
	}
	headers := opts.header.Clone()
	for name, vs := range headers {
		for i, v := range vs {
			if vs[i], serr = exp(v, "--header "+name); serr != nil {
				return nil, serr
			}
		}
	}
	var body []byte
	var err error
	switch {
	case opts.dataSet:
		d, serr := exp(opts.data, "--data")
		if serr != nil {
			return nil, serr
		}
		body = []byte(d)
	case opts.dataFile == "-":
		if body, err = goio.ReadAll(io.stdin); err != nil {
			return nil, &stepError{exitcode.Config, "cannot read --data-file - (stdin): " + err.Error()}
		}
	case opts.dataFile != "":
		if body, err = os.ReadFile(opts.dataFile); err != nil {
			return nil, &stepError{exitcode.Config, "cannot read --data-file: " + err.Error()}
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &stepError{exitcode.Usage, fmt.Sprintf("invalid URL %q: want http(s)://host/path", rawURL)}
	}
	io.red.AddRequest(u, headers)

	method := opts.method
	if method == "" {
		method = http.MethodGet
		if body != nil {
			method = http.MethodPost
		}
	}
	stdout := goio.Writer(io.stdout)
	outputFile := opts.outputFile
	if io.expanded && outputFile == "" {
		// In a job the body is an output (body-file), not the run's stdout.
		outputFile = filepath.Join(io.tempDir, "body-"+strconv.FormatInt(f.clock.Now().UnixNano(), 36))
	}

	key := httpstep.HostKey(u.Scheme, u.Host)
	tr := f.transport(io.env)
	defer tr.CloseIdleConnections()
	step, err := httpstep.New(httpstep.Options{
		Method: method, URL: rawURL, Header: headers, Body: body, Timeout: opts.timeout,
		Client: httpstep.NewClientSecrets(tr, opts.follow, io.red.Masks), Expect: opts.expect, Fields: opts.fields,
		Stdout: stdout, OutputFile: outputFile, MaxBody: opts.maxBody, RetryUnsafe: opts.retryUnsafe,
		Breaker: f.breakers.Get(key, breaker.Settings{Threshold: opts.breakerThreshold}),
		Clock:   f.clock, UserAgent: f.userAgent(),
	})
	if err != nil {
		return nil, &stepError{exitcode.Config, err.Error()}
	}
	diagnose := opts.step.diagnose
	if diagnose == nil {
		diagnose = opts.step.prober.Diagnose(egress.Step{Client: egress.ClientGo, URL: rawURL, Env: io.env})
	}
	out, err := f.coordinator(opts.step.policy, io, diagnose).Run(ctx, step)
	if err != nil {
		return nil, &stepError{exitcode.Usage, err.Error()}
	}
	io.stdout.Flush()
	code := exitcode.For(out, opts.absentOK)
	rep := report.New("http", method+" "+rawURL, out, code)
	if r := step.RefusalRemedy(); out.Stop == retry.StopCannotRetry && r != "" {
		rep.Remedy = r
	}
	res := step.Result()
	rep.Outputs = httpOutputs(res)
	if out.OK() && outputFile != "" {
		rep.Outputs["body-file"] = outputFile
	}
	if done := out.OK() || (out.Final != nil && out.Final.Class == failure.Absent); done && !io.expanded && !io.outputsOnly {
		io.stderr.Flush()
		if !res.Found {
			fmt.Fprintln(io.stderr, "found=false")
		}
		for _, fd := range opts.fields {
			fmt.Fprintf(io.stderr, "%s=%s\n", fd.Name, httpstep.FormatValue(res.Fields[fd.Name]))
		}
	}
	return rep, nil
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

// expander returns the expansion of a step's values: ${NAME} from the
// environment for a step command; nothing for a job's step, whose values
// the runner already expanded. A failure is the step's error: 78 for an
// unset variable, 64 for a malformed reference.
func (f *factory) expander(io *stepIO) func(v, where string) (string, *stepError) {
	lookup := expand.EnvLookup(io.env)
	return func(v, where string) (string, *stepError) {
		if io.expanded {
			return v, nil
		}
		out, err := expand.String(v, lookup)
		var unset *expand.UnsetError
		var syn *expand.SyntaxError
		switch {
		case errors.As(err, &unset):
			return "", &stepError{exitcode.Config, fmt.Sprintf("%s in %s: set the variable (an unset one is never sent as empty), or write $$ for a literal $", unset.Error(), where)}
		case errors.As(err, &syn):
			return "", &stepError{exitcode.Usage, fmt.Sprintf("malformed ${NAME} in %s %s", where, syn.Error())}
		}
		return out, nil
	}
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
