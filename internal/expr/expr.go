// Package expr is the if: language: GitHub Actions' expressions, parsed
// with bounds and evaluated with bounds. It imports only the standard
// library: what it needs of the program (the cut of a quoted value, the
// suggestion of a name) comes in Options.
package expr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file is the if: language: GitHub Actions' expressions, parsed and
// evaluated here rather than by a general expression library, so that
// their semantics (loose comparison with coercion to numbers, case-blind
// strings, && and || giving an operand) are the ones a workflow has, and
// the parser is bounded (MaxBytes, MaxDepth) before any work.
//
// Values are nil (null), bool, float64 (number), string, []any (array)
// and map[string]any (object).

// Node is a parsed expression.
type Node interface{ at() int }

type (
	// litNode is a literal.
	litNode struct {
		pos int
		v   any
	}
	// identNode is a context: steps or env.
	identNode struct {
		pos  int
		name string
	}
	// memberNode is x.name, x['name'], x[expr], x.* or x[*].
	memberNode struct {
		pos  int
		x    Node
		prop Node // a *litNode for .name; nil for *
	}
	// callNode is a function call.
	callNode struct {
		pos  int
		name string // as the function is known: contains, fromJSON, ...
		args []Node
	}
	// notNode is !x.
	notNode struct {
		pos int
		x   Node
	}
	// cmpNode is a comparison.
	cmpNode struct {
		pos  int
		op   string
		l, r Node
	}
	// logicNode is x && y && ... or x || y || ....
	logicNode struct {
		pos int
		and bool
		xs  []Node
	}
)

func (n *litNode) at() int    { return n.pos }
func (n *identNode) at() int  { return n.pos }
func (n *memberNode) at() int { return n.pos }
func (n *callNode) at() int   { return n.pos }
func (n *notNode) at() int    { return n.pos }
func (n *cmpNode) at() int    { return n.pos }
func (n *logicNode) at() int  { return n.pos }

// exprFunc is a function an expression may call.
type exprFunc struct {
	name             string
	minArgs, maxArgs int // maxArgs < 0: any
	status           bool
}

// exprFuncs are the functions, by lower-case name (GitHub's names are
// case-blind: toJson and toJSON are one).
var exprFuncs = func() map[string]exprFunc {
	m := map[string]exprFunc{}
	for _, f := range []exprFunc{
		{"contains", 2, 2, false}, {"startsWith", 2, 2, false}, {"endsWith", 2, 2, false},
		{"format", 1, -1, false}, {"join", 1, 2, false}, {"toJSON", 1, 1, false}, {"fromJSON", 1, 1, false},
		{"success", 0, 0, true}, {"failure", 0, 0, true}, {"always", 0, 0, true}, {"cancelled", 0, 0, true},
	} {
		m[strings.ToLower(f.name)] = f
	}
	return m
}()

// exprContexts are the names an expression starts from.
var exprContexts = []string{"steps", "env"}

// Error is an expression that does not parse, at an offset of it.
type Error struct {
	// Offset is the byte offset in the expression.
	Offset int
	// Msg says what is wrong.
	Msg string
	// Fix says how to fix it; may be empty.
	Fix string
}

func (e *Error) Error() string { return e.Msg }

// exprToken is a token of an expression.
type exprToken struct {
	kind byte // 'n' number, 's' string, 'i' identifier, 'o' operator, 0 end
	pos  int
	text string // an operator's or identifier's text
	v    any    // a literal's value
}

// exprParser parses one expression.
type exprParser struct {
	src   string
	tok   exprToken
	off   int // where the next token starts
	depth int
	o     Options
}

// The bounds of an expression's text.
const (
	// MaxBytes bounds an expression's length.
	MaxBytes = 21_000
	// MaxDepth bounds its nesting (parentheses, operators, members, calls).
	MaxDepth = 50
)

// Options are what the program gives the language.
type Options struct {
	// Clip shortens a value quoted into an error message; nil quotes it whole.
	Clip func(s string) string
	// Suggest returns a fix for a misspelt name, such as "did you mean
	// X?", given the names it may mean; "" when none is close. Nil
	// suggests nothing.
	Suggest func(name string, names []string) string
}

// clip shortens s with o.Clip.
func (o Options) clip(s string) string {
	if o.Clip == nil {
		return s
	}
	return o.Clip(s)
}

// Parse parses src, bounded by MaxBytes and MaxDepth; its error is an *Error.
func Parse(src string, o Options) (Node, error) {
	if len(src) > MaxBytes {
		return nil, &Error{Offset: MaxBytes, Msg: fmt.Sprintf("the expression is longer than the limit of %d bytes", MaxBytes), Fix: "split the condition, or compute it in an earlier step's output"}
	}
	if t := strings.TrimSpace(src); strings.HasPrefix(t, "${{") && strings.HasSuffix(t, "}}") && !strings.Contains(t[3:len(t)-2], "${{") {
		// a workflow's if: may be written inside ${{ }}; offsets stay
		// those of src
		i := strings.Index(src, "${{")
		j := strings.LastIndex(src, "}}")
		src = strings.Repeat(" ", i+3) + src[i+3:j]
	}
	p := &exprParser{src: src, o: o}
	if err := p.next(); err != nil {
		return nil, err
	}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != 0 {
		return nil, p.unexpected()
	}
	return n, nil
}

