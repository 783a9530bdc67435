package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/step"
)

// bucket is one resource of GitHub's documented GET /rate_limit answer.
type bucket struct {
	limit, remaining int
	reset            time.Time
}

// rateLimitBody renders the documented /rate_limit JSON, every resource
// included; core, search and graphql are given, the rest are full.
func rateLimitBody(core, search, graphql bucket) string {
	one := func(b bucket) string {
		return fmt.Sprintf(`{"limit":%d,"used":%d,"remaining":%d,"reset":%d}`, b.limit, b.limit-b.remaining, b.remaining, b.reset.Unix())
	}
	full := bucket{limit: 1000, remaining: 1000, reset: testStart.Add(time.Hour)}
	return fmt.Sprintf(`{"resources":{"core":%s,"search":%s,"graphql":%s,"integration_manifest":%s,"source_import":%s,"code_scanning_upload":%s,"actions_runner_registration":%s,"scim":%s,"dependency_snapshots":%s,"code_search":%s},"rate":%s}`,
		one(core), one(search), one(graphql), one(full), one(full), one(full), one(full), one(full), one(full), one(full), one(core))
}

// writeRateLimit answers GET /rate_limit with its body and X-RateLimit-* headers.
func writeRateLimit(w http.ResponseWriter, core, search, graphql bucket) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-RateLimit-Limit", fmt.Sprint(core.limit))
	h.Set("X-RateLimit-Remaining", fmt.Sprint(core.remaining))
	h.Set("X-RateLimit-Used", fmt.Sprint(core.limit-core.remaining))
	h.Set("X-RateLimit-Reset", fmt.Sprint(core.reset.Unix()))
	h.Set("X-RateLimit-Resource", "core")
	fmt.Fprint(w, rateLimitBody(core, search, graphql))
}

var (
	fullCore = bucket{5000, 4999, testStart.Add(time.Hour)}
	lowCore  = bucket{5000, 5, testStart.Add(10 * time.Minute)}
	fullSrch = bucket{30, 30, testStart.Add(time.Minute)}
	fullGQL  = bucket{5000, 5000, testStart.Add(time.Hour)}
)

// fakeGitHub is an httptest server speaking the GitHub API's /rate_limit;
// every request must be GET /rate_limit with the expected token.
func fakeGitHub(t *testing.T, token string, answer func(w http.ResponseWriter, n int64)) *server {
	return newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		if r.Method != http.MethodGet || r.URL.Path != "/rate_limit" {
			t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		}
		want := ""
		if token != "" {
			want = "Bearer " + token
		}
		if got := r.Header.Get("Authorization"); got != want {
			t.Errorf("Authorization %q, want %q", got, want)
		}
		answer(w, n)
	})
}

func TestGitHubQuotaEnough(t *testing.T) {
	const tok = "ghs_quotaToken0123456789"
	srv := fakeGitHub(t, tok, func(w http.ResponseWriter, _ int64) { writeRateLimit(w, fullCore, fullSrch, fullGQL) })
	rep := filepath.Join(t.TempDir(), "r.json")
	r := newProc(t, "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN="+tok).run("github-quota", "--report", rep)
	if r.code != exitcode.OK || srv.hits.Load() != 1 || len(r.waits) != 0 {
		t.Fatalf("exit %d, %d requests, waits %v\n%s", r.code, srv.hits.Load(), r.waits, r.stderr)
	}
	want := "resource=core\nlimit=5000\nremaining=4999\nreset=2026-11-30T11:00:00Z\n"
	if r.stdout != want {
		t.Errorf("stdout %q, want %q", r.stdout, want)
	}
	got, raw := readReport(t, rep)
	if res := result(t, got); res["remaining"] != 4999.0 || res["resource"] != "core" || got.Kind != "github-quota" {
		t.Errorf("report:\n%s", raw)
	}
	b, _ := os.ReadFile(rep)
	if strings.Contains(r.stdout+r.stderr+string(b), tok) {
		t.Errorf("token printed")
	}

	// --token wins over GITHUB_TOKEN; other buckets are read from the same answer.
	srv2 := fakeGitHub(t, "flag-token-123", func(w http.ResponseWriter, _ int64) { writeRateLimit(w, fullCore, fullSrch, fullGQL) })
	r = newProc(t, "GITHUB_API_URL="+srv2.URL, "GITHUB_TOKEN="+tok).run("github-quota", "--token", "flag-token-123", "--resource", "search", "--min-remaining", "30")
	if r.code != exitcode.OK || !strings.Contains(r.stdout, "resource=search\nlimit=30\nremaining=30\n") {
		t.Errorf("search: exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
}

// answers serves the n-th request with the n-th function (the last repeats).
func answers(fs ...func(w http.ResponseWriter)) func(w http.ResponseWriter, n int64) {
	return func(w http.ResponseWriter, n int64) { fs[min(int(n), len(fs))-1](w) }
}

func quota(core bucket) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) { writeRateLimit(w, core, fullSrch, fullGQL) }
}

