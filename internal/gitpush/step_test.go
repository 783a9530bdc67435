package gitpush

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/gittest"
	"github.com/retrywise/retrywise/internal/retry"
)

// pushDefaults is push's default schedule: 2s, 4s, 8s, 16s (5 attempts).
var pushDefaults = []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}

type pushRun struct {
	out            *retry.Outcome
	step           *Step
	clock          *clock.Fake
	stdout, stderr string
	diagnosed      []*failure.Failure
}

func (r pushRun) code() int { return exitcode.For(r.out, false) }

// run pushes with the default schedule on a fake clock that fires every wait at once.
func run(t *testing.T, opts Options) pushRun {
	t.Helper()
	var stdout, stderr bytes.Buffer
	clk := clock.NewFake(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true)
	opts.Stdout, opts.Stderr = &stdout, &stderr
	step, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	r := pushRun{step: step, clock: clk}
	coord := &retry.Coordinator{
		Policy: retry.Policy{Schedule: pushDefaults, MaxElapsed: 15 * time.Minute},
		Clock:  clk,
		Diagnose: func(_ context.Context, f *failure.Failure) *failure.Failure {
			r.diagnosed = append(r.diagnosed, f)
			return nil
		},
	}
	out, err := coord.Run(context.Background(), step)
	if err != nil {
		t.Fatal(err)
	}
	r.out, r.stdout, r.stderr = out, stdout.String(), stderr.String()
	return r
}

func (r pushRun) String() string {
	var b strings.Builder
	for _, a := range r.out.Attempts {
		b.WriteString(a.Class.String() + ": " + a.Reason + "\n")
	}
	if r.out.Final != nil {
		b.WriteString("final: " + r.out.Final.Error() + "\nremedy: " + r.out.Final.Remedy + "\nevidence:\n  " + strings.Join(r.out.Final.Evidence, "\n  ") + "\n")
	}
	b.WriteString("notes: " + strings.Join(r.step.Notes(), "\n  ") + "\nstdout:\n" + r.stdout + "stderr:\n" + r.stderr)
	return b.String()
}

// httpRepo starts a server with one repository and a work clone whose main
// is pushed once already; it returns the server, the work folder and env.
func httpRepo(t *testing.T) (*gittest.Server, string, string, []string) {
	t.Helper()
	env := gittest.Env(t)
	srv := gittest.NewServer(t, env)
	url, _ := srv.NewRepo(t, "site.git")
	work := gittest.NewWork(t, env, url)
	gittest.Git(t, env, work, "push", "--quiet", "origin", "main")
	gittest.Commit(t, env, work, "page.html", "<p>new</p>\n", "add a page")
	return srv, url, work, env
}

// fileRepo makes a bare repository reached by file:// and a work clone of it
// with main pushed once; it returns the bare path, the work folder and env.
func fileRepo(t *testing.T) (string, string, []string) {
	t.Helper()
	env := gittest.Env(t)
	bare := gittest.NewBare(t, env, filepath.Join(t.TempDir(), "origin.git"))
	work := gittest.NewWork(t, env, gittest.FileURL(bare))
	gittest.Git(t, env, work, "push", "--quiet", "origin", "main")
	return bare, work, env
}

// advanceRemote pushes a commit to the remote from another clone, so the
// work clone becomes stale.
func advanceRemote(t *testing.T, env []string, url, file, content string) {
	t.Helper()
	other := gittest.Clone(t, env, url)
	gittest.Commit(t, env, other, file, content, "someone else's change")
	gittest.Git(t, env, other, "push", "--quiet", "origin", "main")
}

