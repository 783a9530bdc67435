package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/failure/teamrules"
	"github.com/retrywise/retrywise/internal/gittest"
)

// deployctl is an in-house tool no recogniser knows; its team's rules.
const deployctlRules = `- match: 'lock held by run \d+'
  tool: deployctl
  class: transient
  code: deployctl-lock-held
  reason: another deploy holds the environment's lock
  remedy: wait for it; it is released when that deploy ends
- match: 'environment frozen'
  exit-code: 3
  class: policy
  code: deployctl-frozen
  reason: the environment is in a change freeze
  remedy: ask the release manager to lift the freeze
`

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExecRulesDecideBeforeBuiltins(t *testing.T) {
	dir := t.TempDir()
	rules := writeFile(t, dir, "rules.yml", deployctlRules)
	// deployctl holds the lock twice, then succeeds: the team's rule makes
	// a text no recogniser knows transient.
	tool := writeFile(t, dir, "deployctl", `#!/bin/sh
n=$(cat "$1" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$1"
if [ $n -lt 3 ]; then echo "deployctl: lock held by run 4711" >&2; exit 1; fi
echo deployed
`)
	rep := filepath.Join(dir, "report.json")
	r := runCLI(t, "", nil, "exec", "--rules", rules, "--schedule", "1s,1s", "--report", rep, "--", tool, filepath.Join(dir, "count"))
	if r.code != exitcode.OK || r.stdout != "deployed\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"deployctl-lock-held"`); n != 2 {
		t.Errorf("report has %d deployctl-lock-held failures, want 2:\n%s", n, b)
	}

	// Frozen, exit 3: policy, stopped after one attempt with the rule's remedy.
	frozen := writeFile(t, dir, "deployctl2", "#!/bin/sh\necho 'deployctl: environment frozen until Monday' >&2\nexit 3\n")
	r = runCLI(t, "", nil, "exec", "--rules", rules, "--", frozen)
	if r.code == exitcode.OK || !strings.Contains(r.stderr, "deployctl-frozen") || !strings.Contains(r.stderr, "ask the release manager") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "attempt 2") {
		t.Errorf("a policy rule was retried:\n%s", r.stderr)
	}
}

func TestExecRulesInvalidFileNamesPositions(t *testing.T) {
	dir := t.TempDir()
	rules := writeFile(t, dir, "rules.yml", "- match: '(open'\n  class: transient\n  code: timeout\n")
	r := runCLI(t, "", nil, "exec", "--rules", rules, "--", "true")
	if r.code != exitcode.Usage && r.code != exitcode.Config {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"rules.yml:1:10: match \"(open\" is not a valid regular expression", "rules.yml:3:9: code \"timeout\" is a built-in code"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

func TestClassifyRulesShowsTheRule(t *testing.T) {
	dir := t.TempDir()
	rules := writeFile(t, dir, "rules.yml", deployctlRules)
	r := runCLI(t, "deployctl: lock held by run 12\n", nil, "classify", "--rules", rules, "--command", "deployctl", "--exit-code", "1", "--json")
	var c Classification
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatalf("%v: %s %s", err, r.stdout, r.stderr)
	}
	if c.Code != "deployctl-lock-held" || c.Class != failure.Transient || c.Rule != rules+":1" {
		t.Errorf("got %+v", c)
	}
	// Without the command's name, the tool: gate keeps the rule out.
	r = runCLI(t, "deployctl: lock held by run 12\n", nil, "classify", "--rules", rules, "--exit-code", "1")
	if strings.Contains(r.stdout, "rule:") {
		t.Errorf("rule matched without --command:\n%s", r.stdout)
	}
	r = runCLI(t, "deployctl: environment frozen\n", nil, "classify", "--rules", rules, "--exit-code", "3")
	if !strings.Contains(r.stdout, "code:     deployctl-frozen") || !strings.Contains(r.stdout, "rule:     the team rule at "+rules+":7") {
		t.Errorf("text output:\n%s", r.stdout)
	}
}

func TestJobInlineRules(t *testing.T) {
	dir := t.TempDir()
	frozen := writeFile(t, dir, "deployctl", "#!/bin/sh\necho 'deployctl: environment frozen until Monday' >&2\nexit 3\n")
	job := writeFile(t, dir, "jobs.yml", `version: 1
defaults:
  rules:
    - match: environment frozen
      class: policy
      code: deployctl-frozen
      remedy: ask the release manager
jobs:
  deploy:
    steps:
      - id: deploy
        exec:
          command: [`+frozen+`]
`)
	r := runCLI(t, "", nil, "run", "--config", job)
	if r.code == exitcode.OK || !strings.Contains(r.stderr, "deployctl-frozen") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	bad := writeFile(t, dir, "bad.yml", `version: 1
defaults:
  rules:
    - match: x
      class: sometimes
      code: connection-reset
jobs:
  deploy:
    steps:
      - id: deploy
        exec:
          command: ["true"]
`)
	r = runCLI(t, "", nil, "run", "--config", bad)
	for _, want := range []string{"bad.yml:5:14", "class \"sometimes\" is not a failure class", "bad.yml:6:13", "is a built-in code"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

func TestHTTPRulesReadTheAnswer(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":"TENANT_SUSPENDED"}`))
	}))
	defer srv.Close()
	rules := writeFile(t, t.TempDir(), "rules.yml", "- status: 503\n  match: TENANT_SUSPENDED\n  class: policy\n  code: billing-tenant-suspended\n  remedy: pay the invoice\n")
	// Built in, a 503 is transient and retried; the team knows better.
	r := runCLI(t, "", nil, "http", "--rules", rules, "--schedule", "1s,1s", srv.URL)
	if r.code == exitcode.OK || n != 1 || !strings.Contains(r.stderr, "billing-tenant-suspended") || !strings.Contains(r.stderr, "pay the invoice") {
		t.Fatalf("exit %d, %d requests, stderr:\n%s", r.code, n, r.stderr)
	}
}

