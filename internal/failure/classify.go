package failure

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Tool names the client whose output is classified.
type Tool string

// The tools. ToolAuto detects the tool from the text (git and curl by their
// marks, the tool families registered from internal/failure/tools by theirs).
const (
	ToolAuto Tool = "auto"
	ToolGit  Tool = "git"
	ToolCurl Tool = "curl"
	ToolHTTP Tool = "http"
	ToolExec Tool = "exec"
)

// ParseTool returns the tool with the given name; "" is ToolAuto.
func ParseTool(s string) (Tool, error) {
	t := Tool(strings.ToLower(strings.TrimSpace(s)))
	switch t {
	case "":
		return ToolAuto, nil
	case ToolAuto, ToolGit, ToolCurl, ToolHTTP, ToolExec:
		return t, nil
	}
	for _, f := range registered() {
		if f.Tool == t {
			return t, nil
		}
	}
	return "", fmt.Errorf("unknown tool %q (want one of %s)", s, strings.Join(ToolNames(), ", "))
}

// ToolNames lists every tool name ParseTool accepts.
func ToolNames() []string {
	out := []string{string(ToolAuto), string(ToolGit), string(ToolCurl), string(ToolHTTP), string(ToolExec)}
	for _, f := range registered() {
		out = append(out, string(f.Tool))
	}
	return out
}

// NoExitCode is Input.ExitCode when the exit status is not known.
const NoExitCode = -1

// Input is everything known about one failure.
type Input struct {
	Tool     Tool        // the client; "" is ToolAuto
	Text     string      // stderr/stdout tail, or the HTTP body
	ExitCode int         // process exit status; NoExitCode (-1) when not known
	Status   int         // HTTP status; 0 when not known
	Header   http.Header // HTTP response headers (may be nil)
	Method   string      // HTTP method; "" when not known (treated as a lookup, GET)
	Now      time.Time   // for X-RateLimit-Reset / HTTP-date Retry-After and a lock's stated creation time; zero → time.Now()
	// Env is the step's environment ("NAME=value", as os.Environ): it shows
	// the sandbox or firewall the step runs behind (AWF, srt, Codex,
	// Copilot's agent firewall); nil when not known.
	Env []string
	// MaxElapsed is the run's bound on the whole retry loop (--max-elapsed):
	// a stated wait longer than it is a wait the run cannot make (policy);
	// zero means exec's default, DefaultMaxElapsed.
	MaxElapsed time.Duration
	// Rules are a team's rules (--rules): the first that matches decides,
	// before the built-in recognisers; nil means none.
	Rules Team
	// Command is the command that printed Text (its argv[0]), which a
	// team rule's tool: may name; "" when not known.
	Command string
	// Ctx ends the matching of Rules (a signal, --max-elapsed): once it is
	// done no rule decides; nil means it never ends.
	Ctx context.Context
}

// DefaultMaxElapsed is exec's default --max-elapsed, the bound assumed when
// the caller gives none.
const DefaultMaxElapsed = 15 * time.Minute

// runOpts is what a classification knows of the run beyond the failure.
type runOpts struct {
	env        map[string]string
	maxElapsed time.Duration
	now        time.Time // Input.Now, else the clock's: an absolute reset or a lock's age is read against it
}

func newRunOpts(env []string, maxElapsed time.Duration) runOpts {
	o := runOpts{maxElapsed: maxElapsed}
	if len(env) > 0 {
		o.env = make(map[string]string, len(env))
		for _, kv := range env {
			if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
				o.env[k] = v
			}
		}
	}
	return o
}

// allMatchers are the line recognisers of every tool. The scanner runs all of
// them whatever the tool (a git log quotes curl's messages, an exec step may
// print anything); the tool only decides how an exit status and an HTTP 400
// are read. They are joined on first use, so that a start-up that classifies
// nothing (--help) does not pay for the copy.
var allMatchers = sync.OnceValue(func() []Matcher {
	lists := append([][]Matcher{gitMatchers, pushMatchers, curlMatchers, netMatchers, lowSpeedMatchers, httpTextMatchers, goTextMatchers, quotaMatchers, limitMatchers, phraseMatchers(httpConstRows), genericMatchers, sdkMatchers, reasonLabelMatchers}, opsMatchers...)
	return concatMatchers(append(lists, familyMatchers()...)...)
})

// opsMatchers are the tables of the kinds every operations tool words the
// same way (ssh, locks held by someone else, package installs), one list
// per std_*.go file, added by that file's init.
var opsMatchers [][]Matcher