func badGateway(w http.ResponseWriter) { http.Error(w, "{}", http.StatusBadGateway) }

func TestGitHubQuotaLow(t *testing.T) {
	refilled := bucket{5000, 5000, testStart.Add(70 * time.Minute)}
	t.Run("waits for the reset within --max-wait and --retry-after-cap", func(t *testing.T) {
		srv := fakeGitHub(t, "", answers(quota(lowCore), quota(refilled)))
		rep := filepath.Join(t.TempDir(), "r.json")
		r := newProc(t, "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN=").run("github-quota", "--max-wait", "15m", "--retry-after-cap", "15m", "--report", rep)
		if r.code != exitcode.OK || srv.hits.Load() != 2 || !slices.Equal(r.waits, []time.Duration{10 * time.Minute}) {
			t.Fatalf("exit %d, %d requests, waits %v\n%s", r.code, srv.hits.Load(), r.waits, r.stderr)
		}
		// The wait is the loop's: its progress line names the quota, the reset and the wait.
		if !strings.Contains(r.stderr, "retrywise: attempt 1/4 failed (transient: GitHub core quota 5 of 5000 is under --min-remaining 100 until its reset at 2026-11-30T10:10:00Z); retrying in 10m0s") {
			t.Errorf("no wait line:\n%s", r.stderr)
		}
		if !strings.Contains(r.stdout, "remaining=5000\n") {
			t.Errorf("stdout %q: want the quota read after the reset", r.stdout)
		}
		got, raw := readReport(t, rep)
		if len(got.Attempts) != 2 || !strings.Contains(raw, "waited 10m0s for the core quota's reset at 2026-11-30T10:10:00Z") || !strings.Contains(raw, "no token") {
			t.Errorf("report:\n%s", raw)
		}
		if res := result(t, got); res["waited"] != "10m0s" || res["remaining"] != 5000.0 {
			t.Errorf("result %v, want waited 10m and the refilled quota", res)
		}
	})
	for _, maxWait := range []string{"0s", "5m"} {
		t.Run("reset beyond --max-wait "+maxWait+" stops at once", func(t *testing.T) {
			srv := fakeGitHub(t, "", func(w http.ResponseWriter, _ int64) { writeRateLimit(w, lowCore, fullSrch, fullGQL) })
			rep := filepath.Join(t.TempDir(), "r.json")
			r := newProc(t, "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN=").run("github-quota", "--max-wait", maxWait, "--retry-after-cap", "1h", "--report", rep)
			if r.code != exitcode.Transient || srv.hits.Load() != 1 || len(r.waits) != 0 {
				t.Fatalf("exit %d, %d requests, waits %v\n%s", r.code, srv.hits.Load(), r.waits, r.stderr)
			}
			got, raw := readReport(t, rep)
			if got.Stop != "cannot-retry-in-context" || !strings.Contains(got.Detail, "the reset at 2026-11-30T10:10:00Z is 10m0s away, over --max-wait") ||
				!strings.Contains(got.Reason, "core quota 5 of 5000 is under --min-remaining 100") {
				t.Errorf("report:\n%s", raw)
			}
			if res := result(t, got); res["remaining"] != 5.0 || res["waited"] != nil {
				t.Errorf("result %v, want the low read and no wait", res)
			}
			if !strings.Contains(r.stderr, "2026-11-30T10:10:00Z") || r.stdout != "resource=core\nlimit=5000\nremaining=5\nreset=2026-11-30T10:10:00Z\n" {
				t.Errorf("stdout %q; stderr lacks the reset time?\n%s", r.stdout, r.stderr)
			}
		})
	}
	t.Run("reset beyond --retry-after-cap within --max-wait stops", func(t *testing.T) {
		srv := fakeGitHub(t, "", answers(quota(lowCore), quota(refilled)))
		rep := filepath.Join(t.TempDir(), "r.json")
		r := newProc(t, "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN=").run("github-quota", "--max-wait", "15m", "--report", rep)
		got, raw := readReport(t, rep)
		if r.code != exitcode.Transient || srv.hits.Load() != 1 || len(r.waits) != 0 || got.Stop != "retry-after-over-cap" ||
			got.Detail != "the server asked to wait 10m0s, over the retry-after cap of 5m0s" {
			t.Fatalf("exit %d, %d requests, waits %v\n%s", r.code, srv.hits.Load(), r.waits, raw)
		}
	})
	t.Run("the wait counts against --max-elapsed", func(t *testing.T) {
		// A 502 first (the schedule's 1m wait), then the low quota: its reset,
		// 9m away, must fit in the same elapsed budget as the first wait.
		tests := []struct {
			maxElapsed string
			code       int
			waits      []time.Duration
			detail     string
		}{
			{"9m30s", exitcode.Transient, []time.Duration{time.Minute}, "waiting 9m0s more would cross the max elapsed time of 9m30s (1m0s spent)"},
			{"10m30s", exitcode.OK, []time.Duration{time.Minute, 9 * time.Minute}, ""},
		}
		for _, tt := range tests {
			srv := fakeGitHub(t, "", answers(badGateway, quota(lowCore), quota(refilled)))
			rep := filepath.Join(t.TempDir(), "r.json")
			r := newProc(t, "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN=").run("github-quota", "--schedule", "1m", "--max-attempts", "4", "--max-wait", "15m", "--retry-after-cap", "15m", "--max-elapsed", tt.maxElapsed, "--report", rep)
			got, raw := readReport(t, rep)
			if r.code != tt.code || !slices.Equal(r.waits, tt.waits) || int(srv.hits.Load()) != len(tt.waits)+1 || got.Detail != tt.detail {
				t.Errorf("--max-elapsed %s: exit %d, %d requests, waits %v\n%s", tt.maxElapsed, r.code, srv.hits.Load(), r.waits, raw)
			}
		}
	})
	t.Run("still low after the reset stops", func(t *testing.T) {
		again := bucket{5000, 3, testStart.Add(70 * time.Minute)}
		srv := fakeGitHub(t, "", answers(quota(lowCore), quota(again)))
		rep := filepath.Join(t.TempDir(), "r.json")
		r := newProc(t, "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN=").run("github-quota", "--max-wait", "15m", "--retry-after-cap", "2h", "--report", rep)
		if r.code != exitcode.Transient || srv.hits.Load() != 2 || !slices.Equal(r.waits, []time.Duration{10 * time.Minute}) {
			t.Fatalf("exit %d, %d requests, waits %v\n%s", r.code, srv.hits.Load(), r.waits, r.stderr)
		}
		got, raw := readReport(t, rep)
		if !strings.HasPrefix(got.Detail, "the quota had not refilled after waiting for its reset; the next reset at 2026-11-30T11:10:00Z is 1h0m0s away") {
			t.Errorf("report:\n%s", raw)
		}
		if res := result(t, got); res["waited"] != "10m0s" || res["remaining"] != 3.0 || r.stdout != "resource=core\nlimit=5000\nremaining=3\nreset=2026-11-30T11:10:00Z\n" {
			t.Errorf("stdout %q result %v, want the second read and the wait", r.stdout, res)
		}
	})
	t.Run("the schedule's wait is a floor under the reset", func(t *testing.T) {
		soon := bucket{5000, 5, testStart.Add(2 * time.Second)}
		srv := fakeGitHub(t, "", answers(quota(soon), quota(refilled)))
		r := newProc(t, "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN=").run("github-quota", "--max-wait", "1m")
		if r.code != exitcode.OK || !slices.Equal(r.waits, []time.Duration{10 * time.Second}) {
			t.Errorf("exit %d waits %v, want the scheduled 10s over the 2s reset\n%s", r.code, r.waits, r.stderr)
		}
	})
	t.Run("--resource selects the bucket", func(t *testing.T) {
		low := bucket{30, 2, testStart.Add(time.Minute)}
		srv := fakeGitHub(t, "", func(w http.ResponseWriter, _ int64) { writeRateLimit(w, fullCore, low, fullGQL) })
		p := newProc(t, "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN=")
		if r := p.run("github-quota", "--resource", "search", "--min-remaining", "10"); r.code != exitcode.Transient {
			t.Errorf("search low: exit %d\n%s", r.code, r.stderr)
		}
		if r := p.run("github-quota", "--resource", "graphql"); r.code != exitcode.OK {
			t.Errorf("graphql: exit %d\n%s", r.code, r.stderr)
		}
	})
}

