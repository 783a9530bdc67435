package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/breaker"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/proxytest"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/report/reporttest"
	"github.com/retrywise/retrywise/internal/step"
)

var testStart = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// proc is one retrywise process: the same Command (and so the same breaker
// registry) across several runs, on a fake clock that fires every wait at once.
type proc struct {
	t   *testing.T
	c   *Command
	clk *clock.Fake
}

func newProc(t *testing.T, env ...string) *proc {
	clk := clock.NewFake(testStart, true)
	return &proc{t: t, clk: clk, c: &Command{Env: append(os.Environ(), env...), Clock: clk, Version: "test", Rand: noJitter}}
}

// prun is one run in a proc; waits are those of this run only.
type prun struct {
	code           int
	stdout, stderr string
	waits          []time.Duration
}

// run runs one command line in the process.
func (p *proc) run(args ...string) prun {
	p.t.Helper()
	var out, errb bytes.Buffer
	p.c.Stdin, p.c.Stdout, p.c.Stderr = strings.NewReader(""), &out, &errb
	before := len(p.clk.Waits())
	code := p.c.Main(context.Background(), append([]string{"retrywise"}, args...))
	return prun{code: code, stdout: out.String(), stderr: errb.String(), waits: p.clk.Waits()[before:]}
}

// server is an httptest server that counts the requests it answers.
type server struct {
	*httptest.Server
	hits   atomic.Int64
	mu     sync.Mutex
	bodies []string
}

func newServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int64)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.hits.Add(1)
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(b))
		s.mu.Unlock()
		h(w, r, n)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) key() string { return strings.TrimPrefix(s.URL, "http://") }

// testReport is a step command's JSON report as tests read it: the run of
// one step, with the step's fields at hand.
type testReport struct {
	report.Step
	// Refs are push's per-ref results, from the output "refs".
	Refs []report.Ref
	// Run is the run's record.
	Run report.RunInfo
	// Steps counts the run's steps.
	Steps int
}

// OK reports whether the step succeeded.
func (r testReport) OK() bool { return r.Step.OK() }

// readReport decodes the JSON report at path: a run of exactly one step.
func readReport(t *testing.T, path string) (testReport, string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	reporttest.Validate(t, b)
	var run report.Run
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, b)
	}
	if run.Version != report.Version || len(run.Steps) != 1 {
		t.Fatalf("report is not a run of one step:\n%s", b)
	}
	r := testReport{Step: *run.Steps[0], Run: run.Run, Steps: len(run.Steps)}
	if refs, ok := r.Outputs["refs"]; ok {
		rb, _ := json.Marshal(refs)
		if err := json.Unmarshal(rb, &r.Refs); err != nil {
			t.Fatalf("refs: %v", err)
		}
	}
	if r.Run.ExitCode != r.ExitCode {
		t.Errorf("run exit %d, step exit %d", r.Run.ExitCode, r.ExitCode)
	}
	return r, string(b)
}

// result returns the step's outputs.
func result(t *testing.T, r testReport) map[string]any {
	t.Helper()
	if r.Outputs == nil {
		t.Fatalf("report has no outputs: %#v", r.Step)
	}
	return r.Outputs
}

