// Package teamrules is the team rules: a list of rules a team writes for
// the tools no recogniser knows, loaded from a file or a job file and
// matched, within bounds, before the built-in recognisers (failure.Team).
package teamrules

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/userfile"
)

// Team rules: a list of rules a team writes for the tools no recogniser
// knows (--rules FILE, a job file's defaults.rules, the action's rules
// input). The first rule that matches a failure decides it, before the
// built-in recognisers.

// The bounds of a rules file: its size, its number of rules, the length of
// a rule's regular expression and of its reason and remedy, the size of a
// rule's compiled program and of all its rules' programs.
const (
	MaxRulesFileSize = 64 << 10
	MaxTeamRules     = 200
	MaxRuleRegexLen  = 1000
	MaxRuleTextLen   = 1000
	// MaxRuleProgram is the most instructions a rule's match: may compile
	// to (regexp/syntax's program of the simplified expression). A rule of
	// 1,000 characters of words, classes and alternatives compiles to about
	// 1,000; the built-in recognisers' largest is 603. Only counted
	// repetitions ({n}, {n,m}) of a broad class or group go past it: they
	// are what makes matching slow, since Go's regexp runs in time
	// proportional to the program's size times the text's.
	MaxRuleProgram = 2000
	// MaxRulesProgram is the most instructions all the rules of one file
	// (or one job file's defaults.rules) may compile to: 200 realistic
	// rules compile to about 9,500. With the 64 KiB of text a failure is
	// classified from, it bounds the work of matching the rules to
	// MaxRulesProgram × 64 Ki steps of regexp's machine.
	MaxRulesProgram = 20000
	// MaxRulesMatchTime is how long matching the team rules against one
	// failure may take. Realistic rules take milliseconds; rules at the
	// bounds above may take seconds on a slow machine, so matching stops
	// at this budget and the failure is unknown, rule-match-too-slow.
	MaxRulesMatchTime = time.Second
)

// rulesMatchBudget is MaxRulesMatchTime; tests lengthen it.
var rulesMatchBudget = MaxRulesMatchTime

// errRulesBudget is the cause of the context of matching that ran out of
// its budget.
var errRulesBudget = errors.New("the team rules' matching budget is spent")

// Rule is one rule: a regular expression matched against each line of
// the failure's text, optionally gated by the tool (or the command's name),
// the exit status and the HTTP status, and the verdict it gives.
type Rule struct {
	// Match is matched against one line at a time; nil means any text.
	Match *regexp.Regexp
	// Tool is the tool or command name the rule is for; "" means any.
	Tool string
	// ExitCode is the exit status the rule is for; NoExitCode means any.
	ExitCode int
	// Status is the HTTP status the rule is for; 0 means any.
	Status int
	// Class, Code, Reason and Remedy are the verdict.
	Class          failure.Class
	Code           failure.Code
	Reason, Remedy string
	// Source is where the rule is written: "FILE:LINE".
	Source string

	// insts is the size of Match's compiled program (MaxRuleProgram).
	insts int
	// lit is a literal every match of Match contains, or "": a text
	// without it is not matched line by line. With litFold, it is looked
	// for in the text with its ASCII letters lower-cased.
	lit     string
	litFold bool
	// line and col are the position of match: in the file.
	line, col int
}

// Rules are a team's rules in order; the first that matches decides.
// A nil *Rules has no rules.
type Rules struct {
	Rules []Rule
}

// Len is the number of rules.
func (t *Rules) Len() int {
	if t == nil {
		return 0
	}
	return len(t.Rules)
}

// Concat returns the rules of t followed by those of u.
func (t *Rules) Concat(u *Rules) *Rules {
	switch {
	case t.Len() == 0:
		return u
	case u.Len() == 0:
		return t
	}
	return &Rules{Rules: append(append([]Rule(nil), t.Rules...), u.Rules...)}
}

