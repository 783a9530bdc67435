package teamrules

import (
	"context"
	"errors"
	"fmt"
	"regexp/syntax"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/retrywise/retrywise/internal/failure"
)

// ruleInsts is the size of s's compiled program, as the loader counts it.
func ruleInsts(t testing.TB, s string) int {
	t.Helper()
	re, err := syntax.Parse(s, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	p, err := syntax.Compile(re.Simplify())
	if err != nil {
		t.Fatal(err)
	}
	return len(p.Inst)
}

// heavyRule is a regular expression of exactly n compiled instructions
// (1,003 ≤ n ≤ 2,003) that keeps about n threads alive on a line of
// letters: the costliest shape a rule can have. It holds no literal, which
// a text without it would skip.
func heavyRule(t testing.TB, n int) string {
	t.Helper()
	s := `[\pL\pN]{1000}[\pL\pN]{` + fmt.Sprint(n-1003) + `}[.!]`
	if got := ruleInsts(t, s); got != n {
		t.Fatalf("%s compiles to %d instructions, want %d", s, got, n)
	}
	return s
}

// heaviestRules is the costliest rules file the loader accepts: rules of
// MaxRuleProgram instructions up to MaxRulesProgram in all.
func heaviestRules(t testing.TB) string {
	var b strings.Builder
	re := heavyRule(t, MaxRuleProgram)
	for i := range MaxRulesProgram / MaxRuleProgram {
		fmt.Fprintf(&b, "- match: '%s'\n  class: policy\n  code: tool-heavy%d\n", re, i)
	}
	return b.String()
}

// realisticRules are n rules of the shapes teams write: a tool's words
// with a number, case-insensitive alternatives, an anchored line, a hash.
func realisticRules(n int) string {
	var b strings.Builder
	for i := range n {
		var re string
		switch i % 4 {
		case 0:
			re = fmt.Sprintf(`tool%d: lock held by run \d+`, i)
		case 1:
			re = fmt.Sprintf(`(?i)error: service%d (unavailable|overloaded|frozen)`, i)
		case 2:
			re = fmt.Sprintf(`^deploy%d failed: .* timeout( after \d+s)?$`, i)
		default:
			re = fmt.Sprintf(`\b[0-9a-f]{40}\b.*rejected by hook%d`, i)
		}
		fmt.Fprintf(&b, "- match: '%s'\n  class: transient\n  code: tool-x%d\n", re, i)
	}
	return b.String()
}

// letters64K is one 64 KiB line of letters: every heavy rule keeps all its
// threads alive on it, and none matches.
var letters64K = strings.Repeat("a", 64<<10)

func ruleErrors(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	var out []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var re *Error
		if !errors.As(e, &re) {
			t.Fatalf("%T %v", e, e)
		}
		out = append(out, re.Error())
	}
	return out
}

// TestTeamRuleProgramTooLarge: a rule whose compiled program is over
// MaxRuleProgram is refused at load, at the position of its match:, with
// its size and the bound; one far over it is refused without being
// compiled.
func TestTeamRuleProgramTooLarge(t *testing.T) {
	over := heavyRule(t, MaxRuleProgram+1)
	// 480 letters repeated 1,000 times: about half a million instructions.
	huge := "(?:" + strings.Repeat("abcdefghij", 48) + "){1000}"
	src := "- match: 'deployctl: lock held'\n  class: transient\n  code: tool-a\n" +
		"- match: '" + over + "'\n  class: policy\n  code: tool-b\n" +
		"- class: policy\n  code: tool-c\n  match: '" + huge + "'\n"
	start := time.Now()
	_, err := Parse("r.yml", []byte(src))
	took := time.Since(start)
	got := ruleErrors(t, err)
	want := []string{
		fmt.Sprintf("r.yml:4:10: match compiles to %d instructions, over %d", MaxRuleProgram+1, MaxRuleProgram),
		"r.yml:9:10: match compiles to about 48",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d errors:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %d: got %q, want prefix %q", i, got[i], want[i])
		}
	}
	if !strings.Contains(got[1], fmt.Sprintf("over %d", MaxRuleProgram)) {
		t.Errorf("error 1 does not name the bound: %q", got[1])
	}
	if took > 2*time.Second {
		t.Errorf("refusing took %v", took)
	}
	// At the bound it is accepted.
	if _, err := Parse("r.yml", []byte("- match: '"+heavyRule(t, MaxRuleProgram)+"'\n  class: policy\n  code: tool-b\n")); err != nil {
		t.Errorf("a rule of %d instructions: %v", MaxRuleProgram, err)
	}
}