func (p *exprParser) errorf(off int, fix, format string, args ...any) error {
	return &Error{Offset: off, Msg: fmt.Sprintf(format, args...), Fix: fix}
}

// unexpected is the error of the current token where it cannot be.
func (p *exprParser) unexpected() error {
	switch {
	case p.tok.kind == 0:
		return p.errorf(p.tok.pos, "complete the expression", "unexpected end of the expression")
	case p.tok.kind == 'i' && (p.tok.text == "and" || p.tok.text == "or" || p.tok.text == "not"):
		return p.errorf(p.tok.pos, "write && for and, || for or, ! for not", "%q is not an operator here", p.tok.text)
	}
	return p.errorf(p.tok.pos, "", "unexpected %s", p.describe())
}

func (p *exprParser) describe() string {
	switch p.tok.kind {
	case 'n', 's':
		return "literal " + p.src[p.tok.pos:p.off]
	case 'i':
		return "name " + strconv.Quote(p.tok.text)
	}
	return strconv.Quote(p.tok.text)
}

// enter counts one level of nesting.
func (p *exprParser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return p.errorf(p.tok.pos, "nest less: compute a part in an earlier step's output", "the expression nests deeper than the limit of %d levels", MaxDepth)
	}
	return nil
}

var numberRE = regexp.MustCompile(`^-?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)`)