// Decide returns the verdict of the first rule that matches in (its tool,
// command, text, exit status and HTTP status), or nil. The
// rules are matched on a goroutine of their own, which checks ctx and the
// budget between rules and every few KiB of text: Decide returns as soon
// as ctx ends (nil: the caller learns why from ctx) or the budget is spent
// (the rule-match-too-slow verdict), even while one expression is still
// running over one long line; that goroutine then stops at its next check.
func (t *Rules) Decide(ctx context.Context, in failure.TeamInput) *failure.Failure {
	if t.Len() == 0 {
		return nil
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Err() != nil {
		return nil
	}
	budget := rulesMatchBudget
	mctx, cancel := context.WithTimeoutCause(ctx, budget, errRulesBudget)
	defer cancel()
	type result struct {
		f        *failure.Failure
		complete bool
	}
	var at atomic.Int64
	done := make(chan result, 1)
	go func() {
		f, complete := t.match(mctx, in, &at)
		done <- result{f, complete}
	}()
	select {
	case r := <-done:
		if r.complete {
			return r.f
		}
	case <-mctx.Done():
	}
	if ctx.Err() != nil || !errors.Is(context.Cause(mctx), errRulesBudget) {
		return nil
	}
	r := &t.Rules[at.Load()]
	return failure.New(failure.Unknown, failure.CodeRuleMatchTooSlow,
		fmt.Sprintf("matching the team rules took over %s, the bound of one failure's classification: it stopped at the rule at %s, and the rules from there on were not tried", budget, r.Source),
		fmt.Sprintf("make the rules cheaper: counted repetitions ({n}, {n,m}) of broad classes such as \\pL or . cost the most; a rule may compile to %d instructions and a file to %d", MaxRuleProgram, MaxRulesProgram))
}

// textCheckEvery is how much text is matched between two checks of the
// context: a few KiB of lines, a moment even for the costliest rule.
const textCheckEvery = 4 << 10

// match is Decide's loop: it returns the verdict of the first rule that
// matches, or nil when none does; complete is false when ctx ended first.
// at is the index of the rule being matched.
func (t *Rules) match(ctx context.Context, in failure.TeamInput, at *atomic.Int64) (f *failure.Failure, complete bool) {
	status, statusRead := in.Status, in.Status != 0
	cmd := filepath.Base(in.Command)
	lower := sync.OnceValue(func() string { return asciiLower(in.Text) })
	for i := range t.Rules {
		if ctx.Err() != nil {
			return nil, false
		}
		at.Store(int64(i))
		r := &t.Rules[i]
		if r.Tool != "" && !strings.EqualFold(r.Tool, string(in.Tool)) && !strings.EqualFold(r.Tool, cmd) {
			continue
		}
		if r.ExitCode != failure.NoExitCode && r.ExitCode != in.ExitCode {
			continue
		}
		if r.Status != 0 {
			if !statusRead {
				statusRead = true
				if in.StatusOf != nil {
					status = in.StatusOf()
				}
			}
			if r.Status != status {
				continue
			}
		}
		var evidence []string
		if r.Match != nil {
			line, ok := r.matchLine(ctx, in.Text, lower)
			if ctx.Err() != nil {
				return nil, false
			}
			if !ok {
				continue
			}
			evidence = append(evidence, line)
		}
		if r.ExitCode != failure.NoExitCode {
			evidence = append(evidence, failure.ExitEvidence(r.ExitCode))
		}
		if r.Status != 0 {
			evidence = append(evidence, "HTTP "+strconv.Itoa(r.Status))
		}
		reason := r.Reason
		if reason == "" {
			reason = "matched the rule at " + r.Source
		}
		f := failure.New(r.Class, r.Code, reason, r.Remedy, evidence...)
		f.Rule = r.Source
		return f, true
	}
	return nil, true
}

// matchLine matches r.Match against each line of text (split at \r and \n,
// as matchLine does) and returns the evidence of the first line it
// matches. It checks ctx every textCheckEvery bytes and returns false once
// ctx has ended. A text without r.lit (lower is the text with its ASCII
// letters lower-cased) is not matched line by line, and an empty line is
// matched once for all.
func (r *Rule) matchLine(ctx context.Context, text string, lower func() string) (string, bool) {
	switch {
	case r.lit == "":
	case !r.litFold && !strings.Contains(text, r.lit), r.litFold && !strings.Contains(lower(), r.lit):
		return "", false
	}
	empty := r.Match.MatchString("")
	n := 0
	for rest := text; rest != ""; {
		i := strings.IndexAny(rest, "\r\n")
		l := rest
		if i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if n += len(l) + 1; n >= textCheckEvery {
			if ctx.Err() != nil {
				return "", false
			}
			n = 0
		}
		if l == "" {
			if empty {
				return failure.EvidenceAt(l, 0), true
			}
			continue
		}
		if loc := r.Match.FindStringIndex(l); loc != nil {
			return failure.EvidenceAt(l, loc[0]), true
		}
	}
	return "", false
}

// Error is one invalid rule, at its position in the file.
type Error struct {
	// File is the file's name as given.
	File string
	// Line and Col are 1-based; 0 when the file as a whole is at fault.
	Line, Col int
	// Msg says what is wrong; Fix how to fix it (may be empty).
	Msg, Fix string
}

func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d:%d", e.Line, e.Col)
	}
	s += ": " + e.Msg
	if e.Fix != "" {
		s += " (" + e.Fix + ")"
	}
	return s
}

