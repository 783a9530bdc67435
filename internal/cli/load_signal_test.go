package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/retrywise/retrywise/internal/interrupt"
)

// TestLoadingStopsOnSignal: a signal that arrives while the job file loads
// stops every command that loads one with the signal's code, whatever the
// file (a valid one, a merge-key bomb, a cycle), and nothing runs.
func TestLoadingStopsOnSignal(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"valid.yml":  "version: 1\njobs:\n  j:\n    steps:\n      - id: a\n        exec: {run: \"echo ran > ran\"}\n",
		"cyclic.yml": "version: 1\njobs:\n  j: &a {<<: *a}\n",
		"bomb.yml": "version: 1\nx0: &a0 {k: v}\n" + func() string {
			var b strings.Builder
			for i := 1; i <= 9; i++ {
				b.WriteString("x" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " {<<: [" + strings.Repeat("*a"+string(rune('0'+i-1))+", ", 8) + "*a" + string(rune('0'+i-1)) + "]}\n")
			}
			return b.String()
		}() + "jobs:\n  j:\n    <<: *a9\n    steps:\n      - id: a\n        exec: {run: x}\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for name := range files {
			for _, args := range [][]string{
				{"validate", "--config", name},
				{"run", "--config", name},
				{"schedule", "--once", "--job", "j", "--history", filepath.Join(dir, "h"), "--config", name},
			} {
				ctx, cancel := context.WithCancelCause(context.Background())
				cancel(&interrupt.Signal{Sig: sig})
				var out, errb bytes.Buffer
				c := &Command{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Env: os.Environ(), Version: "test"}
				if code := c.Main(ctx, append([]string{"retrywise"}, args...)); code != 128+int(sig) {
					t.Errorf("%v with %v: exit %d, want %d\n%s", args, sig, code, 128+int(sig), errb.String())
				}
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Errorf("a step ran")
	}
}
