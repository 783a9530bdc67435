package failure

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
	"github.com/retrywise/retrywise/internal/userfile"
)

// Team rules: a list of rules a team writes for the tools no recogniser
// knows (--rules FILE, a job file's defaults.rules, the action's rules
// input). The first rule that matches a failure decides it, before the
// built-in recognisers.

// The bounds of a rules file: its size, its number of rules, the length of
// a rule's regular expression and of its reason and remedy.
const (
	MaxRulesFileSize = 64 << 10
	MaxTeamRules     = 200
	MaxRuleRegexLen  = 1000
	MaxRuleTextLen   = 1000
)

// TeamRule is one rule: a regular expression matched against each line of
// the failure's text, optionally gated by the tool (or the command's name),
// the exit status and the HTTP status, and the verdict it gives.
type TeamRule struct {
	// Match is matched against one line at a time; nil means any text.
	Match *regexp.Regexp
	// Tool is the tool or command name the rule is for; "" means any.
	Tool string
	// ExitCode is the exit status the rule is for; NoExitCode means any.
	ExitCode int
	// Status is the HTTP status the rule is for; 0 means any.
	Status int
	// Class, Code, Reason and Remedy are the verdict.
	Class          Class
	Code           Code
	Reason, Remedy string
	// Source is where the rule is written: "FILE:LINE".
	Source string
}

// TeamRules are a team's rules in order; the first that matches decides.
// A nil *TeamRules has no rules.
type TeamRules struct {
	Rules []TeamRule
}

// Len is the number of rules.
func (t *TeamRules) Len() int {
	if t == nil {
		return 0
	}
	return len(t.Rules)
}

// Concat returns the rules of t followed by those of u.
func (t *TeamRules) Concat(u *TeamRules) *TeamRules {
	switch {
	case t.Len() == 0:
		return u
	case u.Len() == 0:
		return t
	}
	return &TeamRules{Rules: append(append([]TeamRule(nil), t.Rules...), u.Rules...)}
}

// teamInput is what a team rule is matched against.
type teamInput struct {
	tool     Tool
	command  string
	text     string
	exitCode int
	status   int
	// statusOf reads an HTTP status from the text when none is given (the
	// generic layer's reading); nil when not needed.
	statusOf func() int
}

// Decide returns the verdict of the first rule that matches in (its tool,
// command, text, exit status and HTTP status), or nil when none does.
func (t *TeamRules) Decide(in Input) *Failure {
	if t.Len() == 0 {
		return nil
	}
	ro := newRunOpts(in.Env, in.MaxElapsed)
	return t.decide(teamInput{tool: in.Tool, command: in.Command, text: in.Text, exitCode: in.ExitCode, status: in.Status, statusOf: func() int {
		return statusRead(classifyTextRun(in.Tool, in.Text, in.ExitCode, in.Method, ro))
	}})
}

// decide returns the verdict of the first rule that matches, or nil.
func (t *TeamRules) decide(in teamInput) *Failure {
	if t.Len() == 0 {
		return nil
	}
	status, statusRead := in.status, in.status != 0
	cmd := filepath.Base(in.command)
	for i := range t.Rules {
		r := &t.Rules[i]
		if r.Tool != "" && !strings.EqualFold(r.Tool, string(in.tool)) && !strings.EqualFold(r.Tool, cmd) {
			continue
		}
		if r.ExitCode != NoExitCode && r.ExitCode != in.exitCode {
			continue
		}
		if r.Status != 0 {
			if !statusRead {
				statusRead = true
				if in.statusOf != nil {
					status = in.statusOf()
				}
			}
			if r.Status != status {
				continue
			}
		}
		var evidence []string
		if r.Match != nil {
			line, _, ok := matchLine(in.text, []*regexp.Regexp{r.Match})
			if !ok {
				continue
			}
			evidence = append(evidence, line)
		}
		if r.ExitCode != NoExitCode {
			evidence = append(evidence, exitEvidence(r.ExitCode))
		}
		if r.Status != 0 {
			evidence = append(evidence, "HTTP "+strconv.Itoa(r.Status))
		}
		reason := r.Reason
		if reason == "" {
			reason = "matched the rule at " + r.Source
		}
		f := New(r.Class, r.Code, reason, r.Remedy, evidence...)
		f.Rule = r.Source
		return f
	}
	return nil
}

// statusRead is the HTTP status a built-in classification read from a
// tool's text: its trace's, or its http-NNN code's.
func statusRead(f *Failure) int {
	if f.Trace.Status != 0 {
		return f.Trace.Status
	}
	return f.Code.HTTPStatus()
}

// RuleError is one invalid rule, at its position in the file.
type RuleError struct {
	// File is the file's name as given.
	File string
	// Line and Col are 1-based; 0 when the file as a whole is at fault.
	Line, Col int
	// Msg says what is wrong; Fix how to fix it (may be empty).
	Msg, Fix string
}