// Load reads and validates the rules file at path; its errors
// are *Error values, joined. ctx abandons the read (a FIFO no one
// writes, userfile.ReadFile): the error then wraps ctx's cause.
func Load(ctx context.Context, path string) (*Rules, error) {
	buf, err := userfile.ReadFile(ctx, path, MaxRulesFileSize)
	n := len(buf)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot read the rules file: " + strings.TrimPrefix(strings.TrimPrefix(err.Error(), "open "+path+": "), path+": ")}
	}
	if n > MaxRulesFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("the rules file is over %d KiB", MaxRulesFileSize>>10), Fix: "keep rules files short: one rule per kind of failure"}
	}
	return Parse(path, buf[:n])
}

// Parse parses src, a YAML list of rules, named name in errors.
func Parse(name string, src []byte) (rs *Rules, err error) {
	if len(src) > MaxRulesFileSize {
		return nil, &Error{File: name, Msg: fmt.Sprintf("the rules file is over %d KiB", MaxRulesFileSize>>10)}
	}
	defer func() {
		// the parser is another project's: a panic is a syntax error
		if r := recover(); r != nil {
			rs, err = nil, &Error{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("YAML: the parser failed: %v", r)}
		}
	}()
	f, perr := parser.ParseBytes(src, 0)
	if perr != nil {
		e := &Error{File: name, Line: 1, Col: 1, Msg: "YAML: " + perr.Error(), Fix: "fix the YAML syntax"}
		var ye interface {
			GetMessage() string
		}
		if errors.As(perr, &ye) {
			e.Msg = "YAML: " + ye.GetMessage()
		}
		if l, c, ok := yamlErrPos(perr); ok {
			e.Line, e.Col = l, c
		}
		return nil, e
	}
	var body ast.Node
	for _, d := range f.Docs {
		if d.Body != nil {
			if body != nil {
				return nil, &Error{File: name, Line: 1, Col: 1, Msg: "more than one YAML document", Fix: "write one list of rules"}
			}
			body = d.Body
		}
	}
	if body == nil {
		return &Rules{}, nil
	}
	return FromNode(name, body)
}

// yamlErrPos is the position of a goccy/go-yaml error's token.
func yamlErrPos(err error) (line, col int, ok bool) {
	var te interface{ GetToken() *token.Token }
	if !errors.As(err, &te) {
		return 0, 0, false
	}
	tk := te.GetToken()
	if tk == nil || tk.Position == nil {
		return 0, 0, false
	}
	return tk.Position.Line, tk.Position.Column, true
}