// next reads the next token.
func (p *exprParser) next() error {
	s := p.src
	i := p.off
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	p.tok = exprToken{pos: i}
	if i == len(s) {
		p.off = i
		return nil
	}
	c := s[i]
	switch {
	case c == '\'':
		var b strings.Builder
		j := i + 1
		for {
			k := strings.IndexByte(s[j:], '\'')
			if k < 0 {
				return p.errorf(i, "close the string with '", "a string that is not closed")
			}
			b.WriteString(s[j : j+k])
			j += k + 1
			if j < len(s) && s[j] == '\'' { // '' is a quote
				b.WriteByte('\'')
				j++
				continue
			}
			break
		}
		p.tok.kind, p.tok.v, p.off = 's', b.String(), j
		return nil
	case c == '"':
		// GitHub's strings are single-quoted; double quotes, with Go's
		// escapes, are kept for the files written before.
		j := i + 1
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(s) {
			return p.errorf(i, `close the string with "`, "a string that is not closed")
		}
		v, err := strconv.Unquote(s[i : j+1])
		if err != nil {
			return p.errorf(i, "write the string in single quotes: 'text', with '' for a quote", "a double-quoted string with an invalid escape")
		}
		p.tok.kind, p.tok.v, p.off = 's', v, j+1
		return nil
	case c == '-' && strings.HasPrefix(s[i+1:], "Infinity") && (i+9 == len(s) || !isIdentByte(s[i+9])):
		// the runner's lexer reads -Infinity as a number
		p.tok.kind, p.tok.v, p.off = 'n', math.Inf(-1), i+9
		return nil
	case c >= '0' && c <= '9' || (c == '-' || c == '.') && i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '.'):
		m := numberRE.FindString(s[i:])
		if m == "" {
			return p.errorf(i, "", "unexpected %q", s[i:i+1])
		}
		end := i + len(m)
		if end < len(s) && isIdentByte(s[end]) {
			return p.errorf(i, "", "a number followed by %q", s[end:end+1])
		}
		p.tok.kind, p.tok.v, p.off = 'n', parseNumber(m), end
		return nil
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		j := i + 1
		for j < len(s) && isIdentByte(s[j]) {
			j++
		}
		p.tok.kind, p.tok.text, p.off = 'i', s[i:j], j
		return nil
	}
	for _, op := range []string{"==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "(", ")", "[", "]", ".", ",", "*"} {
		if strings.HasPrefix(s[i:], op) {
			p.tok.kind, p.tok.text, p.off = 'o', op, i+len(op)
			return nil
		}
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	fix := ""
	switch c {
	case '=':
		fix = "write == to compare"
	case '&', '|':
		fix = "write && or ||"
	case '+', '-', '/', '%':
		fix = "expressions have no arithmetic; compute it in an earlier step's output"
	case '?', ':':
		fix = "write COND && A || B for a choice"
	}
	return p.errorf(i, fix, "unexpected %q", string(r))
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// is reports whether the current token is the operator op.
func (p *exprParser) is(op string) bool { return p.tok.kind == 'o' && p.tok.text == op }

// expect consumes the operator op.
func (p *exprParser) expect(op string) error {
	if !p.is(op) {
		if p.tok.kind == 0 {
			return p.errorf(p.tok.pos, "add "+op, "unexpected end of the expression; want %s", op)
		}
		return p.errorf(p.tok.pos, "", "unexpected %s; want %s", p.describe(), op)
	}
	return p.next()
}

// or is x || y || ...
func (p *exprParser) or() (Node, error) {
	return p.logic("||", true)
}

// logic parses a chain of || (or, above &&) or of &&.
func (p *exprParser) logic(op string, or bool) (Node, error) {
	operand := func() (Node, error) {
		if or {
			return p.logic("&&", false)
		}
		return p.equality()
	}
	x, err := operand()
	if err != nil {
		return nil, err
	}
	if !p.is(op) {
		return x, nil
	}
	n := &logicNode{pos: x.at(), and: !or, xs: []Node{x}}
	for p.is(op) {
		if err := p.next(); err != nil {
			return nil, err
		}
		y, err := operand()
		if err != nil {
			return nil, err
		}
		n.xs = append(n.xs, y)
	}
	return n, nil
}

// equality is x == y, x != y.
func (p *exprParser) equality() (Node, error) {
	return p.comparison([]string{"==", "!="}, p.relational)
}

// relational is x < y, x <= y, x > y, x >= y.
func (p *exprParser) relational() (Node, error) {
	return p.comparison([]string{"<", "<=", ">", ">="}, p.unary)
}

// comparison parses a left-to-right chain of the operators ops; each
// link counts as a level of nesting.
func (p *exprParser) comparison(ops []string, operand func() (Node, error)) (Node, error) {
	x, err := operand()
	if err != nil {
		return nil, err
	}
	depth := p.depth
	defer func() { p.depth = depth }()
	for p.tok.kind == 'o' {
		op := p.tok.text
		found := false
		for _, o := range ops {
			found = found || o == op
		}
		if !found {
			break
		}
		if err := p.enter(); err != nil {
			return nil, err
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		y, err := operand()
		if err != nil {
			return nil, err
		}
		x = &cmpNode{pos: x.at(), op: op, l: x, r: y}
	}
	return x, nil
}

// unary is !x or a postfix expression.
func (p *exprParser) unary() (Node, error) {
	if !p.is("!") {
		return p.postfix()
	}
	pos := p.tok.pos
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if err := p.next(); err != nil {
		return nil, err
	}
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	return &notNode{pos: pos, x: x}, nil
}

// postfix is a primary followed by .name, .*, [expr] and [*]; each link
// is a level of nesting.
func (p *exprParser) postfix() (Node, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	depth := p.depth
	defer func() { p.depth = depth }()
	for {
		pos := p.tok.pos
		switch {
		case p.is("."):
			if err := p.enter(); err != nil {
				return nil, err
			}
			if err := p.next(); err != nil {
				return nil, err
			}
			switch {
			case p.is("*"):
				x = &memberNode{pos: pos, x: x}
			case p.tok.kind == 'i':
				x = &memberNode{pos: pos, x: x, prop: &litNode{pos: p.tok.pos, v: p.tok.text}}
			default:
				return nil, p.errorf(p.tok.pos, "write a name after the dot", "unexpected %s after .", p.describe())
			}
			if err := p.next(); err != nil {
				return nil, err
			}
		case p.is("["):
			if err := p.enter(); err != nil {
				return nil, err
			}
			if err := p.next(); err != nil {
				return nil, err
			}
			if p.is("*") {
				x = &memberNode{pos: pos, x: x}
				if err := p.next(); err != nil {
					return nil, err
				}
			} else {
				i, err := p.or()
				if err != nil {
					return nil, err
				}
				x = &memberNode{pos: pos, x: x, prop: i}
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
		default:
			return x, nil
		}
	}
}

// primary is a literal, a context, a call or a parenthesised expression.
func (p *exprParser) primary() (Node, error) {
	t := p.tok
	switch t.kind {
	case 'n', 's':
		return &litNode{pos: t.pos, v: t.v}, p.next()
	case 'i':
		switch t.text {
		case "true", "false":
			return &litNode{pos: t.pos, v: t.text == "true"}, p.next()
		case "null":
			return &litNode{pos: t.pos, v: nil}, p.next()
		case "NaN":
			return &litNode{pos: t.pos, v: math.NaN()}, p.next()
		case "Infinity":
			return &litNode{pos: t.pos, v: math.Inf(1)}, p.next()
		case "and", "or", "not":
			return nil, p.unexpected()
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		if p.is("(") {
			return p.call(t)
		}
		for _, c := range exprContexts {
			if strings.EqualFold(t.text, c) {
				return &identNode{pos: t.pos, name: c}, nil
			}
		}
		fix := "an if: sees " + strings.Join(exprContexts, " and ") + "; " + `write a string in quotes: 'text'`
		if t.text == "nil" {
			fix = "write null"
		}
		return nil, p.errorf(t.pos, fix, "unknown name %q", t.text)
	case 'o':
		if t.text == "(" {
			if err := p.enter(); err != nil {
				return nil, err
			}
			if err := p.next(); err != nil {
				return nil, err
			}
			x, err := p.or()
			if err != nil {
				return nil, err
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			p.depth--
			return x, nil
		}
	}
	return nil, p.unexpected()
}

// call parses the arguments of the function named by t.
func (p *exprParser) call(t exprToken) (Node, error) {
	f, ok := exprFuncs[strings.ToLower(t.text)]
	if !ok {
		names := make([]string, 0, len(exprFuncs))
		for _, f := range exprFuncs {
			names = append(names, f.name)
		}
		sort.Strings(names)
		fix := ""
		if p.o.Suggest != nil {
			fix = p.o.Suggest(t.text, names)
		}
		if fix == "" {
			fix = "the functions are: " + strings.Join(names, ", ")
		}
		if strings.EqualFold(t.text, "hashFiles") {
			fix = "a job file has no workspace to hash; compute it in an earlier step's output"
		}
		return nil, p.errorf(t.pos, fix, "unknown function %s()", t.text)
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	if err := p.next(); err != nil { // (
		return nil, err
	}
	n := &callNode{pos: t.pos, name: f.name}
	for !p.is(")") {
		if len(n.args) > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		a, err := p.or()
		if err != nil {
			return nil, err
		}
		n.args = append(n.args, a)
	}
	if err := p.next(); err != nil {
		return nil, err
	}
	p.depth--
	if len(n.args) < f.minArgs || f.maxArgs >= 0 && len(n.args) > f.maxArgs {
		want := fmt.Sprintf("%d", f.minArgs)
		switch {
		case f.maxArgs < 0:
			want = fmt.Sprintf("at least %d", f.minArgs)
		case f.maxArgs != f.minArgs:
			want = fmt.Sprintf("%d or %d", f.minArgs, f.maxArgs)
		}
		return nil, p.errorf(t.pos, "", "%s() takes %s argument(s), not %d", f.name, want, len(n.args))
	}
	return n, nil
}

// Walk calls visit for n and every node under it.
func Walk(n Node, visit func(Node)) {
	visit(n)
	switch n := n.(type) {
	case *memberNode:
		Walk(n.x, visit)
		if n.prop != nil {
			Walk(n.prop, visit)
		}
	case *callNode:
		for _, a := range n.args {
			Walk(a, visit)
		}
	case *notNode:
		Walk(n.x, visit)
	case *cmpNode:
		Walk(n.l, visit)
		Walk(n.r, visit)
	case *logicNode:
		for _, x := range n.xs {
			Walk(x, visit)
		}
	}
}

// Members returns the names of n when it is a member chain such as
// steps.x.outputs or steps['x'], from its context; ok is false for any
// other node and when a member is not a constant name.
func Members(n Node) ([]string, bool) {
	if _, ok := n.(*memberNode); !ok {
		return nil, false
	}
	return names(n)
}

// StatusCall reports whether n is a call of a status function: success(),
// failure(), always() or cancelled().
func StatusCall(n Node) bool {
	c, ok := n.(*callNode)
	return ok && exprFuncs[strings.ToLower(c.name)].status
}

// names returns the names of a member chain such as steps.x.outputs
// or steps['x'], from its context; ok is false when a member is not a
// constant name.
func names(n Node) ([]string, bool) {
	switch n := n.(type) {
	case *identNode:
		return []string{n.name}, true
	case *memberNode:
		lit, ok := n.prop.(*litNode)
		if !ok {
			return nil, false
		}
		s, ok := lit.v.(string)
		if !ok {
			return nil, false
		}
		head, ok := names(n.x)
		if !ok {
			return nil, false
		}
		return append(head, s), true
	}
	return nil, false
}

// The bounds of an evaluation. Each is checked while a value is built,
// before the bytes past it are made: an if: of MaxBytes cannot cost more
// than a few times MaxEvalBytes of memory and time.
const (
	// MaxValueBytes bounds a string an expression makes (format, join,
	// toJSON) and one fromJSON reads: past it the function fails.
	MaxValueBytes = 1 << 20
	// MaxEvalBytes bounds what one evaluation builds and reads in all:
	// every byte format, join and toJSON write, every byte fromJSON,
	// contains, startsWith, endsWith and a comparison read, and every value
	// fromJSON makes (jsonItemCost bytes an item, a string's length more).
	MaxEvalBytes = 16 << 20
	// MaxJSONDepth bounds the nesting of arrays and objects fromJSON reads.
	MaxJSONDepth = 64
)

// jsonItemCost is what a value fromJSON makes counts against
// MaxEvalBytes, besides its text: about what Go holds for it.
const jsonItemCost = 128

// errValueTooLong is a function's result past MaxValueBytes.
var errValueTooLong = fmt.Errorf("the result is longer than the limit of %d bytes", MaxValueBytes)

// errEvalTooCostly is an evaluation past MaxEvalBytes.
var errEvalTooCostly = fmt.Errorf("the expression builds and reads more than the limit of %d bytes in all", MaxEvalBytes)

// filtered is the array an object filter (*) makes: a member of it is the
// member of each of its items.
type filtered []any

// exprEval evaluates expressions in one environment.
type exprEval struct {
	root   map[string]any
	status func(name string) bool
	o      Options
	spent  int // bytes built and read, against MaxEvalBytes
}

// Env is what an evaluation sees.
type Env struct {
	// Root holds the contexts by name (steps, env), as values of the
	// language (see Value).
	Root map[string]any
	// Status answers the status functions: success, failure, cancelled
	// (always() is always true).
	Status func(name string) bool
}

// Eval evaluates n in env; an error at a place of the expression is an
// *EvalError.
func Eval(n Node, env Env, o Options) (any, error) {
	ev := &exprEval{root: env.Root, status: env.Status, o: o}
	return ev.eval(n)
}

// charge counts n bytes built or read against MaxEvalBytes.
func (ev *exprEval) charge(n int) error {
	ev.spent += n
	if ev.spent > MaxEvalBytes {
		return errEvalTooCostly
	}
	return nil
}

// valueBuilder builds a function's string: it stops with an error before
// the string passes MaxValueBytes or the evaluation MaxEvalBytes,
// and writes nothing after.
type valueBuilder struct {
	ev  *exprEval
	b   strings.Builder
	err error
}

// WriteString appends s, unless that crosses a bound.
func (w *valueBuilder) WriteString(s string) error {
	switch {
	case w.err != nil:
	case w.b.Len()+len(s) > MaxValueBytes:
		w.err = errValueTooLong
	default:
		if w.err = w.ev.charge(len(s)); w.err == nil {
			w.b.WriteString(s)
		}
	}
	return w.err
}

// reserve makes room for n more bytes, known in advance, and counts them:
// unless that crosses a bound, the string is then built in one allocation
// with writeReserved.
func (w *valueBuilder) reserve(n int) error {
	switch {
	case w.err != nil:
	case w.b.Len()+n > MaxValueBytes:
		w.err = errValueTooLong
	default:
		if w.err = w.ev.charge(n); w.err == nil {
			w.b.Grow(n)
		}
	}
	return w.err
}

// writeReserved appends s to the room reserve made.
func (w *valueBuilder) writeReserved(s string) { w.b.WriteString(s) }

// String returns what was built.
func (w *valueBuilder) String() string { return w.b.String() }

// EvalError is an error of evaluation at an offset of the expression.
type EvalError struct {
	// Offset is the byte offset in the expression.
	Offset int
	// Msg says what failed.
	Msg string
}

func (e *EvalError) Error() string { return e.Msg }

func (ev *exprEval) eval(n Node) (any, error) {
	switch n := n.(type) {
	case *litNode:
		return n.v, nil
	case *identNode:
		return ev.root[n.name], nil
	case *notNode:
		x, err := ev.eval(n.x)
		if err != nil {
			return nil, err
		}
		return !Truthy(x), nil
	case *logicNode:
		var x any
		for _, xn := range n.xs {
			var err error
			if x, err = ev.eval(xn); err != nil {
				return nil, err
			}
			if Truthy(x) != n.and {
				return x, nil
			}
		}
		return x, nil
	case *cmpNode:
		l, err := ev.eval(n.l)
		if err != nil {
			return nil, err
		}
		r, err := ev.eval(n.r)
		if err != nil {
			return nil, err
		}
		if err := ev.chargeStrings(l, r); err != nil {
			return nil, &EvalError{Offset: n.pos, Msg: n.op + ": " + err.Error()}
		}
		return compare(n.op, l, r), nil
	case *memberNode:
		x, err := ev.eval(n.x)
		if err != nil {
			return nil, err
		}
		if n.prop == nil {
			return star(x), nil
		}
		k, err := ev.eval(n.prop)
		if err != nil {
			return nil, err
		}
		if f, ok := x.(filtered); ok {
			out := filtered{}
			for _, item := range f {
				if v := member(item, k); v != nil {
					out = append(out, v)
				}
			}
			return out, nil
		}
		return member(x, k), nil
	case *callNode:
		return ev.call(n)
	}
	return nil, fmt.Errorf("unknown node %T", n)
}

// chargeStrings counts the strings among vs, read by a comparison or a
// function, against MaxEvalBytes.
func (ev *exprEval) chargeStrings(vs ...any) error {
	for _, v := range vs {
		if s, ok := v.(string); ok {
			if err := ev.charge(len(s)); err != nil {
				return err
			}
		}
	}
	return nil
}

// star is x.*: an array's items, an object's values (by key), as a
// filtered array; the items of a filtered array's items.
func star(x any) any {
	switch x := x.(type) {
	case filtered:
		out := filtered{}
		for _, item := range x {
			if s, ok := star(item).(filtered); ok {
				out = append(out, s...)
			}
		}
		return out
	case []any:
		return filtered(x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make(filtered, len(keys))
		for i, k := range keys {
			out[i] = x[k]
		}
		return out
	}
	return filtered{}
}

// member is x[k]: an object's key (case-blind, as GitHub's contexts), an
// array's index; null otherwise.
func member(x, k any) any {
	switch x := x.(type) {
	case map[string]any:
		s, ok := k.(string)
		if !ok {
			return nil
		}
		if v, ok := x[s]; ok {
			return v
		}
		for key, v := range x {
			if strings.EqualFold(key, s) {
				return v
			}
		}
	case []any, filtered:
		arr := asArray(x)
		f := toNumber(k)
		if f >= 0 && f == math.Floor(f) && f < float64(len(arr)) {
			return arr[int(f)]
		}
	}
	return nil
}

func asArray(x any) []any {
	switch x := x.(type) {
	case []any:
		return x
	case filtered:
		return x
	}
	return nil
}

// call evaluates a function call.
func (ev *exprEval) call(n *callNode) (any, error) {
	switch n.name {
	case "success", "failure", "always", "cancelled":
		return ev.status(n.name), nil
	}
	args := make([]any, len(n.args))
	for i, a := range n.args {
		v, err := ev.eval(a)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	fail := func(format string, a ...any) (any, error) {
		return nil, &EvalError{Offset: n.pos, Msg: n.name + ": " + fmt.Sprintf(format, a...)}
	}
	switch n.name {
	case "contains", "startsWith", "endsWith":
		if err := ev.chargeStrings(args...); err != nil {
			return fail("%v", err)
		}
	}
	switch n.name {
	case "contains":
		if arr := asArray(args[0]); arr != nil {
			for _, item := range arr {
				if equal(item, args[1]) {
					return true, nil
				}
			}
			return false, nil
		}
		return strings.Contains(strings.ToUpper(toString(args[0])), strings.ToUpper(toString(args[1]))), nil
	case "startsWith":
		return strings.HasPrefix(strings.ToUpper(toString(args[0])), strings.ToUpper(toString(args[1]))), nil
	case "endsWith":
		return strings.HasSuffix(strings.ToUpper(toString(args[0])), strings.ToUpper(toString(args[1]))), nil
	case "format":
		f, strs := toString(args[0]), make([]string, len(args)-1)
		for i, a := range args[1:] {
			strs[i] = toString(a)
		}
		size := 0
		if err := format(f, strs, func(s string) { size += len(s) }, ev.o.clip); err != nil {
			return fail("%v", err)
		}
		w := &valueBuilder{ev: ev}
		if err := w.reserve(size); err != nil {
			return fail("%v", err)
		}
		format(f, strs, w.writeReserved, ev.o.clip)
		return w.String(), nil
	case "join":
		sep := ","
		if len(args) == 2 {
			sep = toString(args[1])
		}
		arr := asArray(args[0])
		if arr == nil {
			return toString(args[0]), nil
		}
		size := len(sep) * (len(arr) - 1)
		for _, item := range arr {
			size += len(toString(item))
		}
		w := &valueBuilder{ev: ev}
		if err := w.reserve(size); err != nil {
			return fail("%v", err)
		}
		for i, item := range arr {
			if i > 0 {
				w.writeReserved(sep)
			}
			w.writeReserved(toString(item))
		}
		return w.String(), nil
	case "toJSON":
		w := &valueBuilder{ev: ev}
		if err := w.json(args[0], 0); err != nil {
			return fail("%v", err)
		}
		return w.String(), nil
	case "fromJSON":
		s := toString(args[0])
		if len(s) > MaxValueBytes {
			return fail("%q is longer than the limit of %d bytes", ev.o.clip(s), MaxValueBytes)
		}
		if err := ev.charge(len(s)); err != nil {
			return fail("%v", err)
		}
		v, err := ev.readJSON(s)
		var bad *badJSON
		if errors.As(err, &bad) {
			return fail("%q %s", ev.o.clip(s), bad.msg)
		}
		if err != nil {
			return fail("%v", err)
		}
		return v, nil
	}
	return fail("unknown function")
}

// badJSON is a text fromJSON cannot read: msg follows the quoted text and
// quotes nothing of it ("is not JSON: ..." and where).
type badJSON struct{ msg string }

func (e *badJSON) Error() string { return e.msg }

// readJSON reads s, one JSON value, as an expression's value, counting
// each value it makes against MaxEvalBytes and stopping past
// MaxJSONDepth levels of arrays and objects; a text it cannot read is a
// *badJSON.
func (ev *exprEval) readJSON(s string) (any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	v, err := ev.readJSONValue(d, 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, &badJSON{"is not one JSON value"}
	}
	return v, nil
}

// readJSONValue reads the next value of d, at depth levels of nesting.
func (ev *exprEval) readJSONValue(d *json.Decoder, depth int) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, notJSON(d, err)
	}
	if err := ev.charge(jsonItemCost); err != nil {
		return nil, err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		if s, ok := tok.(string); ok {
			if err := ev.charge(len(s)); err != nil {
				return nil, err
			}
		}
		return Value(tok), nil
	}
	if delim == ']' || delim == '}' {
		return nil, notJSON(d, nil)
	}
	if depth >= MaxJSONDepth {
		return nil, &badJSON{fmt.Sprintf("nests deeper than the limit of %d levels (at byte %d)", MaxJSONDepth, d.InputOffset())}
	}
	if delim == '[' {
		// at least one item's room: two empty arrays are two instances
		arr := make([]any, 0, 1)
		for d.More() {
			v, err := ev.readJSONValue(d, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := d.Token(); err != nil {
			return nil, notJSON(d, err)
		}
		return arr, nil
	}
	obj := map[string]any{}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, notJSON(d, err)
		}
		key, _ := k.(string)
		if err := ev.charge(len(key)); err != nil {
			return nil, err
		}
		v, err := ev.readJSONValue(d, depth+1)
		if err != nil {
			return nil, err
		}
		obj[key] = v
	}
	if _, err := d.Token(); err != nil {
		return nil, notJSON(d, err)
	}
	return obj, nil
}

// jsonCharRE is the character a JSON syntax error quotes: a byte of the
// value, which a message does not show.
var jsonCharRE = regexp.MustCompile(`^invalid character '(?:\\'|[^'])*' `)

// notJSON is the error of a value that is not JSON: what the decoder found
// wrong, without the character it quotes, and where.
func notJSON(d *json.Decoder, err error) *badJSON {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return &badJSON{fmt.Sprintf("is not JSON: %s (at byte %d)", jsonCharRE.ReplaceAllString(se.Error(), "invalid character "), se.Offset)}
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return &badJSON{"is not JSON: unexpected end of JSON input"}
	}
	return &badJSON{fmt.Sprintf("is not JSON: unexpected token (at byte %d)", d.InputOffset())}
}

// json writes v as json.MarshalIndent(v, "", "  ") would (a filtered array
// as an array, NaN and the infinities as null), at depth levels of
// indentation, stopping at the bounds as it writes.
func (w *valueBuilder) json(v any, depth int) error {
	switch v := v.(type) {
	case nil:
		return w.WriteString("null")
	case bool:
		return w.WriteString(strconv.FormatBool(v))
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return w.WriteString("null")
		}
		b, _ := json.Marshal(v)
		return w.WriteString(string(b))
	case string:
		return w.jsonString(v)
	case filtered:
		return w.json([]any(v), depth)
	case []any:
		if len(v) == 0 {
			return w.WriteString("[]")
		}
		w.WriteString("[")
		for i, x := range v {
			if i > 0 {
				w.WriteString(",")
			}
			w.indent(depth + 1)
			if err := w.json(x, depth+1); err != nil {
				return err
			}
		}
		w.indent(depth)
		return w.WriteString("]")
	case map[string]any:
		if len(v) == 0 {
			return w.WriteString("{}")
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		w.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				w.WriteString(",")
			}
			w.indent(depth + 1)
			w.jsonString(k)
			w.WriteString(": ")
			if err := w.json(v[k], depth+1); err != nil {
				return err
			}
		}
		w.indent(depth)
		return w.WriteString("}")
	}
	// anything else, as encoding/json writes it, then indented
	b, err := json.MarshalIndent(v, strings.Repeat("  ", depth), "  ")
	if err != nil {
		return err
	}
	return w.WriteString(string(b))
}

// indent writes a line break and depth levels of indentation.
func (w *valueBuilder) indent(depth int) {
	if w.WriteString("\n") != nil {
		return
	}
	for range depth {
		if w.WriteString("  ") != nil {
			return
		}
	}
}

// jsonChunk is how much of a string is escaped at a time.
const jsonChunk = 4 << 10

// jsonString writes s as a JSON string, escaped as encoding/json does,
// a piece at a time.
func (w *valueBuilder) jsonString(s string) error {
	w.WriteString(`"`)
	for len(s) > 0 {
		n := min(len(s), jsonChunk)
		for n < len(s) && n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		if n == 0 {
			n = min(len(s), jsonChunk)
		}
		b, _ := json.Marshal(s[:n])
		if err := w.WriteString(string(b[1 : len(b)-1])); err != nil {
			return err
		}
		s = s[n:]
	}
	return w.WriteString(`"`)
}

// format calls emit with the pieces of f, {N} replaced by args[N]; {{ and
// }} are braces. Its errors quote f cut (clip), and say where in f, never
// what, so that they show no more of a secret than the cut.
func format(f string, args []string, emit func(string), clip func(string) string) error {
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case c == '{' && i+1 < len(f) && f[i+1] == '{':
			emit("{")
			i++
		case c == '}' && i+1 < len(f) && f[i+1] == '}':
			emit("}")
			i++
		case c == '{':
			j := strings.IndexByte(f[i:], '}')
			if j < 0 {
				return fmt.Errorf("%q: the { at byte %d is not closed (write {{ for a brace)", clip(f), i+1)
			}
			n, err := strconv.Atoi(f[i+1 : i+j])
			if err != nil || n < 0 {
				return fmt.Errorf("%q: what the braces at byte %d hold is not an argument's index", clip(f), i+1)
			}
			if n >= len(args) {
				return fmt.Errorf("%q: the index at byte %d names no argument; %d given", clip(f), i+2, len(args))
			}
			emit(args[n])
			i += j
		case c == '}':
			return fmt.Errorf("%q: the } at byte %d closes nothing (write }} for a brace)", clip(f), i+1)
		default:
			// the run of plain bytes up to the next brace
			j := i + 1
			for j < len(f) && f[j] != '{' && f[j] != '}' {
				j++
			}
			emit(f[i:j])
			i = j - 1
		}
	}
	return nil
}

// Truthy is a value as a condition: false, 0, -0, NaN, the empty string and null are
// false, anything else true.
func Truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0 && !math.IsNaN(v)
	case string:
		return v != ""
	}
	return true
}

