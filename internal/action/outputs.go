package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/retrywise/retrywise/internal/userfile"
	"github.com/sethvargo/go-githubactions"
)

// Reserved are the action's own outputs; a run: script's output of one of
// these names reaches the workflow only inside the outputs JSON.
var Reserved = []string{"result", "class", "code", "attempts", "reason", "remedy", "exit-code", "report", "outputs", "rerun", "persistent"}

// IsReserved reports whether name is one of the action's own outputs.
func IsReserved(name string) bool { return slices.Contains(Reserved, name) }

// MaxOutputsJSON bounds the outputs output: GitHub keeps at most 1 MiB of
// a job's outputs, and the action's other outputs need their share.
const MaxOutputsJSON = 1<<20 - 64<<10

// toolkitDelimiter is the delimiter go-githubactions writes every file
// command value with; a value holding it would end the value early and
// let the rest set other names, so such a value is refused.
const toolkitDelimiter = "_GitHubActionsFileCommandDelimeter_"

// Files writes the workflow's file commands: outputs, env, path and the
// step summary, in go-githubactions' format (its EOF and the toolkit's
// delimiter), appended through userfile: the runner's files may be FIFOs
// or devices, and a signal abandons an open or a write that waits on one
// (the context of NewFiles; once it has ended, userfile.Finishing's
// grace, shared by every write).
//
// A file command whose file cannot be written (a full disk, a file the
// step's user may not write, a folder that is not there, as act's can be)
// is not an error of the call: it is recorded, the later writes to the same
// variable are not tried, and Failures reports them all once, so the step
// says it in one warning instead of one line per output.
type Files struct {
	ctx    context.Context
	grace  context.Context
	getenv Getenv
	// failed is the first write failure of each variable, in order.
	failed []error
	broken map[string]bool
}

// NewFiles returns the file commands of the step whose environment getenv
// reads; ctx abandons their writes (nil: never).
func NewFiles(ctx context.Context, getenv Getenv) *Files {
	if ctx == nil {
		ctx = context.Background()
	}
	return &Files{ctx: ctx, getenv: getenv}
}

// writeContext is the context of a write: NewFiles' while it runs; once
// it has ended, one grace (userfile.Finishing) for all the writes left.
func (f *Files) writeContext() context.Context {
	if f.ctx.Err() == nil {
		return f.ctx
	}
	if f.grace == nil {
		f.grace, _ = userfile.Finishing(f.ctx) // ends by itself after the grace
	}
	return f.grace
}

// MissingError is a file command whose variable the runner did not set.
type MissingError struct{ Var string }

// Error says which variable is missing.
func (e *MissingError) Error() string {
	return fmt.Sprintf("$%s is not set: retrywise action runs as a step of a GitHub Actions workflow (or under act)", e.Var)
}

// issue appends one file command, msg, to the variable's file; a variable
// that is not set, or a value holding the delimiter, is an error, a file
// that cannot be written is recorded (Failures).
func (f *Files) issue(variable, name, value, msg string) error {
	if f.getenv(variable) == "" {
		return &MissingError{Var: variable}
	}
	if strings.Contains(name, toolkitDelimiter) || strings.Contains(value, toolkitDelimiter) {
		return fmt.Errorf("cannot write %s to $%s: the value holds the toolkit's delimiter %s", name, variable, toolkitDelimiter)
	}
	if f.broken[variable] {
		return nil
	}
	if err := userfile.Append(f.writeContext(), f.getenv(variable), []byte(msg+githubactions.EOF)); err != nil {
		if f.broken == nil {
			f.broken = map[string]bool{}
		}
		f.broken[variable] = true
		f.failed = append(f.failed, fmt.Errorf("cannot write to $%s (%s): %w", variable, f.getenv(variable), err))
	}
	return nil
}

// multiline is a name=value file command, as go-githubactions writes it.
func multiline(name, value string) string {
	return name + "<<" + toolkitDelimiter + githubactions.EOF + value + githubactions.EOF + toolkitDelimiter
}

// Failures returns the file commands that could not be written, one error
// for each variable, or nil when every write went through.
func (f *Files) Failures() error { return errors.Join(f.failed...) }

// WriteFailureExit is the exit code of a step whose file commands could not
// be written: code itself when the step failed (its own code says more),
// and 78 (configuration: the runner's files, not the step) when it
// succeeded, so a step whose outputs are lost is never green. The second
// result is the warning's text, "" when nothing failed.
func (f *Files) WriteFailureExit(code int) (int, string) {
	err := f.Failures()
	if err == nil {
		return code, ""
	}
	msg := strings.ReplaceAll(err.Error(), "\n", "; ")
	if code == 0 {
		return 78, msg + "; the step succeeded, but later steps cannot read its outputs: exit 78"
	}
	return code, msg
}

// SetOutput sets the step's output name.
func (f *Files) SetOutput(name, value string) error {
	return f.issue("GITHUB_OUTPUT", name, value, multiline(name, value))
}

// SetEnv sets name in the environment of the job's later steps.
func (f *Files) SetEnv(name, value string) error {
	return f.issue("GITHUB_ENV", name, value, multiline(name, value))
}

// AddPath puts dir first on the PATH of the job's later steps.
func (f *Files) AddPath(dir string) error {
	return f.issue("GITHUB_PATH", "", dir, dir)
}

// AddStepSummary appends markdown to the step's summary.
func (f *Files) AddStepSummary(markdown string) error {
	return f.issue("GITHUB_STEP_SUMMARY", "", markdown, markdown)
}

// OutputsJSON renders outputs as a JSON object of at most limit bytes, for
// fromJSON. When the whole is longer, the longest values are replaced, one
// at a time, by a string saying how long they were, and the object gains
// "retrywise-cut" naming them; cut is true then.
func OutputsJSON(outputs map[string]any, limit int) (doc string, cut bool, err error) {
	b, err := json.Marshal(outputs)
	if err != nil {
		return "", false, err
	}
	if len(b) <= limit {
		return string(b), false, nil
	}
	m := make(map[string]any, len(outputs)+1)
	sizes := map[string]int{}
	for k, v := range outputs {
		m[k] = v
		vb, err := json.Marshal(v)
		if err != nil {
			return "", false, err
		}
		sizes[k] = len(vb)
	}
	names := make([]string, 0, len(sizes))
	for k := range sizes {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if sizes[names[i]] != sizes[names[j]] {
			return sizes[names[i]] > sizes[names[j]]
		}
		return names[i] < names[j]
	})
	var cutNames []string
	for _, k := range names {
		m[k] = fmt.Sprintf("(cut: %d bytes of JSON, over the outputs' limit of %d; the JSON report has it)", sizes[k], limit)
		cutNames = append(cutNames, k)
		m["retrywise-cut"] = cutNames
		if b, err = json.Marshal(m); err != nil {
			return "", false, err
		}
		if len(b) <= limit {
			return string(b), true, nil
		}
	}
	return "", true, fmt.Errorf("the outputs' names alone are over %d bytes of JSON", limit)
}
