package demo_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/retrywise/retrywise/internal/cli"
	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/demo"
	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/expand"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/proxytest"
)

// start starts a world in a fresh folder; it is closed when the test ends.
func start(t *testing.T) *demo.World {
	t.Helper()
	w, err := demo.Start(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// direct is a client that never uses a proxy and keeps no connection.
func direct() *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
}

func get(t *testing.T, c *http.Client, u string) (int, http.Header, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

func TestFlakyAnswers503Twice(t *testing.T) {
	t.Parallel()
	w := start(t)
	c := direct()
	var got []int
	var body string
	for range 4 {
		st, _, b := get(t, c, w.FlakyURL)
		got, body = append(got, st), b
	}
	if want := []int{503, 503, 200, 200}; !slices.Equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	if strings.TrimSpace(body) != `{"published": 3}` {
		t.Errorf("body %q", body)
	}
	if n := w.FlakyHits(); n != 4 {
		t.Errorf("FlakyHits() = %d, want 4", n)
	}
	if f := failure.Classify(failure.Input{Status: 503, Text: `{"error":"service unavailable","status":503}`}); f.Class != failure.Transient {
		t.Errorf("503 classified %v, want transient", f.Class)
	}
}

func TestLookupAnswers404(t *testing.T) {
	t.Parallel()
	w := start(t)
	st, h, body := get(t, direct(), w.LookupURL)
	if st != 404 || strings.TrimSpace(body) != `{"error":"not found","status":404}` || h.Get("Content-Type") != "application/json" {
		t.Fatalf("got %d %q %q", st, h.Get("Content-Type"), body)
	}
	if !strings.HasSuffix(w.LookupURL, "/articles/by-slug/hello-world") {
		t.Errorf("LookupURL %s", w.LookupURL)
	}
	if f := failure.Classify(failure.Input{Status: st, Header: h, Text: body}); f.Class != failure.Absent {
		t.Errorf("404 classified %v %s, want absent", f.Class, f.Code)
	}
}

// TestProxyDenialIsPolicy: the real prober reads the proxy's answer to
// CONNECT (https) and to an absolute-form HEAD (http) as a Squid denial, and
// Go's client with the HTTP step's CONNECT capture fails with a policy failure.
func TestProxyDenialIsPolicy(t *testing.T) {
	t.Parallel()
	w := start(t)
	if !strings.HasPrefix(w.DeniedURL, "https://"+demo.DeniedHost+"/") {
		t.Fatalf("DeniedURL %s", w.DeniedURL)
	}
	p, err := egress.New(egress.Options{Env: []string{"HTTPS_PROXY=" + w.ProxyURL, "HTTP_PROXY=" + w.ProxyURL}})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{w.DeniedURL, "http://" + demo.DeniedHost + demo.DeniedPath} {
		tg, err := egress.ParseTarget(target)
		if err != nil {
			t.Fatal(err)
		}
		r := p.Probe(context.Background(), tg)
		if r.Verdict != egress.Denied || r.Dialect != failure.DialectSquid || r.ProxyError != "ERR_ACCESS_DENIED" || r.Code != failure.CodeProxyDenied {
			t.Errorf("%s: verdict %v dialect %q error %q code %q: %s", target, r.Verdict, r.Dialect, r.ProxyError, r.Code, r.Reason)
		}
		if f := r.Failure(); f == nil || f.Class != failure.Policy {
			t.Errorf("%s: failure %v, want policy", target, f)
		}
		if want := tg.Addr() + " is not on the egress allowlist of proxy " + strings.TrimPrefix(w.ProxyURL, "http://") + " (Squid ERR_ACCESS_DENIED)"; r.Reason != want {
			t.Errorf("%s: reason %q, want %q", target, r.Reason, want)
		}
	}

	// Go's client, as the HTTP step builds it: the CONNECT refusal is captured.
	pu, _ := url.Parse(w.ProxyURL)
	tr := &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}
	egress.CaptureConnect(tr)
	_, err = (&http.Client{Transport: tr}).Get(w.DeniedURL)
	f := failure.FromError(err)
	var ce *egress.ConnectError
	if f.Class != failure.Policy || f.Code != failure.CodeProxyDenied || !errors.As(f, &ce) || ce.Answer.Header.Get("X-Squid-Error") != "ERR_ACCESS_DENIED 0" {
		t.Errorf("GET through the proxy: %v (%s %s), want policy proxy-denied with the Squid answer", err, f.Class, f.Code)
	}

	// The plain-http answer, classified as an HTTP answer.
	pc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}}
	st, h, body := get(t, pc, "http://"+demo.DeniedHost+demo.DeniedPath)
	if hf := failure.Classify(failure.Input{Status: st, Header: h, Text: body}); hf.Class != failure.Policy || hf.Code != failure.CodeProxyDenied || !hf.Trace.Proxy {
		t.Errorf("plain-http answer %d classified %s %s", st, hf.Class, hf.Code)
	}
	if n := w.ProxyRequests(demo.DeniedHost); n != 4 {
		t.Errorf("ProxyRequests(%s) = %d, want 4 (two probes, two GETs)", demo.DeniedHost, n)
	}
}

