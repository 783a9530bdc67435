package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// ifSecret is a 59-byte secret whose 3-byte pieces (an upper-case letter, a
// digit and a lower-case letter in turn, with { and } in it so that format
// reads it as a format) occur in no report's ordinary text.
const ifSecret = "Q7vK2mX9pL4w{R8tY3bN6cJ5hF1dG7sA2eU9oI4uV8xW3}qM6nB1kH5jD9g"

// ifSecretEscaped is 59 bytes holding what JSON, Go and URLs escape.
const ifSecretEscaped = `Q7v"K2m\X9p<L4w>R8t&Y3b{N6c}J5h/F1d%2G7s+A2e U9oäI4uV8xW3q`

// TestJobIfErrorQuotesNoSecret: an if: whose function fails on a value
// made from a secret (fromJSON of it, format with it as the format, the
// output of format, toJSON and join read by fromJSON) quotes that value cut;
// neither stderr, the JSON report nor the Markdown summary shows 3 bytes of
// the secret in a row, the promise of docs/reference/secrets.md.
func TestJobIfErrorQuotesNoSecret(t *testing.T) {
	for _, secret := range []string{ifSecret, ifSecretEscaped} {
		if len(secret) != 59 {
			t.Fatalf("the secret %q is %d bytes", secret, len(secret))
		}
		testIfErrorQuotesNoSecret(t, secret)
	}
}

// testIfErrorQuotesNoSecret runs TestJobIfErrorQuotesNoSecret's conditions
// with secret.
func testIfErrorQuotesNoSecret(t *testing.T, secret string) {
	for _, cond := range []string{
		"fromJSON(env.API_TOKEN)",
		"format(env.API_TOKEN, 'x')",
		"fromJSON(format('{0}', env.API_TOKEN))",
		"fromJSON(format('x{0}', env.API_TOKEN))",
		"fromJSON(format('{0}y', toJSON(env.API_TOKEN)))",
		"fromJSON(format('[{0}', toJSON(fromJSON(format('[{0}]', toJSON(env.API_TOKEN))))))",
		"fromJSON(join(fromJSON('[\"a\",\"b\"]'), env.API_TOKEN))",
		"format(format('{0}{{', env.API_TOKEN))",
		"format(join(fromJSON('[\"{\",\"b\"]'), env.API_TOKEN))",
	} {
		t.Run(cond, func(t *testing.T) {
			dir := t.TempDir()
			job := fmt.Sprintf("version: 1\njobs:\n  j:\n    steps:\n      - id: a\n        if: %q\n        exec: {run: \"true\"}\n", cond)
			os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
			r := jobRun(t, newProc(t, "API_TOKEN="+secret), dir, "run", "--report", "r.json", "--summary", "s.md")
			if r.code != exitcode.Config {
				t.Fatalf("exit %d, want %d:\n%s", r.code, exitcode.Config, r.stderr)
			}
			raw, _ := os.ReadFile(filepath.Join(dir, "r.json"))
			md, _ := os.ReadFile(filepath.Join(dir, "s.md"))
			if !strings.Contains(string(raw), "if: ") || !strings.Contains(string(md), "if: ") {
				t.Fatalf("the if: error is not reported:\n%s\n%s", raw, md)
			}
			for name, text := range map[string]string{"stderr": r.stderr, "stdout": r.stdout, "report": string(raw), "summary": string(md)} {
				for i := 0; i+3 <= len(secret); i++ {
					if p := secret[i : i+3]; strings.Contains(text, p) {
						t.Errorf("%s shows %q of the secret:\n%s", name, p, text)
						break
					}
				}
			}
		})
	}
}

// TestClassifyTailStartsInsideASecret: classify keeps the last 64 KiB of
// one long line, which starts inside a secret; the cut is marked, and the
// evidence shows no 3 bytes of the secret's end.
func TestClassifyTailStartsInsideASecret(t *testing.T) {
	head := strings.Repeat("x", 1000) + " " + ifSecret
	fail := " fatal: unable to access 'https://github.com/o/r.git/': The requested URL returned error: 403 "
	// the tail starts 30 bytes before the secret's end
	line := head + fail + strings.Repeat("y", classifyTail-30-len(fail)-1) + "\n"
	for _, args := range [][]string{{"classify"}, {"classify", "--json"}} {
		r := runCLI(t, line, []string{"API_TOKEN=" + ifSecret}, args...)
		if r.code != exitcode.OK || !strings.Contains(r.stdout, "403") {
			t.Fatalf("%v: exit %d:\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		for i := 0; i+3 <= len(ifSecret); i++ {
			if p := ifSecret[i : i+3]; strings.Contains(r.stdout+r.stderr, p) {
				t.Fatalf("%v shows %q of the secret:\n%s%s", args, p, r.stdout, r.stderr)
			}
		}
	}
}

// TestJobIfStopsAtItsBoundWhileBuilding: the if:, toJSON of 8,000
// levels of arrays (16 KB of file, which took 858 MB and 3.9 s), stops the
// step with 78 at fromJSON's nesting bound, in little memory and time; so
// does a MiB built over and over, at the bound of one evaluation.
func TestJobIfStopsAtItsBoundWhileBuilding(t *testing.T) {
	mib := "'xxxx'"
	for range 6 {
		mib = "format('{0}{0}{0}{0}{0}{0}{0}{0}', " + mib + ")"
	}
	many := mib + " == " + mib
	for len(many) < 20000-len(mib)*2-10 {
		many += " && " + mib + " == " + mib
	}
	for _, tt := range []struct{ cond, bound string }{
		{"toJSON(fromJSON('" + strings.Repeat("[", 8000) + strings.Repeat("]", 8000) + "'))", "nests deeper than the limit of 64 levels"},
		{many, "the limit of 16777216 bytes in all"},
	} {
		dir := t.TempDir()
		job := fmt.Sprintf("version: 1\njobs:\n  j:\n    steps:\n      - id: a\n        if: %q\n        exec: {run: \"true\"}\n", tt.cond)
		os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		r := jobRun(t, newProc(t), dir, "run")
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%d bytes of if: exit %d in %v, %.1f MB allocated", len(tt.cond), r.code, took, float64(alloc)/1e6)
		if r.code != exitcode.Config || !strings.Contains(r.stderr, tt.bound) {
			t.Errorf("exit %d, want %d and an error naming %q:\n%.2000s", r.code, exitcode.Config, tt.bound, r.stderr)
		}
		if alloc > 50<<20 || took > 2*time.Second {
			t.Errorf("%.1f MB allocated in %v, want under 50 MB and 2 s", float64(alloc)/1e6, took)
		}
	}
}