func TestPushRecoversAfterTwoNetworkFaults(t *testing.T) {
	t.Parallel()
	srv, url, work, env := httpRepo(t)
	srv.Inject(gittest.Status502, 1)
	srv.Inject(gittest.Reset, 1)
	r := run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main"}})
	if !r.out.OK() || len(r.out.Attempts) != 3 {
		t.Fatalf("want success on attempt 3, got %d attempts:\n%s", len(r.out.Attempts), r)
	}
	if got := r.clock.Waits(); !slices.Equal(got, pushDefaults[:2]) {
		t.Errorf("waits = %v, want [2s 4s]", got)
	}
	for i, a := range r.out.Attempts[:2] {
		if a.Class != failure.Transient {
			t.Errorf("attempt %d: %s (%s), want transient", i+1, a.Class, a.Reason)
		}
	}
	if got, want := gittest.Git(t, env, work, "ls-remote", url, "refs/heads/main"), gittest.Rev(t, env, work, "HEAD"); !strings.HasPrefix(got, want) {
		t.Errorf("remote main = %q, want %s", got, want)
	}
	refs := r.step.Refs()
	if len(refs) != 1 || refs[0].Flag != ' ' || refs[0].Failure != nil || refs[0].Landed {
		t.Errorf("refs = %+v, want main fast-forwarded", refs)
	}
	// the diagnosis hook saw both network failures, with the remote's URL
	if len(r.diagnosed) != 2 {
		t.Fatalf("diagnose called %d times, want 2", len(r.diagnosed))
	}
	// and their traces: a 502 is the server's answer, a reset the network's
	if tr := r.diagnosed[0].Trace; strings.TrimSuffix(tr.URL, "/") != url || tr.Network || tr.Status != 502 || tr.Proxy {
		t.Errorf("trace of %q = %+v, want URL %s, status 502, not network", r.diagnosed[0].Reason, tr, url)
	}
	if tr := r.diagnosed[1].Trace; strings.TrimSuffix(tr.URL, "/") != url || !tr.Network || tr.Proxy {
		t.Errorf("trace of %q = %+v, want URL %s, network, no proxy", r.diagnosed[1].Reason, tr, url)
	}
}

func TestPushNeverRecoversStopsAfterFiveAttempts(t *testing.T) {
	t.Parallel()
	srv, _, work, env := httpRepo(t)
	srv.Inject(gittest.Status503, 100)
	before := srv.Pushes()
	r := run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main"}})
	if len(r.out.Attempts) != 5 || r.code() != exitcode.Transient || r.out.Stop != retry.StopAttemptsExhausted {
		t.Fatalf("want 5 attempts and exit 75, got %d attempts, exit %d, stop %s:\n%s", len(r.out.Attempts), r.code(), r.out.Stop, r)
	}
	if got := r.clock.Waits(); !slices.Equal(got, pushDefaults) {
		t.Errorf("waits = %v, want %v", got, pushDefaults)
	}
	if !strings.Contains(r.out.Final.Reason, "503") {
		t.Errorf("final reason %q does not name the 503", r.out.Final.Reason)
	}
	if n := srv.Pushes() - before; n != 0 {
		t.Errorf("%d pack uploads reached the server, want 0", n)
	}
}

func TestPushStallEndsAsTransient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     []string
		timeout time.Duration
		reason  string
	}{
		{"low-speed limit", []string{"GIT_HTTP_LOW_SPEED_TIME=1"}, 0, "transfer stalled"},
		// 5s: the grace (1s) is inside the bound, so the push that follows
		// the stall has 4s before its SIGTERM, on a loaded machine too.
		{"--timeout", nil, 5 * time.Second, "timed out after 5s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _, work, env := httpRepo(t)
			srv.Inject(gittest.Stall, 1)
			r := run(t, Options{Dir: work, Env: append(env, tt.env...), Args: []string{"origin", "main"}, Timeout: tt.timeout, KillGrace: time.Second})
			if !r.out.OK() || len(r.out.Attempts) != 2 {
				t.Fatalf("want the stalled attempt retried and then success, got:\n%s", r)
			}
			if a := r.out.Attempts[0]; a.Class != failure.Transient || !strings.Contains(a.Reason, tt.reason) {
				t.Errorf("attempt 1 = %s: %s, want transient %q", a.Class, a.Reason, tt.reason)
			}
		})
	}
}

func TestPushNonFastForwardStopsWithRemedy(t *testing.T) {
	t.Parallel()
	bare, work, env := fileRepo(t)
	advanceRemote(t, env, gittest.FileURL(bare), "other.txt", "theirs\n")
	gittest.Commit(t, env, work, "mine.txt", "mine\n", "my change")
	r := run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main"}})
	if len(r.out.Attempts) != 1 || r.code() != exitcode.Structural {
		t.Fatalf("want 1 attempt and exit 65, got %d attempts and %d:\n%s", len(r.out.Attempts), r.code(), r)
	}
	f := r.out.Final
	for _, want := range []string{"git pull --rebase origin main", "--rebase-on-reject"} {
		if !strings.Contains(f.Remedy, want) {
			t.Errorf("remedy %q lacks %q", f.Remedy, want)
		}
	}
	if !strings.Contains(f.Reason, "main") || !slices.ContainsFunc(f.Evidence, func(e string) bool { return strings.Contains(e, "[rejected] (fetch first)") }) {
		t.Errorf("reason %q / evidence %q: want the branch and the porcelain line", f.Reason, f.Evidence)
	}
	if len(r.clock.Waits()) != 0 {
		t.Errorf("a rejection was waited on")
	}
	// The coordinator shows every failure to its diagnosis; a rejection
	// carries no network endpoint, so the egress probe leaves it alone.
	if len(r.diagnosed) != 1 || r.diagnosed[0].Class != failure.Structural {
		t.Fatalf("diagnose saw %v, want the one rejection", r.diagnosed)
	}
	if d := r.diagnosed[0]; d.Trace.Network || d.Trace.URL != "" {
		t.Errorf("the rejection %q was handed to the diagnosis as a network failure: %+v", d.Reason, d.Trace)
	}
}

