package execstep

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The shells a script's shell setting may name.
const (
	// ShellBash runs a script with bash --noprofile --norc -eo pipefail.
	ShellBash = "bash"
	// ShellSh runs a script with sh -e.
	ShellSh = "sh"
	// ScriptPlaceholder stands for the script file's path in a shell template.
	ScriptPlaceholder = "{0}"
)

// ShellError is a shell setting that cannot run a script.
type ShellError struct {
	// Shell is the setting as given; "" for the default.
	Shell string
	// Reason says what is wrong in one line.
	Reason string
	// Err is the PATH lookup's error when the interpreter is missing; nil otherwise.
	Err error
}

// Error returns "shell "S": reason".
func (e *ShellError) Error() string {
	msg := fmt.Sprintf("shell %q: %s", e.Shell, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the lookup's error.
func (e *ShellError) Unwrap() error { return e.Err }

// ScriptCommand returns the argv that runs the script file at scriptPath
// under shell (see the package documentation); lookPath resolves interpreters, nil
// meaning exec.LookPath. Errors are *ShellError.
func ScriptCommand(shell, scriptPath string, lookPath func(string) (string, error)) ([]string, error) {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	if scriptPath == "" {
		return nil, &ShellError{Shell: shell, Reason: "no script file to run"}
	}
	find := func(name string) (string, error) {
		p, err := lookPath(name)
		if err != nil {
			return "", &ShellError{Shell: shell, Reason: "cannot find " + name, Err: err}
		}
		return p, nil
	}
	bash := func(p string) []string { return []string{p, "--noprofile", "--norc", "-eo", "pipefail", scriptPath} }
	sh := func(p string) []string { return []string{p, "-e", scriptPath} }
	switch strings.TrimSpace(shell) {
	case "":
		if shell != "" {
			return nil, &ShellError{Shell: shell, Reason: "empty shell: leave it unset for the default"}
		}
		if p, err := lookPath(ShellBash); err == nil {
			return bash(p), nil
		}
		p, err := lookPath(ShellSh)
		if err != nil {
			return nil, &ShellError{Shell: shell, Reason: "neither bash nor sh is in PATH", Err: err}
		}
		return sh(p), nil
	case ShellBash:
		p, err := find(ShellBash)
		if err != nil {
			return nil, err
		}
		return bash(p), nil
	case ShellSh:
		p, err := find(ShellSh)
		if err != nil {
			return nil, err
		}
		return sh(p), nil
	}
	fields := strings.Fields(shell)
	if !strings.Contains(shell, ScriptPlaceholder) {
		if len(fields) == 1 {
			return nil, &ShellError{Shell: shell, Reason: `unknown shell: use bash, sh, or a command line with {0} for the script's path, e.g. "` + fields[0] + ` {0}"`}
		}
		return nil, &ShellError{Shell: shell, Reason: "a shell command line needs {0} where the script's path goes"}
	}
	argv := make([]string, len(fields))
	for i, f := range fields {
		argv[i] = strings.ReplaceAll(f, ScriptPlaceholder, scriptPath)
	}
	if !strings.Contains(fields[0], ScriptPlaceholder) {
		p, err := find(fields[0])
		if err != nil {
			return nil, err
		}
		argv[0] = p
	}
	return argv, nil
}

// WriteScript writes script, byte for byte, to a new file in dir ("" for the
// system's temporary directory) and returns its absolute path. The file is
// 0600, or 0700 when the script starts with "#!" so a "{0}" shell can run it
// directly. The caller removes it.
func WriteScript(dir, script string) (path string, err error) {
	if dir == "" {
		dir = os.TempDir()
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", fmt.Errorf("script file: %w", err)
	}
	f, err := os.CreateTemp(dir, "script-*")
	if err != nil {
		return "", fmt.Errorf("script file: %w", err)
	}
	path = f.Name()
	_, err = f.WriteString(script)
	if err == nil && strings.HasPrefix(script, "#!") {
		err = f.Chmod(0o700)
	}
	err = errors.Join(err, f.Close())
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("script file: %w", err)
	}
	return path, nil
}
