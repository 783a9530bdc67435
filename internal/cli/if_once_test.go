package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// TestJobIfErrorSaysTheSourceOnce: an if: that fails while it is evaluated
// is reported as "if: SOURCE: error", the source said once, in stderr, the
// JSON report and the summary.
func TestJobIfErrorSaysTheSourceOnce(t *testing.T) {
	dir := t.TempDir()
	const cond = "fromJSON('ten') < 10"
	job := "version: 1\njobs:\n  j:\n    steps:\n      - id: a\n        if: \"" + cond + "\"\n        exec: {run: \"true\"}\n"
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
	r := jobRun(t, newProc(t), dir, "run", "--report", "r.json", "--summary", "s.md")
	if r.code != exitcode.Config {
		t.Fatalf("exit %d, want %d:\n%s", r.code, exitcode.Config, r.stderr)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	md, _ := os.ReadFile(filepath.Join(dir, "s.md"))
	for name, text := range map[string]string{"stderr": r.stderr, "report": string(raw), "summary": string(md)} {
		if !strings.Contains(text, "if: fromJSON") {
			t.Errorf("%s does not report the if: error:\n%s", name, text)
		}
		for _, line := range strings.Split(text, "\n") {
			if n := strings.Count(line, "if: fromJSON"); n > 1 {
				t.Errorf("%s says the if: source %d times in %q", name, n, line)
			}
		}
	}
}
