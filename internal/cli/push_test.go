package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/gittest"
	"github.com/retrywise/retrywise/internal/step"
)

// runPushCLI runs `retrywise push` in-process with exactly env (no inherited
// git settings) and a fake clock that fires every wait at once.
func runPushCLI(t *testing.T, env []string, args ...string) run {
	t.Helper()
	var out, errb bytes.Buffer
	clk := clock.NewFake(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true)
	c := &Command{Stdout: &out, Stderr: &errb, Env: env, Clock: clk, Version: "test", Rand: noJitter}
	code := c.Main(context.Background(), append([]string{"retrywise", "push"}, args...))
	return run{code, out.String(), errb.String(), clk}
}

// pushFixture is a repository served over smart HTTP and a work clone with
// one commit to push.
type pushFixture struct {
	srv  *gittest.Server
	url  string
	work string
	env  []string
}

func newPushFixture(t *testing.T) pushFixture {
	t.Helper()
	env := gittest.Env(t)
	srv := gittest.NewServer(t, env)
	url, _ := srv.NewRepo(t, "site.git")
	work := gittest.NewWork(t, env, url)
	gittest.Git(t, env, work, "push", "--quiet", "origin", "main")
	gittest.Commit(t, env, work, "page.html", "<p>new</p>\n", "add a page")
	return pushFixture{srv, url, work, env}
}

func TestPushRecoversFromNetworkFaults(t *testing.T) {
	t.Parallel()
	fx := newPushFixture(t)
	fx.srv.Inject(gittest.Status502, 1)
	fx.srv.Inject(gittest.Reset, 1)
	rep := filepath.Join(t.TempDir(), "r.json")
	r := runPushCLI(t, fx.env, "--dir", fx.work, "--report", rep, "--", "origin", "main")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if got := r.clock.Waits(); !slices.Equal(got, []time.Duration{2 * time.Second, 4 * time.Second}) {
		t.Errorf("waits = %v, want [2s 4s]", got)
	}
	for _, want := range []string{"retrywise: attempt 1/5 failed (transient: git cannot access 127.0.0.1", "retrying in 2s", "attempt 2/5 failed (transient", "retrying in 4s", "retrywise push succeeded after 3 attempts"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if !strings.Contains(r.stdout, "refs/heads/main:refs/heads/main") {
		t.Errorf("git's porcelain output was not relayed to stdout: %q", r.stdout)
	}
	got, _ := readReport(t, rep)
	if !got.OK() || len(got.Attempts) != 3 || got.Policy.MaxAttempts != 5 || len(got.Refs) != 1 || !got.Refs[0].OK {
		t.Errorf("report = %+v", got)
	}
}

func TestPushRejectionReport(t *testing.T) {
	t.Parallel()
	env := gittest.Env(t)
	bare := gittest.NewBare(t, env, filepath.Join(t.TempDir(), "origin.git"))
	work := gittest.NewWork(t, env, gittest.FileURL(bare))
	gittest.Git(t, env, work, "push", "--quiet", "origin", "main")
	other := gittest.Clone(t, env, gittest.FileURL(bare))
	gittest.Commit(t, env, other, "theirs.txt", "x\n", "theirs")
	gittest.Git(t, env, other, "push", "--quiet", "origin", "main")
	gittest.Commit(t, env, work, "mine.txt", "y\n", "mine")
	gittest.Git(t, env, work, "branch", "feature")

	rep := filepath.Join(t.TempDir(), "r.json")
	r := runPushCLI(t, env, "--dir", work, "--report", rep, "--", "origin", "main", "feature")
	if r.code != exitcode.Structural || len(r.clock.Waits()) != 0 {
		t.Fatalf("exit %d after waits %v, want 65 at once:\n%s", r.code, r.clock.Waits(), r.stderr)
	}
	for _, want := range []string{"ref:      feature: pushed (new branch)", "ref:      main: rejected (fetch first) [structural]", "git pull --rebase origin main", "after 1 attempt"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "retrywise: structural: git push rejected: fetch first on main") {
		t.Errorf("last line = %q", last)
	}
	got, _ := readReport(t, rep)
	if got.ExitCode != r.code || len(got.Refs) != 2 || got.Refs[1].Class != failure.Structural || got.Refs[0].Class != failure.None || !got.Refs[0].OK {
		t.Errorf("report refs = %+v", got.Refs)
	}
}

// TestPushTokenNeverPrinted proves a token in the remote URL (configured, or
// given on the command line) reaches neither stdout, stderr nor the report.
func TestPushTokenNeverPrinted(t *testing.T) {
	t.Parallel()
	const token = "ghs_PushToken0123456789abcdef"
	tests := []struct {
		name   string
		setup  func(fx pushFixture) []string
		reason string
	}{
		{
			name: "credentials required and absent",
			setup: func(fx pushFixture) []string {
				fx.srv.RequireBasicAuth("x-access-token", token)
				return []string{"origin", "main"}
			},
			reason: "no credentials",
		},
		{
			name: "refused token in the configured remote",
			setup: func(fx pushFixture) []string {
				fx.srv.RequireBasicAuth("x-access-token", "another-token")
				gittest.Git(t, fx.env, fx.work, "remote", "set-url", "origin", strings.Replace(fx.url, "http://", "http://x-access-token:"+token+"@", 1))
				return []string{"origin", "main"}
			},
			reason: "authentication failed",
		},
		{
			name: "403 for a token on the command line",
			setup: func(fx pushFixture) []string {
				fx.srv.Inject(gittest.Status403, 10)
				return []string{strings.Replace(fx.url, "http://", "http://x-access-token:"+token+"@", 1), "main"}
			},
			reason: "403",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fx := newPushFixture(t)
			args := tt.setup(fx)
			rep := filepath.Join(t.TempDir(), "r.json")
			r := runPushCLI(t, fx.env, append([]string{"--dir", fx.work, "--report", rep, "--"}, args...)...)
			_, raw := readReport(t, rep)
			if r.code != exitcode.Policy {
				t.Fatalf("exit %d, want 77:\n%s", r.code, r.stderr)
			}
			all := r.stdout + r.stderr + raw
			if strings.Contains(all, token) || strings.Contains(all, "UHVzaFRva2Vu") {
				t.Errorf("the token leaked:\n%s", all)
			}
			if !strings.Contains(r.stderr, tt.reason) || !strings.Contains(r.stderr, "token") {
				t.Errorf("report lacks %q or a remedy naming the token:\n%s", tt.reason, r.stderr)
			}
		})
	}
}

