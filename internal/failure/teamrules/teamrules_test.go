package teamrules

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

const deployctlRules = `# rules for deployctl, our in-house deploy tool
- match: 'deployctl: lock held by run \d+'
  tool: deployctl
  class: transient
  code: deployctl-lock-held
  reason: another deploy holds the environment's lock
  remedy: wait for it; the lock is released when that deploy ends
- match: '^deployctl: environment frozen'
  exit-code: 3
  class: policy
  code: deployctl-frozen
  reason: the environment is in a change freeze
  remedy: ask the release manager to lift the freeze
- status: 503
  match: maintenance
  class: transient
  code: deployctl-maintenance
`

func TestTeamRuleDecidesBeforeBuiltins(t *testing.T) {
	rs, err := Parse("rules.yml", []byte(deployctlRules))
	if err != nil {
		t.Fatal(err)
	}
	// "connection refused" alone is the built-in connection-refused; the
	// team's rule for the lock matches first.
	text := "deployctl: lock held by run 4711\ndial tcp 127.0.0.1:443: connect: connection refused\n"
	f := failure.FromProcess(failure.Process{Name: "/usr/local/bin/deployctl", Text: text, ExitCode: 1, Team: rs})
	if f.Class != failure.Transient || f.Code != "deployctl-lock-held" || f.Rule != "rules.yml:2" {
		t.Fatalf("got %s %s rule %q", f.Class, f.Code, f.Rule)
	}
	if len(f.Evidence) == 0 || !strings.Contains(f.Evidence[0], "lock held by run 4711") {
		t.Errorf("evidence %q", f.Evidence)
	}
	// Another command: the tool gate keeps the rule out, the built-ins decide.
	g := failure.FromProcess(failure.Process{Name: "othertool", Text: text, ExitCode: 1, Team: rs})
	if g.Code != failure.CodeRefused || g.Rule != "" {
		t.Errorf("othertool: got %s rule %q", g.Code, g.Rule)
	}
}

func TestTeamRuleGates(t *testing.T) {
	rs, err := Parse("rules.yml", []byte(deployctlRules))
	if err != nil {
		t.Fatal(err)
	}
	frozen := "deployctl: environment frozen until Monday"
	if f := failure.Classify(failure.Input{Text: frozen, ExitCode: 3, Rules: rs}); f.Code != "deployctl-frozen" || f.Class != failure.Policy || f.Remedy != "ask the release manager to lift the freeze" {
		t.Errorf("exit 3: got %s %s %q", f.Class, f.Code, f.Remedy)
	}
	if f := failure.Classify(failure.Input{Text: frozen, ExitCode: 1, Rules: rs}); f.Rule != "" {
		t.Errorf("exit 1 matched %s", f.Rule)
	}
	// status: the given status, else the status the text reports.
	if f := failure.Classify(failure.Input{Tool: failure.ToolHTTP, Status: 503, Text: "down for maintenance", Rules: rs}); f.Code != "deployctl-maintenance" {
		t.Errorf("status 503: got %s", f.Code)
	}
	if f := failure.Classify(failure.Input{Text: "HTTP Error: 503 (maintenance window)", ExitCode: 1, Rules: rs}); f.Code != "deployctl-maintenance" {
		t.Errorf("503 in text: got %s", f.Code)
	}
	if f := failure.Classify(failure.Input{Tool: failure.ToolHTTP, Status: 500, Text: "down for maintenance", Rules: rs}); f.Rule != "" {
		t.Errorf("status 500 matched %s", f.Rule)
	}
}

func TestTeamRulesErrorsHavePositions(t *testing.T) {
	src := `- match: '(unclosed'
  class: transient
  code: tool-a
- match: ok
  class: flaky
  code: tool-b
- match: ok
  class: policy
  code: connection-refused
- match: ok
  class: policy
  code: http-503
- match: ok
  class: policy
  code: Not_Kebab
- match: ok
  clas: policy
  code: tool-c
`
	_, err := Parse("r.yml", []byte(src))
	if err == nil {
		t.Fatal("no error")
	}
	var got []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var re *Error
		if !errors.As(e, &re) {
			t.Fatalf("%T %v", e, e)
		}
		got = append(got, re.Error())
	}
	want := []string{
		"r.yml:1:10: match \"(unclosed\" is not a valid regular expression",
		"r.yml:5:10: class \"flaky\" is not a failure class",
		"r.yml:9:9: code \"connection-refused\" is a built-in code",
		"r.yml:12:9: code \"http-503\" is a built-in code",
		"r.yml:15:9: code \"Not_Kebab\" is not kebab-case",
		"r.yml:17:3: unknown key clas",
		"r.yml:16:3: the rule has no class",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d errors:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %d: got %q, want prefix %q", i, got[i], want[i])
		}
	}
}

func TestTeamRulesBounds(t *testing.T) {
	big := "- match: '" + strings.Repeat("a", MaxRuleRegexLen+1) + "'\n  class: policy\n  code: tool-x\n"
	if _, err := Parse("r.yml", []byte(big)); err == nil || !strings.Contains(err.Error(), "over 1000") {
		t.Errorf("long regex: %v", err)
	}
	var many strings.Builder
	for range MaxTeamRules + 1 {
		many.WriteString("- {match: x, class: policy, code: tool-x}\n")
	}
	if _, err := Parse("r.yml", []byte(many.String())); err == nil || !strings.Contains(err.Error(), "r.yml:201:3: more than 200 rules") {
		t.Errorf("many rules: %v", err)
	}
	path := filepath.Join(t.TempDir(), "big.yml")
	if err := os.WriteFile(path, []byte("#"+strings.Repeat("x", MaxRulesFileSize)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), path); err == nil || !strings.Contains(err.Error(), "over 64 KiB") {
		t.Errorf("big file: %v", err)
	}
	if _, err := Parse("r.yml", []byte("- match: [x\n")); err == nil || !strings.Contains(err.Error(), "r.yml:") {
		t.Errorf("syntax: %v", err)
	}
	if _, err := Parse("r.yml", []byte("- {match: x}\n")); err == nil || !strings.Contains(err.Error(), "no class") {
		t.Errorf("no class: %v", err)
	}
}
