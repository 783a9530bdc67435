// Package reportschema generates the JSON report's schema
// (docs/report.schema.json) from the report's Go types. It is kept out of
// the binary: only tests and the docs need it, and its reflection library
// costs every command's start.
package reportschema

import (
	"encoding/json"
	"reflect"

	"github.com/invopop/jsonschema"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

// SchemaID is the JSON report schema's $id.
const SchemaID = "https://github.com/retrywise/retrywise/docs/report.schema.json"

// durationPattern matches a Go duration as time.Duration.String writes it.
const durationPattern = `^-?([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`

// Schema returns the JSON Schema of the JSON report (Run.WriteJSON),
// reflected from the Go types: indented, stable, ending in a newline. It
// is docs/report.schema.json.
func Schema() ([]byte, error) {
	comments := schemaComments()
	comment := func(t reflect.Type, field string) string { return comments[t.Name()+"."+field] }
	r := &jsonschema.Reflector{Anonymous: true, ExpandedStruct: true, Mapper: schemaMapper, LookupComment: comment}
	s := r.Reflect(&report.Run{})
	s.ID = SchemaID
	s.Title = "retrywise report"
	s.Description = "The JSON report of one retrywise run: a job's steps in order, or the one step of a step command (exec, push, http, github-quota), with every attempt, the final failure's class, code, evidence and remedy, and the retry policy that ran."
	s.Properties.Value("version").Const = report.Version
	s.Definitions["RunInfo"].Properties.Value("result").Enum = []any{report.Success, report.Failure, report.Cancelled}

	p := (&jsonschema.Reflector{Anonymous: true, ExpandedStruct: true, DoNotReference: true, Mapper: schemaMapper, LookupComment: comment}).Reflect(&policySchema{})
	p.Version, p.Definitions = "", nil
	p.Description = comment(reflect.TypeFor[policySchema](), "")
	s.Definitions["Policy"] = p

	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// policySchema mirrors what retry.Policy's MarshalJSON writes.
type policySchema struct {
	Schedule      []durationString `json:"schedule"`
	MaxAttempts   int              `json:"max_attempts" jsonschema:"minimum=0"`
	MaxElapsed    durationString   `json:"max_elapsed"`
	RetryAfterCap durationString   `json:"retry_after_cap"`
	OnUnknown     retry.OnUnknown  `json:"on_unknown"`
	Jitter        float64          `json:"jitter,omitempty" jsonschema:"minimum=0,maximum=1"`
}

// durationString is a Go duration written as a string ("1m30s").
type durationString string

// schemaMapper gives the types that marshal specially, or whose values are
// a closed set, their schema.
func schemaMapper(t reflect.Type) *jsonschema.Schema {
	switch t {
	case reflect.TypeFor[failure.Class]():
		// its text form; None, no failure, is "" and left out
		return &jsonschema.Schema{Type: "string"}
	case reflect.TypeFor[report.Result]():
		return &jsonschema.Schema{Type: "string", Enum: []any{report.Success, report.Failure, report.Skipped, report.Cancelled}}
	case reflect.TypeFor[retry.Policy]():
		return &jsonschema.Schema{Ref: "#/$defs/Policy"}
	case reflect.TypeFor[retry.OnUnknown]():
		return &jsonschema.Schema{Type: "string", Enum: []any{retry.UnknownStop, retry.UnknownRetry, ""}}
	case reflect.TypeFor[durationString]():
		return &jsonschema.Schema{Type: "string", Pattern: durationPattern}
	}
	return nil
}

// schemaComments are the schema's descriptions by "Type.Field" (Go names;
// "Type." for the type itself).
func schemaComments() map[string]string {
	return map[string]string{
		"Run.Version": "The schema's version.",
		"Run.Run":     "Which job ran, when, and how it ended.",
		"Run.Steps":   "The job's steps in order, skipped ones included; one step for a step command.",

		"RunInfo.":         "The run's own record.",
		"RunInfo.Job":      "The job's name; for a step command, the command's name.",
		"RunInfo.Start":    "When the run began.",
		"RunInfo.End":      "When the run ended.",
		"RunInfo.ExitCode": "The code retrywise exits with.",
		"RunInfo.Result":   "How the run ended: success on exit 0, cancelled on 130 or 143, failure otherwise.",
		"RunInfo.Detail":   "Explains a result the steps do not (the job's timeout, a signal).",

		"Step.":                "One step: what ran, how it ended, the final failure's class, evidence and remedy, every attempt and the policy that ran.",
		"Step.ID":              "The step's id in the job file; the command's name for a step command.",
		"Step.Kind":            "The step's kind: exec, push, http, probe, github-quota; explain for a failed step of an explained workflow run.",
		"Step.Target":          "What was run or requested, secrets masked.",
		"Step.Result":          "How the step ended; an allowed absence (absent-ok) is a success.",
		"Step.ContinueOnError": "True when the step's failure does not fail the job.",
		"Step.Class":           "The final failure's class (transient, structural, policy, absent, unknown, ...); absent on success.",
		"Step.Code":            "The final failure's stable, kebab-case code, e.g. git-non-fast-forward; absent on success.",
		"Step.Decision":        "What the class alone recommends: retry or stop.",
		"Step.Stop":            "Why the loop ended: succeeded, not-retryable, cannot-retry-in-context, attempts-exhausted, elapsed-exhausted, retry-after-over-cap or cancelled; absent for a step that did not run.",
		"Step.Reason":          "The final failure's one-line reason.",
		"Step.Detail":          "Explains the stop when the reason alone does not (bounds, caps, context, why the step was skipped).",
		"Step.Evidence":        "The lines of output the verdict rests on.",
		"Step.Remedy":          "What to do.",
		"Step.Persistent":      "Hindsight: set when the failure repeated the runs before (the same class, code kind and target), so the step made one attempt and no retries.",
		"Persistence.":         "The runs that failed the same way.",
		"Persistence.Runs":     "How many runs failed the same way, this one included (persist-after).",
		"Persistence.Since":    "The first of those runs.",
		"Persistence.Dates":    "The runs before this one, oldest first.",
		"Step.Notes":           "Extra facts worth reading (a landed push, an unreplayable stdin).",
		"Step.Outputs":         "The step's outputs by name, any JSON values (http: fields, status, found, body-file; push: pushed, landed, refs; ...).",
		"Step.ExitCode":        "The code this step alone would exit with.",
		"Step.Policy":          "The retry policy resolved before the step ran.",
		"Step.Attempts":        "Every attempt, in order, up to 1000; a longer run lists its first and last 500 (attempts_omitted counts the rest); empty for a step that did not run.",
		"Step.AttemptsOmitted": "How many attempts between the first and the last 500 a run of more than 1000 attempts does not list; absent when none.",
		"Step.Elapsed":         "The loop's total time, in nanoseconds.",

		"Attempt.":         "One attempt of a step.",
		"Attempt.N":        "The attempt's number, from 1.",
		"Attempt.Start":    "When the attempt began.",
		"Attempt.Duration": "How long the attempt ran, in nanoseconds.",
		"Attempt.OK":       "True when the attempt succeeded.",
		"Attempt.Class":    "The failure's class; absent on success.",
		"Attempt.Code":     "The failure's stable code; absent on success.",
		"Attempt.Reason":   "The failure's one-line reason; absent on success.",
		"Attempt.Wait":     "The wait that followed the attempt, in nanoseconds; absent after the last.",
		"Attempt.Recheck":  "Why the next attempt re-checks a failure that would have stopped the loop; absent for a scheduled retry.",
		"Attempt.Command":  "The command the attempt ran, when a step's attempts may differ (a continuation); absent otherwise.",
		"Attempt.Why":      "Why the attempt ran that command (the command, a continuation in a captured context).",

		"policySchema.":              "The retry policy of a step, durations as Go duration strings (\"1m30s\").",
		"policySchema.Schedule":      "The wait before each retry; a longer run repeats the last wait.",
		"policySchema.MaxAttempts":   "The most attempts, the first included.",
		"policySchema.MaxElapsed":    "The longest the whole loop may run.",
		"policySchema.RetryAfterCap": "The longest server-requested wait honoured; a longer one stops the loop.",
		"policySchema.OnUnknown":     "What the loop does with an unrecognised failure: stop or retry; empty for a step that did not run.",
		"policySchema.Jitter":        "How much each wait was spread at random, 0 to 1: a scheduled wait w became w·U(1−j, 1+j); a server's Retry-After stayed a floor that jitter only added to. Absent in reports written before jitter existed.",
	}
}
