//go:build bench

// Package bench is the side-by-side comparison that scripts/bench runs and
// docs/comparison.md shows: the same failures, served by a real
// Squid allowlist proxy, a real git http-backend with injected faults and
// local HTTP endpoints on 127.0.0.1, through retrywise and the peers users
// reach for today. Every count is taken at the proxy or the server. The build
// tag keeps it out of go test ./...; scripts/bench runs it with -tags bench.
package bench

import (
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/gittest"
	"github.com/retrywise/retrywise/internal/proxytest"
)

var (
	benchOut     = flag.String("bench-out", "", "write the Markdown table to this file (required)")
	scale        = flag.Float64("scale", 0.05, "multiply every schedule (2s,4s,8s,16s) by this factor")
	retrywiseBin = flag.String("retrywise", "", "the retrywise binary under test (required)")
	rhttpBin     = flag.String("retryablehttp", "", "the go-retryablehttp peer binary (bench/retryablehttp)")
	pushRuns     = flag.Int("push-runs", 25, "pushes per tool for the push timing (medians)")
	denialFull   = flag.Bool("denial-scale1", true, "also run the denial scenario at scale 1 for retrywise and the plain loop")
)

// Contender names, as the table shows them.
const (
	cRetrywise = "retrywise"
	cLoop      = "plain loop"
	cCurl      = "curl --retry"
	cRHTTP     = "go-retryablehttp"
	cGit       = "git push"
	cWrapper   = "Go wrapper of git push"
	// cFloor is the wrapper linking every library retrywise links, and
	// cFloorNoProm the same without client_golang: what the libraries cost
	// a Go program's start before any of retrywise's own code runs.
	cFloor       = "the wrapper + retrywise's libraries"
	cFloorNoProm = "the wrapper + the libraries but client_golang"
)

// slug is a contender's name in host names and paths.
var slug = map[string]string{cRetrywise: "rw", cLoop: "loop", cCurl: "curl", cRHTTP: "rhttp"}

// base is the schedule every contender is given at scale 1.
var base = []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}

// row is one (scenario, contender) line of the table.
type row struct {
	scenario, contender string
	requests            int
	took                time.Duration
	code                int
	right, cause        bool
	wasted              int // attempts on a failure that cannot succeed; -1 when not applicable
}

type result struct {
	out  string
	code int
	took time.Duration
}

func run(env []string, dir string, name string, args ...string) result {
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir = env, dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		out = append(out, []byte("\n"+err.Error())...)
	}
	return result{out: string(out), code: code, took: took}
}

func scaled(f float64) []time.Duration {
	s := make([]time.Duration, len(base))
	for i, d := range base {
		s[i] = time.Duration(float64(d) * f).Round(time.Millisecond)
	}
	return s
}

func scheduleFlag(s []time.Duration) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

// loopScript is the plain retry loop: the first attempt, then one more after
// each sleep of the schedule, whatever the failure.
func loopScript(s []time.Duration) string {
	sleeps := make([]string, len(s))
	for i, d := range s {
		sleeps[i] = strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
	}
	return `retry() { for d in ` + strings.Join(sleeps, " ") + `; do "$@" && return 0; sleep "$d"; done; "$@"; }` + "\n"
}

// curlDelay is curl's --retry-delay: curl 7.x takes whole seconds only, so the
// schedule's first wait rounded, at least 1 (0 would mean curl's own 1s,2s,4s... backoff).
func curlDelay(f float64) int {
	return max(1, int(base[0].Seconds()*f+0.5))
}

// counter counts requests per key at the local endpoints.
type counter struct {
	mu    sync.Mutex
	n     map[string]int
	first map[string]time.Time
	early map[string]int
}

func (c *counter) add(key string) (n int, first time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[key]++
	if c.first[key].IsZero() {
		c.first[key] = time.Now()
	}
	return c.n[key], c.first[key]
}

func (c *counter) get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

// retryAfter is what the 429 endpoint asks for; it is the server's, so it is
// not scaled (Retry-After counts whole seconds).
const retryAfter = time.Second

