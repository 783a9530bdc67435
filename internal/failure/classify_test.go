package failure

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/redact"
)

// textCase is one tool output and what it must classify as.
type textCase struct {
	name       string
	tool       Tool
	text       string
	exit       int
	class      Class
	code       Code     // the exact code
	reason     string   // substring of Reason ("" = any)
	remedy     string   // substring of Remedy ("" = any)
	evidence   []string // each must be a substring of some evidence line
	retryAfter time.Duration
}

func runTextCases(t *testing.T, cases []textCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exit := tc.exit
			if exit == 0 {
				exit = NoExitCode
			}
			f := FromText(tc.tool, tc.text, exit)
			checkFailure(t, f, tc.class, tc.code, tc.reason, tc.remedy, tc.evidence)
			if f.RetryAfter != tc.retryAfter {
				t.Errorf("RetryAfter = %v, want %v", f.RetryAfter, tc.retryAfter)
			}
			if err := textInvariants(f, tc.text, exit); err != nil {
				t.Error(err)
			}
		})
	}
}

// checkFailure asserts the class and the code exactly (a case must name its
// code), and that the reason and remedy contain the given text when given.
func checkFailure(t *testing.T, f *Failure, class Class, code Code, reason, remedy string, evidence []string) {
	t.Helper()
	if f == nil {
		t.Fatal("nil failure")
	}
	if code == "" {
		t.Fatalf("the case names no code (got %q)", f.Code)
	}
	if f.Code != code {
		t.Errorf("code = %q, want %q (reason %q)", f.Code, code, f.Reason)
	}
	if f.Class != class {
		t.Errorf("class = %v, want %v (reason %q, evidence %q)", f.Class, class, f.Reason, f.Evidence)
	}
	if !strings.Contains(f.Reason, reason) {
		t.Errorf("reason = %q, want it to contain %q", f.Reason, reason)
	}
	if !strings.Contains(f.Remedy, remedy) {
		t.Errorf("remedy = %q, want it to contain %q", f.Remedy, remedy)
	}
	for _, want := range evidence {
		found := false
		for _, e := range f.Evidence {
			found = found || strings.Contains(e, want)
		}
		if !found {
			t.Errorf("evidence %q lacks %q", f.Evidence, want)
		}
	}
}

var codeRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// invariants holds for every failure: a kebab-case code, never unknown on a
// recognised class, a class in range, a one-line reason,
// a remedy, bounded evidence, and a wait only on a transient failure.
func invariants(f *Failure) error {
	switch {
	case f == nil:
		return fmt.Errorf("nil failure")
	case f.Class < Unknown || f.Class > Absent:
		return fmt.Errorf("class %d out of range", f.Class)
	case (f.Class.Decision() == Retry) != (f.Class == Transient):
		return fmt.Errorf("decision %s for class %s", f.Class.Decision(), f.Class)
	case !codeRE.MatchString(string(f.Code)):
		return fmt.Errorf("code %q is not a kebab-case name", f.Code)
	case f.Class != Unknown && !f.Recognised():
		return fmt.Errorf("a %s failure with the code %q", f.Class, f.Code)
	case f.Reason == "" || strings.ContainsAny(f.Reason, "\r\n"):
		return fmt.Errorf("reason %q is not one line", f.Reason)
	case f.Remedy == "":
		return fmt.Errorf("no remedy for %q", f.Reason)
	case len(f.Evidence) > maxEvidenceLines:
		return fmt.Errorf("%d evidence lines", len(f.Evidence))
	case f.RetryAfter < 0 || (f.RetryAfter > 0 && f.Class != Transient):
		return fmt.Errorf("RetryAfter %v on a %s failure", f.RetryAfter, f.Class)
	}
	for _, e := range f.Evidence {
		if len(e) > maxEvidenceLen || e == "" || strings.ContainsAny(e, "\r\n") {
			return fmt.Errorf("bad evidence line %q", e)
		}
	}
	return nil
}

// uncut returns an evidence line without the marks of its cuts.
func uncut(e string) string {
	return strings.TrimSuffix(strings.TrimPrefix(e, redact.Cut), redact.Cut)
}

