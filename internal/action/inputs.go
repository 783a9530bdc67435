package action

import (
	"errors"
	"fmt"
	"strings"

	"github.com/retrywise/retrywise/internal/options"
	"github.com/retrywise/retrywise/internal/step"
)

// Mode is what the action runs, chosen by exactly one of its mode inputs.
type Mode string

// The action's modes, named by the input that chooses them.
const (
	// ModeRun runs the run: input as a workflow's run: runs it.
	ModeRun Mode = "run"
	// ModePush runs git push with push-args (push: true).
	ModePush Mode = "push"
	// ModeHTTP sends an HTTP request to url.
	ModeHTTP Mode = "url"
	// ModeJob runs a job of the job file config.
	ModeJob Mode = "config"
	// ModeExplain explains a failed workflow run (a run URL, or event for
	// the workflow_run event's run), re-running it when rerun allows.
	ModeExplain Mode = "explain"
)

// Kind is the step kind (and command) a mode runs; ModeJob runs `run`.
func (m Mode) Kind() string {
	switch m {
	case ModeRun:
		return "exec"
	case ModePush:
		return "push"
	case ModeHTTP:
		return "http"
	case ModeExplain:
		return "explain"
	}
	return "run"
}

// ModeInputs are the inputs that choose mode m or feed its positional
// arguments; they are not flags. Their table is internal/options'.
func ModeInputs(m Mode) []string {
	return names((&options.Action{}).ModeFields()[string(m)])
}

// CommonInputs are the inputs every mode takes that are not flags, from
// their table in internal/options.
func CommonInputs() []string {
	return names((&options.Action{}).CommonFields())
}

// names are the fields' names in their order.
func names(fields []*step.Field) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Name
	}
	return out
}

// Getenv looks an environment variable up, "" when unset.
type Getenv func(name string) string

// InputVar is the environment variable the runner sets for input name:
// INPUT_ and the name upper-cased, hyphens kept (INPUT_MAX-ATTEMPTS).
func InputVar(name string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
}

// ChooseMode returns the mode the inputs choose: exactly one of run, push
// (true), url, config and explain must be given.
func ChooseMode(input func(name string) string) (Mode, error) {
	var chosen []Mode
	if input("run") != "" {
		chosen = append(chosen, ModeRun)
	}
	switch p := input("push"); p {
	case "", "false":
	case "true":
		chosen = append(chosen, ModePush)
	default:
		return "", fmt.Errorf("invalid input push %q: want true or false", p)
	}
	if input("url") != "" {
		chosen = append(chosen, ModeHTTP)
	}
	if input("config") != "" {
		chosen = append(chosen, ModeJob)
	}
	if input("explain") != "" {
		chosen = append(chosen, ModeExplain)
	}
	switch len(chosen) {
	case 1:
		return chosen[0], nil
	case 0:
		return "", errors.New("no mode chosen: give exactly one of the inputs run (a script), push: true (with push-args), url (an HTTP request), config (a job file, with job) or explain (a run URL, or event)")
	}
	names := make([]string, len(chosen))
	for i, m := range chosen {
		names[i] = string(m)
	}
	return "", fmt.Errorf("several modes chosen (%s): give exactly one of run, push: true, url, config and explain", strings.Join(names, ", "))
}

// Values splits an input's text into the values of its flag: one per
// non-empty line for a repeatable flag (header, field, retry-on, mask),
// the text itself otherwise (a list flag keeps its comma syntax:
// schedule: 2s,4s,8s).
func Values(text string, repeatable bool) []string {
	if !repeatable {
		return []string{text}
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(strings.TrimSuffix(line, "\r")); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// ParseBool reads a boolean input as the runner's YAML gives it: true or
// false; "" is def.
func ParseBool(name, text string, def bool) (bool, error) {
	switch text {
	case "":
		return def, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("invalid input %s %q: want true or false", name, text)
}