// TestTeamRulesTotalProgram: the file, 160 rules of
// (?:\pL|\pN){1000} (1,002 instructions each), is refused at the rule that
// takes the rules over MaxRulesProgram in all, once.
func TestTeamRulesTotalProgram(t *testing.T) {
	var b strings.Builder
	for i := range 160 {
		fmt.Fprintf(&b, "- match: '(?:\\pL|\\pN){1000}'\n  class: policy\n  code: tool-x%d\n", i)
	}
	got := ruleErrors(t, func() error { _, err := Parse("r.yml", []byte(b.String())); return err }())
	n := MaxRulesProgram/1002 + 1 // the first rule over the bound
	want := fmt.Sprintf("r.yml:%d:10: the rules compile to %d instructions in all, over %d", 3*n-2, n*1002, MaxRulesProgram)
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Fatalf("got:\n%s\nwant one error %q", strings.Join(got, "\n"), want)
	}
	if _, err := Parse("r.yml", []byte(heaviestRules(t))); err != nil {
		t.Errorf("the heaviest file within the bounds: %v", err)
	}
	if _, err := Parse("r.yml", []byte(realisticRules(MaxTeamRules))); err != nil {
		t.Errorf("%d realistic rules: %v", MaxTeamRules, err)
	}
}

// TestTeamRuleProgramEstimate: the size the loader estimates before it
// compiles is never below the compiled size, for every built-in
// expression and the shapes that multiply.
func TestTeamRuleProgramEstimate(t *testing.T) {
	srcs := []string{`(?:\pL|\pN){1000}`, `\S{1,500}`, `x{3,}`, `(?:ab){0,5}c*`, `(a|bc|)+?`, `(?i)abc`, `^$`, `\b(?:a{2}|b{3,4}){2,}`, `(?:)`, `[^\x00-\x{10FFFF}]`, `a{0}`, `(?:a*)*`, `(?:a?)+`}
	srcs = append(srcs, failure.BuiltinPatterns()...)
	for _, s := range srcs {
		re, err := syntax.Parse(s, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if est, got := progEstimate(re), ruleInsts(t, s); est < got {
			t.Errorf("%s: estimate %d < compiled %d", s, est, got)
		}
	}
}

// TestTeamRulesAtTheBoundsMatchInBoundedTime: the heaviest file the loader
// accepts, against a 64 KiB line that keeps every thread of every rule
// alive, stops within the matching budget with rule-match-too-slow, and
// 200 realistic rules decide a 64 KiB text well within it.
func TestTeamRulesAtTheBoundsMatchInBoundedTime(t *testing.T) {
	rs, err := Parse("r.yml", []byte(heaviestRules(t)))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	f := failure.FromProcess(failure.Process{Name: "tool", Text: letters64K + "\n", ExitCode: 1, Team: rs})
	took := time.Since(start)
	t.Logf("heaviest accepted file on a 64 KiB line: %v", took)
	if took > 2*time.Second {
		t.Errorf("took %v, want at most the %v budget (2 s allowed)", took, MaxRulesMatchTime)
	}
	if f.Code != failure.CodeRuleMatchTooSlow || f.Class != failure.Unknown || !strings.Contains(f.Reason, "r.yml:1") {
		t.Errorf("got %s %s %q", f.Class, f.Code, f.Reason)
	}

	rs, err = Parse("r.yml", []byte(realisticRules(MaxTeamRules)))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"push log":    pushLog(64 << 10),
		"short lines": strings.Repeat("a\n", 32<<10),
		"empty lines": strings.Repeat("\n", 64<<10),
		"hex line":    strings.Repeat("0123456789abcdef", 4<<10),
	} {
		text += "\ndeploy198 failed: step 3 timeout after 30s\n"
		start := time.Now()
		f := failure.FromProcess(failure.Process{Name: "deploy", Text: text, ExitCode: 1, Team: rs})
		took := time.Since(start)
		t.Logf("%d realistic rules, %s: %v", MaxTeamRules, name, took)
		if f.Code != "tool-x198" {
			t.Errorf("%s: got %s %s %q", name, f.Class, f.Code, f.Reason)
		}
	}
}