// kind names a value's type for comparisons.
func kind(v any) byte {
	switch v.(type) {
	case nil:
		return 'z'
	case bool:
		return 'b'
	case float64:
		return 'n'
	case string:
		return 's'
	case []any, filtered:
		return 'a'
	}
	return 'o'
}

// toNumber converts v for a comparison of different types: null 0, false
// 0, true 1, a string as a JSON number (empty or white space 0, else NaN),
// an array or object NaN.
func toNumber(v any) float64 {
	switch v := v.(type) {
	case nil:
		return 0
	case bool:
		if v {
			return 1
		}
		return 0
	case float64:
		return v
	case string:
		s := strings.TrimSpace(v)
		if s == "" {
			return 0
		}
		if m := numberRE.FindString(s); m == s {
			return parseNumber(s)
		}
		switch s {
		case "Infinity", "+Infinity":
			return math.Inf(1)
		case "-Infinity":
			return math.Inf(-1)
		}
	}
	return math.NaN()
}

// parseNumber parses a number as the lexer matched it: decimal,
// exponent, 0x hexadecimal or 0o octal, with an optional -.
func parseNumber(s string) float64 {
	neg := strings.HasPrefix(s, "-")
	t := strings.TrimPrefix(s, "-")
	var f float64
	if len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X' || t[1] == 'o' || t[1] == 'O') {
		base := 16
		if t[1] == 'o' || t[1] == 'O' {
			base = 8
		}
		u, err := strconv.ParseUint(t[2:], base, 64)
		if err != nil {
			return math.NaN()
		}
		f = float64(u)
	} else {
		var err error
		f, err = strconv.ParseFloat(t, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return math.NaN()
		}
	}
	if neg {
		return -f
	}
	return f
}