// TestHTTPGuessStorm: ten lookups of unpublished paths answer 404; with
// --absent-ok each is a null-valued answer, the breaker never counts them, and
// the valid call on the same host in the same process is sent and read.
func TestHTTPGuessStorm(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
		if r.URL.Path == "/v1/published" {
			io.WriteString(w, `{"id":42,"name":"ok"}`)
			return
		}
		http.NotFound(w, r)
	})
	p := newProc(t)
	rep := filepath.Join(t.TempDir(), "r.json")
	for i := 0; i < 10; i++ {
		r := p.run("http", "--absent-ok", "--field", "id=.id", "--report", rep, fmt.Sprintf("%s/v1/guess-%d", srv.URL, i))
		if r.code != exitcode.OK || r.stdout != "" {
			t.Fatalf("guess %d: exit %d, stdout %q\n%s", i, r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "found=false\nid=null\n") || len(r.waits) != 0 {
			t.Fatalf("guess %d: stderr lacks found=false/id=null or waited %v:\n%s", i, r.waits, r.stderr)
		}
	}
	got, raw := readReport(t, rep)
	res := result(t, got)
	if !got.OK() || got.Class != failure.Absent || res["found"] != false || res["value"] != nil || !strings.Contains(raw, `"id": null`) {
		t.Errorf("absent report:\n%s", raw)
	}
	b := p.c.Breakers.Get(srv.key(), breaker.Settings{Threshold: breaker.DefaultThreshold})
	if n, _ := b.Failures(); n != 0 || b.State() != breaker.Closed {
		t.Fatalf("after the storm the breaker counted %d failures, state %s", n, b.State())
	}
	r := p.run("http", "--absent-ok", "--field", "id=.id", "--report", rep, srv.URL+"/v1/published")
	if r.code != exitcode.OK || r.stdout != `{"id":42,"name":"ok"}` || !strings.Contains(r.stderr, "id=42\n") {
		t.Fatalf("valid call: exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if got, raw := readReport(t, rep); result(t, got)["found"] != true || !strings.Contains(raw, `"id": 42`) {
		t.Errorf("valid report:\n%s", raw)
	}
	if n := srv.hits.Load(); n != 11 {
		t.Errorf("server saw %d requests, want 11", n)
	}
	if b.State() != breaker.Closed {
		t.Errorf("breaker %s", b.State())
	}

	// Without --absent-ok a 404 is exit 66, at once, never retried.
	before := srv.hits.Load()
	if r := p.run("http", srv.URL+"/v1/missing"); r.code != exitcode.Absent || len(r.waits) != 0 || srv.hits.Load() != before+1 {
		t.Errorf("404 without --absent-ok: exit %d, waits %v, %d requests\n%s", r.code, r.waits, srv.hits.Load()-before, r.stderr)
	}
}

// TestHTTPOutage: 500 forever opens the breaker after 3 failures (3 requests,
// though the schedule allows 4), and later calls in the process short-circuit.
func TestHTTPOutage(t *testing.T) {
	var healthy atomic.Bool
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
		if healthy.Load() {
			io.WriteString(w, "back")
			return
		}
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	other := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) { io.WriteString(w, "other host") })
	p := newProc(t)
	rep := filepath.Join(t.TempDir(), "r.json")
	r := p.run("http", "--report", rep, srv.URL+"/api")
	want := "circuit breaker open for " + srv.key() + " after 3 consecutive failures"
	if r.code != exitcode.Transient || srv.hits.Load() != 3 {
		t.Fatalf("exit %d after %d requests, want 75 after 3\n%s", r.code, srv.hits.Load(), r.stderr)
	}
	if !slices.Equal(r.waits, []time.Duration{10 * time.Second, 20 * time.Second}) {
		t.Errorf("waits %v, want [10s 20s]", r.waits)
	}
	got, raw := readReport(t, rep)
	if !strings.Contains(got.Detail, want) || !strings.Contains(got.Reason, "HTTP 500") || len(got.Attempts) != 3 || !strings.Contains(got.Remedy, "circuit breaker opened") {
		t.Errorf("report does not say the breaker opened after the last failure:\n%s", raw)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}

	// Later calls to the host short-circuit: no request, exit 75, the last failure quoted.
	for i := 0; i < 3; i++ {
		r = p.run("http", "--report", rep, srv.URL+"/api/other")
		if r.code != exitcode.Transient || srv.hits.Load() != 3 || len(r.waits) != 0 {
			t.Fatalf("short-circuit %d: exit %d, %d requests, waits %v\n%s", i, r.code, srv.hits.Load(), r.waits, r.stderr)
		}
	}
	got, raw = readReport(t, rep)
	if got.Reason != want || !strings.Contains(raw, "last failure: transient: HTTP 500 Internal Server Error") || got.Class != failure.Transient {
		t.Errorf("short-circuit report:\n%s", raw)
	}
	// Another host:port has its own breaker.
	if r := p.run("http", other.URL); r.code != exitcode.OK || r.stdout != "other host" {
		t.Errorf("other host: exit %d\n%s", r.code, r.stderr)
	}
	// After the 30 s cooldown one trial goes through; its success closes the breaker.
	healthy.Store(true)
	p.clk.Advance(breaker.DefaultCooldown)
	if r := p.run("http", srv.URL+"/api"); r.code != exitcode.OK || r.stdout != "back" || srv.hits.Load() != 4 {
		t.Errorf("half-open trial: exit %d, %d requests\n%s", r.code, srv.hits.Load(), r.stderr)
	}
}

