package jobs

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

// loadIf loads a job whose second step has the condition cond, after a
// quota step of kind http and a script step of kind exec.
func loadIf(t *testing.T, cond string) *Step {
	t.Helper()
	src := head + quotaStep + "      - id: script\n        exec: {run: \"true\"}\n      - id: post\n        if: '" + cond + "'\n        http: {url: \"https://y\"}\n"
	f, errs := Load("job.yml", []byte(src), fakeCatalog(nil))
	if errs != nil {
		t.Fatalf("%s: errors:\n%s", cond, errs.Error())
	}
	return f.Jobs[0].Steps[2]
}

func TestConditionEval(t *testing.T) {
	ok := map[string]StepState{
		"quota": {Outcome: "success", Found: true, Outputs: map[string]any{"count": json.Number("3"), "status": 200.0, "found": true}},
		"script": {Outcome: "failure", Class: failure.Transient, Outputs: map[string]any{"sha": "abc", "n": json.Number("2.5"),
			"found": false, "nothing": nil, "big": 12345678901234567890.0, "obj": map[string]any{"a": []any{1.0, true}}}},
	}
	tests := []struct {
		cond string
		st   State
		want bool
	}{
		{cond: "success()", st: State{Steps: ok}, want: true},
		{cond: "success()", st: State{Steps: ok, Failed: true}, want: false},
		{cond: "success()", st: State{Steps: ok, Cancelled: true}, want: false},
		{cond: "failure()", st: State{Steps: ok, Failed: true}, want: true},
		{cond: "failure()", st: State{Steps: ok}, want: false},
		{cond: "always()", st: State{Steps: ok, Failed: true, Cancelled: true}, want: true},
		{cond: "cancelled()", st: State{Steps: ok, Cancelled: true}, want: true},
		{cond: `steps.quota.outcome == "success" && steps.quota.outputs.count < 10`, st: State{Steps: ok}, want: true},
		{cond: "steps.quota.outputs.count >= 3 && steps.quota.outputs.status == 200", st: State{Steps: ok}, want: true},
		{cond: "steps.quota.outputs.found && steps.quota.found", st: State{Steps: ok}, want: true},
		{cond: `steps["script"].class == "transient" && steps.script.outputs.sha == "abc"`, st: State{Steps: ok}, want: true},
		{cond: "steps.script.outputs.n > 2", st: State{Steps: ok}, want: true},
		// names are case-blind, as a workflow's contexts are
		{cond: "steps.QUOTA.Outcome == \"success\" && steps.Quota.OUTPUTS.Count < 10", st: State{Steps: ok}, want: true},
		// outputs are strings, as in a workflow; fromJSON gives the typed value
		{cond: `steps.quota.outputs.found == "true"`, st: State{Steps: ok}, want: true},
		// (steps.quota.outputs.found == true is false for 'true': validate
		// refuses it, TestLoadReferences)
		{cond: "fromJSON(steps.quota.outputs.found) == true", st: State{Steps: ok}, want: true},
		{cond: `steps.script.outputs.found == "false"`, st: State{Steps: ok}, want: true},
		{cond: "steps.script.outputs.found", st: State{Steps: ok}, want: true},
		{cond: "!fromJSON(steps.script.outputs.found)", st: State{Steps: ok}, want: true},
		{cond: `steps.script.outputs.nothing == ""`, st: State{Steps: ok}, want: true},
		{cond: `steps.script.outputs.big == "1.23456789012346E+19"`, st: State{Steps: ok}, want: true},
		{cond: `steps.script.outputs.obj == "{\"a\":[1,true]}"`, st: State{Steps: ok}, want: true},
		{cond: "fromJSON(steps.script.outputs.obj).a[1]", st: State{Steps: ok}, want: true},
		{cond: `steps.quota.outputs.status == "200" && steps.script.outputs.n == "2.5"`, st: State{Steps: ok}, want: true},
		// a step that did not fail has no class: the empty string
		{cond: `steps.quota.class == ""`, st: State{Steps: ok}, want: true},
		{cond: `steps.quota.class`, st: State{Steps: ok}, want: false},
		{cond: `env.BRANCH == "main"`, st: State{Steps: ok, Env: map[string]string{"BRANCH": "main"}}, want: true},
		{cond: `env.BRANCH == "main"`, st: State{Steps: ok}, want: false},
		{cond: `failure() && steps.script.outcome == "failure"`, st: State{Steps: ok, Failed: true}, want: true},
		// Without a status function, success() is implied, as in a workflow.
		{cond: `steps.quota.outputs.count < 10`, st: State{Steps: ok, Failed: true}, want: false},
		{cond: `steps.quota.outputs.count < 10`, st: State{Steps: ok, Cancelled: true}, want: false},
		{cond: `always() && steps.quota.outputs.count < 10`, st: State{Steps: ok, Failed: true}, want: true},
	}
	for _, tt := range tests {
		s := loadIf(t, tt.cond)
		got, err := s.ShouldRun(tt.st)
		if err != nil || got != tt.want {
			t.Errorf("%s in %+v = %v, %v; want %v", tt.cond, tt.st, got, err, tt.want)
		}
	}
}

