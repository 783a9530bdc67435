package step

import (
	"context"
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// set sets name=values on a fresh config of k through its field table.
func set(t *testing.T, k *Kind, kv ...string) (Config, error) {
	t.Helper()
	c := k.New()
	fields := c.Fields()
	for i := 0; i < len(kv); i += 2 {
		f := Lookup(fields, kv[i])
		if f == nil {
			t.Fatalf("%s has no field %s", k.Name, kv[i])
		}
		if err := f.SetValues(strings.Split(kv[i+1], "|")); err != nil {
			return c, err
		}
	}
	_, err := Prepare(context.Background(), k, c)
	return c, err
}

// TestDefaultsFromTheTable: a fresh config holds the table's defaults,
// each kind its own schedule and jitter; a config never shares a default's
// storage with the next (setting one does not change another).
func TestDefaultsFromTheTable(t *testing.T) {
	for _, tt := range []struct {
		k        *Kind
		schedule string
		jitter   float64
	}{
		{ExecKind, "10s,20s,1m0s", 0.2}, {HTTPKind, "10s,20s,1m0s", 0.2}, {QuotaKind, "10s,20s,1m0s", 0.2}, {PushKind, "2s,4s,8s,16s", 0},
	} {
		c := tt.k.New()
		r := c.Shared().Retry
		if got := Lookup(c.Fields(), "schedule").Text(); got != tt.schedule || r.Jitter != tt.jitter || r.MaxElapsed != 15*time.Minute {
			t.Errorf("%s: schedule %s jitter %v max-elapsed %s", tt.k.Name, got, r.Jitter, r.MaxElapsed)
		}
	}
	a, b := HTTPKind.New(), HTTPKind.New()
	Lookup(a.Fields(), "header").Set("A: 1")
	Lookup(a.Fields(), "schedule").Set("1s")
	if len(b.(*HTTPConfig).Headers) != 0 || len(b.Shared().Retry.Schedule) != 3 {
		t.Errorf("two configs share storage: %v %v", b.(*HTTPConfig).Headers, b.Shared().Retry.Schedule)
	}
	if a.Given("header") != true || b.Given("header") {
		t.Errorf("given: %v %v", a.Given("header"), b.Given("header"))
	}
}

// TestErrorsNameTheField: a validation error names its field, rendered
// by each surface its own way, with no text to parse.
func TestErrorsNameTheField(t *testing.T) {
	for _, tt := range []struct {
		k                *Kind
		kv               []string
		field, flag, inp string
	}{
		{ExecKind, []string{"command", "true", "max-elapsed", "48h"}, "max-elapsed", "invalid --max-elapsed 48h0m0s: over the limit of 24h", "invalid input max-elapsed 48h0m0s: over the limit of 24h"},
		{ExecKind, []string{"command", "true", "jitter", "1.5"}, "jitter", "invalid --jitter 1.5: out of range", "invalid input jitter 1.5"},
		{PushKind, []string{"jitter", "-0.1"}, "jitter", "invalid --jitter -0.1", "invalid input jitter -0.1"},
		{ExecKind, []string{"command", "true", "kill-grace", "1000h"}, "kill-grace", "invalid --kill-grace 1000h0m0s: above its cap of 5m0s", "invalid input kill-grace"},
		{HTTPKind, []string{"url", "https://x", "max-body", "lots"}, "max-body", "invalid --max-body", "invalid input max-body"},
		{ExecKind, []string{"command", "true", "retry-on", "("}, "retry-on", `invalid --retry-on "("`, `invalid input retry-on "("`},
		{ProbeKind, []string{"targets", "bad target/x"}, "targets", `invalid target "bad target/x"`, `invalid target "bad target/x"`},
	} {
		_, err := set(t, tt.k, tt.kv...)
		fes := FieldErrors(err)
		if len(fes) == 0 || fes[0].Field != tt.field {
			t.Errorf("%s %v: errors %v, want one naming %s", tt.k.Name, tt.kv, err, tt.field)
			continue
		}
		if got := fes[0].Render(FlagName); !strings.HasPrefix(got, tt.flag) {
			t.Errorf("flag form %q, want it to start %q", got, tt.flag)
		}
		if got := fes[0].Render(InputName); !strings.HasPrefix(got, tt.inp) {
			t.Errorf("input form %q, want it to start %q", got, tt.inp)
		}
	}
	// A parse error names its field too; a secret's value is never quoted.
	err := Lookup(QuotaKind.New().Fields(), "timeout").Set("soon")
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "timeout" || fe.Value != `"soon"` {
		t.Errorf("a parse error: %#v", err)
	}
	f := &Field{Name: "token", Secret: true, Type: Int}
	var n int
	f.ptr = &n
	if err := f.Set("ghp_secretvalue"); err == nil || strings.Contains(err.Error(), "ghp_secretvalue") {
		t.Errorf("a secret field's error quotes it: %v", err)
	}
}

// TestListsStayLists: a job file's YAML list sets a CSV field item by item
// (an item may itself hold commas); a flag's value replaces it; a List
// field gains one item per value.
func TestListsStayLists(t *testing.T) {
	c := HTTPKind.New()
	fields := c.Fields()
	if err := Lookup(fields, "schedule").SetValues([]string{"1s", "2s,3s"}); err != nil {
		t.Fatal(err)
	}
	if got := c.Shared().Retry.Schedule; len(got) != 3 || got[2] != 3*time.Second {
		t.Errorf("schedule %v", got)
	}
	Lookup(fields, "expect").SetValues([]string{"200", "201-204"})
	Lookup(fields, "header").SetValues([]string{"A: 1", "B: 2,3"})
	h := c.(*HTTPConfig)
	if strings.Join(h.Expect, "|") != "200|201-204" || strings.Join(h.Headers, "|") != "A: 1|B: 2,3" {
		t.Errorf("expect %q headers %q", h.Expect, h.Headers)
	}
	if err := Lookup(fields, "schedule").SetValues([]string{"1s", "soon"}); err == nil {
		t.Error("a bad schedule item accepted")
	}
}

// TestFlagsFromTheTable: the flag set has every field that is not
// positional, the short aliases, the defaults as --help shows them, and a
// bool flag that stands alone.
func TestFlagsFromTheTable(t *testing.T) {
	for _, k := range Kinds() {
		fs := flag.NewFlagSet(k.Name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c := k.New()
		Flags(fs, c.Fields())
		for _, f := range c.Fields() {
			if fl := fs.Lookup(f.Name); (fl == nil) != f.Positional {
				t.Errorf("%s: --%s registered: %v, positional %v", k.Name, f.Name, fl != nil, f.Positional)
			}
			if f.Short != "" && fs.Lookup(f.Short) == nil {
				t.Errorf("%s: -%s missing", k.Name, f.Short)
			}
		}
	}
	fs := flag.NewFlagSet("http", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c := HTTPKind.New()
	Flags(fs, c.Fields())
	if err := fs.Parse([]string{"-X", "post", "--absent-ok", "-H", "A: 1", "--header", "B: 2", "--schedule", "1s,2s"}); err != nil {
		t.Fatal(err)
	}
	h := c.(*HTTPConfig)
	if h.Method != "post" || !h.AbsentOK || len(h.Headers) != 2 || len(h.Retry.Schedule) != 2 {
		t.Errorf("parsed %+v", h)
	}
	if d := fs.Lookup("schedule").DefValue; d != "10s,20s,60s" {
		t.Errorf("--schedule's default shows %q", d)
	}
	if d := fs.Lookup("max-elapsed").DefValue; d != "15m0s" {
		t.Errorf("--max-elapsed's default shows %q", d)
	}
}

// TestRetryAndRunFields: the retry keys and the run-wide keys, each once,
// with no kind's schedule or jitter as their default.
func TestRetryAndRunFields(t *testing.T) {
	var names []string
	for _, f := range RetryFields() {
		names = append(names, f.Name)
		if (f.Name == "schedule" || f.Name == "jitter") && f.Default != "" {
			t.Errorf("retry key %s has a default %q: each kind has its own", f.Name, f.Default)
		}
	}
	if got := strings.Join(names, ","); got != "jitter,max-attempts,max-attempts-force,max-elapsed,on-unknown,retry-after-cap,schedule" {
		t.Errorf("retry keys %s", got)
	}
	names = nil
	for _, f := range RunFields() {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "breaker-threshold,egress-canary,egress-status-url,rules" {
		t.Errorf("run-wide keys %s", got)
	}
}

// TestPrepareDerives: Prepare derives the policy and what the run needs;
// exec's tool follows its command, a script keeps auto.
func TestPrepareDerives(t *testing.T) {
	c, err := set(t, ExecKind, "command", "git|push", "schedule", "1s", "jitter", "0.5")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Prepare(context.Background(), ExecKind, c)
	if pol := p.Policy(); pol.MaxAttempts != 2 || pol.Jitter != 0.5 || c.(*ExecConfig).tool != "git" {
		t.Errorf("policy %v tool %s", pol, c.(*ExecConfig).tool)
	}
	if _, err := set(t, ExecKind, "command", "true", "run", "echo hi"); err == nil {
		t.Error("command and run together accepted")
	}
	if _, err := set(t, ExecKind); err == nil || !strings.Contains(err.Error(), "no command given") {
		t.Errorf("no command: %v", err)
	}
	if _, err := set(t, ProbeKind, "targets", "${HOST}:443"); err != nil {
		t.Errorf("a target known only at run time refused: %v", err)
	}
}

// TestBoundsFromTheTable: a value outside its field's Min or Max is refused
// by Prepare with the field named (no hand-written check beside the
// table), a value at a bound is taken, and every bounded field's bounds
// parse as its type.
func TestBoundsFromTheTable(t *testing.T) {
	for _, tt := range []struct {
		k         *Kind
		kv        []string
		want, fix string
	}{
		{PushKind, []string{"rebase-on-reject", "-1"}, `invalid --rebase-on-reject -1: must not be negative`, ""},
		{PushKind, []string{"auth-recheck", "-1s"}, `invalid --auth-recheck -1s: must not be negative`, ""},
		{HTTPKind, []string{"url", "http://127.0.0.1/", "timeout", "-1s"}, `invalid --timeout -1s: must not be negative`, ""},
		{HTTPKind, []string{"url", "http://127.0.0.1/", "breaker-threshold", "-1"}, `invalid --breaker-threshold -1: must not be negative (0 disables the breaker)`, ""},
		{ExecKind, []string{"command", "true", "timeout", "-2s"}, `invalid --timeout -2s: must not be negative`, ""},
		{ExecKind, []string{"command", "true", "kill-grace", "-1s"}, `invalid --kill-grace -1s: must not be negative`, ""},
		{ExecKind, []string{"command", "true", "kill-grace", "5m1s"}, `invalid --kill-grace 5m1s: above its cap of 5m0s`, ""},
		{QuotaKind, []string{"min-remaining", "-1"}, `invalid --min-remaining -1: must not be negative`, ""},
		{QuotaKind, []string{"max-wait", "-1s"}, `invalid --max-wait -1s: must not be negative`, ""},
		{ExecKind, []string{"command", "true", "max-attempts", "-1"}, `invalid --max-attempts -1: must be at least 1 (0 derives it from the schedule)`, ""},
		{ExecKind, []string{"command", "true", "retry-after-cap", "-1s"}, `invalid --retry-after-cap -1s: must not be negative`, ""},
		{ExecKind, []string{"command", "true", "jitter", "1.5"}, `invalid --jitter 1.5: out of range: want a fraction from 0 to 1`, "write jitter: 0.2, or 0 for exact waits"},
		{ExecKind, []string{"command", "true", "jitter", "NaN"}, `invalid --jitter NaN: out of range: want a fraction from 0 to 1`, "write jitter: 0.2, or 0 for exact waits"},
	} {
		_, err := set(t, tt.k, tt.kv...)
		fes := FieldErrors(err)
		if err == nil || len(fes) != 1 || !strings.HasPrefix(fes[0].Error(), tt.want) || fes[0].Fix != tt.fix {
			t.Errorf("%s %v: %v (fix %q), want one error %q", tt.k.Name, tt.kv, err, fixOf(fes), tt.want)
		}
	}
	for _, kv := range [][]string{{"kill-grace", "5m"}, {"kill-grace", "0s"}, {"timeout", "0s"}, {"jitter", "1"}, {"jitter", "0"}, {"max-attempts", "0"}} {
		if _, err := set(t, ExecKind, "command", "true", kv[0], kv[1]); err != nil {
			t.Errorf("exec %v: %v", kv, err)
		}
	}
	for _, k := range Kinds() {
		bounded := 0
		for _, f := range k.New().Fields() {
			if f.Min != "" || f.Max != "" {
				bounded++
				f.outside() // panics on a bound that does not parse
			}
		}
		if bounded == 0 && k != ProbeKind {
			t.Errorf("%s has no bounded field", k.Name)
		}
	}
}

func fixOf(fes []*FieldError) string {
	if len(fes) == 0 {
		return ""
	}
	return fes[0].Fix
}

// TestTypeFromTheVariable: every field's Type is the one its bound
// variable's Go type gives (bind derives it; a []string is a List or a
// CSV, chosen by bindList or bindCSV).
func TestTypeFromTheVariable(t *testing.T) {
	for _, k := range Kinds() {
		for _, f := range k.New().Fields() {
			var want []Type
			switch f.ptr.(type) {
			case *string:
				want = []Type{String}
			case *bool:
				want = []Type{Bool}
			case *int, *int64:
				want = []Type{Int}
			case *float64:
				want = []Type{Float}
			case *time.Duration:
				want = []Type{Duration}
			case *[]time.Duration:
				want = []Type{CSV}
			case *[]string:
				want = []Type{List, CSV}
			}
			if !slices.Contains(want, f.Type) {
				t.Errorf("%s --%s: type %s bound to %T", k.Name, f.Name, f.Type, f.ptr)
			}
		}
	}
}