func TestHTTPRetryAfter(t *testing.T) {
	limited := func(header string) func(w http.ResponseWriter, r *http.Request, n int64) {
		return func(w http.ResponseWriter, r *http.Request, n int64) {
			if n == 1 {
				w.Header().Set("Date", testStart.Format(http.TimeFormat)) // the server's clock
				k, v, _ := strings.Cut(header, ": ")
				w.Header().Set(k, v)
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return
			}
			io.WriteString(w, "ok")
		}
	}
	tests := []struct {
		name   string
		header string
		args   []string
		waits  []time.Duration
	}{
		// The case: one wait of 2 s, then success.
		{"seconds replace a shorter scheduled wait", "Retry-After: 2", []string{"--schedule", "1s"}, []time.Duration{2 * time.Second}},
		{"sub-second schedule", "Retry-After: 2", []string{"--schedule", "100ms,100ms"}, []time.Duration{2 * time.Second}},
		// Retry-After is "not before": a longer scheduled wait is kept.
		{"default schedule is a floor", "Retry-After: 2", nil, []time.Duration{10 * time.Second}},
		{"HTTP-date", "Retry-After: " + testStart.Add(30*time.Second).Format(http.TimeFormat), []string{"--schedule", "1s"}, []time.Duration{30 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, limited(tt.header))
			r := newProc(t).run(append(append([]string{"http"}, tt.args...), srv.URL)...)
			if r.code != exitcode.OK || r.stdout != "ok" || srv.hits.Load() != 2 {
				t.Fatalf("exit %d, %d requests\n%s", r.code, srv.hits.Load(), r.stderr)
			}
			if !slices.Equal(r.waits, tt.waits) {
				t.Errorf("waits %v, want %v", r.waits, tt.waits)
			}
			if !strings.Contains(r.stderr, "attempt 1/") || !strings.Contains(r.stderr, "rate limited (HTTP 429 Too Many Requests)") {
				t.Errorf("no progress line:\n%s", r.stderr)
			}
		})
	}

	t.Run("X-RateLimit-Reset", func(t *testing.T) {
		reset := testStart.Add(45 * time.Second).Unix()
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
			if n == 1 {
				w.Header().Set("Date", testStart.Format(http.TimeFormat)) // the server's clock
				w.Header().Set("X-RateLimit-Remaining", "0")
				w.Header().Set("X-RateLimit-Reset", fmt.Sprint(reset))
				w.WriteHeader(http.StatusForbidden)
				io.WriteString(w, `{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}`)
				return
			}
			io.WriteString(w, "ok")
		})
		r := newProc(t).run("http", "--schedule", "1s", srv.URL)
		if r.code != exitcode.OK || !slices.Equal(r.waits, []time.Duration{45 * time.Second}) {
			t.Fatalf("GitHub 403 rate limit: exit %d, waits %v\n%s", r.code, r.waits, r.stderr)
		}
	})

	t.Run("GitHub 403 secondary rate-limit body", func(t *testing.T) {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
			if n == 1 {
				w.WriteHeader(http.StatusForbidden)
				io.WriteString(w, `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`)
				return
			}
			io.WriteString(w, "ok")
		})
		r := newProc(t).run("http", srv.URL)
		if r.code != exitcode.OK || srv.hits.Load() != 2 || !slices.Equal(r.waits, []time.Duration{10 * time.Second}) {
			t.Fatalf("403 rate-limit body: exit %d, %d requests, waits %v\n%s", r.code, srv.hits.Load(), r.waits, r.stderr)
		}
	})

	t.Run("beyond the cap", func(t *testing.T) {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
			w.Header().Set("Retry-After", "600")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		})
		rep := filepath.Join(t.TempDir(), "r.json")
		r := newProc(t).run("http", "--report", rep, srv.URL)
		if r.code != exitcode.Transient || srv.hits.Load() != 1 || len(r.waits) != 0 {
			t.Fatalf("exit %d, %d requests, waits %v\n%s", r.code, srv.hits.Load(), r.waits, r.stderr)
		}
		got, raw := readReport(t, rep)
		if got.Stop != "retry-after-over-cap" || !strings.Contains(got.Detail, "the server asked to wait 10m0s, over the retry-after cap of 5m0s") {
			t.Errorf("report:\n%s", raw)
		}
		if !strings.Contains(r.stderr, "asked to wait 10m0s") {
			t.Errorf("stderr does not report the asked-for wait:\n%s", r.stderr)
		}
	})
}

