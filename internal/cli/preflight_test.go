package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// A job that would publish first and then reach two hosts the proxy denies:
// with preflight: true nothing runs, and one report names both hosts and
// the allowlist lines.
func TestPreflightStopsBeforeAnySideEffect(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "published")
	denied1, denied2 := uniqueHost("api"), uniqueHost("uploads")
	allowed := "up.allowed.test:" + listenPort(t)
	job := writeFile(t, dir, "job.yml", `version: 1
jobs:
  release:
    preflight: true
    steps:
      - id: publish
        exec:
          run: touch `+marker+`
      - id: notify
        http:
          url: https://`+denied1+`/hooks
      - id: upload
        exec:
          hosts: [`+denied2+`, `+allowed+`]
          command: [sh, -c, "exit 0"]
`)
	env := []string{"HTTPS_PROXY=" + squid.URL, "https_proxy=" + squid.URL, "NO_PROXY=", "no_proxy="}
	start := time.Now()
	r := runCLI(t, "", env, "run", "--config", job)
	elapsed := time.Since(start)
	if r.code != exitcode.Policy {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, exitcode.Policy, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the publish step ran before the preflight")
	}
	mustContain(t, "stderr", r.stderr,
		"preflight: 2 hosts the job will touch are denied",
		denied1+":443 (step notify, http)",
		denied2+":443 (step upload, exec)",
		"add to the egress allowlist (one line each):\n    "+denied1+"\n    "+denied2,
		"3 hosts of 3 steps probed",
	)
	if strings.Contains(r.stderr, "up.allowed.test (step") {
		t.Errorf("an allowed host is reported denied:\n%s", r.stderr)
	}
	t.Logf("preflight of 3 hosts through Squid: %s for the whole run", elapsed)

	// run --preflight does the same for a job without the key.
	job2 := writeFile(t, dir, "job2.yml", strings.Replace(mustRead(t, job), "    preflight: true\n", "", 1))
	r = runCLI(t, "", env, "run", "--config", job2, "--preflight")
	if r.code != exitcode.Policy {
		t.Fatalf("--preflight: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the publish step ran before the preflight")
	}
}

// A host known only from an earlier step's output is probed when it is
// known, before its step.
func TestPreflightProbesLateHostsBeforeTheirStep(t *testing.T) {
	dir := t.TempDir()
	denied := uniqueHost("late")
	job := writeFile(t, dir, "job.yml", `version: 1
jobs:
  release:
    preflight: true
    steps:
      - id: pick
        exec:
          run: echo "host=`+denied+`" >> "$RETRYWISE_OUTPUT"
      - id: notify
        http:
          url: https://${steps.pick.outputs.host}/hooks
`)
	env := []string{"HTTPS_PROXY=" + squid.URL, "https_proxy=" + squid.URL, "NO_PROXY=", "no_proxy="}
	r := runCLI(t, "", env, "run", "--config", job)
	if r.code != exitcode.Policy {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "1 step probed when they start", denied+":443 (step notify, http)", "the step did not start")
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