// FromNode reads a YAML list of rules already parsed (a job
// file's defaults.rules); name is the file in errors, and positions are
// the nodes' own.
func FromNode(name string, n ast.Node) (*Rules, error) {
	n = unwrapNode(n)
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		if _, null := n.(*ast.NullNode); null {
			return &Rules{}, nil
		}
		l, c := nodeLineCol(n)
		return nil, &Error{File: name, Line: l, Col: c, Msg: "want a list of rules", Fix: "write - match: REGEX, class: CLASS, code: CODE items"}
	}
	if len(seq.Values) > MaxTeamRules {
		l, c := nodeLineCol(seq.Values[MaxTeamRules])
		return nil, &Error{File: name, Line: l, Col: c, Msg: fmt.Sprintf("more than %d rules", MaxTeamRules), Fix: "merge rules: one regular expression may have alternatives (a|b)"}
	}
	var errs []error
	out := &Rules{}
	codes := map[failure.Code]string{}
	insts := 0
	for _, item := range seq.Values {
		r, rerrs := readTeamRule(name, unwrapNode(item))
		if insts <= MaxRulesProgram {
			if insts += r.insts; insts > MaxRulesProgram {
				rerrs = append(rerrs, &Error{File: name, Line: r.line, Col: r.col, Msg: fmt.Sprintf("the rules compile to %d instructions in all, over %d", insts, MaxRulesProgram), Fix: "fewer or simpler rules: merge alternatives, shorten counted repetitions"})
			}
		}
		if len(rerrs) > 0 {
			errs = append(errs, rerrs...)
			continue
		}
		if prev, dup := codes[r.Code]; dup && rulesDiffer(out, r, prev) {
			l, c := nodeLineCol(item)
			errs = append(errs, &Error{File: name, Line: l, Col: c, Msg: fmt.Sprintf("code %s is also the code of the rule at %s with another class", r.Code, prev), Fix: "give each kind of failure its own code"})
			continue
		}
		codes[r.Code] = r.Source
		out.Rules = append(out.Rules, r)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// rulesDiffer reports whether r's class differs from that of the rule at src.
func rulesDiffer(rs *Rules, r Rule, src string) bool {
	for _, p := range rs.Rules {
		if p.Source == src {
			return p.Class != r.Class
		}
	}
	return false
}

var teamRuleKeys = []string{"match", "tool", "exit-code", "status", "class", "code", "reason", "remedy"}

// readTeamRule reads one rule's mapping.
func readTeamRule(name string, n ast.Node) (Rule, []error) {
	l, c := nodeLineCol(n)
	r := Rule{ExitCode: failure.NoExitCode, Source: fmt.Sprintf("%s:%d", name, l)}
	at := func(n ast.Node, fix, format string, args ...any) error {
		l, c := nodeLineCol(n)
		return &Error{File: name, Line: l, Col: c, Msg: fmt.Sprintf(format, args...), Fix: fix}
	}
	m, ok := mappingValues(n)
	if !ok {
		return r, []error{&Error{File: name, Line: l, Col: c, Msg: "a rule is a mapping", Fix: "write match:, class:, code:, reason: and remedy: keys"}}
	}
	var errs []error
	seen := map[string]bool{}
	for _, kv := range m {
		key := kv.Key.GetToken().Value
		if seen[key] {
			errs = append(errs, at(kv.Key, "write each key once", "%s is given twice", key))
			continue
		}
		seen[key] = true
		v := unwrapNode(kv.Value)
		text, isScalar := scalarText(v)
		if !isScalar {
			errs = append(errs, at(v, "", "%s: want a single value", key))
			continue
		}
		switch key {
		case "match":
			switch {
			case text == "":
				errs = append(errs, at(v, "write a regular expression, or leave match: out", "match is empty"))
			case len(text) > MaxRuleRegexLen:
				errs = append(errs, at(v, "split it into several rules", "match is %d characters, over %d", len(text), MaxRuleRegexLen))
			default:
				r.line, r.col = nodeLineCol(v)
				re, insts, lit, litFold, err := compileRule(text)
				var big *programError
				switch {
				case errors.As(err, &big):
					errs = append(errs, at(v, "shorten its counted repetitions ({n}, {n,m}): each copy of the repeated part counts; or split it into several rules", "%s", big.msg))
				case err != nil:
					msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
					errs = append(errs, at(v, "write an RE2 regular expression (Go's regexp syntax)", "match %q is not a valid regular expression: %s", text, msg))
				default:
					r.Match, r.insts, r.lit, r.litFold = re, insts, lit, litFold
				}
			}
		case "tool":
			r.Tool = strings.TrimSpace(text)
		case "exit-code":
			x, err := strconv.Atoi(strings.TrimSpace(text))
			if err != nil || x < 0 || x > 255 {
				errs = append(errs, at(v, "write an exit status from 0 to 255", "exit-code %q is not an exit status", text))
			} else {
				r.ExitCode = x
			}
		case "status":
			x, err := strconv.Atoi(strings.TrimSpace(text))
			if err != nil || x < 100 || x > 999 {
				errs = append(errs, at(v, "write an HTTP status such as 503", "status %q is not an HTTP status", text))
			} else {
				r.Status = x
			}
		case "class":
			cl, err := failure.ParseClass(strings.TrimSpace(text))
			if err != nil {
				errs = append(errs, at(v, "write transient, policy, structural, absent or unknown", "class %q is not a failure class", text))
			} else {
				r.Class = cl
			}
		case "code":
			code := strings.TrimSpace(text)
			if msg, fix := checkTeamCode(code); msg != "" {
				errs = append(errs, at(v, fix, "code %q %s", code, msg))
			} else {
				r.Code = failure.Code(code)
			}
		case "reason", "remedy":
			if len(text) > MaxRuleTextLen {
				errs = append(errs, at(v, "say it in one or two lines", "%s is %d characters, over %d", key, len(text), MaxRuleTextLen))
			} else if key == "reason" {
				r.Reason = strings.TrimSpace(text)
			} else {
				r.Remedy = strings.TrimSpace(text)
			}
		default:
			errs = append(errs, at(kv.Key, "the keys are "+strings.Join(teamRuleKeys, ", "), "unknown key %s", key))
		}
	}
	for _, k := range []string{"class", "code"} {
		if !seen[k] {
			errs = append(errs, &Error{File: name, Line: l, Col: c, Msg: "the rule has no " + k, Fix: "every rule names its class and code"})
		}
	}
	if !seen["match"] && !seen["exit-code"] && !seen["status"] {
		errs = append(errs, &Error{File: name, Line: l, Col: c, Msg: "the rule matches everything", Fix: "give it a match:, an exit-code: or a status:"})
	}
	return r, errs
}

// programError is a match: whose program is over MaxRuleProgram.
type programError struct{ msg string }

func (e *programError) Error() string { return e.msg }

// compileRule compiles a rule's match: and returns the size of its
// program and a literal every match contains ("" when none is known). The
// size is estimated on the parsed expression first, so that one far over
// MaxRuleProgram is refused without being compiled (half a million
// instructions and 20 MB for `(?:…){1000}`); within 16 times the bound it
// is compiled and counted exactly.
func compileRule(text string) (re *regexp.Regexp, insts int, lit string, litFold bool, err error) {
	sre, err := syntax.Parse(text, syntax.Perl)
	if err != nil {
		return nil, 0, "", false, err
	}
	if est := progEstimate(sre); est > 16*MaxRuleProgram {
		return nil, 0, "", false, &programError{fmt.Sprintf("match compiles to about %d instructions, over %d", est, MaxRuleProgram)}
	}
	prog, err := syntax.Compile(sre.Simplify())
	if err != nil {
		return nil, 0, "", false, err
	}
	if n := len(prog.Inst); n > MaxRuleProgram {
		return nil, 0, "", false, &programError{fmt.Sprintf("match compiles to %d instructions, over %d", n, MaxRuleProgram)}
	}
	if re, err = regexp.Compile(text); err != nil {
		return nil, 0, "", false, err
	}
	lit, litFold = requiredLiteral(sre)
	return re, len(prog.Inst), lit, litFold, nil
}

// progEstimate is an upper bound of the size of the program syntax.Compile
// makes of re simplified (counted repetitions copied out), saturated far
// above any bound.
func progEstimate(re *syntax.Regexp) int {
	return 2 + progSize(re) // InstFail and InstMatch
}

func progSize(re *syntax.Regexp) int {
	const most = 1 << 40
	add := func(a, b int) int { return min(a+b, most) }
	mul := func(a, b int) int {
		if a != 0 && b > most/a {
			return most
		}
		return a * b
	}
	switch re.Op {
	case syntax.OpLiteral:
		return max(len(re.Rune), 1)
	case syntax.OpCapture:
		return add(2, progSize(re.Sub[0]))
	case syntax.OpStar, syntax.OpPlus:
		// x* of an x that may match empty compiles to (x+)?
		return add(2, progSize(re.Sub[0]))
	case syntax.OpQuest:
		return add(1, progSize(re.Sub[0]))
	case syntax.OpRepeat:
		sub := progSize(re.Sub[0])
		n := mul(max(re.Min, 1), sub)
		if re.Max == -1 {
			return add(n, add(sub, 2))
		}
		return add(n, add(mul(re.Max-re.Min, add(sub, 1)), 1))
	case syntax.OpConcat, syntax.OpAlternate:
		n := len(re.Sub)
		for _, s := range re.Sub {
			n = add(n, progSize(s))
		}
		return n
	}
	return 1
}

// requiredLiteral is a literal that every match of re contains: the
// longest such literal of its top-level sequence; "" when none is known.
// fold is true when it is to be found in the text with its ASCII letters
// lower-cased: a (?i) literal of ASCII only, cut at its k and s (which
// also match the Kelvin sign and the long s).
func requiredLiteral(re *syntax.Regexp) (lit string, fold bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if re.Flags&syntax.FoldCase == 0 {
			// An invalid byte of the text is matched as U+FFFD, which the
			// text does not contain as such.
			if strings.ContainsRune(s, utf8.RuneError) {
				return "", false
			}
			return s, false
		}
		for _, r := range s {
			if r >= utf8.RuneSelf {
				return "", false
			}
		}
		best := ""
		for _, part := range strings.FieldsFunc(asciiLower(s), func(r rune) bool { return r == 'k' || r == 's' }) {
			if len(part) > len(best) {
				best = part
			}
		}
		return best, best != ""
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if l, f := requiredLiteral(s); len(l) > len(lit) {
				lit, fold = l, f
			}
		}
		return lit, fold
	}
	return "", false
}

