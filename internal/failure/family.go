package failure

import "strings"

// A Family is the recognisers of one kind of tool that scheduled jobs
// run (npm, docker and the registries, PyPI's twine, cargo, the GitHub CLI,
// goreleaser, agent CLIs, GitHub's own actions), each in its own
// internal/failure/tools/recognize_<family>.go with its own codes. The scanner runs every family's
// matchers whatever the tool, like git's and curl's (a workflow log quotes
// them all); a family's matchers that only make sense for its own output
// check c.Tool or the line's own marks.
type Family struct {
	// Tool is the family's Tool, the name --tool takes.
	Tool Tool
	// Names are program names (argv[0]'s base) that are this tool.
	Names []string
	// Marks are substrings of output that show it is this tool's, for
	// --tool auto; the first family whose mark appears wins.
	Marks []string
	// Matchers recognise the family's failures.
	Matchers []Matcher
	// Exit, when set, reads the tool's exit status alone (rsync's documented
	// exit values): a hit at the rank of an exit status, which any line of
	// the output that says more outranks; ok=false when the status says
	// nothing.
	Exit func(code int) (h Hit, ok bool)
}

// familyExitHit is the verdict of tool's family on its exit status alone.
func familyExitHit(tool Tool, code, pos int) (Hit, bool) {
	for _, f := range registered() {
		if f.Tool != tool || f.Exit == nil {
			continue
		}
		h, ok := f.Exit(code)
		if !ok {
			return Hit{}, false
		}
		h.Rank, h.synthetic, h.pos, h.line = rankExitCode, true, pos, ExitEvidence(code)
		return h, true
	}
	return Hit{}, false
}

// The tools of the families.
const (
	ToolNPM        Tool = "npm"
	ToolDocker     Tool = "docker"
	ToolTwine      Tool = "twine"
	ToolCargo      Tool = "cargo"
	ToolGH         Tool = "gh"
	ToolGoreleaser Tool = "goreleaser"
	ToolCodex      Tool = "codex"
	ToolClaude     Tool = "claude"
	ToolGemini     Tool = "gemini"
	ToolAider      Tool = "aider"
	ToolActions    Tool = "actions"
	ToolRsync      Tool = "rsync"
)

// The codes of the families that the core itself names: the trace reads
// them as "no credentials were given", not as a refusal of them.
const (
	// CodeAiderAPIKeyMissing: aider found no API key for its model.
	CodeAiderAPIKeyMissing Code = "aider-api-key-missing"
	// CodeDockerNoCredentials: no credentials to send (no login, an empty secret).
	CodeDockerNoCredentials Code = "docker-no-credentials"
	// CodeGeminiAuthMissing: the Gemini CLI has no credentials configured.
	CodeGeminiAuthMissing Code = "gemini-auth-missing"
	// CodeNPMNeedAuth: npm has no credentials for the registry.
	CodeNPMNeedAuth Code = "npm-auth-required"
)

// ReRustcError is rustc's error line ("error[E0432]: ..."), which cargo
// prints and the network recogniser reads as a resolution error of the code.
var ReRustcError = LazyRE(`error\[E0(\d{3})\]: (.*)`)

// families lists every tool family, in the order --tool auto tries their
// marks. The package internal/failure/tools registers them at program start
// (Register); a classification with none registered panics (registered), so
// that a program cannot leave the recognisers out silently.
var families []*Family

// Register adds tool families, in the order --tool auto tries their marks.
// It is meant for the init of internal/failure/tools, before any
// classification.
func Register(fs ...*Family) { families = append(families, fs...) }

// registered returns the registered families; it panics when there are none.
func registered() []*Family {
	if len(families) == 0 {
		panic("failure: no tool family registered: import internal/failure/tools where the program is assembled")
	}
	return families
}

// familyMatchers returns each family's matchers.
func familyMatchers() [][]Matcher {
	out := make([][]Matcher, len(families))
	for i, f := range registered() {
		out[i] = f.Matchers
	}
	return out
}

// RankTool is the rank of a tool's own named error (npm's EPUBLISHCONFLICT,
// an API's error type): it says more than a status quoted beside it, and a
// tool's answer decides over a bare --status (an "npm ERR! 404 ... PUT" is
// npm's answer, not a lookup).
const RankTool = 105

// stripRunnerStamps removes the timestamps GitHub's runner puts in front of
// every log line ("2025-08-14T17:32:21.8215801Z "); s itself when it has none.
func stripRunnerStamps(s string) string {
	if !strings.Contains(s, "Z ") {
		return s
	}
	var b strings.Builder
	changed := false
	for rest := s; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = ""
		}
		if n := runnerStamp(line); n > 0 {
			if !changed {
				b.Grow(len(s))
				b.WriteString(s[:len(s)-len(rest)-len(line)])
				changed = true
			}
			line = line[n:]
		}
		if changed {
			b.WriteString(line)
		}
	}
	if !changed {
		return s
	}
	return b.String()
}

// runnerStamp returns the length of a runner timestamp and its space at the
// start of line ("2025-08-14T17:32:21.8215801Z "), or 0.
func runnerStamp(line string) int {
	const layout = "dddd-dd-ddTdd:dd:dd"
	if len(line) < len(layout)+2 {
		return 0
	}
	for i := 0; i < len(layout); i++ {
		c := line[i]
		if layout[i] == 'd' {
			if c < '0' || c > '9' {
				return 0
			}
		} else if c != layout[i] {
			return 0
		}
	}
	i := len(layout)
	if line[i] == '.' {
		i++
		for i < len(line) && line[i] >= '0' && line[i] <= '9' {
			i++
		}
	}
	if i+1 >= len(line) || line[i] != 'Z' || line[i+1] != ' ' {
		return 0
	}
	return i + 2
}