// textInvariants adds: every evidence line, without its cut marks, is a
// substring of the text, its controls escaped (Printable), or names the exit code.
func textInvariants(f *Failure, text string, exit int) error {
	if err := invariants(f); err != nil {
		return err
	}
	text = stripRunnerStamps(text)
	for _, e := range f.Evidence {
		if !strings.Contains(text, uncut(e)) && !strings.Contains(Printable(text), uncut(e)) && e != ExitEvidence(exit) {
			return fmt.Errorf("evidence %q is not in the input", e)
		}
	}
	return nil
}

func TestParseTool(t *testing.T) {
	for in, want := range map[string]Tool{"": ToolAuto, "auto": ToolAuto, "GIT": ToolGit, " curl ": ToolCurl, "http": ToolHTTP, "exec": ToolExec} {
		got, err := ParseTool(in)
		if err != nil || got != want {
			t.Errorf("ParseTool(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"wget", "gitx", "c url"} {
		if _, err := ParseTool(in); err == nil {
			t.Errorf("ParseTool(%q) accepted", in)
		}
	}
}

func TestDetectTool(t *testing.T) {
	for _, tc := range []struct {
		text string
		want Tool
	}{
		{"fatal: unable to access 'https://x/': Could not resolve host: x", ToolGit},
		{"remote: Counting objects: 5", ToolGit},
		{" ! [rejected]        main -> main (fetch first)", ToolGit},
		{"hint: see git help", ToolGit},
		{"curl: (28) Operation timed out", ToolCurl},
		{"curl: (oops)", ToolAuto},
		{"dial tcp: i/o timeout", ToolAuto},
	} {
		if got := detectTool(tc.text, ToolAuto); got != tc.want {
			t.Errorf("detectTool(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestClassifyEmptyAndUnrecognised(t *testing.T) {
	for _, in := range []Input{{}, {Text: "  \n\t", ExitCode: NoExitCode}, {Tool: ToolHTTP, ExitCode: NoExitCode}} {
		f := Classify(in)
		if f.Class != Unknown || f.Reason != "no failure output" {
			t.Errorf("Classify(%+v) = %v", in, f)
		}
	}
	f := FromText(ToolExec, "Segmentation fault (core dumped)\n", 139)
	checkFailure(t, f, Unknown, "unknown", "unrecognised failure (exit 139)", "--retry-on", []string{"Segmentation fault (core dumped)"})
	f = FromText(ToolExec, "", 3)
	checkFailure(t, f, Unknown, "unknown", "unrecognised failure (exit 3)", "", []string{"exit code 3"})
	f = FromText(ToolGit, "error: pathspec 'nope' did not match any file(s) known to git", 1)
	checkFailure(t, f, Unknown, "unknown", "unrecognised failure", "", nil)
}

func TestClassifyRoutesStatusToHTTP(t *testing.T) {
	// A status makes the text an HTTP body whatever the tool.
	f := Classify(Input{Tool: ToolAuto, Status: 503, Text: "<h1>down</h1>", ExitCode: NoExitCode})
	checkFailure(t, f, Transient, "http-503", "HTTP 503 Service Unavailable", "", nil)
	// Tool http without a status classifies the text.
	f = Classify(Input{Tool: ToolHTTP, Text: "curl: (6) Could not resolve host: a.example", ExitCode: NoExitCode})
	checkFailure(t, f, Transient, "dns-failure", "curl 6, could not resolve host a.example", "", nil)
}

// The most decisive evidence wins when several lines match.
func TestClassifyPrecedence(t *testing.T) {
	runTextCases(t, []textCase{
		{
			name: "rejection beats the hang-up after it", tool: ToolAuto,
			text:  "To https://github.com/o/r.git\n ! [rejected]        dev -> dev (non-fast-forward)\nerror: failed to push some refs\nfatal: the remote end hung up unexpectedly\n",
			class: Structural, code: "git-non-fast-forward", reason: "non-fast-forward on dev", remedy: "git pull --rebase origin dev, then push again",
		},
		{
			name: "413 beats hung up and sideband", tool: ToolGit,
			text:  "Writing objects: 100% (9/9), 1.20 GiB\nerror: RPC failed; HTTP 413 curl 22 The requested URL returned error: 413\nsend-pack: unexpected disconnect while reading sideband packet\nfatal: the remote end hung up unexpectedly\nEverything up-to-date\n",
			class: Structural, code: "http-413", reason: "413", evidence: []string{"RPC failed; HTTP 413"},
		},
		{
			name: "a 403 with a named refusal", tool: ToolGit,
			text:  "remote: Permission to acme/site.git denied to ci-bot.\nfatal: unable to access 'https://github.com/acme/site.git/': The requested URL returned error: 403\n",
			class: Policy, code: "git-permission-denied", reason: "permission to acme/site.git denied to ci-bot", remedy: "give ci-bot write access",
			evidence: []string{"Permission to acme/site.git denied to ci-bot", "returned error: 403"},
		},
		{
			name: "a certificate problem beats the transport noise", tool: ToolAuto,
			text:  "Connection reset by peer\nSSL certificate problem: certificate has expired\n",
			class: Unknown, code: "tls-certificate", reason: "certificate", remedy: "environment must change",
		},
		{
			name: "equal ranks: stop beats retry", tool: ToolAuto,
			text:  "connect: connection refused\nread: connection reset by peer\n",
			class: Transient, code: "connection-refused", reason: "connection refused",
		},
	})
}

func TestEvidenceBounds(t *testing.T) {
	// a single 1 MiB line with the failure in the middle
	pad := strings.Repeat("x", 512<<10)
	text := pad + " fatal: unable to access 'https://github.com/o/r/': Could not resolve host: github.com " + pad
	f := FromText(ToolGit, text, 128)
	checkFailure(t, f, Transient, "dns-failure", "could not resolve host github.com", "", []string{"Could not resolve host: github.com"})
	if err := textInvariants(f, text, 128); err != nil {
		t.Error(err)
	}
	// many matching lines: at most maxEvidenceLines quoted
	text = strings.Repeat("fatal: the remote end hung up unexpectedly\nerror: RPC failed; curl 56 Recv failure: Connection reset by peer\n", 50)
	f = FromText(ToolGit, text, 128)
	if len(f.Evidence) == 0 || len(f.Evidence) > maxEvidenceLines {
		t.Errorf("evidence = %q", f.Evidence)
	}
	// carriage returns split progress-meter lines
	text = "\r  0     0    0     0    0     0      0      0 --:--:--  0:00:05 --:--:--     0\r  0     0    0     0    0     0      0      0 --:--:--  0:00:06 --:--:--     0curl: (28) Connection timed out after 6001 milliseconds\r\n"
	f = FromText(ToolCurl, text, 28)
	checkFailure(t, f, Transient, "timeout", "curl 28, connection timed out", "", nil)
	if len(f.Evidence) == 0 || f.Evidence[0] != "curl: (28) Connection timed out after 6001 milliseconds" {
		t.Errorf("evidence = %q", f.Evidence)
	}
	// multi-byte text around a cut stays valid UTF-8
	text = strings.Repeat("é", 400) + "connection reset by peer" + strings.Repeat("ß", 400)
	f = FromText(ToolAuto, text, NoExitCode)
	if err := textInvariants(f, text, NoExitCode); err != nil {
		t.Error(err)
	}
	for _, e := range f.Evidence {
		if !strings.Contains(e, "reset by peer") || strings.ContainsRune(e, '\uFFFD') {
			t.Errorf("evidence %q", e)
		}
	}
}

func TestClassifyUsesNow(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	h := http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {fmt.Sprint(now.Add(42 * time.Second).Unix())}}
	f := Classify(Input{Status: 403, Header: h, Text: `{"message":"API rate limit exceeded for user ID 1."}`, Now: now, ExitCode: NoExitCode})
	checkFailure(t, f, Transient, "rate-limited", "rate limit", "", nil)
	if f.RetryAfter != 42*time.Second {
		t.Errorf("RetryAfter = %v", f.RetryAfter)
	}
}
