package action

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestApplies: which inputs apply to which mode comes from the tables
// (common inputs, each mode's own, its step kind's flags): a retry flag
// applies to the step modes and not to config or explain, a kind's own
// flag to its mode only, a common input everywhere.
func TestApplies(t *testing.T) {
	for _, tt := range []struct {
		input string
		modes []Mode
	}{
		{"max-attempts", []Mode{ModeRun, ModePush, ModeHTTP}},
		{"header", []Mode{ModeHTTP}},
		{"push-args", []Mode{ModePush}},
		{"rebase-on-reject", []Mode{ModePush}},
		{"retry-on-exit", []Mode{ModeRun}},
		{"job", []Mode{ModeJob}},
		{"preflight", []Mode{ModeJob}},
		{"report-issue", Modes},
	} {
		if got := ModesOf(tt.input); !slices.Equal(got, tt.modes) {
			t.Errorf("%s applies to %v, want %v", tt.input, got, tt.modes)
		}
	}
}

// TestMisplacedInputs: the inputs given that do not apply to the mode,
// with push: false (no mode) never one.
func TestMisplacedInputs(t *testing.T) {
	for _, tt := range []struct {
		mode  Mode
		given map[string]string
		want  []string
	}{
		{ModeJob, map[string]string{"config": "job.yml", "job": "publish", "report-issue": "true"}, nil},
		{ModeJob, map[string]string{"config": "job.yml", "max-attempts": "5", "header": "A: b"}, []string{"header", "max-attempts"}},
		{ModeHTTP, map[string]string{"url": "https://x", "max-attempts": "5", "push": "false"}, nil},
		{ModeHTTP, map[string]string{"url": "https://x", "push-args": "origin HEAD"}, []string{"push-args"}},
		{ModeRun, map[string]string{"run": "make", "job": "x"}, []string{"job"}},
	} {
		got := MisplacedInputs(tt.mode, func(n string) string { return tt.given[n] })
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s %v: %v, want %v", tt.mode, tt.given, got, tt.want)
		}
	}
}

// TestCheckWorkflowModeInputs: CheckWorkflow names each input that does
// not apply to the step's mode at the input, with the mode and what the
// action would do.
func TestCheckWorkflowModeInputs(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "job.yml"), []byte("version: 1\njobs:\n  publish:\n    steps:\n      - id: hello\n        exec: {command: [\"true\"]}\n"), 0o644)
	for _, tt := range []struct {
		with string
		want []string // "LINE:COL message", in order
	}{
		{"{config: job.yml, job: publish}", nil},
		{"{config: job.yml, max-attempts: 5}", []string{"4:64 input max-attempts does not apply to config mode (the action would exit 64)"}},
		{"{run: make, max-attempts: 5, header: 'A: b'}", []string{"4:75 input header does not apply to run mode (the action would exit 64)"}},
		{"{url: 'https://x', push: false, max-attempts: 3}", nil},
	} {
		wf := filepath.Join(dir, "wf.yml")
		os.WriteFile(wf, []byte("jobs:\n  a:\n    steps:\n      - {uses: retrywise/retrywise@v1, with: "+tt.with+"}\n"), 0o644)
		errs, err := CheckWorkflow(context.Background(), wf, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range errs {
			got = append(got, e.Pos.String()+" "+e.Msg)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("with: %s\n got %s\nwant %s", tt.with, strings.Join(got, "; "), strings.Join(tt.want, "; "))
		}
	}
}