// TestHTTPIdempotency: a POST that may have been processed is not replayed;
// one that cannot have been (429, refused connection), or that carries an
// Idempotency-Key, or --retry-unsafe, is.
func TestHTTPIdempotency(t *testing.T) {
	flaky := func(status int, header ...string) func(w http.ResponseWriter, r *http.Request, n int64) {
		return func(w http.ResponseWriter, r *http.Request, n int64) {
			if n == 1 {
				for _, h := range header {
					k, v, _ := strings.Cut(h, ": ")
					w.Header().Set(k, v)
				}
				http.Error(w, "try later", status)
				return
			}
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"created":true}`)
		}
	}
	tests := []struct {
		name     string
		status   int
		header   []string
		args     []string
		code     int
		requests int64
		waits    []time.Duration
		detail   string
	}{
		{"POST 503 is not replayed", 503, nil, []string{"-X", "POST"}, exitcode.Transient, 1, nil,
			"the POST was answered HTTP 503 and may already have been processed: not replayed (set an Idempotency-Key header, or --retry-unsafe"},
		{"--data implies POST", 502, nil, nil, exitcode.Transient, 1, nil, "the POST was answered HTTP 502"},
		{"PATCH 500 is not replayed", 500, nil, []string{"--method", "PATCH"}, exitcode.Transient, 1, nil, "the PATCH was answered HTTP 500"},
		{"Idempotency-Key makes it retryable", 503, nil, []string{"-X", "POST", "-H", "Idempotency-Key: 7f1c"}, exitcode.OK, 2, []time.Duration{10 * time.Second}, ""},
		{"--retry-unsafe", 503, nil, []string{"-X", "POST", "--retry-unsafe"}, exitcode.OK, 2, []time.Duration{10 * time.Second}, ""},
		{"POST 429 is retried after its Retry-After", 429, []string{"Retry-After: 3"}, []string{"-X", "POST", "--schedule", "1s"}, exitcode.OK, 2, []time.Duration{3 * time.Second}, ""},
		{"PUT 503 is retried", 503, nil, []string{"-X", "PUT"}, exitcode.OK, 2, []time.Duration{10 * time.Second}, ""},
		{"DELETE 503 is retried", 503, nil, []string{"-X", "DELETE"}, exitcode.OK, 2, []time.Duration{10 * time.Second}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, flaky(tt.status, tt.header...))
			rep := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"http", "--report", rep, "--data", `{"n":1}`}, tt.args...)
			r := newProc(t).run(append(args, srv.URL+"/things")...)
			if r.code != tt.code || srv.hits.Load() != tt.requests || !slices.Equal(r.waits, tt.waits) {
				t.Fatalf("exit %d (want %d), %d requests (want %d), waits %v (want %v)\n%s", r.code, tt.code, srv.hits.Load(), tt.requests, r.waits, tt.waits, r.stderr)
			}
			got, raw := readReport(t, rep)
			if tt.detail != "" && (got.Stop != "cannot-retry-in-context" || !strings.Contains(got.Detail, tt.detail) || !strings.Contains(got.Remedy, "before sending it again")) {
				t.Errorf("report does not say why it was not replayed:\n%s", raw)
			}
			if tt.detail == "" && (!got.OK() || got.Stop != "succeeded" || len(got.Attempts) != int(tt.requests)) {
				t.Errorf("report does not show the replayed request succeeding after %d attempts:\n%s", tt.requests, raw)
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			for _, b := range srv.bodies {
				if b != `{"n":1}` {
					t.Errorf("request body %q, want the same body on every attempt", b)
				}
			}
		})
	}

	t.Run("POST to a refused port is retried: it never reached a server", func(t *testing.T) {
		addr := closedAddr(t)
		rep := filepath.Join(t.TempDir(), "r.json")
		r := newProc(t).run("http", "--report", rep, "-X", "POST", "--data", "x", "--breaker-threshold", "0", "http://"+addr+"/x")
		got, raw := readReport(t, rep)
		if r.code != exitcode.Transient || len(got.Attempts) != 4 || got.Stop != "attempts-exhausted" || !strings.Contains(got.Reason, "connection refused") {
			t.Errorf("exit %d:\n%s", r.code, raw)
		}
	})

	t.Run("POST that timed out is not replayed", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		})
		rep := filepath.Join(t.TempDir(), "r.json")
		r := newProc(t).run("http", "--report", rep, "-X", "POST", "--data", "x", "--timeout", "50ms", srv.URL)
		got, raw := readReport(t, rep)
		if r.code != exitcode.Transient || srv.hits.Load() != 1 || !strings.Contains(got.Detail, "the POST timed out after it was sent") || !strings.Contains(got.Reason, "--timeout 50ms") {
			t.Errorf("exit %d, %d requests:\n%s", r.code, srv.hits.Load(), raw)
		}
	})

	t.Run("GET that timed out is retried", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
			if n == 1 {
				select {
				case <-r.Context().Done():
				case <-release:
				}
				return
			}
			io.WriteString(w, "late but fine")
		})
		r := newProc(t).run("http", "--timeout", "50ms", srv.URL)
		if r.code != exitcode.OK || r.stdout != "late but fine" || srv.hits.Load() != 2 {
			t.Errorf("exit %d, %d requests\n%s", r.code, srv.hits.Load(), r.stderr)
		}
	})
}

// closedPort returns a 127.0.0.1 address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	addr, err := proxytest.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

func TestHTTPExpansion(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
		fmt.Fprintf(w, "%s|%s|%s", r.URL.Path, r.Header.Get("X-Team"), r.Header.Get("X-Price"))
	})
	p := newProc(t, "RW_TEAM=platform", "RW_PATH=v2")
	r := p.run("http", "-H", "X-Team: ${RW_TEAM}", "-H", "X-Price: $$5", srv.URL+"/${RW_PATH}/items")
	if r.code != exitcode.OK || r.stdout != "/v2/items|platform|$5" {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{
		{"http", srv.URL + "/${RW_UNSET_VAR}"},
		{"http", "-H", "Authorization: Bearer ${RW_UNSET_VAR}", srv.URL},
		{"http", "--data", `{"k":"${RW_UNSET_VAR}"}`, srv.URL},
	} {
		r := p.run(args...)
		if r.code != exitcode.Config || !strings.Contains(r.stderr, "${RW_UNSET_VAR} is not set") {
			t.Errorf("%v: exit %d, want 78 naming the variable\n%s", args, r.code, r.stderr)
		}
	}
	if r := p.run("http", srv.URL+"/${oops"); r.code != exitcode.Usage {
		t.Errorf("malformed reference: exit %d\n%s", r.code, r.stderr)
	}
	if n := srv.hits.Load(); n != 1 {
		t.Errorf("%d requests sent, want 1: a config error must send nothing", n)
	}
}

// TestHTTPSecretsNeverPrinted: the Authorization header, the token in the
// URL's userinfo and query, and an environment token never reach stdout,
// stderr or the JSON report, even when the server echoes them.
func TestHTTPSecretsNeverPrinted(t *testing.T) {
	const (
		envTok  = "ghs_EnvToken0123456789abcdef"
		userPw  = "pw-userinfo-secret-42"
		queryTk = "qtok-query-secret-77"
		hdrTok  = "hdr-plain-secret-99"
	)
	echo := func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		fmt.Fprintf(w, "Authorization: %s\nX-Api-Key: %s\nuser=%s pass=%s\nurl=%s\nquery token %s\nraw %s %s\n",
			r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), u, p, r.URL.String(), r.URL.Query().Get("access_token"), r.Header.Get("X-Api-Key"), strings.TrimPrefix(r.Header.Get("X-Auth"), "Bearer "))
	}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		if strings.HasSuffix(r.URL.Path, "/fail") {
			w.WriteHeader(http.StatusUnauthorized)
		}
		echo(w, r)
	})
	for _, path := range []string{"/ok", "/fail"} {
		rep := filepath.Join(t.TempDir(), "r.json")
		u := strings.Replace(srv.URL, "http://", "http://robot:"+userPw+"@", 1) + path + "?access_token=" + queryTk
		r := newProc(t, "GH_APP_TOKEN="+envTok).run("http", "--report", rep,
			"-H", "X-Auth: Bearer ${GH_APP_TOKEN}", "-H", "X-Api-Key: "+hdrTok, "--field", "x=.x", u)
		b, _ := os.ReadFile(rep)
		all := r.stdout + r.stderr + string(b)
		for _, secret := range []string{envTok, userPw, queryTk, hdrTok} {
			if strings.Contains(all, secret) {
				t.Errorf("%s: secret %q leaked:\n%s", path, secret, all)
			}
		}
		if len(b) == 0 || !strings.Contains(all, "***") {
			t.Errorf("%s: nothing was masked or no report:\n%s", path, all)
		}
	}
}

func TestHTTPFields(t *testing.T) {
	body := `{"items":[{"id":7,"name":"a b"},{"id":8,"big":12345678901234567890}],"meta":{"next":null,"tags":["x"]},"dotted.key":true}`
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
		if r.URL.Path == "/text" {
			io.WriteString(w, "not json")
			return
		}
		io.WriteString(w, body)
	})
	p := newProc(t, "RETRYWISE_FIELD_SECRET=s3cret-token")
	rep := filepath.Join(t.TempDir(), "r.json")
	r := p.run("http", srv.URL, "--report", rep, "--field", "id=.items[0].id", "--field", "name=.items[0].name",
		"--field", "last=.items[-1].big", "--field", "meta=.meta", "--field", `dot=.["dotted.key"]`,
		"--field", "ids=[.items[].id]", "--field", "n=.items | length", "--field", `next=.meta.next // "none"`, "--field", "env=$ENV")
	if r.code != exitcode.OK || r.stdout != body {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	want := "id=7\nname=a b\nlast=12345678901234567890\nmeta={\"next\":null,\"tags\":[\"x\"]}\ndot=true\nids=[7,8]\nn=2\nnext=none\nenv={}\n"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks the field lines %q:\n%s", want, r.stderr)
	}
	got, raw := readReport(t, rep)
	fields := result(t, got)
	if fields["id"] != 7.0 || fields["name"] != "a b" || !strings.Contains(raw, `"last": 12345678901234567890`) || strings.Contains(raw, "s3cret") {
		t.Errorf("report fields:\n%s", raw)
	}

	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"missing key", []string{"--field", "id=.items[5].id"}, exitcode.Absent, "not in the response: id=.items[5].id"},
		{"missing key, --absent-ok", []string{"--absent-ok", "--field", "id=.items[5].id"}, exitcode.OK, "found=false\nid=null\n"},
		{"present null", []string{"--field", "next=.meta.next"}, exitcode.Absent, "not in the response: next=.meta.next"},
		{"present null, --absent-ok", []string{"--absent-ok", "--field", "id=.items[0].id", "--field", "next=.meta.next"}, exitcode.OK, "found=false\nid=7\nnext=null\n"},
		{"empty, --absent-ok", []string{"--absent-ok", "--field", "id=.items[] | select(.id > 100) | .id"}, exitcode.OK, "found=false\nid=null\n"},
		{"jq error", []string{"--field", "id=.items.id"}, exitcode.Structural, "--field id=.items.id failed: jq: expected an object but got: array"},
		{"several results", []string{"--field", "id=.items[].id"}, exitcode.Structural, "collect the results with [...]"},
		{"several results, --absent-ok", []string{"--absent-ok", "--field", "id=.items[].id"}, exitcode.Structural, "yields more than one result"},
		{"not JSON", []string{"--field", "id=.id", srv.URL + "/text"}, exitcode.Structural, "not JSON"},
		{"bad expression", []string{"--field", "id=.items["}, exitcode.Usage, `invalid --field "id=.items[": jq: unexpected EOF`},
		{"unknown function", []string{"--field", "id=.items | count"}, exitcode.Usage, "function not defined: count/0"},
	}
	for _, tt := range tests {
		args := append([]string{"http"}, tt.args...)
		if !slices.ContainsFunc(tt.args, func(a string) bool { return strings.HasPrefix(a, srv.URL) }) {
			args = append(args, srv.URL)
		}
		if r := p.run(args...); r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%s: exit %d, want %d with %q\n%s", tt.name, r.code, tt.code, tt.want, r.stderr)
		}
	}
}