// toString converts v for the string functions: null the empty string, booleans and
// numbers as written, arrays 'Array' and objects 'Object'.
func toString(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return FormatNumber(v)
	case string:
		return v
	case []any, filtered:
		return "Array"
	}
	return "Object"
}

// FormatNumber prints v as the runner does, with .NET's G15 format: at
// most 15 significant digits, no trailing zeros, and scientific notation
// (1E+15, 1.5E-05: a sign and at least two exponent digits) when the
// decimal exponent is 15 or more or below -4; NaN, Infinity and -Infinity
// by name, and negative zero as -0.
func FormatNumber(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0:
		if math.Signbit(v) {
			return "-0"
		}
		return "0"
	}
	// d.dddddddddddddde±X: the 15 digits, correctly rounded
	e := strconv.FormatFloat(v, 'e', 14, 64)
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	digits := strings.TrimRight(mant[:1]+mant[2:], "0")
	if exp >= 15 || exp < -4 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if exp < 0 {
			es, exp = "-", -exp
		}
		return fmt.Sprintf("%s%sE%s%02d", sign, m, es, exp)
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	if len(digits) <= exp+1 {
		return sign + digits + strings.Repeat("0", exp+1-len(digits))
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:]
}

// equal is ==: values of one type compare as themselves (strings
// case-blind, arrays and objects by identity), of different types as
// numbers; NaN equals nothing.
func equal(a, b any) bool {
	ka, kb := kind(a), kind(b)
	if ka != kb {
		return toNumber(a) == toNumber(b)
	}
	switch ka {
	case 'z':
		return true
	case 'b':
		return a.(bool) == b.(bool)
	case 'n':
		return a.(float64) == b.(float64)
	case 's':
		return strings.EqualFold(a.(string), b.(string))
	}
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	return ra.UnsafePointer() == rb.UnsafePointer() && ra.Len() == rb.Len()
}

