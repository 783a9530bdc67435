package jobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/expr-lang/expr"
	exprast "github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	exprparser "github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// condEnv is what an if: expression sees: steps, env and the status
// functions success(), failure(), always() and cancelled().
type condEnv struct {
	Steps     map[string]StepState `expr:"steps"`
	Env       map[string]string    `expr:"env"`
	Success   func() bool          `expr:"success"`
	Failure   func() bool          `expr:"failure"`
	Always    func() bool          `expr:"always"`
	Cancelled func() bool          `expr:"cancelled"`
}

// success is success(): no earlier step failed and the run is not being
// cancelled.
func success(s State) bool { return !s.Failed && !s.Cancelled }

// newCondEnv is the expression environment of s, outputs decoded as
// json.Number turned into numbers.
func newCondEnv(s State) condEnv {
	steps := make(map[string]StepState, len(s.Steps))
	for id, st := range s.Steps {
		if st.Outputs != nil {
			outs := make(map[string]any, len(st.Outputs))
			for k, v := range st.Outputs {
				outs[k] = numbers(v)
			}
			st.Outputs = outs
		}
		steps[id] = st
	}
	env := s.Env
	if env == nil {
		env = map[string]string{}
	}
	return condEnv{
		Steps:     steps,
		Env:       env,
		Success:   func() bool { return success(s) },
		Failure:   func() bool { return s.Failed },
		Always:    func() bool { return true },
		Cancelled: func() bool { return s.Cancelled },
	}
}

// numbers returns v with every json.Number turned into an int, or a
// float64 when it is not whole, so that expressions compare numbers.
func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return int(i)
		}
		if f, err := v.Float64(); err == nil {
			return f
		}
		return v.String()
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = numbers(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = numbers(x)
		}
		return out
	}
	return v
}

// EvalError is an if: expression that failed while it was evaluated.
type EvalError struct {
	// Source is the expression.
	Source string
	// Pos is where it is written.
	Pos Pos
	// Err is expr's error.
	Err error
}

// Error returns "if: SOURCE: error".
func (e *EvalError) Error() string { return fmt.Sprintf("if: %s: %s", e.Source, exprMessage(e.Err)) }

// Unwrap returns expr's error.
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

// statusVisitor finds a call of a status function in an expression.
type statusVisitor struct{ found bool }

// Visit records a call of success, failure, always or cancelled.
func (v *statusVisitor) Visit(n *exprast.Node) {
	if c, ok := (*n).(*exprast.CallNode); ok {
		if id, ok := c.Callee.(*exprast.IdentifierNode); ok {
			switch id.Value {
			case "success", "failure", "always", "cancelled":
				v.found = true
			}
		}
	}
}