func TestHTTPRedirectsAndExpect(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
		switch r.URL.Path {
		case "/r1":
			http.Redirect(w, r, "/r2", http.StatusFound)
		case "/r2":
			http.Redirect(w, r, "/final", http.StatusMovedPermanently)
		case "/final":
			io.WriteString(w, "landed")
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/created":
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, "made")
		case "/gone":
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, "nope")
		}
	})
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string // a line the report must hold
	}{
		{"followed", []string{"/r1"}, exitcode.OK, "landed", "retrywise http succeeded after 1 attempt"},
		{"--no-follow", []string{"--no-follow", "/r1"}, exitcode.Unknown, "", "HTTP 302 Found is not an expected status (any 2xx)"},
		{"--no-follow shows Location", []string{"--no-follow", "/r1"}, exitcode.Unknown, "", "Location: /r2"},
		{"--no-follow --expect 302", []string{"--no-follow", "--expect", "302", "/r1"}, exitcode.OK, "<a href=\"/r2\">Found</a>.\n\n", "retrywise http succeeded after 1 attempt"},
		{"redirect loop", []string{"/loop"}, exitcode.Structural, "", "more than 10 redirects"},
		{"--expect 200 on a 201", []string{"--expect", "200", "/created"}, exitcode.Unknown, "", "HTTP 201 Created is not an expected status (200)"},
		{"--expect 200-299 on a 201", []string{"--expect", "200-299", "/created"}, exitcode.OK, "made", "retrywise http succeeded after 1 attempt"},
		{"--expect 404 makes a 404 success", []string{"--expect", "200,404", "/gone"}, exitcode.OK, "nope", "retrywise http succeeded after 1 attempt"},
	}
	for _, tt := range tests {
		if tt.stderr == "" {
			t.Fatalf("%s: a case without an expected report line checks nothing", tt.name)
		}
		args := append([]string{"http"}, tt.args[:len(tt.args)-1]...)
		r := newProc(t).run(append(args, srv.URL+tt.args[len(tt.args)-1])...)
		if r.code != tt.code || r.stdout != tt.stdout || !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("%s: exit %d (want %d), stdout %q (want %q)\n%s", tt.name, r.code, tt.code, r.stdout, tt.stdout, r.stderr)
		}
		if tt.code != exitcode.OK && len(r.waits) != 0 {
			t.Errorf("%s: retried (waits %v)", tt.name, r.waits)
		}
	}
}

