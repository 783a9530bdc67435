package jobs_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/jobs/jobschema"
)

// compileSchema compiles the schema of the fake catalog.
func compileSchema(t *testing.T) (*jsonschema.Schema, []byte) {
	t.Helper()
	b, err := jobschema.Schema(jobs.FakeCatalog(nil))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("job.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("job.schema.json")
	if err != nil {
		t.Fatalf("not a schema: %v", err)
	}
	return sch, b
}

func TestSchemaShape(t *testing.T) {
	_, b := compileSchema(t)
	if !bytes.HasSuffix(b, []byte("}\n")) || !bytes.Contains(b, []byte("\n  \"$defs\": {")) {
		t.Errorf("not indented with a trailing newline:\n%.200s", b)
	}
	again, _ := jobschema.Schema(jobs.FakeCatalog(nil))
	if !bytes.Equal(b, again) {
		t.Error("two runs differ")
	}
	var s struct {
		Schema string                     `json:"$schema"`
		Defs   map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema %q", s.Schema)
	}
	for _, def := range []string{"Step", "Job", "Defaults", "Retry", "kind-http", "kind-push", "kind-exec"} {
		if _, ok := s.Defs[def]; !ok {
			t.Errorf("no $defs/%s", def)
		}
	}
	var http struct {
		Properties map[string]struct {
			Type        string `json:"type"`
			Pattern     string `json:"pattern"`
			Description string `json:"description"`
		} `json:"properties"`
		AdditionalProperties *bool `json:"additionalProperties"`
	}
	if err := json.Unmarshal(s.Defs["kind-http"], &http); err != nil {
		t.Fatal(err)
	}
	if http.AdditionalProperties == nil || *http.AdditionalProperties {
		t.Error("kind-http allows additional properties")
	}
	if p := http.Properties["timeout"]; p.Type != "string" || p.Pattern != jobschema.DurationPattern || p.Description != "per attempt" {
		t.Errorf("timeout %+v", p)
	}
	if p := http.Properties["insecure"]; p.Type != "boolean" {
		t.Errorf("insecure %+v", p)
	}
	if p := http.Properties["breaker-threshold"]; p.Type != "integer" {
		t.Errorf("breaker-threshold %+v", p)
	}
}

func TestSchemaValidates(t *testing.T) {
	sch, _ := compileSchema(t)
	step := "      - id: post\n        http: {url: \"https://y\"}\n"
	tests := []struct {
		name  string
		src   string
		valid bool
		why   string // a substring of the validation error
	}{
		{name: "the example", src: jobs.Example, valid: true},
		{name: "kind with no settings", src: jobs.Head + "      - id: log\n        push:\n", valid: true},
		{name: "unknown top key", src: jobs.Head + step + "extra: 1\n", why: "extra"},
		{name: "unknown kind key", src: jobs.Head + "      - id: post\n        http: {url: x, methd: GET}\n", why: "methd"},
		{name: "unknown retry key", src: jobs.Head + step + "        retry: {scheduel: 1s}\n", why: "scheduel"},
		{name: "egress key in a step", src: jobs.Head + "      - id: post\n        http: {url: x, egress-status-url: y}\n", why: "egress-status-url"},
		{name: "no kind", src: jobs.Head + "      - id: post\n", why: "oneOf"},
		{name: "two kinds", src: jobs.Head + "      - id: post\n        http: {url: x}\n        push: {args: [o]}\n", why: "oneOf"},
		{name: "no id", src: jobs.Head + "      - http: {url: x}\n", why: "id"},
		{name: "version 2", src: strings.Replace(jobs.Head, "version: 1", "version: 2", 1) + step, why: "version"},
		{name: "bool key", src: jobs.Head + "      - id: post\n        http: {url: x, insecure: \"yes\"}\n", why: "insecure"},
		{name: "duration key", src: jobs.Head + "      - id: post\n        http: {url: x, timeout: forever}\n", why: "timeout"},
		{name: "no jobs", src: "version: 1\njobs: {}\n", why: "jobs"},
		{name: "bad env name", src: jobs.Head + step + "        env: {my-var: x}\n", why: "my-var"},
		{name: "scheduled job", src: jobs.JobWith("cron: ['*/5 * * * *', '@daily']\n    timezone: Europe/Paris\n    start-jitter: 30s\n    catch-up: true"), valid: true},
		{name: "cron a string", src: jobs.JobWith("cron: '@hourly'"), valid: true},
		{name: "cron a number", src: jobs.JobWith("cron: 5"), why: "cron"},
		{name: "cron empty list", src: jobs.JobWith("cron: []"), why: "cron"},
		{name: "start-jitter not a duration", src: jobs.JobWith("cron: '@daily'\n    start-jitter: soon"), why: "start-jitter"},
		{name: "catch-up not a bool", src: jobs.JobWith("cron: '@daily'\n    catch-up: \"yes\""), why: "catch-up"},
		{name: "schedule as a job key", src: jobs.JobWith("schedule: '@daily'"), why: "schedule"},
	}
	for _, tt := range tests {
		j, err := yaml.YAMLToJSON([]byte(tt.src))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		err = sch.Validate(inst)
		switch {
		case tt.valid && err != nil:
			t.Errorf("%s: invalid: %v", tt.name, err)
		case !tt.valid && err == nil:
			t.Errorf("%s: valid, want an error about %s", tt.name, tt.why)
		case !tt.valid && !strings.Contains(err.Error(), tt.why):
			t.Errorf("%s: error %v, want one about %s", tt.name, err, tt.why)
		}
	}
}
