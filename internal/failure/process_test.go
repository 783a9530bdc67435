package failure

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/outputfile"
)

func TestFromProcess(t *testing.T) {
	stopOn := Rules{StopOn: []*regexp.Regexp{regexp.MustCompile(`quota exhausted`)}}
	tests := []struct {
		name  string
		p     Process
		class Class
		code  Code
		want  string // the reason, exactly
	}{
		{"its own timeout is transient, whatever it printed", Process{Name: "deploy", Text: "fatal: not a git repository\n", ExitCode: NoExitCode, Signal: "SIGTERM", TimedOut: true, Timeout: 5 * time.Second},
			Transient, CodeExecTimeout, "deploy timed out after 5s"},
		{"the output decides an exit", Process{Name: "curl", Tool: ToolCurl, Text: "curl: (6) Could not resolve host: x.example\n", ExitCode: 6},
			Transient, CodeDNS, "curl 6, could not resolve host x.example"},
		{"a signal is never a success", Process{Name: "job", Text: "working...\n", ExitCode: NoExitCode, Signal: "SIGKILL"},
			Unknown, CodeExecSignal, "job was killed by signal SIGKILL"},
		{"a recognised failure killed by a signal says both", Process{Name: "git", Tool: ToolGit, Text: "fatal: unable to access 'https://h/': Connection reset by peer\n", ExitCode: 3, Signal: "SIGTERM"},
			Transient, CodeReset, "git cannot access h: connection reset (killed by signal SIGTERM)"},
		{"the user's rules come last", Process{Name: "job", Text: "ERROR: quota exhausted\n", ExitCode: 1, Rules: stopOn},
			Unknown, CodeRuleStopOn, "matched --stop-on quota exhausted"},
		{"unrecognised", Process{Name: "job", Text: "something odd\n", ExitCode: 2},
			Unknown, CodeUnknown, "unrecognised failure (exit 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := FromProcess(tt.p)
			if f.Class != tt.class || f.Code != tt.code || f.Reason != tt.want {
				t.Errorf("got %s %s %q; want %s %s %q", f.Class, f.Code, f.Reason, tt.class, tt.code, tt.want)
			}
			if err := invariants(f); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestOutputFileInvalid(t *testing.T) {
	_, syntax := outputfile.Parse(strings.NewReader("a=1\nnot an output\n"))
	_, open := outputfile.Parse(strings.NewReader("notes<<EOF\nsecret-value\n"))
	_, large := outputfile.Parse(strings.NewReader(strings.Repeat("x", outputfile.MaxSize+1)))
	readErr := errors.New("read /tmp/o/output-1: is a directory")
	tests := []struct {
		name string
		err  error
		code Code
		want string // the reason, exactly
	}{
		{"a line in neither form", syntax, CodeExecOutputMalformed,
			"deploy succeeded, but its $RETRYWISE_OUTPUT file is malformed at line 2: neither name=value nor name<<DELIMITER"},
		{"an unclosed heredoc, never quoting its value", open, CodeExecOutputMalformed,
			`deploy succeeded, but its $RETRYWISE_OUTPUT file is malformed at line 1: heredoc "notes" has no closing "EOF" line`},
		{"too large", large, CodeExecOutputTooLarge,
			"deploy succeeded, but its $RETRYWISE_OUTPUT file is larger than 1048576 bytes (1 MiB)"},
		{"unreadable", readErr, CodeExecOutputMalformed,
			"deploy succeeded, but its $RETRYWISE_OUTPUT file cannot be read: read /tmp/o/output-1: is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := OutputFileInvalid("deploy", "RETRYWISE_OUTPUT", tt.err)
			if f.Class != Structural || f.Code != tt.code || f.Reason != tt.want {
				t.Errorf("got %s %s %q; want structural %s %q", f.Class, f.Code, f.Reason, tt.code, tt.want)
			}
			if !errors.Is(f, tt.err) {
				t.Errorf("the parse error is not wrapped")
			}
			if err := invariants(f); err != nil {
				t.Error(err)
			}
		})
	}
}