// evaluator returns the eval function of a compiled condition.
func evaluator(source string, pos Pos, p *vm.Program) func(State) (bool, error) {
	return func(s State) (bool, error) {
		out, err := expr.Run(p, newCondEnv(s))
		if err != nil {
			return false, &EvalError{Source: source, Pos: pos, Err: err}
		}
		b, ok := out.(bool)
		if !ok {
			return false, &EvalError{Source: source, Pos: pos, Err: fmt.Errorf("the expression gave %T, not a bool", out)}
		}
		return b, nil
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

// exprMessage is one line for an expr error, with where in the
// expression it is.
func exprMessage(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		if fe.Line > 0 {
			return fmt.Sprintf("%s (at %d:%d of the expression)", fe.Message, fe.Line, fe.Column+1)
		}
		return fe.Message
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

// condition compiles a step's if: for the steps before it.
func (l *loader) condition(e entry, sc *scope) *Condition {
	s, ok := l.scalar(e.val)
	if !ok || s.null || strings.TrimSpace(s.text) == "" {
		l.errorf(e.valPos, `write an expression such as steps.quota.outcome == "success"`, "if: want an expression, not %s", what(e.val))
		return nil
	}
	fix := `see the if: syntax: steps.ID.outcome, steps.ID.outputs.NAME, env.NAME, success(), failure(), always(), cancelled()`
	if l.condConfig == nil {
		l.condConfig = newCondConfig()
	}
	tree, err := exprparser.ParseWithConfig(s.text, l.condConfig)
	if err != nil {
		l.errorf(s.pos, fix, "if: %s", exprMessage(err))
		return nil
	}
	rv := &refVisitor{l: l, sc: sc, pos: s.pos, fields: stepStateFields()}
	exprast.Walk(&tree.Node, rv)
	if rv.bad {
		return nil
	}
	// the status calls are looked for as written, before the optimizer
	// rewrites the tree
	sv := &statusVisitor{}
	exprast.Walk(&tree.Node, sv)
	p, err := compileCondition(tree, l.condConfig)
	if err != nil {
		l.errorf(s.pos, fix, "if: %s", exprMessage(err))
		return nil
	}
	c := &Condition{Source: s.text, Pos: s.pos, status: sv.found}
	c.eval = evaluator(s.text, s.pos, p)
	return c
}

// newCondConfig is the compile configuration of if: expressions (condEnv,
// a bool result), as expr.Compile builds it from its options. Building it
// reflects over condEnv and copies expr's builtins, so a loader builds it
// once and compiles every condition of the file with it.
func newCondConfig() *conf.Config {
	cfg := conf.CreateNew()
	for _, op := range []expr.Option{expr.Env(condEnv{}), expr.AsBool()} {
		op(cfg)
	}
	for name := range cfg.Disabled {
		delete(cfg.Builtins, name)
	}
	cfg.Check()
	return cfg
}

// compileCondition type-checks, optimizes and compiles a condition parsed
// with cfg: what expr.Compile does after its parse, so the expression is
// parsed once.
func compileCondition(tree *exprparser.Tree, cfg *conf.Config) (*vm.Program, error) {
	if _, err := new(checker.Checker).PatchAndCheck(tree, cfg); err != nil {
		return nil, err
	}
	if cfg.Optimize {
		if err := optimizer.Optimize(&tree.Node, cfg); err != nil {
			var fe *file.Error
			if errors.As(err, &fe) {
				return nil, fe.Bind(tree.Source)
			}
			return nil, err
		}
	}
	return compiler.Compile(tree, cfg)
}

// refVisitor checks the steps.ID... member chains of an expression.
type refVisitor struct {
	l      *loader
	sc     *scope
	pos    Pos
	fields []string
	bad    bool
}

// Visit checks a member chain rooted at steps at its last member: the
// step at steps.X, the field at steps.X.FIELD and the output at
// steps.X.outputs.NAME. Walk visits every prefix of a chain.
func (v *refVisitor) Visit(n *exprast.Node) {
	m, ok := (*n).(*exprast.MemberNode)
	if !ok {
		return
	}
	chain, ok := memberChain(m)
	if !ok || chain[0] != stepsPrefix {
		return
	}
	ref := strings.Join(chain, ".")
	fail := func(fix, format string, args ...any) {
		v.l.errorf(v.pos, fix, "if: "+ref+format, args...)
		v.bad = true
	}
	id := chain[1]
	switch len(chain) {
	case 2:
		if msg, fix := v.sc.stepProblem(id); msg != "" {
			for _, e := range v.sc.earlierIDs {
				if strings.HasPrefix(e, id+"-") {
					fix = fmt.Sprintf(`write steps[%q]: in an expression - is minus`, e)
					break
				}
			}
			fail(fix, " %s", msg)
		}
	case 3:
		if _, ok := v.sc.earlier[id]; !ok {
			return
		}
		for _, f := range v.fields {
			if f == chain[2] {
				return
			}
		}
		fix := didYouMean(chain[2], v.fields)
		if fix == "" {
			fix = "use one of: " + strings.Join(v.fields, ", ")
		}
		fail(fix, " names no field %q of a step; a step has %s", chain[2], strings.Join(v.fields, ", "))
	case 4:
		if chain[2] != outputsMember {
			return
		}
		if msg, fix := v.sc.outputProblem(id, chain[3]); msg != "" {
			fail(fix, ": %s", msg)
		}
	}
}

// memberChain returns the names of a member chain such as steps.x.outputs
// or steps["x"], from its root identifier; ok is false when a member is
// not a constant name.
func memberChain(n exprast.Node) ([]string, bool) {
	switch n := n.(type) {
	case *exprast.IdentifierNode:
		return []string{n.Value}, true
	case *exprast.ChainNode:
		return memberChain(n.Node)
	case *exprast.MemberNode:
		prop, ok := n.Property.(*exprast.StringNode)
		if !ok {
			return nil, false
		}
		head, ok := memberChain(n.Node)
		if !ok {
			return nil, false
		}
		return append(head, prop.Value), true
	}
	return nil, false
}
