package jobs

import (
	"context"
	"fmt"
	"io"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
	"github.com/retrywise/retrywise/internal/step"
)

// KeyType is how a key's YAML value becomes the flag values of its command.
type KeyType int

// The key types.
const (
	// KeyString is one string (a YAML scalar).
	KeyString KeyType = iota
	// KeyBool is true or false.
	KeyBool
	// KeyInt is a whole number.
	KeyInt
	// KeyDuration is a Go duration such as 10s or 1m30s.
	KeyDuration
	// KeyList is a repeatable flag: a YAML list, one flag value per item (a
	// scalar is a list of one).
	KeyList
	// KeyCSV is a comma-separated list (durations, codes): a string in the
	// flag's syntax, or a YAML list, each item a value.
	KeyCSV
	// KeyFloat is a number such as 0.2.
	KeyFloat
)

// String names the type for messages and the schema.
func (t KeyType) String() string {
	switch t {
	case KeyBool:
		return "bool"
	case KeyInt:
		return "int"
	case KeyDuration:
		return "duration"
	case KeyList:
		return "list"
	case KeyCSV:
		return "comma-list"
	case KeyFloat:
		return "number"
	}
	return "string"
}

// Key is one setting a kind accepts: a long flag of its command, or one of
// the command's positional arguments.
type Key struct {
	// Name is the key in the file: the flag's name without dashes.
	Name string
	// Type says how the YAML value is read.
	Type KeyType
	// Usage is the flag's help text, for the schema and the docs.
	Usage string
	// Default is the flag's default as text; "" when none.
	Default string
	// Positional is true for a command's positional argument (http: url,
	// push: args, probe: targets, exec: command or run).
	Positional bool
	// Secret is true for a key whose value is a credential (token, mask).
	Secret bool
	// Min and Max bound a number's value; "" means unbounded.
	Min, Max string
}

// Setting is one key of a step as written in the file, its YAML value
// turned into values: one for a scalar, one per item of a list.
type Setting struct {
	// Key is the key's name.
	Key string
	// Values are the flag values, in order.
	Values []string
	// Pos is where the key is written.
	Pos Pos
}

// Settings are a step's settings in file order: its kind's keys, then the
// retry keys (from defaults.retry overridden by the step's retry:), then
// the defaults that apply to its kind (e.g. breaker-threshold).
type Settings []Setting

// Get returns the setting named key.
func (s Settings) Get(key string) (Setting, bool) {
	for _, st := range s {
		if st.Key == key {
			return st, true
		}
	}
	return Setting{}, false
}

// SettingError is a kind's complaint about one of a step's settings; the
// loader reports it at the key's position (at the kind's key when Key is
// empty).
type SettingError struct {
	// Key is the setting at fault; "" means the step's settings as a whole.
	Key string
	// Msg says what is wrong, in one line.
	Msg string
	// Fix says in one line how to fix it; may be empty.
	Fix string
}

// Error returns the key and the message.
func (e *SettingError) Error() string {
	if e.Key == "" {
		return e.Msg
	}
	return fmt.Sprintf("%s: %s", e.Key, e.Msg)
}

// Kind is one kind of step (a step command: exec, push, http, probe,
// github-quota): the keys it accepts and how its settings become a step.
type Kind interface {
	// Name is the kind's key in a step, the command's name.
	Name() string
	// Keys are the kind's own keys: its command's long flags (without the
	// retry, egress and report flags, which live under retry: and defaults)
	// and its positional arguments.
	Keys() []Key
	// Outputs are the names of the kind's outputs; fixed is false when a
	// step may have any (exec, whose outputs its command writes).
	Outputs() (names []string, fixed bool)
	// Expands reports whether ${...} expands in the kind's settings (not in
	// exec's command or run: a script's own ${f} stays the shell's).
	Expands() bool
	// Prepare resolves settings, as validated and expanded, into a step
	// ready to run, with the same defaults and validation as the command's
	// flags; its errors are *SettingError.
	Prepare(ctx context.Context, s Settings) (Prepared, error)
}

// Prepared is a step resolved from its settings, ready to run.
type Prepared interface {
	// Policy is the step's normalised policy snapshot.
	Policy() retry.Policy
	// Target names what the step runs or requests (secrets masked by the
	// caller), for the plan and the report.
	Target() string
	// Run runs the step's retry loop and returns its record, with its
	// outputs; ID is set by the runner.
	Run(ctx context.Context, rt *Runtime) *report.Step
}

// Runtime is what a running step may use of its run: the masked streams,
// the step's environment and the run's clock. Services shared by every
// step of a run (breakers, egress prober, transport) belong to the kinds,
// which are built per run.
type Runtime struct {
	// Env is the step's environment (KEY=VALUE): the process's, then the
	// job's env:, then the step's env:.
	Env []string
	// Stdin is the run's standard input.
	Stdin io.Reader
	// Stdout and Stderr are the run's masked streams.
	Stdout, Stderr *redact.Writer
	// Redactor masks the run's output; a step registers the credentials it
	// sends (AddRequest).
	Redactor *redact.Redactor
	// Clock drives every wait.
	Clock clock.Clock
	// Services are what every step of the run shares (the egress prober,
	// the breakers, the random source of jitter).
	Services *step.Services
	// Expand expands ${...} in the step's settings with the run's state.
	Expand func(v string) (string, error)
	// StdoutTerminal is true when the process's stdout is a terminal.
	StdoutTerminal bool
	// Progress is the loop's progress line for one failed attempt that will be retried.
	Progress func(a retry.Attempt, maxAttempts int)
	// Attempting, when set, is called as each attempt starts; the function
	// it returns, when not nil, as the attempt ends (retry.Coordinator).
	Attempting func(n, maxAttempts int) (ended func())
	// TempDir is the run's temporary folder (body files, output files),
	// removed by the caller when the run ends.
	TempDir string
	// ID is the step's id.
	ID string
}