func (e *RuleError) Error() string {
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

// LoadTeamRules reads and validates the rules file at path; its errors
// are *RuleError values, joined. ctx abandons the read (a FIFO no one
// writes, userfile.ReadFile): the error then wraps ctx's cause.
func LoadTeamRules(ctx context.Context, path string) (*TeamRules, error) {
	buf, err := userfile.ReadFile(ctx, path, MaxRulesFileSize)
	n := len(buf)
	if err != nil {
		return nil, &RuleError{File: path, Msg: "cannot read the rules file: " + strings.TrimPrefix(strings.TrimPrefix(err.Error(), "open "+path+": "), path+": ")}
	}
	if n > MaxRulesFileSize {
		return nil, &RuleError{File: path, Msg: fmt.Sprintf("the rules file is over %d KiB", MaxRulesFileSize>>10), Fix: "keep rules files short: one rule per kind of failure"}
	}
	return ParseTeamRules(path, buf[:n])
}

// ParseTeamRules parses src, a YAML list of rules, named name in errors.
func ParseTeamRules(name string, src []byte) (rs *TeamRules, err error) {
	if len(src) > MaxRulesFileSize {
		return nil, &RuleError{File: name, Msg: fmt.Sprintf("the rules file is over %d KiB", MaxRulesFileSize>>10)}
	}
	defer func() {
		// the parser is another project's: a panic is a syntax error
		if r := recover(); r != nil {
			rs, err = nil, &RuleError{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("YAML: the parser failed: %v", r)}
		}
	}()
	f, perr := parser.ParseBytes(src, 0)
	if perr != nil {
		e := &RuleError{File: name, Line: 1, Col: 1, Msg: "YAML: " + perr.Error(), Fix: "fix the YAML syntax"}
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
				return nil, &RuleError{File: name, Line: 1, Col: 1, Msg: "more than one YAML document", Fix: "write one list of rules"}
			}
			body = d.Body
		}
	}
	if body == nil {
		return &TeamRules{}, nil
	}
	return TeamRulesFromNode(name, body)
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

// TeamRulesFromNode reads a YAML list of rules already parsed (a job
// file's defaults.rules); name is the file in errors, and positions are
// the nodes' own.
func TeamRulesFromNode(name string, n ast.Node) (*TeamRules, error) {
	n = unwrapNode(n)
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		if _, null := n.(*ast.NullNode); null {
			return &TeamRules{}, nil
		}
		l, c := nodeLineCol(n)
		return nil, &RuleError{File: name, Line: l, Col: c, Msg: "want a list of rules", Fix: "write - match: REGEX, class: CLASS, code: CODE items"}
	}
	if len(seq.Values) > MaxTeamRules {
		l, c := nodeLineCol(seq.Values[MaxTeamRules])
		return nil, &RuleError{File: name, Line: l, Col: c, Msg: fmt.Sprintf("more than %d rules", MaxTeamRules), Fix: "merge rules: one regular expression may have alternatives (a|b)"}
	}
	var errs []error
	out := &TeamRules{}
	codes := map[Code]string{}
	for _, item := range seq.Values {
		r, rerrs := readTeamRule(name, unwrapNode(item))
		if len(rerrs) > 0 {
			errs = append(errs, rerrs...)
			continue
		}
		if prev, dup := codes[r.Code]; dup && rulesDiffer(out, r, prev) {
			l, c := nodeLineCol(item)
			errs = append(errs, &RuleError{File: name, Line: l, Col: c, Msg: fmt.Sprintf("code %s is also the code of the rule at %s with another class", r.Code, prev), Fix: "give each kind of failure its own code"})
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
func rulesDiffer(rs *TeamRules, r TeamRule, src string) bool {
	for _, p := range rs.Rules {
		if p.Source == src {
			return p.Class != r.Class
		}
	}
	return false
}

var teamRuleKeys = []string{"match", "tool", "exit-code", "status", "class", "code", "reason", "remedy"}

// readTeamRule reads one rule's mapping.
func readTeamRule(name string, n ast.Node) (TeamRule, []error) {
	l, c := nodeLineCol(n)
	r := TeamRule{ExitCode: NoExitCode, Source: fmt.Sprintf("%s:%d", name, l)}
	at := func(n ast.Node, fix, format string, args ...any) error {
		l, c := nodeLineCol(n)
		return &RuleError{File: name, Line: l, Col: c, Msg: fmt.Sprintf(format, args...), Fix: fix}
	}
	m, ok := mappingValues(n)
	if !ok {
		return r, []error{&RuleError{File: name, Line: l, Col: c, Msg: "a rule is a mapping", Fix: "write match:, class:, code:, reason: and remedy: keys"}}
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
				re, err := regexp.Compile(text)
				if err != nil {
					msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
					errs = append(errs, at(v, "write an RE2 regular expression (Go's regexp syntax)", "match %q is not a valid regular expression: %s", text, msg))
				} else {
					r.Match = re
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
			cl, err := ParseClass(strings.TrimSpace(text))
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
				r.Code = Code(code)
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
			errs = append(errs, &RuleError{File: name, Line: l, Col: c, Msg: "the rule has no " + k, Fix: "every rule names its class and code"})
		}
	}
	if !seen["match"] && !seen["exit-code"] && !seen["status"] {
		errs = append(errs, &RuleError{File: name, Line: l, Col: c, Msg: "the rule matches everything", Fix: "give it a match:, an exit-code: or a status:"})
	}
	return r, errs
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
	case builtinCodes[Code(code)] || builtinCodePattern.MatchString(code) || strings.HasPrefix(code, "rule-"):
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