// TestProxyOtherAnswers: any other host is 502 and never dialled; the status
// endpoint is 404, so a probe falls back to the answer itself.
func TestProxyOtherAnswers(t *testing.T) {
	t.Parallel()
	w := start(t)
	pu, _ := url.Parse(w.ProxyURL)
	pc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}}
	if st, h, _ := get(t, pc, "http://elsewhere.demo.test/x"); st != 502 || h.Get("X-Squid-Error") != "" {
		t.Errorf("other host: %d %v", st, h)
	}
	if st, _, _ := get(t, direct(), w.ProxyURL+egress.StatusPath); st != 404 {
		t.Errorf("status endpoint: %d, want 404", st)
	}
	if n := w.ProxyRequests("elsewhere.demo.test:80"); n != 1 {
		t.Errorf("ProxyRequests(elsewhere) = %d, want 1", n)
	}
	if n := w.ProxyRequests(demo.DeniedHost); n != 0 {
		t.Errorf("ProxyRequests(%s) = %d, want 0", demo.DeniedHost, n)
	}
}

// rawAnswer sends req to proxy addr and returns the answer with its whole body.
func rawAnswer(t *testing.T, addr, req string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	method, _, _ := strings.Cut(req, " ")
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: method})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// footer is the part of Squid's page that names the time, the host and the version.
var footer = regexp.MustCompile(`<p>Generated [^<]* by [^<]* \(squid/[0-9.]+\)</p>`)

// TestProxyAnswersLikeSquid: a real Squid denying the same host answers the
// same status, the same Squid headers and the same page (but for its footer),
// and retrywise reads both answers the same way.
func TestProxyAnswersLikeSquid(t *testing.T) {
	t.Parallel()
	sq, err := proxytest.StartSquid(proxytest.SquidOptions{})
	if err != nil {
		t.Fatalf("this test compares with a real Squid: %v", err)
	}
	defer sq.Close()
	w := start(t)
	demoAddr := strings.TrimPrefix(w.ProxyURL, "http://")
	h := demo.DeniedHost
	for _, req := range []string{
		"CONNECT " + h + ":443 HTTP/1.1\r\nHost: " + h + ":443\r\nUser-Agent: Go-http-client/1.1\r\n\r\n",
		"GET http://" + h + demo.DeniedPath + " HTTP/1.1\r\nHost: " + h + "\r\nUser-Agent: Go-http-client/1.1\r\nConnection: close\r\n\r\n",
	} {
		method, _, _ := strings.Cut(req, " ")
		real, realBody := rawAnswer(t, sq.Addr, req)
		ours, ourBody := rawAnswer(t, demoAddr, req)
		if real.StatusCode != ours.StatusCode || real.Status != ours.Status {
			t.Errorf("%s: status %q, Squid's %q", method, ours.Status, real.Status)
		}
		for _, k := range []string{"X-Squid-Error", "Mime-Version", "Content-Type", "Vary", "Content-Language"} {
			if ours.Header.Get(k) != real.Header.Get(k) {
				t.Errorf("%s: %s: %q, Squid's %q", method, k, ours.Header.Get(k), real.Header.Get(k))
			}
		}
		for k := range real.Header {
			if _, ok := ours.Header[k]; !ok && k != "Connection" { // hop-by-hop: net/http's to manage
				t.Errorf("%s: header %s missing (Squid sends %q)", method, k, real.Header.Get(k))
			}
		}
		if ours.Header.Get("Server") != demo.SquidServer {
			t.Errorf("%s: Server %q", method, ours.Header.Get("Server"))
		}
		if a, b := footer.ReplaceAll(ourBody, nil), footer.ReplaceAll(realBody, nil); !bytes.Equal(a, b) || len(a) == len(ourBody) {
			t.Errorf("%s: page differs from Squid's (or has no footer):\n--- ours\n%s\n--- Squid's\n%s", method, ourBody, realBody)
		}
		read := func(r *http.Response, body []byte) failure.ProxyReading {
			return failure.ReadProxyAnswer(failure.ProxyAnswer{Method: method, Status: r.StatusCode, Reason: "Forbidden", Header: r.Header, Body: body})
		}
		rr, ro := read(real, realBody), read(ours, ourBody)
		if ro.Verdict != failure.ProxyDenied || ro.Verdict != rr.Verdict || ro.Dialect != rr.Dialect || ro.Code != rr.Code || ro.Failure.Code != rr.Failure.Code || ro.Failure.Class != failure.Policy {
			t.Errorf("%s: read as %v/%s/%s, Squid's as %v/%s/%s", method, ro.Verdict, ro.Dialect, ro.Code, rr.Verdict, rr.Dialect, rr.Code)
		}
	}
}

