package jobs

import (
	"context"

	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
	"github.com/retrywise/retrywise/internal/step"
)

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

// Kind is one kind of step (a step command: exec, push, http, probe,
// github-quota): the keys it accepts and how its settings become a step.
type Kind interface {
	// Name is the kind's key in a step, the command's name.
	Name() string
	// Keys are the kind's own keys, described by step's fields (only their
	// description is read: name, type, doc, default, bounds): its command's
	// long flags (without the retry, egress and report flags, which live
	// under retry: and defaults) and its positional arguments.
	Keys() []*step.Field
	// Outputs are the names of the outputs a step of the kind with the
	// settings s (its kind's keys as written) declares; declared is false
	// when it declares none and may have any (an exec step without
	// outputs:, whose script writes them).
	Outputs(s Settings) (names []string, declared bool)
	// Expands reports whether ${...} expands in the kind's settings (not in
	// exec's command or run: a script's own ${f} stays the shell's).
	Expands() bool
	// Prepare resolves settings, as validated and expanded, into a step
	// ready to run, with the same defaults and validation as the command's
	// flags; its errors are *step.FieldError naming the key (Field), their
	// Value already in Msg.
	Prepare(ctx context.Context, s Settings) (Prepared, error)
}

// Prepared is a step resolved from its settings, ready to run.
type Prepared interface {
	// Policy is the step's normalised policy snapshot.
	Policy() retry.Policy
	// Target names what the step runs or requests (secrets masked by the
	// caller), for the plan and the report.
	Target() string
	// Run runs the step's retry loop with the run's services and the
	// step's streams and environment, and returns its record, with its
	// outputs; ID is set by the runner.
	Run(ctx context.Context, svc *step.Services, io *step.IO) *report.Step
}