func TestPushAuthRecheckIsReported(t *testing.T) {
	t.Parallel()
	fx := newPushFixture(t)
	fx.srv.Inject(gittest.Status403, 1)
	rep := filepath.Join(t.TempDir(), "r.json")
	r := runPushCLI(t, fx.env, "--dir", fx.work, "--auth-recheck", "10s", "--report", rep, "--", "origin", "main")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	got, _ := readReport(t, rep)
	if len(got.Notes) != 1 || !strings.Contains(got.Notes[0], "--auth-recheck") || !strings.Contains(r.stderr, "note:") {
		t.Errorf("the re-check is not in the report: %q\n%s", got.Notes, r.stderr)
	}
}

func TestPushUsageAndConfigErrors(t *testing.T) {
	t.Parallel()
	env := gittest.Env(t)
	work := gittest.NewWork(t, env, "")
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--timeout", "0", "--", "origin"}, exitcode.Usage},
		{[]string{"--rebase-on-reject", "-1"}, exitcode.Usage},
		{[]string{"--schedule", "soon"}, exitcode.Usage},
		{[]string{"--report", "/nonexistent/dir/r.json", "--dir", work}, exitcode.Config},
		{[]string{"--safe-directory", "--dir", work, "--", "nosuchremote", "main"}, exitcode.Structural},
	}
	for _, tt := range tests {
		r := runPushCLI(t, env, tt.args...)
		if r.code != tt.code {
			t.Errorf("%v: exit %d, want %d\n%s", tt.args, r.code, tt.code, r.stderr)
		}
	}
}