// gateKeys are the distinct literal gates of allMatchers, indexed on first use
// (the 128 KiB table costs a start-up that classifies nothing, such as --help).
var gateKeys = sync.OnceValue(func() *keyIndex { return newKeyIndex(collectGates(allMatchers())) })

func concatMatchers(lists ...[]Matcher) []Matcher {
	var out []Matcher
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Classify returns the failure's classification; it never returns nil.
// With a Status it classifies an HTTP response (Text is the body); otherwise
// it classifies tool output. Empty input with no status is Unknown.
func Classify(in Input) *Failure {
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	ro := newRunOpts(in.Env, in.MaxElapsed)
	ro.now = now
	if f := TeamVerdict(in); f != nil {
		return f
	}
	if in.Status != 0 {
		if f := sandboxHeader(in.Header, in.Text, ro); f != nil {
			return f
		}
		return envVerdict(fromHTTP(in.Method, in.Status, in.Header, in.Text, now, in.MaxElapsed), in.Text, ro)
	}
	return classifyTextRun(in.Tool, in.Text, in.ExitCode, in.Method, ro)
}

// FromText classifies tool output with an exit status (git, curl, generic
// exec output); exitCode is NoExitCode when not known.
func FromText(tool Tool, text string, exitCode int) *Failure {
	return classifyText(tool, text, exitCode, "")
}

func classifyText(tool Tool, text string, exitCode int, method string) *Failure {
	return classifyTextRun(tool, text, exitCode, method, runOpts{})
}

func classifyTextRun(tool Tool, text string, exitCode int, method string, ro runOpts) *Failure {
	if tool == "" {
		tool = ToolAuto
	}
	text = stripRunnerStamps(text)
	if strings.TrimSpace(text) == "" && exitCode <= 0 {
		return New(Unknown, CodeNoOutput, "no failure output", "nothing to classify: capture the command's stderr or the HTTP status")
	}
	eff := tool
	if tool == ToolAuto || tool == ToolHTTP || tool == ToolExec {
		eff = DetectTool(text, tool)
	}
	c := &ScanCtx{Text: text, Tool: eff, method: strings.ToUpper(strings.TrimSpace(method)), ms: allMatchers(), keys: gateKeys(), run: ro}
	hits := c.scan()
	if eff == ToolCurl && exitCode > 0 {
		hits = append(hits, curlExitHit(exitCode, len(text)))
	} else if exitCode > 0 {
		if h, ok := familyExitHit(eff, exitCode, len(text)); ok {
			hits = append(hits, h)
		} else if h, ok := shellExitHit(exitCode, len(text)); ok {
			hits = append(hits, h)
		}
	}
	f, ok := c.resolve(hits)
	if !ok {
		f = unrecognised(text, exitCode)
		f.Trace = traceOf(nil, Hit{}, c.Facts)
	}
	if eff == ToolGit || eff == ToolCurl {
		f.Trace.Client = eff
	}
	return c.sandboxVerdict(f)
}

// DetectTool guesses the client from its output: git and curl by their
// marks, then the tool families by theirs (the first family whose mark
// appears wins); def when none does.
func DetectTool(text string, def Tool) Tool {
	for _, mark := range []string{"fatal:", "remote:", "! [", "error: failed to push", "hint:"} {
		if strings.Contains(text, mark) {
			return ToolGit
		}
	}
	if i := strings.Index(text, "curl: ("); i >= 0 && i+7 < len(text) && text[i+7] >= '0' && text[i+7] <= '9' {
		return ToolCurl
	}
	for _, f := range registered() {
		for _, mark := range f.Marks {
			if strings.Contains(text, mark) {
				return f.Tool
			}
		}
	}
	return def
}

// unrecognised is the verdict when no recogniser claimed the text.
func unrecognised(text string, exitCode int) *Failure {
	reason := "unrecognised failure"
	if exitCode > 0 {
		reason = fmt.Sprintf("unrecognised failure (exit %d)", exitCode)
	}
	f := New(Unknown, CodeUnknown, reason, "read the output; if this failure is known to pass on a second try, add --retry-on REGEX for it (or --stop-on to say it never will)")
	if line := lastLine(text); line != "" {
		f.Evidence = []string{line}
	} else if exitCode > 0 {
		f.Evidence = []string{ExitEvidence(exitCode)}
	}
	return f
}

// ExitEvidence is the evidence of an exit status: "exit code N".
func ExitEvidence(code int) string { return fmt.Sprintf("exit code %d", code) }