// isolatedGit is an environment for git without the user's configuration.
func isolatedGit(t *testing.T) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(strings.ToUpper(kv), "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
}

func git(t *testing.T, env []string, dir string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	}
	t.Fatalf("git %v: %v", args, err)
	return "", 0
}

func TestPushIsRejectedNonFastForward(t *testing.T) {
	t.Parallel()
	w := start(t)
	env := isolatedGit(t)
	before, _ := git(t, env, w.Origin, "rev-parse", "main")
	if out, _ := git(t, env, w.Repo, "log", "--format=%s", "origin/main..HEAD"); strings.TrimSpace(out) != "log: 2026-12-01" {
		t.Errorf("commits to push: %q, want the one log commit", out)
	}
	if out, _ := git(t, env, w.Repo, "show", "--name-only", "--format=", "HEAD"); strings.TrimSpace(out) != demo.LogFile {
		t.Errorf("HEAD adds %q, want %s", out, demo.LogFile)
	}
	for _, args := range [][]string{{"push", "origin", "HEAD:main"}, {"push", "--porcelain", "origin", "HEAD:main"}} {
		out, code := git(t, env, w.Repo, args...)
		if code == 0 {
			t.Fatalf("git %v succeeded:\n%s", args, out)
		}
		f := failure.FromText(failure.ToolGit, out, code)
		if f.Code != failure.CodeGitNonFastForward || f.Class != failure.Structural {
			t.Errorf("git %v: classified %s %s, want structural %s\n%s", args, f.Class, f.Code, failure.CodeGitNonFastForward, out)
		}
	}
	if after, _ := git(t, env, w.Origin, "rev-parse", "main"); after != before {
		t.Errorf("origin's main moved: %s → %s", before, after)
	}
	if out, _ := git(t, env, w.Repo, "status", "--porcelain"); out != "" {
		t.Errorf("work tree not clean: %q", out)
	}
}