// TestHTTPOutputAndPartialBody: a body cut off mid-way is transient; with
// --output it is retried into a fresh file; on stdout the part already
// written cannot be taken back, so it is not retried.
func TestHTTPOutputAndPartialBody(t *testing.T) {
	full := strings.Repeat("0123456789", 1000)
	cut := func(w http.ResponseWriter, r *http.Request, n int64) {
		w.Header().Set("Content-Length", fmt.Sprint(len(full)))
		if n == 1 {
			io.WriteString(w, full[:5000])
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		io.WriteString(w, full)
	}
	srv := newServer(t, cut)
	out := filepath.Join(t.TempDir(), "body.txt")
	r := newProc(t).run("http", "--output", out, "--schedule", "1s", srv.URL)
	b, _ := os.ReadFile(out)
	if r.code != exitcode.OK || r.stdout != "" || string(b) != full || srv.hits.Load() != 2 {
		t.Errorf("--output: exit %d, stdout %d bytes, file %d bytes, %d requests\n%s", r.code, len(r.stdout), len(b), srv.hits.Load(), r.stderr)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}

	srv2 := newServer(t, cut)
	rep := filepath.Join(t.TempDir(), "r.json")
	r = newProc(t).run("http", "--report", rep, srv2.URL)
	got, raw := readReport(t, rep)
	if r.code != exitcode.Transient || srv2.hits.Load() != 1 || !strings.Contains(got.Detail, "already written to stdout") {
		t.Errorf("stdout: exit %d, %d requests\n%s", r.code, srv2.hits.Load(), raw)
	}
}

func TestHTTPCancelledDuringWaitWritesReport(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	})
	clk := clock.NewFake(testStart, false)
	rep := filepath.Join(t.TempDir(), "r.json")
	var out, errb bytes.Buffer
	c := &Command{Stdout: &out, Stderr: &errb, Env: os.Environ(), Clock: clk, Rand: noJitter}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- c.Main(ctx, []string{"retrywise", "http", "--report", rep, srv.URL}) }()
	select {
	case <-clk.TimerCreated():
	case <-time.After(30 * time.Second):
		t.Fatal("the loop never started waiting")
	}
	cancel()
	select {
	case code := <-done:
		if code != exitcode.Interrupted {
			t.Errorf("exit %d, want %d\n%s", code, exitcode.Interrupted, errb.String())
		}
	case <-time.After(stopLimit): // generous: the wait it cuts is the fake clock's
		t.Fatal("not stopped after cancellation")
	}
	if got, raw := readReport(t, rep); got.Stop != "cancelled" {
		t.Errorf("report:\n%s", raw)
	}
}

