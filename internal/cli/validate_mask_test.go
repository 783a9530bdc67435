package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// TestValidateErrorsMaskFileSecrets: an error that quotes a value the file
// holds as a secret masks it, in text and JSON, in validate and run.
func TestValidateErrorsMaskFileSecrets(t *testing.T) {
	for _, tt := range []struct{ name, job string }{
		{"env value as timeout", "version: 1\njobs:\n  j:\n    env: {API_TOKEN: Fi1e-Secret-1}\n    timeout: \"Fi1e-Secret-1\"\n    steps: [{id: a, exec: {command: [\"true\"]}}]\n"},
		{"mask value as retry", "version: 1\njobs:\n  j:\n    steps:\n      - id: a\n        mask: [Fi1e-Secret-1]\n        exec: {command: [\"true\"]}\n        retry: {attempts: Fi1e-Secret-1}\n"},
		{"header value as method", "version: 1\njobs:\n  j:\n    steps:\n      - id: a\n        http: {url: \"http://127.0.0.1:9/\", headers: {X-Api-Key: Fi1e-Secret-1}, method: \"Fi1e-Secret-1 x\"}\n"},
		{"secret key of a step env as timeout", "version: 1\njobs:\n  j:\n    steps:\n      - id: a\n        env:\n          DEPLOY_PASSWORD: 'Fi1e-Secret-1'\n        timeout: Fi1e-Secret-1\n        exec: {command: [\"true\"]}\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "job.yml")
			if err := os.WriteFile(p, []byte(tt.job), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"validate", "--config", p}, {"validate", "--format", "json", "--config", p}, {"run", "--config", p}} {
				r := runCLI(t, "", nil, args...)
				if r.code != exitcode.Config {
					t.Errorf("%q: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
				}
				if strings.Contains(r.stdout+r.stderr, "Fi1e-Secret") {
					t.Errorf("%q: the secret quoted:\n%s%s", args, r.stdout, r.stderr)
				}
			}
		})
	}
}

// TestUsageErrorMasksSpacedHeader: a usage error does not echo a credential
// header written without its colon.
func TestUsageErrorMasksSpacedHeader(t *testing.T) {
	for _, args := range [][]string{
		{"http", "-H", "X-Api-Key Us4ge-Secret", "--bogus-flag", "http://127.0.0.1:9/"},
		{"http", "--header", "Authorization Bearer Us4ge-Secret", "--nope"},
		{"http", "-H", "X-Api-Key Us4ge-Secret", "http://127.0.0.1:9/", "extra-arg"},
		{"http", "-H", "X-Api-Key Us4ge-Secret", "http://127.0.0.1:9/"},
		{"http", "--header", "Private-Token  Us4ge-Secret", "http://127.0.0.1:9/"},
	} {
		r := runCLI(t, "", nil, args...)
		if strings.Contains(r.stdout+r.stderr, "Us4ge-Secret") {
			t.Errorf("%q: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
}
