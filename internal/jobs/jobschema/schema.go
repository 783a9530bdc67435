// Package jobschema generates the job file's JSON Schema
// (docs/job.schema.json) from the file's Go types and a catalog of kinds.
// It is kept out of the binary: only tests and the docs need it, and its
// reflection library costs every command's start.
package jobschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
	orderedmap "github.com/pb33f/ordered-map/v2"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/step"
)

// The schema's id and the patterns it checks.
const (
	schemaID = "https://github.com/retrywise/retrywise/docs/job.schema.json"
	// DurationPattern is a Go duration as time.ParseDuration reads it.
	DurationPattern = `^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$`
	// NonNegativeDurationPattern is a Go duration of 0 or more (a field whose
	// Min is 0).
	NonNegativeDurationPattern = `^\+?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$`
	idPattern                  = `^[A-Za-z_][A-Za-z0-9_-]*$`
	envNamePattern             = `^[A-Za-z_][A-Za-z0-9_]*$`
)

// The Go types the schema is reflected from: they mirror the job file.
// The retry keys, the run-wide keys and the kinds' keys come from the
// catalog and are filled in after reflection.
type (
	schemaFile struct {
		Version  int                   `json:"version" jsonschema:"enum=1,description=The job file's format version."`
		Defaults *schemaDefaults       `json:"defaults,omitempty" jsonschema:"description=Run-wide settings and the retry policy every step starts from."`
		Jobs     map[string]*schemaJob `json:"jobs" jsonschema:"description=The jobs by name; each runs its steps in order."`
	}
	schemaDefaults struct {
		Retry        *schemaRetry   `json:"retry,omitempty" jsonschema:"description=The retry keys every step starts from."`
		Secrets      []string       `json:"secrets,omitempty" jsonschema:"description=Environment variables whose values are masked everywhere."`
		PersistAfter *int           `json:"persist-after,omitempty" jsonschema:"minimum=0,maximum=50,description=Hindsight: after this many runs (this one included) failed the same transient-looking way\\, a run makes one attempt and no retries; 0 turns it off (default 3\\, or --persist-after)."`
		PersistSpan  schemaDuration `json:"persist-span,omitempty" jsonschema:"description=Hindsight: the least time the persist-after failures must span (a Go duration; default 0)."`
	}
	schemaJob struct {
		Timeout      schemaDuration `json:"timeout,omitempty" jsonschema:"description=Bounds the whole job (a Go duration such as 20m; at most 24h)."`
		Env          schemaEnv      `json:"env,omitempty" jsonschema:"description=Environment variables given to every step."`
		Steps        []*schemaStep  `json:"steps" jsonschema:"minItems=1,description=The steps; each has an id and exactly one kind."`
		Cron         schemaCron     `json:"cron,omitempty" jsonschema:"description=When the scheduler runs the job: cron expressions of five fields or descriptors such as @daily and @every 10m."`
		Timezone     string         `json:"timezone,omitempty" jsonschema:"description=The IANA zone the cron expressions are read in (default UTC)."`
		StartJitter  schemaDuration `json:"start-jitter,omitempty" jsonschema:"description=The most a scheduled start is delayed by at random (a Go duration of 0 or more)."`
		CatchUp      bool           `json:"catch-up,omitempty" jsonschema:"description=At the scheduler's start\\, run the job once if a due run was missed."`
		Preflight    bool           `json:"preflight,omitempty" jsonschema:"description=Before the first step\\, probe every host the job will touch (in parallel) and run nothing when one is denied."`
		PersistAfter *int           `json:"persist-after,omitempty" jsonschema:"minimum=0,maximum=50,description=Hindsight for this job: overrides defaults' persist-after."`
		PersistSpan  schemaDuration `json:"persist-span,omitempty" jsonschema:"description=Hindsight for this job: overrides defaults' persist-span."`
	}
	schemaStep struct {
		ID              string       `json:"id" jsonschema:"description=The step's id\\, unique in its job."`
		If              string       `json:"if,omitempty" jsonschema:"description=An expression deciding whether the step runs; success() when absent."`
		Retry           *schemaRetry `json:"retry,omitempty" jsonschema:"description=Retry keys overriding defaults.retry key by key."`
		ContinueOnError bool         `json:"continue-on-error,omitempty" jsonschema:"description=The job goes on\\, and does not fail\\, when the step fails."`
		Env             schemaEnv    `json:"env,omitempty" jsonschema:"description=Environment variables of the step\\, after the job's."`
	}
	schemaRetry    struct{}
	schemaDuration string
	schemaEnv      map[string]string
	schemaCron     []string
)

// JSONSchema is a Go duration string.
func (schemaDuration) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Pattern: DurationPattern}
}

// JSONSchema is a mapping of variable names to scalar values.
func (schemaEnv) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:                 "object",
		PropertyNames:        &jsonschema.Schema{Pattern: envNamePattern},
		AdditionalProperties: &jsonschema.Schema{AnyOf: scalarTypes()},
	}
}

// JSONSchema is a cron expression or a list of them.
func (schemaCron) JSONSchema() *jsonschema.Schema {
	one := uint64(1)
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
		{Type: "string", MinLength: &one},
		{Type: "array", MinItems: &one, Items: &jsonschema.Schema{Type: "string", MinLength: &one}},
	}}
}

// scalarTypes are the YAML scalars a string value may be written as.
func scalarTypes() []*jsonschema.Schema {
	return []*jsonschema.Schema{{Type: "string"}, {Type: "number"}, {Type: "boolean"}}
}