func TestHTTPUsageAndHelp(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) { io.WriteString(w, r.Method) })
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"http"}, exitcode.Usage},
		{[]string{"http", srv.URL, srv.URL}, exitcode.Usage},
		{[]string{"http", "--expect", "2xx", srv.URL}, exitcode.Usage},
		{[]string{"http", "--field", "id", srv.URL}, exitcode.Usage},
		{[]string{"http", "--field", "id=items", srv.URL}, exitcode.Usage},
		{[]string{"http", "--data", "a", "--data-file", "f", srv.URL}, exitcode.Usage},
		{[]string{"http", "ftp://example.com/x"}, exitcode.Usage},
		{[]string{"http", "--breaker-threshold", "-1", srv.URL}, exitcode.Usage},
		{[]string{"http", "--data-file", "/nonexistent/body", srv.URL}, exitcode.Config},
		{[]string{"http", "--report", "/nonexistent/dir/r.json", srv.URL}, exitcode.Config},
		{[]string{"http", "--output", "/nonexistent/dir/out", srv.URL}, exitcode.Config},
	}
	for _, tt := range tests {
		r := runCLI(t, "", nil, tt.args...)
		if r.code != tt.code {
			t.Errorf("%v: exit %d, want %d\n%s", tt.args, r.code, tt.code, r.stderr)
		}
	}
	if n := srv.hits.Load(); n != 0 {
		t.Errorf("usage errors sent %d requests", n)
	}
	// Flags after the URL, and -X/-H short forms.
	if r := runCLI(t, "", nil, "http", srv.URL, "-X", "DELETE"); r.code != 0 || r.stdout != "DELETE" {
		t.Errorf("flag after URL: exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	r := runCLI(t, "", nil, "http", "--help")
	for _, want := range []string{"Usage: retrywise http", "-X METHOD", "--method", "-H 'Name: value'", "--header", "--data STRING", "--data-file FILE",
		"--timeout", "(default 30s)", "--no-follow", "at most 10", "--expect", "--absent-ok", "--output FILE", "--field NAME=EXPR", "--retry-unsafe",
		"--breaker-threshold", "(default 3)", "--report", "--mask", "--schedule", "(default 10s,20s,60s)", "--max-elapsed", "(default 15m0s)",
		"--retry-after-cap", "(default 5m0s)", "--on-unknown", "(default stop)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("http --help lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 0 {
		t.Errorf("--help exit %d", r.code)
	}
}

// TestBinaryHTTP runs the real binary once: the body on stdout, nothing else.
func TestBinaryHTTP(t *testing.T) {
	bin := buildBinary(t)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) { io.WriteString(w, `{"v":1}`) })
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "http", "--field", "v=.v", srv.URL)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if stdout.String() != `{"v":1}` || !strings.Contains(stderr.String(), "v=1\n") || !strings.Contains(stderr.String(), "retrywise http succeeded") {
		t.Errorf("stdout %q\nstderr:\n%s", stdout.String(), stderr.String())
	}
}

