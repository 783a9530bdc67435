package execstep

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

// fakePath resolves the names it holds to /bin/NAME and fails for the rest.
func fakePath(names ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		if slices.Contains(names, name) {
			return "/bin/" + name, nil
		}
		return "", exec.ErrNotFound
	}
}

func TestScriptCommand(t *testing.T) {
	const f = "/tmp/s/script-1"
	bash := []string{"/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", f}
	sh := []string{"/bin/sh", "-e", f}
	tests := []struct {
		name     string
		shell    string
		script   string
		path     func(string) (string, error)
		want     []string
		errHas   string // part of the *ShellError; "" when none
		notFound bool   // the error wraps the lookup's
	}{
		{name: "default is bash with pipefail", path: fakePath("bash", "sh"), want: bash},
		{name: "default falls back to sh", path: fakePath("sh"), want: sh},
		{name: "bash", shell: "bash", path: fakePath("bash", "sh"), want: bash},
		{name: "sh even with bash", shell: "sh", path: fakePath("bash", "sh"), want: sh},
		{name: "a name with spaces around", shell: " sh ", path: fakePath("sh"), want: sh},
		{name: "template", shell: "python3 {0}", path: fakePath("python3"), want: []string{"/bin/python3", f}},
		{name: "template with flags", shell: "bash -x {0}", path: fakePath("bash"), want: []string{"/bin/bash", "-x", f}},
		{name: "{0} inside a field, twice", shell: "tool --file={0} --log={0}.log", path: fakePath("tool"),
			want: []string{"/bin/tool", "--file=" + f, "--log=" + f + ".log"}},
		{name: "no shell parsing of quotes", shell: `bash -c "echo {0}"`, path: fakePath("bash"),
			want: []string{"/bin/bash", "-c", `"echo`, f + `"`}},
		{name: "the script itself", shell: "{0} --flag", path: fakePath(), want: []string{f, "--flag"}},

		{name: "no bash, no sh", path: fakePath(), errHas: "neither bash nor sh", notFound: true},
		{name: "bash missing", shell: "bash", path: fakePath("sh"), errHas: "cannot find bash", notFound: true},
		{name: "template's command missing", shell: "python3 {0}", path: fakePath("bash"), errHas: "cannot find python3", notFound: true},
		{name: "unknown shell name", shell: "zsh", path: fakePath("zsh"), errHas: `unknown shell: use bash, sh, or a command line with {0} for the script's path, e.g. "zsh {0}"`},
		{name: "template without {0}", shell: "bash -x", path: fakePath("bash"), errHas: "needs {0}"},
		{name: "blank shell", shell: "  ", path: fakePath("bash"), errHas: "empty shell"},
		{name: "no script path", script: "-", path: fakePath("bash"), errHas: "no script file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := f
			if tt.script == "-" {
				path = ""
			}
			got, err := ScriptCommand(tt.shell, path, tt.path)
			if tt.errHas == "" {
				if err != nil || !slices.Equal(got, tt.want) {
					t.Fatalf("ScriptCommand = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			var se *ShellError
			if !errors.As(err, &se) || !strings.Contains(se.Error(), tt.errHas) || se.Shell != tt.shell || got != nil {
				t.Fatalf("ScriptCommand = %q, %v; want a *ShellError containing %q", got, err, tt.errHas)
			}
			if errors.Is(err, exec.ErrNotFound) != tt.notFound {
				t.Errorf("wraps the lookup's error: %v, want %v", !tt.notFound, tt.notFound)
			}
		})
	}
}

// runScript writes script to a file, runs it as one attempt under shell and
// returns the step, the script's path and the verdict.
func runScript(t *testing.T, shell, script string, lookPath func(string) (string, error), env []string) (*Step, string, error) {
	t.Helper()
	path, err := WriteScript(t.TempDir(), script)
	if err != nil {
		t.Fatal(err)
	}
	argv, err := ScriptCommand(shell, path, lookPath)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Args: argv, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Attempt(context.Background(), 1)
	return s, path, err
}

// noBash is exec.LookPath on a machine without bash.
func noBash(name string) (string, error) {
	if name == "bash" {
		return "", exec.ErrNotFound
	}
	return exec.LookPath(name)
}

func need(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Fatalf("%s is not installed: the tests run it for real (a base Debian system has it)", n)
		}
	}
}