// refs returns the ${NAME} references of text.
func refs(text string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`\$\{([^}]*)\}`).FindAllStringSubmatch(text, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// strs returns every string scalar in a decoded YAML value.
func strs(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, strs(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for k, e := range v {
			out = append(append(out, k), strs(e)...)
		}
		return out
	}
	return nil
}

func TestConfig(t *testing.T) {
	t.Parallel()
	w := start(t)
	cfg := demo.Config()
	var doc struct {
		Version  int `yaml:"version"`
		Defaults struct {
			Retry struct {
				Schedule   []string `yaml:"schedule"`
				MaxElapsed string   `yaml:"max-elapsed"`
				Jitter     float64  `yaml:"jitter"`
			} `yaml:"retry"`
		} `yaml:"defaults"`
		Jobs map[string]struct {
			Steps []map[string]any `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.UnmarshalWithOptions(cfg, &doc, yaml.Strict()); err != nil {
		t.Fatalf("Config() is not the expected YAML: %v", err)
	}
	if doc.Version != 1 || !slices.Equal(doc.Defaults.Retry.Schedule, []string{"200ms", "400ms"}) || doc.Defaults.Retry.MaxElapsed != "1m" || doc.Defaults.Retry.Jitter != 0 {
		t.Errorf("version %d, retry %+v", doc.Version, doc.Defaults.Retry)
	}
	var ids, kinds []string
	for _, s := range doc.Jobs["demo"].Steps {
		ids = append(ids, s["id"].(string))
		for _, k := range []string{"http", "push"} {
			if _, ok := s[k]; ok {
				kinds = append(kinds, k)
			}
		}
	}
	if len(doc.Jobs) != 1 || !slices.Equal(ids, []string{"recover", "lookup", "denied", "push-log"}) || !slices.Equal(kinds, []string{"http", "http", "http", "push"}) {
		t.Errorf("jobs %d, steps %v kinds %v", len(doc.Jobs), ids, kinds)
	}

	// Every reference, comments included, is a DEMO_* variable the world sets,
	// and every variable the world sets is used.
	var set []string
	for _, kv := range w.Env {
		k, _, _ := strings.Cut(kv, "=")
		set = append(set, k)
	}
	used := refs(string(cfg))
	slices.Sort(used)
	slices.Sort(set)
	if !slices.Equal(used, set) {
		t.Errorf("the file references %v, the world sets %v", used, set)
	}
	if bytes.Contains(cfg, []byte("://")) || bytes.Contains(cfg, []byte("localhost")) {
		t.Errorf("the file names an address of its own; it must use the DEMO_* variables only")
	}
	// Expanded, every value reaches only 127.0.0.1, the denied host through the proxy, or dir.
	var all any
	if err := yaml.Unmarshal(cfg, &all); err != nil {
		t.Fatal(err)
	}
	for _, s := range strs(all) {
		v, err := expand.String(s, expand.EnvLookup(w.Env))
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if u, err := url.Parse(v); err == nil && u.Host != "" && u.Hostname() != "127.0.0.1" && u.Hostname() != demo.DeniedHost {
			t.Errorf("%q expands to %s", s, v)
		}
	}
	if got := demo.Config(); &got[0] == &cfg[0] {
		t.Error("Config() returns the embedded bytes themselves")
	}
}

func TestEnvAndDescribe(t *testing.T) {
	t.Parallel()
	w := start(t)
	want := map[string]string{
		demo.EnvFlakyURL: w.FlakyURL, demo.EnvLookupURL: w.LookupURL, demo.EnvProxyURL: w.ProxyURL,
		demo.EnvDeniedURL: w.DeniedURL, demo.EnvRepo: w.Repo,
	}
	for k, v := range want {
		if got, ok := environ.Lookup(w.Env, k); !ok || got != v || v == "" {
			t.Errorf("Env %s = %q, want %q", k, got, v)
		}
	}
	for _, u := range []string{w.FlakyURL, w.LookupURL, w.ProxyURL} {
		if p, err := url.Parse(u); err != nil || p.Hostname() != "127.0.0.1" {
			t.Errorf("%s is not on 127.0.0.1", u)
		}
	}
	d := w.Describe()
	if len(d) != 4 {
		t.Fatalf("Describe() = %d lines, want 4", len(d))
	}
	for i, part := range []string{w.FlakyURL, w.LookupURL, w.ProxyURL, w.Repo} {
		if !strings.Contains(d[i], part) || strings.Contains(d[i], "\n") {
			t.Errorf("line %d %q does not name %s", i, d[i], part)
		}
	}
}

// TestStartRefusesAUsedDirectory: a failed Start stops what it started. Not
// parallel: it inspects every goroutine.
func TestStartRefusesAUsedDirectory(t *testing.T) {
	dir := t.TempDir()
	w, err := demo.Start(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if w2, err := demo.Start(context.Background(), dir); err == nil {
		w2.Close()
		t.Fatal("a second world in the same folder started")
	}
	noWorldGoroutines(t)
}

// TestCloseLeavesNothing: after Close nothing listens, no server loop or
// handler of the world runs, and Close may be called again. Not parallel:
// it inspects every goroutine.
func TestCloseLeavesNothing(t *testing.T) {
	w, err := demo.Start(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// open connections to every server, one kept idle
	keep := &http.Client{Transport: &http.Transport{Proxy: nil}}
	get(t, keep, w.FlakyURL)
	get(t, keep, w.LookupURL)
	idle, err := net.Dial("tcp", strings.TrimPrefix(w.ProxyURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	w.Close()
	w.Close()
	keep.CloseIdleConnections()
	for _, u := range []string{w.FlakyURL, w.LookupURL, w.ProxyURL} {
		p, _ := url.Parse(u)
		if c, err := net.DialTimeout("tcp", p.Host, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections after Close", p.Host)
		}
	}
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := idle.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("an open connection to the proxy was not closed: %v", err)
	}
	noWorldGoroutines(t)
}

// noWorldGoroutines fails when a server loop or a handler of a world runs.
// Only tests that are not parallel call it.
func noWorldGoroutines(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, "net/http.(*Server).Serve(") || strings.Contains(g, "internal/demo.(*") {
			t.Errorf("a goroutine of the world is left:\n%s", g)
		}
	}
}

// run runs the CLI in-process with a fake clock that fires every wait at once.
func run(t *testing.T, env []string, args ...string) (int, string, string, *clock.Fake) {
	t.Helper()
	var out, errb bytes.Buffer
	clk := clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), true)
	// The middle draw of jitter: every wait is its scheduled one.
	c := &cli.Command{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Env: env, Clock: clk, Version: "test", Rand: func() float64 { return 0.5 }}
	code := c.Main(context.Background(), append([]string{"retrywise"}, args...))
	return code, out.String(), errb.String(), clk
}

// TestStepsThroughTheCLI runs each step of the job file as its command: the
// world makes each fail the way its comment says.
func TestStepsThroughTheCLI(t *testing.T) {
	t.Parallel()
	w := start(t)
	env := append(isolatedGit(t), w.Env...)
	env = slices.DeleteFunc(env, func(kv string) bool {
		u := strings.ToUpper(kv)
		return strings.HasPrefix(u, "HTTPS_PROXY=") || strings.HasPrefix(u, "HTTP_PROXY=") || strings.HasPrefix(u, "NO_PROXY=") || strings.HasPrefix(u, "ALL_PROXY=")
	})

	code, out, errs, clk := run(t, env, "http", "--schedule", "200ms,400ms", "--field", "published=.published", w.FlakyURL)
	if code != exitcode.OK || !slices.Equal(clk.Waits(), []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}) || !strings.Contains(out, "3") {
		t.Errorf("recover: exit %d waits %v stdout %q\n%s", code, clk.Waits(), out, errs)
	}

	code, out, errs, clk = run(t, env, "http", "--absent-ok", w.LookupURL)
	if code != exitcode.OK || len(clk.Waits()) != 0 {
		t.Errorf("lookup: exit %d waits %v stdout %q\n%s", code, clk.Waits(), out, errs)
	}

	proxyEnv := append(slices.Clone(env), "HTTPS_PROXY="+w.ProxyURL, "HTTP_PROXY="+w.ProxyURL)
	code, _, errs, clk = run(t, proxyEnv, "http", "--schedule", "200ms,400ms", w.DeniedURL)
	proxyAddr := strings.TrimPrefix(w.ProxyURL, "http://")
	if code != exitcode.Policy || len(clk.Waits()) != 0 || !strings.Contains(errs, demo.DeniedHost+":443 is not on the egress allowlist of proxy "+proxyAddr+" (Squid ERR_ACCESS_DENIED)") {
		t.Errorf("denied: exit %d waits %v\n%s", code, clk.Waits(), errs)
	}
	if n := w.ProxyRequests(demo.DeniedHost); n != 1 {
		t.Errorf("denied: %d requests reached the proxy, want 1 (no retry)", n)
	}

	code, _, errs, clk = run(t, env, "push", "--schedule", "200ms,400ms", "--dir", w.Repo, "--", "origin", "HEAD:main")
	if code != exitcode.Structural || len(clk.Waits()) != 0 || !strings.Contains(errs, string(failure.CodeGitNonFastForward)) {
		t.Errorf("push-log: exit %d waits %v\n%s", code, clk.Waits(), errs)
	}
}
