package execstep

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/retrywise/retrywise/internal/failure"
)

// ContextVar is the environment variable that carries the captured context
// (a session or thread id) to a continuation. It is never interpolated into
// shell text, so a command's output cannot inject commands.
const ContextVar = "RETRYWISE_CONTEXT"

// maxContextLine bounds the line the context pattern is matched against
// (64 KiB); a longer line is matched on its first 64 KiB.
const maxContextLine = 64 << 10

// capture holds the last match of a context pattern across every attempt.
type capture struct {
	re    *regexp.Regexp
	mu    sync.Mutex
	value string
	found bool
}

// set records a match; the last one wins.
func (c *capture) set(v string) {
	c.mu.Lock()
	c.value, c.found = v, true
	c.mu.Unlock()
}

// get returns the last match.
func (c *capture) get() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.value, c.found
}

// lineMatcher matches each complete line written to it (one stream's) with
// the capture's pattern as the output streams, not only in the kept tail.
type lineMatcher struct {
	c    *capture
	line []byte
	long bool // the current line is over maxContextLine: the rest is skipped
}

func (m *lineMatcher) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !m.long {
			room := maxContextLine - len(m.line)
			if len(chunk) > room {
				chunk, m.long = chunk[:room], true
			}
			m.line = append(m.line, chunk...)
		}
		if i < 0 {
			break
		}
		m.match()
		p = p[i+1:]
	}
	return n, nil
}

// flush matches a last line without a newline.
func (m *lineMatcher) flush() {
	if len(m.line) > 0 {
		m.match()
	}
}

func (m *lineMatcher) match() {
	line := strings.TrimSuffix(string(m.line), "\r")
	m.line, m.long = m.line[:0], false
	if sub := m.c.re.FindStringSubmatch(line); len(sub) == 2 && sub[1] != "" {
		m.c.set(sub[1])
	}
}

// Ran says which command attempt n ran and why (retry.Narrator).
func (s *Step) Ran(n int) (string, string) {
	if n > 1 && s.opts.ContinueWith != "" {
		why := "--continue-with: a retry continues instead of starting over"
		if s.ctx != nil {
			v, _ := s.ctx.get()
			why = fmt.Sprintf("--continue-with in the context --context-from captured (%s=%q)", ContextVar, v)
		}
		return "sh -c " + quoteShell(s.opts.ContinueWith), why
	}
	if n > 1 {
		return s.commandLine(), "the same command: no --continue-with"
	}
	return s.commandLine(), "the command"
}

// commandLine is the step's command on one line.
func (s *Step) commandLine() string {
	parts := make([]string, len(s.opts.Args))
	for i, a := range s.opts.Args {
		parts[i] = quoteShell(a)
	}
	return strings.Join(parts, " ")
}

// quoteShell quotes a word for reading when it holds anything but safe characters.
func quoteShell(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\r\n'\"\\$`;&|<>(){}*?!#~") {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// contextMissing says why a continuation cannot run: the pattern has not
// matched in any attempt yet; "" when it may.
func (s *Step) contextMissing() string {
	if s.opts.ContinueWith == "" || s.ctx == nil {
		return ""
	}
	if _, ok := s.ctx.get(); ok {
		return ""
	}
	return fmt.Sprintf("--context-from %s found nothing in the output so far, so there is no context to continue in (--continue-with needs it); running the command again would start over", quoteShell(s.ctx.re.String()))
}

// BeforeRetry runs --on-retry (sh -c, in the step's folder and environment,
// bounded by the step's timeout) before attempt n; its output goes to
// stderr. With AttemptFiles set, its file commands are the failed
// attempt's, which nobody reads: only attempts' writes reach the workflow.
// A failure says how it ended and quotes its output's last lines.
func (s *Step) BeforeRetry(ctx context.Context, n int) error {
	if s.opts.OnRetry == "" {
		return nil
	}
	env := s.opts.Env
	if s.opts.AttemptFiles != nil {
		if env == nil {
			env = os.Environ()
		}
		failed := s.opts.AttemptFiles.Final()
		for _, name := range s.opts.AttemptFiles.Vars {
			path := failed[name]
			if path == "" {
				path = os.DevNull
			}
			env = setEnv(env, name, path)
		}
	}
	hook, err := New(Options{
		Args: []string{"sh", "-c", s.opts.OnRetry}, Env: env, Dir: s.opts.Dir, LearnMask: s.opts.LearnMask,
		Stdout: s.opts.Stderr, Stderr: s.opts.Stderr, Timeout: s.opts.Timeout, KillGrace: s.opts.KillGrace, Clock: s.opts.Clock, Tool: failure.ToolExec,
	})
	if err != nil {
		return fmt.Errorf("--on-retry cannot run: %w", err)
	}
	herr := hook.Attempt(ctx, 1)
	if herr == nil {
		return nil
	}
	how := fmt.Sprintf("exit %d", hook.LastExitCode())
	if hook.LastExitCode() == failure.NoExitCode {
		how = failure.FromError(herr).Reason
	}
	msg := fmt.Sprintf("--on-retry %s: %s", quoteShell(s.opts.OnRetry), how)
	if tail := lastLines(hook.LastOutput(), 3); tail != "" {
		msg += "; output: " + tail
	}
	s.notes = append(s.notes, msg)
	return fmt.Errorf("%s", msg)
}

// lastLines returns the last n non-empty lines of s joined with " | ".
func lastLines(s string, n int) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, " | ")
}