func TestHTTPDataFile(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
		fmt.Fprintf(w, "%s %s", r.Method, r.Header.Get("Content-Length"))
	})
	file := filepath.Join(t.TempDir(), "body.json")
	os.WriteFile(file, []byte(`{"price":"${NOT_EXPANDED}"}`), 0o644)
	r := runCLI(t, "", nil, "http", "--data-file", file, srv.URL)
	if r.code != exitcode.OK || r.stdout != "POST 27" {
		t.Errorf("--data-file: exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "from stdin", nil, "http", "-X", "PUT", "--data-file", "-", srv.URL)
	if r.code != exitcode.OK || r.stdout != "PUT 10" {
		t.Errorf("--data-file -: exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if !slices.Equal(srv.bodies, []string{`{"price":"${NOT_EXPANDED}"}`, "from stdin"}) {
		t.Errorf("bodies %q: a --data-file is sent as it is", srv.bodies)
	}
}

// TestRunHTTPDiagnose runs http from hand-built options: the diagnose hook
// is given the 503 before the first wait, and its denial stops the loop
// after one request; the request's header credential is masked in the report
// although the server echoes it.
func TestRunHTTPDiagnose(t *testing.T) {
	const secret = "hand-built-secret-42"
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "busy, X-Api-Key was "+r.Header.Get("X-Api-Key"))
	})
	var seen []*failure.Failure
	f, stdout, stderr, clk := testFactory(os.Environ())
	f.diagnose = denyHook(&seen)
	code := runKind(context.Background(), f, prepare(t, step.HTTPKind, "url", srv.URL+"/x", "header", "X-Api-Key: "+secret, "schedule", "1s"))
	if code != exitcode.Policy || srv.hits.Load() != 1 || len(seen) != 1 || len(clk.Waits()) != 0 {
		t.Fatalf("exit %d after %d requests, %d diagnoses, waits %v; want 77 after 1, 1 and none:\n%s", code, srv.hits.Load(), len(seen), clk.Waits(), stderr)
	}
	if seen[0].Code != "http-503" {
		t.Errorf("the hook was given %s (%s), want the 503", seen[0].Code, seen[0].Reason)
	}
	mustContain(t, "stderr", stderr.String(), "GET "+srv.URL+"/x", "reason:   the hook denies it")
	if strings.Contains(stdout.String()+stderr.String(), secret) {
		t.Errorf("the header credential leaked:\n%s%s", stdout, stderr)
	}
}