// compare evaluates a comparison operator.
func compare(op string, a, b any) bool {
	switch op {
	case "==":
		return equal(a, b)
	case "!=":
		return !equal(a, b)
	}
	var c int
	ka, kb := kind(a), kind(b)
	switch {
	case ka == 's' && kb == 's':
		c = strings.Compare(strings.ToUpper(a.(string)), strings.ToUpper(b.(string)))
	case ka == kb && (ka == 'a' || ka == 'o'):
		return false
	default:
		x, y := toNumber(a), toNumber(b)
		if math.IsNaN(x) || math.IsNaN(y) {
			return false
		}
		switch {
		case x < y:
			c = -1
		case x > y:
			c = 1
		}
	}
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// Value converts a Go value (a step's outputs, decoded JSON) into an
// expression's: json.Number and other numbers to float64, maps and
// slices item by item.
func Value(v any) any {
	switch v := v.(type) {
	case nil, bool, string, float64:
		return v
	case json.Number:
		f, err := strconv.ParseFloat(v.String(), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return v.String()
		}
		return f
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case float32:
		return float64(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = Value(x)
		}
		return out
	case []any:
		// at least one item's room: two empty arrays are two instances
		out := make([]any, len(v), max(len(v), 1))
		for i, x := range v {
			out[i] = Value(x)
		}
		return out
	case []string:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = x
		}
		return out
	case json.RawMessage:
		var x any
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		if d.Decode(&x) == nil {
			return Value(x)
		}
		return string(v)
	}
	// anything else: through JSON, as the report would show it
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return Value(json.RawMessage(b))
}

// Pos is "LINE:COL" of offset off in src, 1-based.
func Pos(src string, off int) string {
	off = min(off, len(src))
	line := 1 + strings.Count(src[:off], "\n")
	col := off - strings.LastIndexByte(src[:off], '\n')
	return fmt.Sprintf("%d:%d", line, col)
}
