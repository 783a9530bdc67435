package jobs

import "github.com/retrywise/retrywise/internal/failure"

// State is what a step's if: and ${steps...} see when it is about to start:
// the steps before it, the environment and the job's status.
type State struct {
	// Steps are the earlier steps by id (skipped ones included).
	Steps map[string]StepState
	// Env is the step's environment.
	Env map[string]string
	// Failed is true when an earlier step failed without continue-on-error
	// (success() is then false and failure() true).
	Failed bool
	// Cancelled is true when the run is being cancelled.
	Cancelled bool
}

// StepState is one earlier step as expressions see it: steps.ID.outcome,
// steps.ID.class, steps.ID.found and steps.ID.outputs.NAME.
type StepState struct {
	// Outcome is success, failure, skipped or cancelled (a failure with
	// continue-on-error is still a failure here).
	Outcome string `expr:"outcome"`
	// Class is the failure's class; None on success (expressions see "").
	Class failure.Class `expr:"class"`
	// Found is false when the step's answer was an allowed absence (404/410).
	Found bool `expr:"found"`
	// Outputs are the step's outputs by name, JSON values; expressions
	// see each as the string FormatOutput makes of it.
	Outputs map[string]any `expr:"outputs"`
}