// TestBinaryGitHubQuotaSIGTERMDuringResetWait runs the real binary: SIGTERM
// while it waits for a reset an hour away ends it at once with exit 143, the
// report and the bucket read.
func TestBinaryGitHubQuotaSIGTERMDuringResetWait(t *testing.T) {
	bin := buildBinary(t)
	srv := fakeGitHub(t, "", func(w http.ResponseWriter, _ int64) {
		writeRateLimit(w, bucket{5000, 5, time.Now().Add(time.Hour)}, fullSrch, fullGQL)
	})
	rep := filepath.Join(t.TempDir(), "r.json")
	cmd := exec.Command(bin, "github-quota", "--max-wait", "2h", "--retry-after-cap", "2h", "--max-elapsed", "3h", "--report", rep)
	cmd.Env = append(os.Environ(), "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN=")
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &stderr, "under --min-remaining 100 until its reset at")
	waitFor(t, &stderr, "retrying in ")
	terminate(t, cmd, &stderr)
	got, raw := readReport(t, rep)
	if got.Stop != "cancelled" || len(got.Attempts) != 1 || srv.hits.Load() != 1 {
		t.Errorf("%d requests; report:\n%s", srv.hits.Load(), raw)
	}
	if res := result(t, got); res["remaining"] != 5.0 || res["waited"] != nil {
		t.Errorf("result %v, want the low read and no completed wait", res)
	}
	if !strings.Contains(stdout.String(), "remaining=5\n") {
		t.Errorf("stdout %q, want the bucket read", stdout.String())
	}
}

