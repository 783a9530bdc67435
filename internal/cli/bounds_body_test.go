package cli

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// endless answers 200 with a body that never ends.
func endless(w http.ResponseWriter, r *http.Request, _ int64) {
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// TestHTTPMaxBody: a body over --max-body fails the attempt as structural
// (65, http-body-too-large), wherever the body goes: --output is not
// replaced (nor left larger than the cap), stdout gets at most the cap.
func TestHTTPMaxBody(t *testing.T) {
	srv := newServer(t, endless)
	out := filepath.Join(t.TempDir(), "body.out")
	os.WriteFile(out, []byte("previous\n"), 0o644)
	r := newProc(t).run("http", "--max-body", "1KiB", "--output", out, srv.URL)
	if r.code != exitcode.Structural || !strings.Contains(r.stderr, "http-body-too-large") || !strings.Contains(r.stderr, "1 KiB") {
		t.Fatalf("--output: exit %d, want 65 with the code\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "previous\n" {
		t.Errorf("--output holds %d bytes, want the previous content", len(b))
	}
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 1 {
		t.Errorf("left %d files beside --output", len(ents))
	}
	if srv.hits.Load() != 1 {
		t.Errorf("%d requests: a body too large is not retried", srv.hits.Load())
	}

	r = newProc(t).run("http", "--max-body", "1KiB", srv.URL)
	if r.code != exitcode.Structural || len(r.stdout) > 1024 {
		t.Errorf("stdout: exit %d, %d bytes written; want 65 and at most 1 KiB\n%s", r.code, len(r.stdout), r.stderr)
	}

	// A declared length over the cap fails before the body is read.
	small := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int64) {
		w.Header().Set("Content-Length", "4096")
		w.Write(bytes.Repeat([]byte("y"), 4096))
	})
	r = newProc(t).run("http", "--max-body", "1KiB", small.URL)
	if r.code != exitcode.Structural || r.stdout != "" {
		t.Errorf("Content-Length over the cap: exit %d, stdout %d bytes\n%s", r.code, len(r.stdout), r.stderr)
	}
	if r := newProc(t).run("http", "--max-body", "4KiB", small.URL); r.code != exitcode.OK || len(r.stdout) != 4096 {
		t.Errorf("at the cap: exit %d, stdout %d bytes\n%s", r.code, len(r.stdout), r.stderr)
	}
	if r := newProc(t).run("http", "--max-body", "0", small.URL); r.code != exitcode.Usage {
		t.Errorf("--max-body 0: exit %d, want 64", r.code)
	}

	// In a job the body goes to body-file, under the same cap.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "job.yml"), []byte(fmt.Sprintf("version: 1\njobs:\n  j:\n    steps:\n      - id: get\n        http: {url: %q, max-body: 1KiB}\n", srv.URL)), 0o644)
	if r := jobRun(t, newProc(t), dir, "run", "--config", "job.yml"); r.code != exitcode.Structural || !strings.Contains(r.stderr, "http-body-too-large") {
		t.Errorf("job: exit %d\n%s", r.code, r.stderr)
	}
}