func TestScriptsRunLikeAWorkflowRunStep(t *testing.T) {
	tests := []struct {
		name     string
		shell    string
		lookPath func(string) (string, error)
		needs    []string
		script   string
		exit     int    // 0 for success
		output   string // the whole combined output, exactly
	}{
		{name: "success", needs: []string{"bash"}, script: "echo one\necho two\n", output: "one\ntwo\n"},
		{name: "a failing first line stops the script (-e)", needs: []string{"bash"},
			script: "echo start\nfalse\necho reached\n", exit: 1, output: "start\n"},
		{name: "a failing command in a pipe fails it (pipefail)", needs: []string{"bash"},
			script: "exit_3() { return 3; }\nexit_3 | cat\necho reached\n", exit: 3, output: ""},
		{name: "sh fallback without bash: -e", lookPath: noBash, needs: []string{"sh"},
			script: "echo start\nfalse\necho reached\n", exit: 1, output: "start\n"},
		{name: "sh fallback without bash: no pipefail", lookPath: noBash, needs: []string{"sh"},
			script: "false | cat\necho reached\n", output: "reached\n"},
		{name: "shell: sh", shell: "sh", needs: []string{"sh"}, script: "echo sh\nexit 4\n", exit: 4, output: "sh\n"},
		{name: "the exit status is the script's", needs: []string{"bash"}, script: "exit 42\n", exit: 42},
		{name: "a {0} template: another interpreter", shell: "awk -f {0}", needs: []string{"awk"},
			script: "BEGIN { print \"from awk\"; exit 5 }\n", exit: 5, output: "from awk\n"},
		{name: "a {0} template: bash -x traces", shell: "bash -x {0}", needs: []string{"bash"},
			script: "echo hi >&2\n", output: "+ echo hi\nhi\n"}, // both on stderr, so in order
		{name: "a {0} template with the script itself", shell: "{0}", needs: []string{"sh"},
			script: "#!/bin/sh\necho direct\n", output: "direct\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			need(t, tt.needs...)
			s, _, err := runScript(t, tt.shell, tt.script, tt.lookPath, nil)
			var f *failure.Failure
			switch {
			case tt.exit == 0 && err != nil:
				t.Fatalf("script failed: %v (output %q)", err, s.LastOutput())
			case tt.exit != 0 && !errors.As(err, &f):
				t.Fatalf("script = %v, want a failure", err)
			}
			if s.LastExitCode() != tt.exit || s.LastOutput() != tt.output {
				t.Errorf("exit %d, output %q; want %d, %q", s.LastExitCode(), s.LastOutput(), tt.exit, tt.output)
			}
		})
	}
}

func TestScriptTextIsTheShells(t *testing.T) {
	// No $1 anywhere: ${f}, $$ and $0 are the shell's, set when it runs.
	script := "f=from-script\necho \"${f} $$ $0\"\necho \"${FROM_ENV}\" '${f}' \\$$\n"
	tests := []struct {
		name     string
		lookPath func(string) (string, error)
		needs    string
	}{
		{"bash", nil, "bash"},
		{"sh", noBash, "sh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			need(t, tt.needs)
			env := []string{"PATH=" + os.Getenv("PATH"), "FROM_ENV=from-env", "f=not-this"}
			s, path, err := runScript(t, "", script, tt.lookPath, env)
			out := s.LastOutput()
			if err != nil {
				t.Fatalf("%v (output %q)", err, out)
			}
			want := regexp.MustCompile(`^from-script ([0-9]+) ` + regexp.QuoteMeta(path) + "\nfrom-env \\$\\{f\\} \\$\\$\n$")
			m := want.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("output %q, want %s", out, want)
			}
			if pid, _ := strconv.Atoi(m[1]); pid <= 1 || pid == os.Getpid() {
				t.Errorf("$$ = %s, not the shell's pid", m[1])
			}
		})
	}
}

func TestWriteScript(t *testing.T) {
	tests := []struct {
		name   string
		script string
		mode   os.FileMode
	}{
		{"plain", "echo ${HOME} $$ {0} %s\r\n", 0o600},
		{"shebang", "#!/bin/sh\necho hi\n", 0o700},
		{"empty", "", 0o600},
		{"binary", "\x00\xff${{ secrets.X }}", 0o600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path, err := WriteScript(dir, tt.script)
			if err != nil {
				t.Fatal(err)
			}
			if !filepath.IsAbs(path) || filepath.Dir(path) != dir {
				t.Errorf("path %q is not an absolute path in %s", path, dir)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != tt.script {
				t.Errorf("file holds %q (%v), want %q verbatim", got, err, tt.script)
			}
			if st, err := os.Stat(path); err != nil || st.Mode().Perm() != tt.mode {
				t.Errorf("mode %v (%v), want %v", st.Mode().Perm(), err, tt.mode)
			}
		})
	}
	t.Run("every call a new file", func(t *testing.T) {
		dir := t.TempDir()
		a, errA := WriteScript(dir, "a")
		b, errB := WriteScript(dir, "b")
		if errA != nil || errB != nil || a == b {
			t.Errorf("WriteScript gave %q and %q (%v, %v)", a, b, errA, errB)
		}
	})
	t.Run("a relative dir gives an absolute path", func(t *testing.T) {
		t.Chdir(t.TempDir())
		path, err := WriteScript(".", "x")
		if err != nil || !filepath.IsAbs(path) {
			t.Errorf("WriteScript(\".\") = %q, %v", path, err)
		}
	})
	t.Run("a missing dir", func(t *testing.T) {
		if _, err := WriteScript(filepath.Join(t.TempDir(), "absent"), "x"); err == nil {
			t.Error("no error")
		}
	})
}
