package jobs

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/retrywise/retrywise/internal/expr"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
)

// exprOptions are what the if: language gets of the program: the one cut
// of a quoted value, and the suggestion of a misspelt name.
var exprOptions = expr.Options{
	Clip:    func(s string) string { return redact.Clip(s, 40) },
	Suggest: didYouMean,
}

// success is success(): no earlier step failed and the run is not being
// cancelled.
func success(s State) bool { return !s.Failed && !s.Cancelled }

// condRoot is what an if: expression sees in s: steps (each step's
// members by their expr names, its outputs as the strings FormatOutput
// makes) and env.
func condRoot(s State) map[string]any {
	steps := make(map[string]any, len(s.Steps))
	for id, st := range s.Steps {
		m := map[string]any{}
		v := reflect.ValueOf(st)
		t := v.Type()
		for i := range t.NumField() {
			if n := t.Field(i).Tag.Get("expr"); n != "" && n != outputsMember {
				m[n] = expr.Value(v.Field(i).Interface())
			}
		}
		// As in a workflow, every output is a string: fromJSON gives
		// the typed value.
		outs := make(map[string]any, len(st.Outputs))
		for k, x := range st.Outputs {
			outs[k] = FormatOutput(x)
		}
		m[outputsMember] = outs
		steps[id] = m
	}
	env := make(map[string]any, len(s.Env))
	for k, v := range s.Env {
		env[k] = v
	}
	return map[string]any{stepsPrefix: steps, "env": env}
}

// EvalError is an if: expression that failed while it was evaluated.
type EvalError struct {
	// Source is the expression.
	Source string
	// Pos is where it is written.
	Pos Pos
	// Err is the evaluation's error.
	Err error
}

// Error returns "if: SOURCE: error".
func (e *EvalError) Error() string { return fmt.Sprintf("if: %s: %s", e.Source, e.Err) }

// Unwrap returns the evaluation's error.
func (e *EvalError) Unwrap() error { return e.Err }

// ShouldRun reports whether the step runs in st: its if:, or success()
// when it has none. As in a workflow, an if: that calls none of success(),
// failure(), always() and cancelled() is read as success() && (if:): a
// condition on outputs does not make a step run after a failure.
func (s *Step) ShouldRun(st State) (bool, error) {
	if s.If == nil || !s.If.status {
		if !success(st) {
			return false, nil
		}
	}
	if s.If == nil {
		return true, nil
	}
	return s.If.Eval(st)
}

// evaluator returns the eval function of a parsed condition: the value
// of the expression, as a condition (GitHub's truthiness).
func evaluator(source string, pos Pos, n expr.Node) func(State) (bool, error) {
	return func(s State) (bool, error) {
		env := expr.Env{Root: condRoot(s), Status: func(name string) bool {
			switch name {
			case "success":
				return success(s)
			case "failure":
				return s.Failed
			case "cancelled":
				return s.Cancelled
			}
			return true
		}}
		out, err := expr.Eval(n, env, exprOptions)
		if err != nil {
			var ee *expr.EvalError
			if errors.As(err, &ee) {
				err = fmt.Errorf("%s (at %s of the expression)", ee.Msg, expr.Pos(source, ee.Offset))
			}
			return false, &EvalError{Source: source, Pos: pos, Err: err}
		}
		return expr.Truthy(out), nil
	}
}