func TestPushHookRejectionsQuoteTheRemote(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, hook, reason string
		evidence           []string
	}{
		{
			name: "GH006",
			// git prefixes the hook's lines with "remote: " itself
			hook:     "error: GH006: Protected branch update failed for refs/heads/main.\nerror: Changes must be made through a pull request.",
			reason:   "protected branch on main (GH006)",
			evidence: []string{"GH006: Protected branch update failed for refs/heads/main.", "remote: error: Changes must be made through a pull request."},
		},
		{
			name:     "GH013",
			hook:     "error: GH013: Repository rule violations found for refs/heads/main.\nReview all repository rules at https://github.com/acme/site/rules?ref=refs%2Fheads%2Fmain\n\n- Changes must be made through a pull request.\n\n- Commits must have verified signatures.\n  Found 1 violation:",
			reason:   "repository rule violations on main (GH013)",
			evidence: []string{"GH013: Repository rule violations found for refs/heads/main.", "remote: - Changes must be made through a pull request.", "remote: - Commits must have verified signatures."},
		},
		{
			name:     "plain pre-receive hook",
			hook:     "commit message lacks a ticket number (ABC-123)\nsee https://wiki.example.test/commits",
			reason:   "pre-receive hook declined on main",
			evidence: []string{"pre-receive hook declined", "remote: commit message lacks a ticket number (ABC-123)", "remote: see https://wiki.example.test/commits"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bare, work, env := fileRepo(t)
			gittest.Hook(t, bare, "pre-receive", "cat >&2 <<'EOF'\n"+tt.hook+"\nEOF\nexit 1\n")
			gittest.Commit(t, env, work, "x.txt", "x\n", "change")
			r := run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main"}})
			if len(r.out.Attempts) != 1 || r.code() != exitcode.Structural {
				t.Fatalf("want 1 attempt and exit 65, got %d attempts and %d:\n%s", len(r.out.Attempts), r.code(), r)
			}
			if !strings.Contains(r.out.Final.Reason, tt.reason) {
				t.Errorf("reason %q lacks %q", r.out.Final.Reason, tt.reason)
			}
			for _, want := range tt.evidence {
				if !slices.ContainsFunc(r.out.Final.Evidence, func(e string) bool { return strings.Contains(e, want) }) {
					t.Errorf("evidence lacks %q:\n%s", want, strings.Join(r.out.Final.Evidence, "\n"))
				}
			}
		})
	}
}

func TestPushCredentialsMissingIsPolicy(t *testing.T) {
	t.Parallel()
	srv, _, work, env := httpRepo(t)
	srv.RequireBasicAuth("bot", "s3cret-token-value")
	r := run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main"}})
	if len(r.out.Attempts) != 1 || r.code() != exitcode.Policy {
		t.Fatalf("want 1 attempt and exit 77, got:\n%s", r)
	}
	if !strings.Contains(r.out.Final.Reason, "no credentials") {
		t.Errorf("reason = %q", r.out.Final.Reason)
	}
}

func TestPushLandedDespiteDroppedConnection(t *testing.T) {
	t.Parallel()
	srv, url, work, env := httpRepo(t)
	srv.Inject(gittest.DropAfterApply, 1)
	before := srv.Pushes()
	r := run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main"}})
	if !r.out.OK() || len(r.out.Attempts) != 2 || r.out.Attempts[0].Class != failure.Transient {
		t.Fatalf("want a transient failure, then success, got:\n%s", r)
	}
	refs := r.step.Refs()
	if len(refs) != 1 || !refs[0].Landed {
		t.Errorf("refs = %+v, want main landed", refs)
	}
	notes := strings.Join(r.step.Notes(), "\n")
	if !strings.Contains(notes, "the push of attempt 1 landed although its connection broke") {
		t.Errorf("notes do not say the push landed:\n%s", notes)
	}
	if n := srv.Pushes() - before; n != 1 {
		t.Errorf("%d pack uploads, want 1 (the retry found the ref up to date)", n)
	}
	if got := gittest.Git(t, env, work, "ls-remote", url, "refs/heads/main"); !strings.HasPrefix(got, gittest.Rev(t, env, work, "HEAD")) {
		t.Errorf("remote main = %q", got)
	}
}