func TestPushHelpListsFlagsWithDefaults(t *testing.T) {
	t.Parallel()
	r := runPushCLI(t, nil, "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "Usage: retrywise push") {
		t.Fatalf("exit %d:\n%s", r.code, r.stdout)
	}
	for _, want := range []string{"--schedule", "(default 2s,4s,8s,16s)", "--max-attempts", "--max-elapsed", "(default 15m0s)", "--timeout", "(default 10m0s)",
		"--rebase-on-reject", "--auth-recheck", "--safe-directory", "--report", "--mask", "--dir", "--on-unknown", "--retry-after-cap"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("push --help lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestBinaryPushRetriesWithMillisecondSchedule runs the real binary against
// the real http-backend: two faults, then success.
func TestBinaryPushRetriesWithMillisecondSchedule(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	fx := newPushFixture(t)
	fx.srv.Inject(gittest.Status503, 1)
	fx.srv.Inject(gittest.Reset, 1)
	rep := filepath.Join(t.TempDir(), "r.json")
	cmd := exec.Command(bin, "push", "--schedule", "1ms,2ms,4ms,8ms", "--report", rep, "--", "origin", "main")
	cmd.Dir, cmd.Env = fx.work, fx.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("retrywise push: %v\n%s", err, stderr.String())
	}
	got, _ := readReport(t, rep)
	if !got.OK() || len(got.Attempts) != 3 || got.Attempts[0].Wait != time.Millisecond || got.Attempts[1].Wait != 2*time.Millisecond {
		t.Errorf("report = %+v", got)
	}
	if !strings.Contains(stderr.String(), "attempt 2/5 failed (transient") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if out := gittest.Git(t, fx.env, fx.work, "ls-remote", "origin", "refs/heads/main"); !strings.HasPrefix(out, gittest.Rev(t, fx.env, fx.work, "HEAD")) {
		t.Errorf("remote main = %q", out)
	}

	// never recovers: exactly five attempts, exit 75
	gittest.Commit(t, fx.env, fx.work, "more.html", "more\n", "more")
	fx.srv.Inject(gittest.Status502, 100)
	cmd = exec.Command(bin, "push", "--schedule", "1ms", "--max-attempts", "5", "--", "origin", "main")
	cmd.Dir, cmd.Env = fx.work, fx.env
	stderr.Reset()
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitcode.Transient {
		t.Fatalf("exit = %v, want 75\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "failed after 5 attempts") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// TestBinaryPushSIGTERMDuringStall: SIGTERM while git push hangs on a stalled
// server ends the run within a second, with exit 143 and the report written.
func TestBinaryPushSIGTERMDuringStall(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	fx := newPushFixture(t)
	fx.srv.Inject(gittest.Stall, 1)
	before := len(fx.srv.Requests())
	rep := filepath.Join(t.TempDir(), "r.json")
	cmd := exec.Command(bin, "push", "--report", rep, "--", "origin", "main")
	cmd.Dir, cmd.Env = fx.work, fx.env
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	for len(fx.srv.Requests()) == before {
		select {
		case <-fx.srv.Received():
		case <-deadline:
			t.Fatal("git push never reached the server")
		}
	}
	terminate(t, cmd, &stderr)
	if got, _ := readReport(t, rep); got.Stop != "cancelled" || len(got.Attempts) != 1 {
		t.Errorf("report = %+v", got)
	}
}

// TestPushDiagnoseHook plugs a diagnosis into push the way the egress probe
// does: it is called before each wait on a failure on the way to the remote,
// whose trace names the remote (without credentials), and its verdict is the
// report's.
func TestPushDiagnoseHook(t *testing.T) {
	t.Parallel()
	fx := newPushFixture(t)
	fx.srv.Inject(gittest.Status503, 10)
	gittest.Git(t, fx.env, fx.work, "remote", "set-url", "origin", strings.Replace(fx.url, "http://", "http://x-access-token:hook-secret-value@", 1))
	var seen []failure.Trace
	diagnose := func(_ context.Context, f *failure.Failure) *failure.Failure {
		seen = append(seen, f.Trace)
		return &failure.Failure{Class: failure.Policy, Code: failure.CodeProxyDenied, Reason: "the egress proxy denies " + f.Trace.URL, Remedy: "add the host to the allowlist", Evidence: f.Evidence, Err: f.Err}
	}
	f, _, errb, _ := testFactory(fx.env)
	f.diagnose = diagnose
	p := prepare(t, step.PushKind, "dir", fx.work, "args", "origin", "schedule", "2s,4s,8s,16s")
	p.Config.(*step.PushConfig).Args = append(p.Config.(*step.PushConfig).Args, "main")
	code := runKind(context.Background(), f, p)
	if code != exitcode.Policy || len(seen) != 1 {
		t.Fatalf("exit %d after %d diagnoses, want 77 after 1:\n%s", code, len(seen), errb.String())
	}
	if tr := seen[0]; strings.TrimSuffix(tr.URL, "/") != strings.TrimSuffix(fx.url, "/") || tr.Status != 503 {
		t.Errorf("trace = %+v, want %s without credentials, status 503", tr, fx.url)
	}
	if !strings.Contains(errb.String(), "the egress proxy denies "+strings.TrimSuffix(fx.url, "/")) || strings.Contains(errb.String(), "hook-secret-value") {
		t.Errorf("stderr:\n%s", errb.String())
	}
}

// TestPushThroughSquidDenied: git's CONNECT is refused by Squid's allowlist;
// the egress probe adds Squid's evidence, and the push stops at once with 77.
func TestPushThroughSquidDenied(t *testing.T) {
	t.Parallel()
	fx := newPushFixture(t)
	host := uniqueHost("push-denied")
	gittest.Git(t, fx.env, fx.work, "remote", "set-url", "origin", "https://x-access-token:push-proxy-secret@"+host+"/o/r.git")
	rep := filepath.Join(t.TempDir(), "r.json")
	r := runPushCLI(t, append(fx.env, "https_proxy="+squid.URL), "--dir", fx.work, "--report", rep, "--", "origin", "main")
	if r.code != exitcode.Policy || len(r.clock.Waits()) != 0 {
		t.Fatalf("exit %d waits %v, want 77 and no wait:\n%s", r.code, r.clock.Waits(), r.stderr)
	}
	reason := host + ":443 is not on the egress allowlist of proxy " + squid.Addr + " (Squid ERR_ACCESS_DENIED)"
	b, _ := os.ReadFile(rep)
	mustContain(t, "stderr", r.stderr, "reason:   "+reason, "X-Squid-Error: ERR_ACCESS_DENIED 0", "retrywise: policy: "+reason)
	mustContain(t, "JSON report", string(b), "X-Squid-Error: ERR_ACCESS_DENIED 0")
	if strings.Contains(r.stdout+r.stderr+string(b), "push-proxy-secret") {
		t.Errorf("the token in the remote URL leaked:\n%s", r.stderr)
	}
	if n, err := squid.WaitLog(host, 2, 5*time.Second); err != nil || n != 2 {
		t.Errorf("Squid saw %d requests for %s (%v), want 2: git's CONNECT and one probe", n, host, err)
	}
}

// TestPushUnusableDirIsConfig: a --dir (or a job's push: {dir: ...}) git
// cannot run in is configuration, exit 78, named with its path; git is not
// blamed for it.
func TestPushUnusableDirIsConfig(t *testing.T) {
	tmp := t.TempDir()
	missing := filepath.Join(tmp, "nonexistent")
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o644)
	job := func(dir string) string {
		return "version: 1\njobs:\n  j:\n    steps:\n      - id: up\n        push: {dir: " + dir + ", args: [origin, main]}\n"
	}
	tests := []struct {
		name string
		job  string // a job file; the push command's flags otherwise
		args []string
		want string
	}{
		{name: "flag, missing", args: []string{"--dir", missing}, want: "cannot push from " + missing + ": no such directory"},
		{name: "flag, a file", args: []string{"--dir", file, "--", "origin", "main"}, want: "cannot push from " + file + ": not a directory"},
		{name: "job, missing", job: job(missing), want: "job j failed at step up (exit 78): cannot push from " + missing + ": no such directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r prun
			if tt.job != "" {
				dir := t.TempDir()
				os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(tt.job), 0o644)
				r = jobRun(t, newProc(t), dir, "run", "--report", "r.json")
				rep := readRun(t, filepath.Join(dir, "r.json"))
				if s := rep.Steps[0]; s.ExitCode != exitcode.Config || !strings.Contains(s.Reason, missing) {
					t.Errorf("step = exit %d, reason %q", s.ExitCode, s.Reason)
				}
			} else {
				r = newProc(t).run(append([]string{"push"}, tt.args...)...)
			}
			if r.code != exitcode.Config || !strings.Contains(r.stderr, tt.want) || strings.Contains(r.stderr, "fork/exec") {
				t.Errorf("exit %d, want 78 with %q:\n%s", r.code, tt.want, r.stderr)
			}
		})
	}
}