// stepStateFields are the members of steps.ID: StepState's expr names.
func stepStateFields() []string {
	t := reflect.TypeFor[StepState]()
	names := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		if n := t.Field(i).Tag.Get("expr"); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// condition parses a step's if: for the steps before it and checks its
// names: the contexts, the steps (earlier ones), their members and the
// outputs of kinds whose outputs are fixed.
func (l *loader) condition(e entry, sc *scope) *Condition {
	s, ok := l.scalar(e.val)
	if !ok || s.null || strings.TrimSpace(s.text) == "" {
		l.errorf(e.valPos, `write an expression such as steps.quota.outcome == 'success'`, "if: want an expression, not %s", what(e.val))
		return nil
	}
	fix := `see the if: syntax: steps.ID.outcome, steps.ID.outputs.NAME, env.NAME, success(), failure(), always(), cancelled()`
	tree, err := expr.Parse(s.text, exprOptions)
	if err != nil {
		var xe *expr.Error
		if errors.As(err, &xe) {
			if xe.Fix != "" {
				fix = xe.Fix
			}
			l.errorf(s.pos, fix, "if: %s (at %s of the expression)", xe.Msg, expr.Pos(s.text, xe.Offset))
		} else {
			l.errorf(s.pos, fix, "if: %v", err)
		}
		return nil
	}
	rv := &refVisitor{l: l, sc: sc, pos: s.pos, fields: stepStateFields()}
	status := false
	expr.Walk(tree, func(n expr.Node) {
		rv.visit(n)
		rv.compare(n)
		if expr.StatusCall(n) {
			status = true
		}
	})
	if rv.bad {
		return nil
	}
	c := &Condition{Source: s.text, Pos: s.pos, status: status}
	c.eval = evaluator(s.text, s.pos, tree)
	return c
}

// refVisitor checks the steps.ID... member chains of an expression.
type refVisitor struct {
	l      *loader
	sc     *scope
	pos    Pos
	fields []string
	bad    bool
}

// visit checks a member chain rooted at steps at its last member: the
// step at steps.X, the field at steps.X.FIELD and the output at
// steps.X.outputs.NAME. expr.Walk visits every prefix of a chain.
func (v *refVisitor) visit(n expr.Node) {
	chain, ok := expr.Members(n)
	if !ok || chain[0] != stepsPrefix {
		return
	}
	ref := strings.Join(chain, ".")
	fail := func(fix, format string, args ...any) {
		v.l.errorf(v.pos, fix, "if: "+ref+format, args...)
		v.bad = true
	}
	id := v.sc.caseBlind(chain[1])
	switch len(chain) {
	case 2:
		if msg, fix := v.sc.stepProblem(id); msg != "" {
			fail(fix, " %s", msg)
		}
	case 3:
		if _, ok := v.sc.earlier[id]; !ok {
			return
		}
		for _, f := range v.fields {
			if strings.EqualFold(f, chain[2]) { // contexts are case-blind
				return
			}
		}
		fix := didYouMean(chain[2], v.fields)
		if fix == "" {
			fix = "use one of: " + strings.Join(v.fields, ", ")
		}
		fail(fix, " names no field %q of a step; a step has %s", chain[2], strings.Join(v.fields, ", "))
	case 4:
		if !strings.EqualFold(chain[2], outputsMember) {
			return
		}
		if msg, fix, warn := v.sc.outputProblem(id, chain[3], true); warn {
			v.l.warnf(v.pos, fix, "if: %s: %s", ref, msg)
		} else if msg != "" {
			fail(fix, ": %s", msg)
		}
	}
}

// outcomes are the values of steps.ID.outcome, in the order messages
// name them.
var outcomes = []string{string(report.Success), string(report.Failure), string(report.Cancelled), string(report.Skipped)}

// classes are the values of steps.ID.class: a failure's class, or ""
// when the step did not fail.
func classes() []string {
	var out []string
	for c := failure.None; c <= failure.Absent; c++ {
		out = append(out, c.String())
	}
	return out
}

// compare reports a comparison of an earlier step's member with a literal
// that can never be true (== ) or never false (!=): an outcome or a class
// that is not one, and an output (always a string) with a boolean.
func (v *refVisitor) compare(n expr.Node) {
	op, l, r, ok := expr.Comparison(n)
	if !ok {
		return
	}
	chain, okL := expr.Members(l)
	lit, okR := expr.Literal(r)
	if !okL || !okR {
		if chain, okL = expr.Members(r); !okL {
			return
		}
		if lit, okR = expr.Literal(l); !okR {
			return
		}
	}
	if len(chain) < 3 || chain[0] != stepsPrefix {
		return
	}
	if _, ok := v.sc.earlier[v.sc.caseBlind(chain[1])]; !ok {
		return // reported as a step that is not there
	}
	text := ref(chain) + " " + op + " " + expr.FormatLiteral(lit)
	if _, litFirst := expr.Literal(l); litFirst {
		text = expr.FormatLiteral(lit) + " " + op + " " + ref(chain)
	}
	never := "can never be true"
	if op == "!=" {
		never = "is always true"
	}
	switch {
	case len(chain) == 4 && strings.EqualFold(chain[2], outputsMember):
		if b, ok := lit.(bool); ok {
			v.l.errorf(v.pos, fmt.Sprintf("write '%t' (outputs are strings), or fromJSON(%s) for the typed value", b, ref(chain)),
				"if: %s compares an output, always a string, with the boolean %t: 'true' and 'false' are not equal to it", text, b)
			v.bad = true
		}
	case len(chain) == 3 && (op == "==" || op == "!="):
		var values []string
		var what string
		switch {
		case strings.EqualFold(chain[2], "outcome"):
			values, what = outcomes, "an outcome is success, failure, cancelled or skipped"
		case strings.EqualFold(chain[2], "class"):
			values, what = classes(), "a class is "+strings.Join(classes()[1:], ", ")+", or '' when the step did not fail"
		default:
			return
		}
		if s, ok := lit.(string); ok {
			for _, want := range values {
				if strings.EqualFold(s, want) {
					return
				}
			}
		}
		quoted := make([]string, 0, len(values))
		for _, want := range values {
			if want != "" {
				quoted = append(quoted, expr.FormatLiteral(want))
			}
		}
		fix := "write one of: " + strings.Join(quoted, ", ")
		if s, ok := lit.(string); ok {
			if c := closest(strings.ToLower(s), values); c != "" {
				fix = "did you mean " + expr.FormatLiteral(c) + "?"
			}
		}
		v.l.errorf(v.pos, fix, "if: %s %s: %s", text, never, what)
		v.bad = true
	}
}

// ref is a member chain as a reference: steps.ID.NAME.
func ref(chain []string) string { return strings.Join(chain, ".") }