// guesses is the number of 404 lookups before the valid read.
const guesses = 5

// outageSteps is the number of steps that meet the 500 outage.
const outageSteps = 3

func endpoints(c *counter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// /SCENARIO/CONTENDER/REST
		parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 3)
		if len(parts) < 2 {
			http.NotFound(w, r)
			return
		}
		key := parts[0] + "/" + parts[1]
		n, first := c.add(key)
		rest := ""
		if len(parts) == 3 {
			rest = parts[2]
		}
		switch parts[0] {
		case "auth":
			w.Header().Set("WWW-Authenticate", `Bearer realm="bench"`)
			http.Error(w, `{"message":"Requires authentication"}`, http.StatusUnauthorized)
		case "guess":
			if rest == "read" {
				c.mu.Lock()
				c.early["read/"+parts[1]]++
				c.mu.Unlock()
				fmt.Fprintln(w, `{"value":42}`)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintln(w, `{"error":"not found"}`)
		case "outage":
			http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		case "ratelimit":
			if time.Since(first) < retryAfter {
				if n > 1 {
					c.mu.Lock()
					c.early[key]++
					c.mu.Unlock()
				}
				w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter.Seconds())))
				http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
				return
			}
			fmt.Fprintln(w, `{"ok":true}`)
		default:
			http.NotFound(w, r)
		}
	})
}

// gitFront sits in front of the gittest server and counts every request per
// repository, and the push attempts (GET info/refs?service=git-receive-pack).
type gitFront struct {
	mu       sync.Mutex
	requests map[string]int
	pushes   map[string]int
}

func (g *gitFront) handler(target string) http.Handler {
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		repo := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 2)[0]
		g.mu.Lock()
		g.requests[repo]++
		if strings.HasSuffix(r.URL.Path, "/info/refs") && r.URL.Query().Get("service") == "git-receive-pack" {
			g.pushes[repo]++
		}
		g.mu.Unlock()
		rp.ServeHTTP(w, r)
	})
}

func (g *gitFront) counts(repo string) (requests, pushes int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.requests[repo], g.pushes[repo]
}

// cause patterns: does the output name what went wrong?
var causes = map[string]*regexp.Regexp{
	"denied":    regexp.MustCompile(`(?i)allowlist|ERR_ACCESS_DENIED|access denied|proxy-denied`),
	"down":      regexp.MustCompile(`(?i)ERR_CONNECT_FAIL|connection refused|unreachable|upstream`),
	"auth":      regexp.MustCompile(`(?i)\b401\b|unauthori[sz]ed|credential`),
	"guess":     regexp.MustCompile(`(?i)\b404\b|absent|not found`),
	"outage":    regexp.MustCompile(`(?i)\b500\b|internal server error`),
	"ratelimit": regexp.MustCompile(`(?i)\b429\b|retry-after|rate.limit`),
	"push502":   regexp.MustCompile(`\b502\b`),
	"nonff":     regexp.MustCompile(`(?i)non-fast-forward|fetch first`),
	"protected": regexp.MustCompile(`(?i)GH006|protected branch`),
}

