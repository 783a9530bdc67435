package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// TestFlagsFollowArguments: every command takes its flags before or after
// its arguments, with the one parser.
func TestFlagsFollowArguments(t *testing.T) {
	t.Run("explain URL --report F", func(t *testing.T) {
		api, _ := explainServer(t, "completed")
		rep := filepath.Join(t.TempDir(), "r.json")
		env := []string{"GITHUB_API_URL=" + api, "GITHUB_TOKEN=" + explainToken}
		code, stdout, stderr := runExplainCLI(t, env, "https://github.com/o/r/actions/runs/7", "--report", rep)
		if code != 77 {
			t.Fatalf("exit = %d, want 77\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		if b, err := os.ReadFile(rep); err != nil || !strings.Contains(string(b), `"npm-forbidden"`) {
			t.Errorf("report: %v %s", err, b)
		}
	})
	t.Run("probe HOST --json", func(t *testing.T) {
		r := runCLI(t, "", nil, "probe", "127.0.0.1:1", "--json")
		var doc struct {
			Results []struct{ Target string }
		}
		if r.code != exitcode.OK || json.Unmarshal([]byte(r.stdout), &doc) != nil || len(doc.Results) != 1 || doc.Results[0].Target != "127.0.0.1:1" {
			t.Errorf("exit %d, stdout %q, stderr %q: want one JSON result for 127.0.0.1:1", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("classify: a flag after a flag's value", func(t *testing.T) {
		r := runCLI(t, "fatal: unable to access 'https://example.com/': Could not resolve host: example.com\n", nil, "classify", "--tool", "git", "--json")
		if r.code != exitcode.OK || !strings.HasPrefix(r.stdout, `{"class":`) {
			t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("validate: an argument before a flag is still unexpected", func(t *testing.T) {
		r := runCLI(t, "", nil, "validate", "extra", "--format", "json")
		if r.code != exitcode.Usage || r.stderr != "retrywise: unexpected argument \"extra\" (see --help)\n" {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
	})
}

// TestDoubleDashEndsFlags: after "--" every argument is an argument, even
// one spelled like a flag.
func TestDoubleDashEndsFlags(t *testing.T) {
	r := runCLI(t, "", nil, "probe", "--json", "--", "--json")
	var doc struct {
		Results []struct{ Target string }
	}
	if r.code != exitcode.OK || json.Unmarshal([]byte(r.stdout), &doc) != nil || len(doc.Results) != 1 || doc.Results[0].Target != "--json:443" {
		t.Errorf("exit %d, stdout %q, stderr %q: want one JSON result for the target --json", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", nil, "explain", "--", "--report")
	if r.code != exitcode.Usage || !strings.Contains(r.stderr, `"--report"`) || strings.Contains(r.stderr, "flag") {
		t.Errorf("explain -- --report: exit %d, stderr %q; want --report taken as the run URL", r.code, r.stderr)
	}
}

// TestChildArgumentsAreNeverFlags: exec's command and push's git
// arguments, from "--" or from the first argument, are the child's.
func TestChildArgumentsAreNeverFlags(t *testing.T) {
	r := runCLI(t, "", nil, "exec", "echo", "--json", "hi")
	if r.code != exitcode.OK || r.stdout != "--json hi\n" {
		t.Errorf("exec echo --json hi: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", nil, "exec", "--max-attempts", "1", "sh", "-c", "echo $0 $1", "--timeout", "x")
	if r.code != exitcode.OK || r.stdout != "--timeout x\n" {
		t.Errorf("exec sh -c ... --timeout x: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	fx := newPushFixture(t)
	rep := filepath.Join(t.TempDir(), "r.json")
	p := runPushCLI(t, fx.env, "--dir", fx.work, "--max-attempts", "1", "origin", "main", "--report", rep)
	if p.code == exitcode.OK || p.code == exitcode.Usage || !strings.Contains(p.stderr, "report") {
		t.Errorf("push origin main --report F: exit %d, stderr %s; want git to refuse its unknown option", p.code, p.stderr)
	}
	if _, err := os.Stat(rep); err == nil {
		t.Error("push took --report after its git arguments as its own flag")
	}
}

// TestHelpNamesValueTypes: a flag whose doc names no value shows its
// field's type as the flag package names its own (int, duration, string),
// for a command's table and a step kind's alike.
func TestHelpNamesValueTypes(t *testing.T) {
	for cmd, want := range map[string][]string{
		"schedule": {"\n  --keep int\n", "\n  --grace duration\n", "\n  --once\n"},
		"classify": {"\n  --tool string\n", "\n  --exit-code int\n", "\n  --header 'Name: value'\n"},
		"explain":  {"\n  --run ID\n", "\n  --rerun\n"},
		"exec":     {"\n  --kill-grace duration\n", "\n  --max-attempts int\n", "\n  --on-unknown string\n"},
	} {
		r := runCLI(t, "", nil, cmd, "--help")
		if r.code != exitcode.OK {
			t.Fatalf("%s --help: exit %d: %s", cmd, r.code, r.stderr)
		}
		for _, w := range want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%s --help lacks %q:\n%s", cmd, w, r.stdout)
			}
		}
	}
}