func TestPushRebaseOnReject(t *testing.T) {
	t.Parallel()
	t.Run("success", func(t *testing.T) {
		t.Parallel()
		bare, work, env := fileRepo(t)
		advanceRemote(t, env, gittest.FileURL(bare), "theirs.txt", "theirs\n")
		gittest.Commit(t, env, work, "mine.txt", "mine\n", "my change")
		r := run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main"}, RebaseOnReject: 1})
		if !r.out.OK() || len(r.out.Attempts) != 1 {
			t.Fatalf("want success in one attempt, got:\n%s", r)
		}
		notes := strings.Join(r.step.Notes(), "\n")
		if !strings.Contains(notes, "rebased it onto origin/main") || !strings.Contains(notes, "changed the request") {
			t.Errorf("notes do not say the request changed:\n%s", notes)
		}
		remoteMain := gittest.Rev(t, env, bare, "main")
		if remoteMain != gittest.Rev(t, env, work, "HEAD") {
			t.Errorf("remote main %s is not the rebased HEAD", remoteMain)
		}
		if files := gittest.Git(t, env, bare, "ls-tree", "--name-only", "main"); !strings.Contains(files, "theirs.txt") || !strings.Contains(files, "mine.txt") {
			t.Errorf("remote main holds %q, want both changes", files)
		}
	})
	t.Run("conflict", func(t *testing.T) {
		t.Parallel()
		bare, work, env := fileRepo(t)
		advanceRemote(t, env, gittest.FileURL(bare), "README", "theirs\n")
		mine := gittest.Commit(t, env, work, "README", "mine\n", "my change")
		r := run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main"}, RebaseOnReject: 2})
		if len(r.out.Attempts) != 1 || r.code() != exitcode.Structural {
			t.Fatalf("want 1 attempt and exit 65, got:\n%s", r)
		}
		f := r.out.Final
		if !strings.Contains(f.Reason, "conflicts in README") || !strings.Contains(f.Reason, "aborted") || !slices.Contains(f.Evidence, "conflict: README") {
			t.Errorf("failure does not list the conflict:\n%s", r)
		}
		if !strings.Contains(f.Remedy, "git pull --rebase origin main") {
			t.Errorf("remedy = %q", f.Remedy)
		}
		if head := gittest.Rev(t, env, work, "HEAD"); head != mine {
			t.Errorf("HEAD moved to %s, want %s", head, mine)
		}
		if st := gittest.Git(t, env, work, "status", "--porcelain"); st != "" {
			t.Errorf("worktree not clean:\n%s", st)
		}
		if _, err := os.Stat(filepath.Join(work, ".git", "rebase-merge")); err == nil {
			t.Error("a rebase is still in progress")
		}
		if b, _ := os.ReadFile(filepath.Join(work, "README")); string(b) != "mine\n" {
			t.Errorf("README = %q, want the local version", b)
		}
	})
}

func TestPushAtomicWithOneRejection(t *testing.T) {
	t.Parallel()
	bare, work, env := fileRepo(t)
	advanceRemote(t, env, gittest.FileURL(bare), "theirs.txt", "theirs\n")
	gittest.Commit(t, env, work, "mine.txt", "mine\n", "my change")
	gittest.Git(t, env, work, "branch", "feature")
	r := run(t, Options{Dir: work, Env: env, Args: []string{"--atomic", "origin", "main", "feature"}})
	if len(r.out.Attempts) != 1 || r.code() != exitcode.Structural {
		t.Fatalf("want 1 attempt and exit 65, got:\n%s", r)
	}
	refs := r.step.Refs()
	if len(refs) != 2 {
		t.Fatalf("refs = %+v", refs)
	}
	byRef := map[string]RefResult{}
	for _, ref := range refs {
		byRef[ref.To] = ref
	}
	if f := byRef["refs/heads/main"].Failure; f == nil || f.Class != failure.Structural || !strings.Contains(f.Reason, "fetch first") {
		t.Errorf("main: %+v", f)
	}
	if f := byRef["refs/heads/feature"].Failure; f == nil || !strings.Contains(f.Reason, "another ref of the atomic push") {
		t.Errorf("feature: %+v", f)
	}
	if !strings.Contains(r.out.Final.Reason, "main") || !strings.Contains(r.out.Final.Reason, "1 more ref") {
		t.Errorf("final reason %q: want the rejected main first", r.out.Final.Reason)
	}
	if out := gittest.Git(t, env, bare, "branch", "--list", "feature"); out != "" {
		t.Errorf("feature was created on the remote by an atomic push that failed")
	}
}