// TestBench runs every scenario through every contender and writes the table.
func TestBench(t *testing.T) {
	if *benchOut == "" || *retrywiseBin == "" {
		t.Fatal("run it with scripts/bench (it passes -bench-out and -retrywise)")
	}
	sched := scaled(*scale)
	loop := loopScript(sched)
	delay := strconv.Itoa(curlDelay(*scale))
	scaleArg := strconv.FormatFloat(*scale, 'f', -1, 64)
	contenders := []string{cRetrywise, cLoop, cCurl}
	if *rhttpBin != "" {
		contenders = append(contenders, cRHTTP)
	}
	var rows []row
	tmp := t.TempDir()

	// --- HTTP scenarios ---
	var downHosts []string
	for _, c := range contenders {
		downHosts = append(downHosts, "down-"+slug[c]+".allowed.test")
	}
	squid, err := proxytest.StartSquid(proxytest.SquidOptions{Hosts: downHosts})
	if err != nil {
		t.Fatal(err)
	}
	defer squid.Close()
	closed, err := proxytest.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	_, closedPort, _ := strings.Cut(closed, ":")
	cnt := &counter{n: map[string]int{}, first: map[string]time.Time{}, early: map[string]int{}}
	ep := httptest.NewServer(endpoints(cnt))
	defer ep.Close()

	baseEnv := gittest.Env(t) // no proxy variables, an isolated git configuration
	proxyEnv := append(slices.Clone(baseEnv), "http_proxy="+squid.URL, "HTTP_PROXY="+squid.URL)

	// runHTTP runs the URLs through contender c: every URL but the last may
	// fail; absentOK marks the 404 lookups for retrywise's job file.
	runHTTP := func(c string, env []string, urls []string, absentOK bool, s []time.Duration, loopS string) result {
		switch c {
		case cRetrywise:
			if len(urls) == 1 {
				return run(env, tmp, *retrywiseBin, "http", "--schedule", scheduleFlag(s), urls[0])
			}
			var b strings.Builder
			fmt.Fprintf(&b, "version: 1\ndefaults:\n  retry: {schedule: [%s]}\njobs:\n  bench:\n    steps:\n", strings.ReplaceAll(scheduleFlag(s), ",", ", "))
			for i, u := range urls {
				fmt.Fprintf(&b, "      - id: s%d\n", i+1)
				if i < len(urls)-1 && !absentOK {
					b.WriteString("        continue-on-error: true\n")
				}
				if i < len(urls)-1 && absentOK {
					fmt.Fprintf(&b, "        http: {url: %q, absent-ok: true}\n", u)
				} else {
					fmt.Fprintf(&b, "        http: {url: %q}\n", u)
				}
			}
			job := filepath.Join(tmp, fmt.Sprintf("job-%d.yml", time.Now().UnixNano()))
			if err := os.WriteFile(job, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			return run(env, tmp, *retrywiseBin, "run", "--config", job)
		case cLoop, cCurl:
			var b strings.Builder
			b.WriteString(loopS)
			for i, u := range urls {
				if c == cLoop {
					fmt.Fprintf(&b, "retry curl -fsS '%s'", u)
				} else {
					fmt.Fprintf(&b, "curl -fsS --retry 4 --retry-delay %s '%s'", delay, u)
				}
				if i < len(urls)-1 {
					b.WriteString(" || true")
				}
				b.WriteString("\n")
			}
			return run(env, tmp, "sh", "-c", b.String())
		case cRHTTP:
			return run(env, tmp, *rhttpBin, append([]string{"-scale", scaleArg}, urls...)...)
		}
		panic(c)
	}

	type httpScenario struct {
		name, key string
		proxied   bool
		urls      func(s string) []string
		absentOK  bool
		// judge returns the requests counted, right, wasted attempts (-1: n/a)
		judge func(s string, r result) (int, bool, int)
	}
	epKey := func(scn, s string) int { return cnt.get(scn + "/" + s) }
	scenarios := []httpScenario{
		{name: "proxy denies the host (Squid allowlist)", key: "denied", proxied: true,
			urls: func(s string) []string { return []string{"http://denied-" + s + ".bench.test/api"} },
			judge: func(s string, r result) (int, bool, int) {
				n, gets := squidCounts(squid, "denied-"+s+".bench.test")
				return n, r.code != 0 && gets == 1, gets - 1
			}},
		{name: "allowed host, upstream down (Squid 503)", key: "down", proxied: true,
			urls: func(s string) []string { return []string{"http://down-" + s + ".allowed.test:" + closedPort + "/api"} },
			judge: func(s string, r result) (int, bool, int) {
				n, gets := squidCounts(squid, "down-"+s+".allowed.test")
				return n, r.code != 0 && gets >= 2 && gets <= len(sched)+1, -1
			}},
		{name: "missing credentials (401)", key: "auth",
			urls: func(s string) []string { return []string{ep.URL + "/auth/" + s + "/user"} },
			judge: func(s string, r result) (int, bool, int) {
				n := epKey("auth", s)
				return n, r.code != 0 && n == 1, n - 1
			}},
		{name: fmt.Sprintf("%d × 404 guesses, then a valid read (one job)", guesses), key: "guess", absentOK: true,
			urls: func(s string) []string {
				var u []string
				for i := range guesses {
					u = append(u, fmt.Sprintf("%s/guess/%s/slug-%d", ep.URL, s, i))
				}
				return append(u, ep.URL+"/guess/"+s+"/read")
			},
			judge: func(s string, r result) (int, bool, int) {
				n := epKey("guess", s)
				cnt.mu.Lock()
				reads := cnt.early["read/"+s]
				cnt.mu.Unlock()
				return n, r.code == 0 && n == guesses+1 && reads == 1, n - guesses - 1
			}},
		{name: fmt.Sprintf("500 outage across %d steps (one job)", outageSteps), key: "outage",
			urls: func(s string) []string {
				var u []string
				for i := range outageSteps {
					u = append(u, fmt.Sprintf("%s/outage/%s/step-%d", ep.URL, s, i))
				}
				return u
			},
			judge: func(s string, r result) (int, bool, int) {
				n := epKey("outage", s)
				// right: the job fails, and the outage costs at most one step's schedule
				return n, r.code != 0 && n <= len(sched)+1, -1
			}},
		{name: "429 with Retry-After: 1", key: "ratelimit",
			urls: func(s string) []string { return []string{ep.URL + "/ratelimit/" + s + "/"} },
			judge: func(s string, r result) (int, bool, int) {
				n := epKey("ratelimit", s)
				cnt.mu.Lock()
				early := cnt.early["ratelimit/"+s]
				cnt.mu.Unlock()
				return n, r.code == 0 && early == 0, early
			}},
	}
	type pending struct {
		idx int
		sc  httpScenario
		s   string
		r   result
	}
	var proxied []pending
	for _, sc := range scenarios {
		for _, c := range contenders {
			env := baseEnv
			if sc.proxied {
				env = proxyEnv
			}
			s := slug[c]
			r := runHTTP(c, env, sc.urls(s), sc.absentOK, sched, loop)
			t.Logf("%s / %s: exit %d in %v\n%s", sc.name, c, r.code, r.took, tail(r.out))
			rows = append(rows, row{scenario: sc.name, contender: c, took: r.took, code: r.code, cause: causes[sc.key].MatchString(r.out)})
			if sc.proxied {
				proxied = append(proxied, pending{len(rows) - 1, sc, s, r})
				continue
			}
			rows[len(rows)-1].requests, rows[len(rows)-1].right, rows[len(rows)-1].wasted = sc.judge(s, r)
		}
	}
	// Squid writes a log line as a transaction ends, just after the client
	// saw the answer: count once, when every line is in.
	time.Sleep(500 * time.Millisecond)
	for _, p := range proxied {
		rows[p.idx].requests, rows[p.idx].right, rows[p.idx].wasted = p.sc.judge(p.s, p.r)
	}

	// --- the denial at scale 1, retrywise and the plain loop ---
	var full []row
	if *denialFull {
		s1 := scaled(1)
		for _, c := range []string{cRetrywise, cLoop} {
			host := "denied-full-" + slug[c] + ".bench.test"
			r := runHTTP(c, proxyEnv, []string{"http://" + host + "/api"}, false, s1, loopScript(s1))
			full = append(full, row{scenario: "proxy denies the host, at scale 1", contender: c, took: r.took, code: r.code,
				cause: causes["denied"].MatchString(r.out)})
			t.Logf("scale 1 denial / %s: exit %d in %v", c, r.code, r.took)
		}
		time.Sleep(500 * time.Millisecond)
		for i, c := range []string{cRetrywise, cLoop} {
			n, gets := squidCounts(squid, "denied-full-"+slug[c]+".bench.test")
			full[i].requests, full[i].right, full[i].wasted = n, full[i].code != 0 && gets == 1, gets-1
		}
	}

	// --- git scenarios ---
	genv := baseEnv
	srv := gittest.NewServer(t, genv)
	gf := &gitFront{requests: map[string]int{}, pushes: map[string]int{}}
	front := httptest.NewServer(gf.handler(srv.URL))
	defer front.Close()
	pushWith := func(c, work string) result {
		if c == cRetrywise {
			return run(genv, work, *retrywiseBin, "push", "--schedule", scheduleFlag(sched), "--", "origin", "HEAD:main")
		}
		return run(genv, work, "sh", "-c", loop+"retry git push origin HEAD:main\n")
	}
	gitContenders := []string{cRetrywise, cLoop}
	type gitScenario struct {
		name, key string
		setup     func(repo string) (work, bare string)
		judge     func(repo, work, bare string, r result) (bool, int)
	}
	gitScenarios := []gitScenario{
		{name: "push; the remote answers 502 twice", key: "push502",
			setup: func(repo string) (string, string) {
				u, bare := srv.NewRepo(t, repo+".git")
				_ = u
				work := gittest.NewWork(t, genv, front.URL+"/"+repo+".git")
				gittest.Git(t, genv, work, "push", "--quiet", "origin", "main")
				gittest.Commit(t, genv, work, "log.md", "entry\n", "log")
				return work, bare
			},
			judge: func(repo, work, bare string, r result) (bool, int) {
				return r.code == 0 && gittest.Rev(t, genv, bare, "refs/heads/main") == gittest.Rev(t, genv, work, "HEAD"), -1
			}},
		{name: "push rejected non-fast-forward", key: "nonff",
			setup: func(repo string) (string, string) {
				_, bare := srv.NewRepo(t, repo+".git")
				u := front.URL + "/" + repo + ".git"
				work := gittest.NewWork(t, genv, u)
				gittest.Git(t, genv, work, "push", "--quiet", "origin", "main")
				other := gittest.Clone(t, genv, u)
				gittest.Commit(t, genv, other, "other.md", "theirs\n", "theirs")
				gittest.Git(t, genv, other, "push", "--quiet", "origin", "main")
				gittest.Commit(t, genv, work, "log.md", "ours\n", "ours")
				return work, bare
			},
			judge: func(repo, work, bare string, r result) (bool, int) {
				_, p := gf.counts(repo + ".git")
				p -= 2 // the set-up's two pushes
				return r.code != 0 && p == 1, p - 1
			}},
		{name: "push to a protected branch (GH006 pre-receive)", key: "protected",
			setup: func(repo string) (string, string) {
				_, bare := srv.NewRepo(t, repo+".git")
				gittest.Hook(t, bare, "pre-receive", `echo "error: GH006: Protected branch update failed for refs/heads/main." >&2
echo "error: Changes must be made through a pull request." >&2
exit 1
`)
				work := gittest.NewWork(t, genv, front.URL+"/"+repo+".git")
				return work, bare
			},
			judge: func(repo, work, bare string, r result) (bool, int) {
				_, p := gf.counts(repo + ".git")
				return r.code != 0 && p == 1, p - 1
			}},
	}
	for _, sc := range gitScenarios {
		for _, c := range gitContenders {
			repo := sc.key + "-" + slug[c]
			work, bare := sc.setup(repo)
			before, _ := gf.counts(repo + ".git")
			if sc.key == "push502" {
				srv.Inject(gittest.Status502, 2)
			}
			r := pushWith(c, work)
			after, _ := gf.counts(repo + ".git")
			right, wasted := sc.judge(repo, work, bare, r)
			t.Logf("%s / %s: exit %d in %v\n%s", sc.name, c, r.code, r.took, tail(r.out))
			rows = append(rows, row{scenario: sc.name, contender: c, requests: after - before, took: r.took, code: r.code,
				right: right, cause: causes[sc.key].MatchString(r.out), wasted: wasted})
		}
	}

	// --- push on success: retrywise push vs git push vs the smallest Go wrapper ---
	wrapper, floor, floorNoProm := buildWrappers(t, tmp)
	speedURL, _ := srv.NewRepo(t, "speed.git")
	work := gittest.NewWork(t, genv, speedURL)
	gittest.Git(t, genv, work, "push", "--quiet", "origin", "main")
	tools := []string{cGit, cWrapper, cRetrywise, cFloor, cFloorNoProm}
	commits := make([]string, len(tools)*(*pushRuns+1))
	for i := range commits {
		commits[i] = gittest.Commit(t, genv, work, "n.txt", strconv.Itoa(i)+"\n", "bench")
	}
	times := map[string][]time.Duration{}
	next := 0
	for j := 0; j <= *pushRuns; j++ {
		for k := range tools {
			tool := tools[(j+k)%len(tools)] // rotate, so that no tool always goes first
			ref := commits[next] + ":refs/heads/main"
			next++
			var r result
			switch tool {
			case cGit:
				r = run(genv, work, "git", "push", "origin", ref)
			case cWrapper:
				r = run(genv, work, wrapper, "origin", ref)
			case cFloor:
				r = run(genv, work, floor, "origin", ref)
			case cFloorNoProm:
				r = run(genv, work, floorNoProm, "origin", ref)
			default:
				r = run(genv, work, *retrywiseBin, "push", "--", "origin", ref)
			}
			if r.code != 0 {
				t.Fatalf("%s: exit %d\n%s", tool, r.code, r.out)
			}
			if j > 0 { // the first round warms caches
				times[tool] = append(times[tool], r.took)
			}
		}
	}
	med := map[string]time.Duration{}
	for _, tool := range tools {
		med[tool] = median(times[tool])
	}

	// --- the table ---
	var b strings.Builder
	fmt.Fprintf(&b, "Scale %s: every schedule is 2s,4s,8s,16s × %s = %s (the plain loop's sleeps, retrywise --schedule); curl gets `--retry 4 --retry-delay %s` (curl %s takes whole seconds); go-retryablehttp its default policy (RetryMax 4) with RetryWaitMin 1s × %s, RetryWaitMax 30s × %s.\n\n",
		scaleArg, scaleArg, scheduleFlag(sched), delay, curlVersion(), scaleArg, scaleArg)
	b.WriteString("| scenario | contender | requests at the proxy/server | seconds to verdict | exit | right | cause named | wasted attempts |\n|---|---|---:|---:|---:|---|---|---:|\n")
	ok := true
	wasted := map[string]int{}
	for _, r := range append(rows, full...) {
		w := "–"
		if r.wasted >= 0 {
			w = strconv.Itoa(r.wasted)
			wasted[r.contender] += r.wasted
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %.3f | %d | %s | %s | %s |\n", r.scenario, r.contender, r.requests, r.took.Seconds(), r.code, yn(r.right), yn(r.cause), w)
		if r.contender == cRetrywise && !r.right {
			ok = false
			t.Errorf("retrywise is wrong on %q", r.scenario)
		}
	}
	perPush := 0
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Path, "/speed.git/") {
			perPush++
		}
	}
	perPush /= len(tools)*(*pushRuns+1) + 1 // the set-up's push included
	for _, tool := range tools {
		fmt.Fprintf(&b, "| push that succeeds (median of %d) | %s | %d | %.3f | 0 | yes | – | – |\n", *pushRuns, tool, perPush, med[tool].Seconds())
	}
	b.WriteString("\nRequests are counted where they arrive: Squid's access-log lines, the http-backend front's counter, the endpoint's counter; retrywise's one extra request on a Squid denial is its HEAD probe confirming the denial, not a retry. Wasted attempts are repeats of a request that cannot succeed.\n\nRatios (same run):\n\n")
	verdict := func(rs []row, label string) {
		var rw, lp time.Duration
		for _, r := range rs {
			if strings.HasPrefix(r.scenario, "proxy denies") {
				switch r.contender {
				case cRetrywise:
					rw = r.took
				case cLoop:
					lp = r.took
				}
			}
		}
		if rw > 0 && lp > 0 {
			fmt.Fprintf(&b, "- time to the policy verdict (proxy denial), %s: plain loop %.3f s / retrywise %.3f s = **%.0f× sooner**\n", label, lp.Seconds(), rw.Seconds(), float64(lp)/float64(rw))
		}
	}
	if len(full) > 0 {
		verdict(full, "at scale 1 (2+4+8+16 s schedule)")
	}
	verdict(rows, "at scale "+scaleArg)
	b.WriteString("- attempts wasted on failures that cannot succeed (denial, 401, 404 guesses, 429 inside its window, non-fast-forward, protected branch), summed:")
	var sums []string
	for _, c := range contenders {
		sums = append(sums, fmt.Sprintf("%s %d", c, wasted[c]))
	}
	b.WriteString(" " + strings.Join(sums, ", ") + "\n")
	fmt.Fprintf(&b, "- push that succeeds: retrywise push %.1f ms, git push %.1f ms, smallest Go wrapper of git push %.1f ms: retrywise / wrapper = **%.3f×** (target ≤ 1.05), retrywise / git push = %.3f×\n",
		ms(med[cRetrywise]), ms(med[cGit]), ms(med[cWrapper]), float64(med[cRetrywise])/float64(med[cWrapper]), float64(med[cRetrywise])/float64(med[cGit]))
	fmt.Fprintf(&b, "- the floor of that target: the wrapper linking every library retrywise links (blank imports, nothing called) %.1f ms = **%.3f×** the wrapper; without client_golang and what only it brings %.1f ms = %.3f×; retrywise / that floor = %.3f× (what retrywise's own code costs)\n",
		ms(med[cFloor]), float64(med[cFloor])/float64(med[cWrapper]), ms(med[cFloorNoProm]), float64(med[cFloorNoProm])/float64(med[cWrapper]), float64(med[cRetrywise])/float64(med[cFloor]))
	b.WriteString("- peers run: plain loop (sh + curl -fsS; around git push for git), curl --retry")
	if *rhttpBin != "" {
		b.WriteString(", go-retryablehttp v0.7.8")
	}
	b.WriteString("; Node: not run (Node's built-in fetch ignores HTTP_PROXY, so it cannot meet the Squid scenarios without an npm agent)\n")
	if err := os.WriteFile(*benchOut, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fail()
	}
}