// Schema returns the JSON Schema (draft 2020-12) of the job file for cat,
// indented, keys sorted, with a trailing newline.
func Schema(cat jobs.Catalog) ([]byte, error) {
	r := &jsonschema.Reflector{
		ExpandedStruct: true,
		Namer: func(t reflect.Type) string {
			return strings.TrimPrefix(t.Name(), "schema")
		},
	}
	s := r.Reflect(&schemaFile{})
	s.ID = schemaID
	s.Title = "retrywise job file"
	defs := s.Definitions
	for _, name := range []string{"Defaults", "Job", "Step", "Retry"} {
		if defs[name] == nil {
			return nil, fmt.Errorf("schema: no definition %s", name)
		}
	}
	if jobs, ok := s.Properties.Get("jobs"); ok {
		one := uint64(1)
		jobs.PropertyNames = &jsonschema.Schema{Pattern: idPattern}
		jobs.MinProperties = &one
	}

	retry := defs["Retry"]
	retry.Type = "object"
	retry.Properties = keyProperties(cat.Retry)
	retry.AdditionalProperties = jsonschema.FalseSchema

	d := defs["Defaults"]
	if sec, ok := d.Properties.Get("secrets"); ok && sec.Items != nil {
		sec.Items.Pattern = envNamePattern
	}
	for _, k := range cat.Run {
		ks := keySchema(k)
		if k.Name == "rules" {
			// defaults.rules: a rules file, or the rules themselves.
			ks = &jsonschema.Schema{Description: "team rules: a rules file's path, or a list of rules; the first that matches decides, before the built-in recognisers",
				AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "array", Items: &jsonschema.Schema{Ref: "#/$defs/Rule"}}}}
			defs["Rule"] = ruleSchema()
		}
		d.Properties.Set(k.Name, ks)
	}

	step := defs["Step"]
	if id, ok := step.Properties.Get("id"); ok {
		id.Pattern = idPattern
	}
	for _, k := range cat.Kinds {
		def := "kind-" + k.Name()
		defs[def] = &jsonschema.Schema{
			Type:                 "object",
			Description:          fmt.Sprintf("The settings of a step of kind %s.", k.Name()),
			Properties:           keyProperties(k.Keys()),
			AdditionalProperties: jsonschema.FalseSchema,
		}
		step.Properties.Set(k.Name(), &jsonschema.Schema{
			Description: fmt.Sprintf("Makes the step one of kind %s, with these settings.", k.Name()),
			AnyOf:       []*jsonschema.Schema{{Ref: "#/$defs/" + def}, {Type: "null"}},
		})
		step.OneOf = append(step.OneOf, &jsonschema.Schema{Required: []string{k.Name()}})
	}

	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	// A round trip through maps sorts every object's keys.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// ruleSchema is the schema of one team rule (teamrules.FromNode).
func ruleSchema() *jsonschema.Schema {
	p := jsonschema.NewProperties()
	str := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
	p.Set("match", str("an RE2 regular expression matched against each line of the output or body"))
	p.Set("tool", str("the tool (--tool) or the command's name the rule is for"))
	p.Set("exit-code", &jsonschema.Schema{Type: "integer", Minimum: "0", Maximum: "255", Description: "the exit status the rule is for"})
	p.Set("status", &jsonschema.Schema{Type: "integer", Minimum: "100", Maximum: "999", Description: "the HTTP status the rule is for"})
	p.Set("class", &jsonschema.Schema{Type: "string", Enum: []any{failure.Transient, failure.Policy, failure.Structural, failure.Absent, failure.Unknown}, Description: "the verdict's class"})
	p.Set("code", &jsonschema.Schema{Type: "string", Pattern: "^[a-z][a-z0-9]*(-[a-z0-9]+)*$", MaxLength: ptrU(64), Description: "the verdict's code, kebab-case, not a built-in code"})
	p.Set("reason", str("what failed, in one line"))
	p.Set("remedy", str("what to do about it"))
	return &jsonschema.Schema{Type: "object", Description: "A team rule.", Properties: p, Required: []string{"class", "code"}, AdditionalProperties: jsonschema.FalseSchema,
		AnyOf: []*jsonschema.Schema{{Required: []string{"match"}}, {Required: []string{"exit-code"}}, {Required: []string{"status"}}}}
}

func ptrU(n uint64) *uint64 { return &n }

// keyProperties are the schemas of keys by name.
func keyProperties(keys []*step.Field) *orderedmap.OrderedMap[string, *jsonschema.Schema] {
	p := jsonschema.NewProperties()
	for _, k := range keys {
		p.Set(k.Name, keySchema(k))
	}
	return p
}

// keySchema is the schema of one key's value, by its type.
func keySchema(k *step.Field) *jsonschema.Schema {
	s := &jsonschema.Schema{Description: k.Doc}
	switch k.Type {
	case step.Bool:
		s.Type = "boolean"
	case step.Int:
		s.Type = "integer"
		s.Minimum, s.Maximum = json.Number(k.Min), json.Number(k.Max)
	case step.Float:
		s.Type = "number"
		s.Minimum, s.Maximum = json.Number(k.Min), json.Number(k.Max)
	case step.Duration:
		s.Type, s.Pattern = "string", DurationPattern
		if k.Min == "0" { // a pattern states no other bound
			s.Pattern = NonNegativeDurationPattern
		}
	case step.List:
		// A scalar is a list of one.
		s.AnyOf = []*jsonschema.Schema{{Type: "array", Items: &jsonschema.Schema{Type: "string"}}, {Type: "string"}}
	case step.CSV:
		s.AnyOf = []*jsonschema.Schema{{Type: "string"}, {Type: "array", Items: &jsonschema.Schema{AnyOf: scalarTypes()}}}
	default:
		s.Type = "string"
	}
	return s
}