func TestPushPartialSuccessReportsEachRef(t *testing.T) {
	t.Parallel()
	bare, work, env := fileRepo(t)
	advanceRemote(t, env, gittest.FileURL(bare), "theirs.txt", "theirs\n")
	gittest.Commit(t, env, work, "mine.txt", "mine\n", "my change")
	gittest.Git(t, env, work, "branch", "feature")
	r := run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main", "feature"}})
	if r.code() != exitcode.Structural {
		t.Fatalf("exit %d, want 65:\n%s", r.code(), r)
	}
	var pushed, rejected int
	for _, ref := range r.step.Refs() {
		switch {
		case ref.Failure == nil && ref.Flag == '*':
			pushed++
		case ref.Failure != nil:
			rejected++
		}
	}
	if pushed != 1 || rejected != 1 {
		t.Errorf("refs = %+v, want feature pushed and main rejected", r.step.Refs())
	}
}

func TestPushAuthRecheck(t *testing.T) {
	t.Parallel()
	t.Run("accepted after the wait", func(t *testing.T) {
		t.Parallel()
		srv, _, work, env := httpRepo(t)
		srv.Inject(gittest.Status403, 1)
		r := run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main"}, AuthRecheck: 10 * time.Second})
		// the re-check is the loop's second attempt, recorded with its reason
		if !r.out.OK() || len(r.out.Attempts) != 2 {
			t.Fatalf("want success on the re-check, attempt 2, got:\n%s", r)
		}
		if a := r.out.Attempts[0]; a.Class != failure.Policy || a.Wait != 10*time.Second || !strings.Contains(a.Recheck, "--auth-recheck") {
			t.Errorf("attempt 1 = %+v, want policy, waited 10s to re-check", a)
		}
		if got := r.clock.Waits(); !slices.Equal(got, []time.Duration{10 * time.Second}) {
			t.Errorf("waits = %v, want [10s]", got)
		}
		notes := strings.Join(r.step.Notes(), "\n")
		if !strings.Contains(notes, "--auth-recheck: attempt 1 was refused") || !strings.Contains(notes, "waited 10s once") || !strings.Contains(notes, "in attempt 2: accepted") {
			t.Errorf("notes:\n%s", notes)
		}
	})
	t.Run("off by default", func(t *testing.T) {
		t.Parallel()
		srv, _, work, env := httpRepo(t)
		srv.Inject(gittest.Status403, 1)
		r := run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main"}})
		if r.code() != exitcode.Policy || len(r.out.Attempts) != 1 || len(r.clock.Waits()) != 0 {
			t.Fatalf("want exit 77 after one attempt and no wait, got:\n%s", r)
		}
	})
	t.Run("exactly one re-check", func(t *testing.T) {
		t.Parallel()
		srv, _, work, env := httpRepo(t)
		srv.Inject(gittest.Status403, 5)
		before := len(srv.Requests())
		r := run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main"}, AuthRecheck: 10 * time.Second})
		if n := len(srv.Requests()) - before; r.code() != exitcode.Policy || len(r.clock.Waits()) != 1 || n != 2 || len(r.out.Attempts) != 2 {
			t.Fatalf("want exit 77 after one re-check (2 requests), got %d requests:\n%s", n, r)
		}
		if notes := strings.Join(r.step.Notes(), "\n"); !strings.Contains(notes, "still refused") {
			t.Errorf("notes:\n%s", notes)
		}
	})
}