// asciiLower is s with its ASCII letters lower-cased, and nothing else
// changed (its length is s's).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

var kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// builtinCodePattern are the families of built-in codes: http-NNN, curl-N.
var builtinCodePattern = regexp.MustCompile(`^(http-[0-9]{3}|curl-[0-9]+)$`)

// checkTeamCode says what is wrong with a team rule's code, or "".
func checkTeamCode(code string) (msg, fix string) {
	switch {
	case code == "":
		return "is empty", "name the kind of failure in kebab-case, such as deployctl-lock-held"
	case len(code) > 64:
		return "is over 64 characters", "use a short kebab-case name"
	case !kebab.MatchString(code):
		return "is not kebab-case", "use lower-case words joined by hyphens, such as deployctl-lock-held"
	case failure.IsBuiltinCode(failure.Code(code)) || builtinCodePattern.MatchString(code) || strings.HasPrefix(code, "rule-"):
		return "is a built-in code", "prefix it with your tool's name, such as deployctl-" + code
	}
	return "", ""
}

func unwrapNode(n ast.Node) ast.Node {
	for range 16 {
		switch v := n.(type) {
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		default:
			return n
		}
	}
	return n
}

func mappingValues(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch v := n.(type) {
	case *ast.MappingNode:
		return v.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, true
	}
	return nil, false
}

// scalarText is a scalar's text as written (a string's value).
func scalarText(n ast.Node) (string, bool) {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		return v.Value.Value, true
	case *ast.NullNode:
		return "", true
	case ast.ScalarNode:
		return v.GetToken().Value, true
	}
	return "", false
}

func nodeLineCol(n ast.Node) (int, int) {
	if mv, ok := n.(*ast.MappingNode); ok && !mv.IsFlowStyle && len(mv.Values) > 0 {
		return nodeLineCol(mv.Values[0])
	}
	if mv, ok := n.(*ast.MappingValueNode); ok {
		return nodeLineCol(mv.Key)
	}
	if n == nil || n.GetToken() == nil || n.GetToken().Position == nil {
		return 1, 1
	}
	p := n.GetToken().Position
	return p.Line, p.Column
}