// TestTeamRulesMatchingStopsWithTheContext: a signal or --max-elapsed
// (the context) stops the matching within a second, whatever the budget:
// no verdict from the rules, and the built-in classification stands.
func TestTeamRulesMatchingStopsWithTheContext(t *testing.T) {
	old := rulesMatchBudget
	rulesMatchBudget = time.Hour
	t.Cleanup(func() { rulesMatchBudget = old })
	rs, err := Parse("r.yml", []byte(heaviestRules(t)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	f := failure.FromProcess(failure.Process{Ctx: ctx, Name: "tool", Text: letters64K + "\n", ExitCode: 1, Team: rs})
	took := time.Since(start)
	t.Logf("stopped %v after the context's end", took-100*time.Millisecond)
	if took > 1100*time.Millisecond {
		t.Errorf("took %v after a context of 100ms", took)
	}
	if f.Rule != "" || f.Code == failure.CodeRuleMatchTooSlow {
		t.Errorf("got %s %s rule %q", f.Class, f.Code, f.Rule)
	}
	// Classify and Decide take the same context.
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	if f := failure.TeamVerdict(failure.Input{Rules: rs, Ctx: ctx, Text: letters64K, ExitCode: 1}); f != nil {
		t.Errorf("Decide: %s", f.Code)
	}
	if took := time.Since(start); took > 1100*time.Millisecond {
		t.Errorf("Decide took %v after a context of 100ms", took)
	}
}

// BenchmarkTeamRulesAtTheBounds measures matching the heaviest accepted
// file against a 64 KiB line without the budget: the cost the bounds
// allow (MaxRulesProgram × 64 KiB steps of regexp's machine): about 20 s
// an operation, so run it as go test ./internal/failure -run '^$' -bench
// TeamRules -benchtime 3x.
func BenchmarkTeamRulesAtTheBounds(b *testing.B) {
	old := rulesMatchBudget
	rulesMatchBudget = time.Hour
	b.Cleanup(func() { rulesMatchBudget = old })
	rs, err := Parse("r.yml", []byte(heaviestRules(b)))
	if err != nil {
		b.Fatal(err)
	}
	in := failure.TeamInput{Text: letters64K, ExitCode: 1}
	for b.Loop() {
		if f := rs.Decide(context.Background(), in); f != nil {
			b.Fatal(f.Code)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(MaxRulesProgram)/float64(len(letters64K)), "ns/step")
}

// BenchmarkTeamRulesBudget measures the same file with the budget: the
// time a failure's classification may take.
func BenchmarkTeamRulesBudget(b *testing.B) {
	rs, err := Parse("r.yml", []byte(heaviestRules(b)))
	if err != nil {
		b.Fatal(err)
	}
	in := failure.TeamInput{Text: letters64K, ExitCode: 1}
	for b.Loop() {
		if f := rs.Decide(context.Background(), in); f == nil || f.Code != failure.CodeRuleMatchTooSlow {
			b.Fatal(f)
		}
	}
}

// BenchmarkTeamRulesRealistic measures 200 realistic rules against a 64
// KiB push log, the last rule matching its last line.
func BenchmarkTeamRulesRealistic(b *testing.B) {
	rs, err := Parse("r.yml", []byte(realisticRules(MaxTeamRules)))
	if err != nil {
		b.Fatal(err)
	}
	in := failure.TeamInput{Text: pushLog(64<<10) + "deploy198 failed: step 3 timeout after 30s\n", ExitCode: 1}
	for b.Loop() {
		if f := rs.Decide(context.Background(), in); f == nil || f.Code != "tool-x198" {
			b.Fatal(f)
		}
	}
}

// TestTeamRuleLiteralGate: a rule is skipped only for a text its literal
// proves it cannot match: a (?i) literal is found in any case, with the
// Kelvin sign and the long s that k and s also match, and U+FFFD matches
// an invalid byte.
func TestTeamRuleLiteralGate(t *testing.T) {
	for _, c := range []struct {
		re, text string
		match    bool
	}{
		{`lock held by run \d+`, "x\nLOCK: lock held by run 12\n", true},
		{`lock held by run \d+`, "LOCK HELD BY RUN 12\n", false},
		{`(?i)lock held by run \d+`, "LOCK HELD BY RUN 12\n", true},
		{`(?i)kelvin scale`, "\u212AELVIN SCALE\n", true},
		{`(?i)status: busy`, "\u017FTATU\u017F: BU\u017FY\n", true},
		{`(?i)error: (a|b)`, "Error: B\n", true},
		{`(?i)error: (a|b)`, "Error: C\n", false},
		{"\ufffdbad", "x\xffbad\n", true},
		{`(?:abc)+def`, "abcabcdef", true},
		{`(?:abc)+def`, "abdef", false},
		{`(?:abc)?def`, "def", true},
		{`^$`, "a\n\nb", true},
	} {
		rs, err := Parse("r.yml", []byte(fmt.Sprintf("- match: %q\n  class: policy\n  code: tool-x\n", c.re)))
		if err != nil {
			t.Fatal(err)
		}
		f := failure.TeamVerdict(failure.Input{Rules: rs, Text: c.text, ExitCode: 1})
		if (f != nil) != c.match {
			t.Errorf("%s on %q: matched %v, want %v (literal %q)", c.re, c.text, f != nil, c.match, rs.Rules[0].lit)
		}
	}
	// k and s are the only ASCII letters that fold with a letter outside ASCII.
	for c := 'A'; c <= 'z'; c++ {
		for r := unicode.SimpleFold(c); r != c; r = unicode.SimpleFold(r) {
			if r >= utf8.RuneSelf && !strings.ContainsRune("KkSs", c) {
				t.Errorf("%q folds with %q", c, r)
			}
		}
	}
}

// pushLog is (as in the failure package's benchmarks) a realistic failing `git push` log of about size bytes: git and
// curl progress meters (\r-overwritten), then a GH013 rejection and the
// hang-up that follows it.
func pushLog(size int) string {
	var b strings.Builder
	b.Grow(size + 2048)
	b.WriteString("+ git push origin HEAD:main\nEnumerating objects: 1452, done.\nCounting objects: 100% (1452/1452), done.\nDelta compression using up to 12 threads\n")
	for i := 0; b.Len() < size; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "Compressing objects:  %d%% (%d/1007)\r", i%100, i%1007)
		case 1:
			fmt.Fprintf(&b, "Writing objects:  %d%% (%d/1452), %d.%02d MiB | 21.50 MiB/s\r", i%100, i%1452, i%300, i%100)
		case 2:
			fmt.Fprintf(&b, "remote: Resolving deltas:  %d%% (%d/336)        \n", i%100, i%336)
		default:
			fmt.Fprintf(&b, " %3d  294M  %3d 36.1M    0     0  21.5M      0  0:00:13  0:00:%02d  0:00:12 21.5M\r", i%100, i%100, i%60)
		}
	}
	b.WriteString("\nremote: error: GH013: Repository rule violations found for refs/heads/main.\n" +
		"remote: Review all repository rules at https://github.com/acme/web/rules?ref=refs%2Fheads%2Fmain\n" +
		"remote: \nremote: - Changes must be made through a pull request.\nremote: \n" +
		"To https://github.com/acme/web.git\n ! [remote rejected] HEAD -> main (push declined due to repository rule violations)\n" +
		"error: failed to push some refs to 'https://github.com/acme/web.git'\nfatal: the remote end hung up unexpectedly\n")
	return b.String()
}