func TestPushSafeDirectory(t *testing.T) {
	t.Parallel()
	_, _, work, base := httpRepo(t)
	// git's own test switch makes it treat the repository as another user's
	env := append(slices.Clip(base), "GIT_TEST_ASSUME_DIFFERENT_OWNER=1")
	r := run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main"}})
	if r.code() != exitcode.Structural || !strings.Contains(r.out.Final.Remedy, "--safe-directory") {
		t.Fatalf("want the dubious-ownership refusal (65) with a remedy naming --safe-directory, got:\n%s", r)
	}
	r = run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main"}, SafeDirectory: true})
	if !r.out.OK() {
		t.Fatalf("--safe-directory did not let git push:\n%s", r)
	}
	if cfg, _, _ := gittest.RunGit(base, work, "config", "--show-origin", "--get-all", "safe.directory"); cfg != "" {
		t.Errorf("safe.directory leaked into git config files: %s", cfg)
	}
}

// TestPushSuccessRunsExactlyOneGit counts the git processes with git's own
// trace2 event log: on success nothing but `git push` runs (its transport
// helper is its child).
func TestPushSuccessRunsExactlyOneGit(t *testing.T) {
	t.Parallel()
	_, _, work, env := httpRepo(t)
	trace := filepath.Join(t.TempDir(), "trace2.json")
	r := run(t, Options{Dir: work, Env: append(env, "GIT_TRACE2_EVENT="+trace), Args: []string{"origin", "main"}})
	if !r.out.OK() {
		t.Fatalf("push failed:\n%s", r)
	}
	top := topLevelGits(t, trace)
	if len(top) != 1 || !slices.Equal(top[0][:3], []string{"git", "push", "--porcelain"}) {
		t.Errorf("top-level git processes = %q, want exactly one git push --porcelain", top)
	}
}

// topLevelGits returns the argv of every git started by something other than
// git (its trace2 session id has no parent part).
func topLevelGits(t *testing.T, trace string) [][]string {
	t.Helper()
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Event string   `json:"event"`
			SID   string   `json:"sid"`
			Argv  []string `json:"argv"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Event != "start" || strings.Contains(ev.SID, "/") {
			continue
		}
		ev.Argv[0] = filepath.Base(ev.Argv[0])
		out = append(out, ev.Argv)
	}
	return out
}

func TestPushFailureRunsOnlyWhatItNeeds(t *testing.T) {
	t.Parallel()
	// a failure whose output names the URL it went to runs nothing but the retry
	srv, _, work, env := httpRepo(t)
	srv.Inject(gittest.Status503, 1)
	trace := filepath.Join(t.TempDir(), "trace2.json")
	r := run(t, Options{Dir: work, Env: append(env, "GIT_TRACE2_EVENT="+trace), Args: []string{"origin", "main"}})
	if !r.out.OK() {
		t.Fatalf("push failed:\n%s", r)
	}
	var names []string
	for _, argv := range topLevelGits(t, trace) {
		names = append(names, strings.Join(argv[1:min(3, len(argv))], " "))
	}
	want := []string{"push --porcelain", "push --porcelain"}
	if !slices.Equal(names, want) {
		t.Errorf("git runs = %q, want %q", names, want)
	}
}

// TestPushClassifiesEachAttemptOnce: a failed push's output is scanned
// once per attempt (git push's own verdict, not execstep's as well), for a
// network failure and for a rejection. Not parallel: it counts the
// process's scans.
func TestPushClassifiesEachAttemptOnce(t *testing.T) {
	srv, _, work, env := httpRepo(t)
	srv.Inject(gittest.Status502, 1)
	before := failure.Scans()
	r := run(t, Options{Dir: work, Env: env, Args: []string{"origin", "main"}})
	if !r.out.OK() || len(r.out.Attempts) != 2 {
		t.Fatalf("want success on attempt 2, got %d attempts:\n%s", len(r.out.Attempts), r)
	}
	if got := failure.Scans() - before; got != 1 {
		t.Errorf("one failed attempt was scanned %d times, want once", got)
	}

	bare, work2, env2 := fileRepo(t)
	advanceRemote(t, env2, gittest.FileURL(bare), "other.txt", "theirs\n")
	gittest.Commit(t, env2, work2, "mine.txt", "mine\n", "my change")
	before = failure.Scans()
	r = run(t, Options{Dir: work2, Env: env2, Args: []string{"origin", "main"}})
	if len(r.out.Attempts) != 1 || r.out.Final == nil || r.out.Final.Class != failure.Structural {
		t.Fatalf("want one structural attempt, got:\n%s", r)
	}
	if got := failure.Scans() - before; got != 1 {
		t.Errorf("a rejected push was scanned %d times, want once", got)
	}
}
