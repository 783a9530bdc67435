package action

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/retrywise/retrywise/internal/outputfile"
	"github.com/retrywise/retrywise/internal/userfile"
)

// ScriptFileVars are the file commands a run: script may write to; each
// attempt gets fresh files (execstep.Options.AttemptFiles), and only the
// final attempt's reach the workflow.
var ScriptFileVars = []string{"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"}

// AttemptFiles returns the script's file command paths in dir, by variable.
func AttemptFiles(dir string) map[string]string {
	m := make(map[string]string, len(ScriptFileVars))
	for _, v := range ScriptFileVars {
		m[v] = filepath.Join(dir, strings.ToLower(v))
	}
	return m
}

// Final is what the final attempt of a run: script wrote to its file commands.
type Final struct {
	// Outputs are its $GITHUB_OUTPUT entries, in order.
	Outputs []outputfile.Entry
	// Env are its $GITHUB_ENV entries, in order.
	Env []outputfile.Entry
	// Path are the non-empty lines of its $GITHUB_PATH.
	Path []string
	// Summary is its $GITHUB_STEP_SUMMARY, as written.
	Summary string
}

// ReadFinal reads the files AttemptFiles named after the loop; a file the
// script removed holds nothing, as the runner treats it. The script may
// have put a FIFO in a file's place: ctx abandons the read
// (userfile.ReadFile).
func ReadFinal(ctx context.Context, files map[string]string) (Final, error) {
	var fin Final
	read := func(name string) (string, error) {
		if files[name] == "" {
			return "", nil
		}
		b, err := userfile.ReadFile(ctx, files[name], -1)
		if errors.Is(err, fs.ErrNotExist) || files[name] == "" {
			return "", nil
		}
		return string(b), err
	}
	var errs []error
	for _, name := range ScriptFileVars {
		text, err := read(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("$%s: %w", name, err))
			continue
		}
		switch name {
		case "GITHUB_OUTPUT", "GITHUB_ENV":
			entries, err := outputfile.Parse(strings.NewReader(text))
			if err != nil {
				errs = append(errs, fmt.Errorf("$%s: %w", name, err))
				continue
			}
			if name == "GITHUB_OUTPUT" {
				fin.Outputs = entries
			} else {
				fin.Env = entries
			}
		case "GITHUB_PATH":
			for _, line := range strings.Split(text, "\n") {
				if line = strings.TrimSuffix(line, "\r"); line != "" {
					fin.Path = append(fin.Path, line)
				}
			}
		case "GITHUB_STEP_SUMMARY":
			fin.Summary = text
		}
	}
	return fin, errors.Join(errs...)
}

// ActShareDir is the folder act shares between a job's steps and its
// actions' containers (a volume at /var/run/act), besides the workspace.
// A variable so a test can point it elsewhere.
var ActShareDir = "/var/run/act"

// ActShare returns the folder, under act (ACT=true), for the files later
// steps read (the JSON report, http's body-file): act sets RUNNER_TEMP to
// /tmp, which is private to a Docker action's container, and the workspace
// is where a later `git add -A` would commit them, so they go to
// ActShareDir/retrywise, which every step of the job sees at the same path.
// It returns "" on the runner (no ACT=true) or when that folder cannot be
// made; the caller keeps its own placement then.
func ActShare(getenv Getenv) string {
	if getenv("ACT") != "true" {
		return ""
	}
	if st, err := os.Stat(ActShareDir); err != nil || !st.IsDir() {
		return ""
	}
	dir := filepath.Join(ActShareDir, "retrywise")
	// Readable by whoever runs the later steps (act's job container may
	// run them as another user than the action's root).
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	return dir
}