func TestConditionEvalError(t *testing.T) {
	s := loadIf(t, "fromJSON(steps.script.outputs.n) < 10")
	_, err := s.ShouldRun(State{Steps: map[string]StepState{"script": {Outcome: "success", Outputs: map[string]any{"n": "ten"}}}})
	var ee *EvalError
	if !errors.As(err, &ee) || ee.Source != "fromJSON(steps.script.outputs.n) < 10" || ee.Pos != (Pos{10, 13}) {
		t.Fatalf("err %v, want an *EvalError", err)
	}
	if want := `if: fromJSON(steps.script.outputs.n) < 10: fromJSON: "ten" is not JSON: invalid character in literal true (expecting 'r') (at byte 2) (at 1:1 of the expression)`; err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
	}
	// a skipped step's outputs are null, which compares as 0, as in a workflow
	s = loadIf(t, "steps.quota.outputs.count < 10")
	if ok, err := s.ShouldRun(State{Steps: map[string]StepState{"quota": {Outcome: "skipped"}}}); err != nil || !ok {
		t.Errorf("= %v, %v; want true", ok, err)
	}
}

func TestShouldRunDefault(t *testing.T) {
	s := &Step{ID: "x"}
	tests := []struct {
		st   State
		want bool
	}{
		{State{}, true},
		{State{Failed: true}, false},
		{State{Cancelled: true}, false},
	}
	for _, tt := range tests {
		if got, err := s.ShouldRun(tt.st); err != nil || got != tt.want {
			t.Errorf("ShouldRun(%+v) = %v, %v; want %v", tt.st, got, err, tt.want)
		}
	}
}

func TestConditionExecOutputsAreFree(t *testing.T) {
	// An exec step without outputs: may have any output: a reference is
	// a warning (TestLoadReferences), and it evaluates.
	s := loadIf(t, `steps.script.outputs.anything == "x"`)
	got, err := s.ShouldRun(State{Steps: map[string]StepState{"script": {Outputs: map[string]any{"anything": "x"}}}})
	if err != nil || !got {
		t.Errorf("= %v, %v", got, err)
	}
}

// TestConditionEvalErrorCut: the job file's if: quotes a value in an
// error through the program's one cut (redact.Clip), which jobs gives the
// expression language: the message ends the quoted value with "…" and
// shows nothing of it past the cut.
func TestConditionEvalErrorCut(t *testing.T) {
	const secret = "Qz7vK2mXp9Lw{R4tYb8NcJ6}hFd3GsA1eUo5iZyVxTq0WnMkPjHlBgCfDrE"
	for _, cond := range []string{"fromJSON(steps.script.outputs.s) < 10", "format(steps.script.outputs.s) != 1"} {
		s := loadIf(t, cond)
		_, err := s.ShouldRun(State{Steps: map[string]StepState{"script": {Outcome: "success", Outputs: map[string]any{"s": secret}}}})
		if err == nil {
			t.Fatalf("%s: no error", cond)
		}
		msg := err.Error()
		if !strings.Contains(msg, "…\"") || strings.Contains(msg, secret[len(secret)-20:]) {
			t.Errorf("%s: %q does not cut the value with the one cut", cond, msg)
		}
	}
}