// buildWrappers builds, as retrywise is released (static, -trimpath), the
// smallest Go wrapper of git push and the two floors: the wrapper with a
// blank import of every library retrywise links, and of all of them but
// client_golang and what only it brings (gittest.PushFloorSource).
func buildWrappers(t *testing.T, dir string) (wrapper, floor, floorNoProm string) {
	libs, noProm, err := gittest.FloorLibraries(".")
	if err != nil {
		t.Fatal(err)
	}
	build := func(name, src string) string {
		path := filepath.Join(dir, name+".go")
		bin := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "build", "-trimpath", "-o", bin, path)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", name, err, out)
		}
		return bin
	}
	return build("wrapper", gittest.PushWrapperSource), build("floor", gittest.PushFloorSource(libs)), build("floor-noprom", gittest.PushFloorSource(noProm))
}

func curlVersion() string {
	out, err := exec.Command("curl", "--version").Output()
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(out))
	if len(f) < 2 {
		return "?"
	}
	return f[1]
}

// squidCounts returns the access-log lines for host: all of them, and the
// GETs (the attempts; a HEAD is retrywise's probe confirming a denial).
func squidCounts(s *proxytest.Squid, host string) (all, gets int) {
	all, _ = s.CountLog(host)
	gets, _ = s.CountLog(" GET http://" + host)
	return all, gets
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func yn(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 12 {
		lines = lines[len(lines)-12:]
	}
	return strings.Join(lines, "\n")
}