// TestGitHubQuotaRateLimitedAnswers: GitHub's 429 (a plain *ErrorResponse in
// go-github v60) and its 403 rate-limit answers are transient with their reset.
func TestGitHubQuotaRateLimitedAnswers(t *testing.T) {
	limited := func(status int, headers map[string]string, body string) func(w http.ResponseWriter, n int64) {
		return func(w http.ResponseWriter, n int64) {
			if n == 1 {
				w.Header().Set("Date", testStart.Format(http.TimeFormat)) // the server's clock, which its reset is measured from
				for k, v := range headers {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				fmt.Fprint(w, body)
				return
			}
			writeRateLimit(w, fullCore, fullSrch, fullGQL)
		}
	}
	tests := []struct {
		name    string
		status  int
		headers map[string]string
		body    string
		waits   []time.Duration
	}{
		{"429 Retry-After", 429, map[string]string{"Retry-After": "3"}, `{"message":"Too Many Requests"}`, []time.Duration{3 * time.Second}},
		{"403 primary rate limit", 403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "5000", "X-RateLimit-Reset": fmt.Sprint(testStart.Add(time.Minute).Unix())},
			`{"message":"API rate limit exceeded for user ID 1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}`, []time.Duration{time.Minute}},
		{"403 secondary rate limit", 403, map[string]string{"Retry-After": "30"},
			`{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`, []time.Duration{30 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeGitHub(t, "", limited(tt.status, tt.headers, tt.body))
			r := newProc(t, "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN=").run("github-quota", "--schedule", "1s")
			if r.code != exitcode.OK || srv.hits.Load() != 2 || !slices.Equal(r.waits, tt.waits) {
				t.Fatalf("exit %d, %d requests, waits %v (want %v)\n%s", r.code, srv.hits.Load(), r.waits, tt.waits, r.stderr)
			}
			if !strings.Contains(r.stderr, "attempt 1/2 failed (transient: ") {
				t.Errorf("no progress line:\n%s", r.stderr)
			}
		})
	}
	// a reset two hours away is over the step's max elapsed (15m): policy,
	// exit 77, naming the reset; with a longer max elapsed it is a wait over
	// the Retry-After cap (exit 75)
	reset2h := limited(403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "60", "X-RateLimit-Reset": fmt.Sprint(testStart.Add(2 * time.Hour).Unix())},
		`{"message":"API rate limit exceeded for 127.0.0.1."}`)
	t.Run("reset beyond the max elapsed", func(t *testing.T) {
		srv := fakeGitHub(t, "", reset2h)
		rep := filepath.Join(t.TempDir(), "r.json")
		r := newProc(t, "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN=").run("github-quota", "--report", rep)
		got, raw := readReport(t, rep)
		if r.code != exitcode.Policy || srv.hits.Load() != 1 || got.Code != failure.CodeRateLimitWindow || !strings.Contains(got.Reason, "2026-11-30 12:00:00 UTC (in 2h)") || !strings.Contains(got.Remedy, "after 2026-11-30 12:00:00 UTC") {
			t.Errorf("exit %d, %d requests:\n%s", r.code, srv.hits.Load(), raw)
		}
	})
	t.Run("reset beyond the cap", func(t *testing.T) {
		srv := fakeGitHub(t, "", reset2h)
		rep := filepath.Join(t.TempDir(), "r.json")
		r := newProc(t, "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN=").run("github-quota", "--max-elapsed", "3h", "--report", rep)
		got, raw := readReport(t, rep)
		if r.code != exitcode.Transient || srv.hits.Load() != 1 || got.Stop != "retry-after-over-cap" || !strings.Contains(got.Detail, "asked to wait 2h0m0s") {
			t.Errorf("exit %d, %d requests:\n%s", r.code, srv.hits.Load(), raw)
		}
	})
}

