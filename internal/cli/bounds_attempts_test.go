package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// TestMaxAttemptsCap: more than retry.MaxAttemptsLimit attempts is a usage
// error naming the cap and the flag that lifts it, on the command line and
// in a job file; with the flag the run goes ahead.
func TestMaxAttemptsCap(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) {})
	for _, args := range [][]string{
		{"http", "--max-attempts", "1000", srv.URL},
		{"http", "--max-attempts", "9223372036854775807", "--schedule", "0s", srv.URL},
		{"http", "--schedule", strings.Repeat("1s,", 100) + "1s", srv.URL},
	} {
		r := newProc(t).run(args...)
		if r.code != exitcode.Usage || !strings.Contains(r.stderr, "100") || !strings.Contains(r.stderr, "--max-attempts-force") {
			t.Errorf("%v: exit %d, want 64 naming the cap and --max-attempts-force\n%s", args[1:3], r.code, r.stderr)
		}
	}
	if r := newProc(t).run("http", "--max-attempts", "1000", "--max-attempts-force", srv.URL); r.code != exitcode.OK {
		t.Errorf("forced: exit %d\n%s", r.code, r.stderr)
	}
	if r := newProc(t).run("http", "--max-attempts", "100", srv.URL); r.code != exitcode.OK {
		t.Errorf("at the cap: exit %d\n%s", r.code, r.stderr)
	}

	dir := t.TempDir()
	job := func(retry string) string {
		return fmt.Sprintf("version: 1\njobs:\n  j:\n    steps:\n      - id: get\n        http: {url: %q}\n        retry: {%s}\n", srv.URL, retry)
	}
	os.WriteFile(filepath.Join(dir, "capped.yml"), []byte(job("max-attempts: 1000")), 0o644)
	os.WriteFile(filepath.Join(dir, "forced.yml"), []byte(job("max-attempts: 1000, max-attempts-force: true")), 0o644)
	if r := jobRun(t, newProc(t), dir, "validate", "--config", "capped.yml"); r.code == exitcode.OK || !strings.Contains(r.stderr, "max-attempts-force") {
		t.Errorf("job over the cap: exit %d\n%s", r.code, r.stderr)
	}
	if r := jobRun(t, newProc(t), dir, "run", "--config", "forced.yml"); r.code != exitcode.OK {
		t.Errorf("forced job: exit %d\n%s", r.code, r.stderr)
	}
}

// TestMaxElapsedLimit: --max-elapsed and a job's timeout: over 24h are refused.
func TestMaxElapsedLimit(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) {})
	for _, v := range []string{"2562047h", "25h"} {
		r := newProc(t).run("http", "--max-elapsed", v, srv.URL)
		if r.code != exitcode.Usage || !strings.Contains(r.stderr, "--max-elapsed") || !strings.Contains(r.stderr, "24h") {
			t.Errorf("--max-elapsed %s: exit %d, want 64 naming the limit\n%s", v, r.code, r.stderr)
		}
	}
	if r := newProc(t).run("http", "--max-elapsed", "24h", srv.URL); r.code != exitcode.OK {
		t.Errorf("--max-elapsed 24h: exit %d\n%s", r.code, r.stderr)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "job.yml"), []byte(fmt.Sprintf("version: 1\njobs:\n  j:\n    timeout: 2562047h\n    steps:\n      - id: get\n        http: {url: %q}\n", srv.URL)), 0o644)
	if r := jobRun(t, newProc(t), dir, "validate", "--config", "job.yml"); r.code != exitcode.Config || !strings.Contains(r.stderr, "timeout") || !strings.Contains(r.stderr, "24h") {
		t.Errorf("job timeout of 292 years: exit %d\n%s", r.code, r.stderr)
	}
}