// A pre-receive hook of an in-house gatekeeper declines every push while a
// freeze holds: the built-ins read a declined hook; the team's rule names
// the freeze.
func TestPushRulesNameTheGatekeeper(t *testing.T) {
	env := gittest.Env(t)
	bare := gittest.NewBare(t, env, filepath.Join(t.TempDir(), "origin.git"))
	work := gittest.NewWork(t, env, gittest.FileURL(bare))
	gittest.Git(t, env, work, "push", "--quiet", "origin", "main")
	gittest.Commit(t, env, work, "x.txt", "x\n", "x")
	gittest.Hook(t, bare, "pre-receive", "#!/bin/sh\necho 'gatekeeper: release freeze in effect until Monday' >&2\nexit 1\n")
	rules := writeFile(t, t.TempDir(), "rules.yml", "- match: 'gatekeeper: release freeze'\n  class: policy\n  code: gatekeeper-freeze\n  remedy: push after the freeze\n")
	r := runPushCLI(t, env, "--dir", work, "--rules", rules, "--", "origin", "main")
	if r.code != exitcode.Policy || !strings.Contains(r.stderr, "gatekeeper-freeze") || !strings.Contains(r.stderr, "push after the freeze") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
}

// heaviestRules is the costliest rules file the loader accepts: rules of
// teamrules.MaxRuleProgram instructions, up to teamrules.MaxRulesProgram in
// all, each keeping all its threads alive on a line of letters.
func heaviestRules() string {
	var b strings.Builder
	re := fmt.Sprintf(`[\pL\pN]{1000}[\pL\pN]{%d}[.!]`, teamrules.MaxRuleProgram-1003)
	for i := range teamrules.MaxRulesProgram / teamrules.MaxRuleProgram {
		fmt.Fprintf(&b, "- match: '%s'\n  class: policy\n  code: tool-heavy%d\n", re, i)
	}
	return b.String()
}

// TestBinarySIGTERMDuringRuleMatching runs the real binary with the
// heaviest rules file it accepts; the command prints a 64 KiB line of
// letters and fails, and SIGTERM comes while the rules are matched against
// it: retrywise exits 143 at once (the rules once took minutes and
// ignored the signal). Without a signal, the run ends within its
// --max-elapsed of 2s, the matching cut by its budget.
func TestBinarySIGTERMDuringRuleMatching(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	rules := writeFile(t, dir, "rules.yml", heaviestRules())
	script := "head -c 65536 /dev/zero | tr '\\0' a; echo; echo exiting >&2; exit 1"
	cmd := exec.Command(bin, "exec", "--rules", rules, "--max-elapsed", "2s", "--", "sh", "-c", script)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &stderr, "exiting")
	start := time.Now()
	if code := stopWithin(t, cmd, &stderr, syscall.SIGTERM, 3*time.Second); code != exitcode.Terminated {
		t.Fatalf("exit %d, want 143:\n%s", code, stderr.String())
	}
	t.Logf("exited %v after SIGTERM", time.Since(start))

	start = time.Now()
	cmd = exec.Command(bin, "exec", "--rules", rules, "--max-elapsed", "2s", "--", "sh", "-c", script)
	var errOut strings.Builder
	cmd.Stderr = &errOut
	cmd.Run()
	took := time.Since(start)
	code := cmd.ProcessState.ExitCode()
	t.Logf("without a signal: exit %d after %v", code, took)
	if took > 4*time.Second || code != exitcode.Unknown || !strings.Contains(errOut.String(), "rule-match-too-slow") {
		t.Errorf("exit %d after %v:\n%s", code, took, errOut.String())
	}
}