func TestGitHubQuotaFailures(t *testing.T) {
	const tok = "ghp_secretQuotaToken42abcdef"
	t.Run("bad credentials are policy; the token is never printed", func(t *testing.T) {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"message":"Bad credentials (got %s)","documentation_url":"https://docs.github.com/rest"}`, r.Header.Get("Authorization"))
		})
		for _, args := range [][]string{{"github-quota"}, {"github-quota", "--token", tok + "-flag"}} {
			rep := filepath.Join(t.TempDir(), "r.json")
			r := newProc(t, "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN="+tok).run(append(args, "--report", rep)...)
			got, raw := readReport(t, rep) // fails when there is no report to check
			all := r.stdout + r.stderr + raw
			if r.code != exitcode.Policy || got.Class != failure.Policy || strings.Contains(all, tok) || !strings.Contains(raw, "bad credentials") {
				t.Errorf("%v: exit %d:\n%s", args, r.code, all)
			}
		}
	})
	t.Run("an outage opens the breaker after 3 requests", func(t *testing.T) {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) { http.Error(w, "{}", http.StatusBadGateway) })
		p := newProc(t, "GITHUB_API_URL="+srv.URL+"/api/v3", "GITHUB_TOKEN=")
		r := p.run("github-quota")
		if r.code != exitcode.Transient || srv.hits.Load() != 3 || !strings.Contains(r.stderr, "circuit breaker open for "+srv.key()) {
			t.Fatalf("exit %d, %d requests\n%s", r.code, srv.hits.Load(), r.stderr)
		}
		// http steps to the same host share the breaker: nothing more is sent.
		if r := p.run("http", srv.URL+"/api/v3/rate_limit"); r.code != exitcode.Transient || srv.hits.Load() != 3 {
			t.Errorf("http after the outage: exit %d, %d requests\n%s", r.code, srv.hits.Load(), r.stderr)
		}
	})
	t.Run("configuration and usage", func(t *testing.T) {
		p := newProc(t, "GITHUB_API_URL=ftp://example.com/")
		if r := p.run("github-quota"); r.code != exitcode.Config {
			t.Errorf("bad GITHUB_API_URL: exit %d\n%s", r.code, r.stderr)
		}
		for _, args := range [][]string{{"github-quota", "--resource", "actions"}, {"github-quota", "extra"}, {"github-quota", "--max-wait", "-1s"}} {
			if r := p.run(args...); r.code != exitcode.Usage {
				t.Errorf("%v: exit %d", args, r.code)
			}
		}
		r := p.run("github-quota", "--help")
		for _, want := range []string{"Usage: retrywise github-quota", "--token TOKEN", "--resource", "(default core)", "--min-remaining", "(default 100)", "--max-wait", "--breaker-threshold", "(default 3)", "--schedule", "(default 10s,20s,60s)", "--report"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("github-quota --help lacks %q:\n%s", want, r.stdout)
			}
		}
	})
}

// TestRunGitHubQuotaOptions runs github-quota from hand-built options: the
// token is the options' (the environment's GITHUB_TOKEN is not read), the
// API URL the environment's, the bucket read goes to stdout, and a 502 goes to the
// diagnose hook, whose denial stops the loop.
func TestRunGitHubQuotaOptions(t *testing.T) {
	const tok = "hand-built-token-123"
	srv := fakeGitHub(t, tok, answers(quota(lowCore), badGateway))
	var seen []*failure.Failure
	f, stdout, stderr, clk := testFactory(append(os.Environ(), "GITHUB_TOKEN=env-token-not-used", "GITHUB_API_URL="+srv.URL))
	f.diagnose = denyHook(&seen)
	opts := prepare(t, step.QuotaKind, "token", tok, "min-remaining", "3", "schedule", "1s")
	if code := runKind(context.Background(), f, opts); code != exitcode.OK || stdout.String() != "resource=core\nlimit=5000\nremaining=5\nreset=2026-11-30T10:10:00Z\n" {
		t.Fatalf("exit %d, stdout %q:\n%s", code, stdout, stderr)
	}
	if len(seen) != 0 || len(clk.Waits()) != 0 || srv.hits.Load() != 1 {
		t.Errorf("%d diagnoses, waits %v, %d requests after a passing read", len(seen), clk.Waits(), srv.hits.Load())
	}
	stderr.Reset()
	if code := runKind(context.Background(), f, opts); code != exitcode.Policy || len(seen) != 1 || len(clk.Waits()) != 0 || srv.hits.Load() != 2 {
		t.Fatalf("502: exit %d after %d diagnoses, waits %v, %d requests; want 77 after 1, none, 2:\n%s", code, len(seen), clk.Waits(), srv.hits.Load(), stderr)
	}
	mustContain(t, "stderr", stderr.String(), "reason:   the hook denies it")
	if strings.Contains(stdout.String()+stderr.String(), tok) {
		t.Errorf("the token leaked:\n%s%s", stdout, stderr)
	}
}
