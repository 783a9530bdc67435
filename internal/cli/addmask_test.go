package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecLearnsAddMask: a value the child asks to mask (::add-mask::,
// on stdout or stderr) is masked at once in everything retrywise writes:
// the relayed output, the report on stderr, the JSON report (evidence,
// reason), whatever its encoding. The relayed output of the other stream
// is masked from when the command is read: stdout and stderr are two pipes
// read side by side, so a line of one may be relayed before an earlier
// line of the other (the runner reads them alike); the reports see all.
func TestExecLearnsAddMask(t *testing.T) {
	for _, stream := range []string{"", " >&2"} {
		dir := t.TempDir()
		other := " >&2"
		if stream != "" {
			other = ""
		}
		s := script(t, `echo "::add-mask::Chi1d-Secret-V4lue"`+stream+`
echo "using Chi1d-Secret-V4lue"`+stream+`
echo "fatal: authentication failed for Chi1d-Secret-V4lue %43hi1d-Secret-V4lue"`+stream+`
echo "other stream: fatal: authentication failed for Chi1d-Secret-V4lue"`+other+`
exit 1
`)
		rep := filepath.Join(dir, "report.json")
		r := runCLI(t, "", nil, "exec", "--report", rep, "--", s)
		b, err := os.ReadFile(rep)
		if err != nil {
			t.Fatal(err)
		}
		same := map[string]string{"": r.stdout, " >&2": r.stderr}[stream]
		same, _, _ = strings.Cut(same, "retrywise exec failed")
		for what, text := range map[string]string{"its stream": strings.ReplaceAll(same, "other stream: fatal: authentication failed for Chi1d-Secret-V4lue", ""), "report": string(b)} {
			if strings.Contains(text, "Chi1d-Secret-V4lue") {
				t.Errorf("stream %q: the value in %s:\n%s", stream, what, text)
			}
		}
		if !strings.Contains(string(b), "***") {
			t.Errorf("report masks nothing:\n%s", b)
		}
	}
}

// TestOnRetryLearnsAddMask: the --on-retry command is the user's child too:
// a value it asks to mask is masked in all that follows, though no Writer
// learns from what passes through it.
func TestOnRetryLearnsAddMask(t *testing.T) {
	s := script(t, "echo \"attempt with $(cat \"$0.seen\" 2>/dev/null)\"; echo x >> \"$0.seen\"; exit 1\n")
	r := runCLI(t, "", nil, "exec", "--retry-on-exit", "1", "--schedule", "1s", "--max-attempts", "2",
		"--on-retry", `v=$(printf 'Hook-%s' V4lue); echo "::add-mask::$v"; echo "cleaning $v"`, "--", s)
	if strings.Contains(r.stdout+r.stderr, "Hook-V4lue") {
		t.Errorf("the hook's value shows:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "cleaning ***") {
		t.Errorf("the hook's output is not relayed, masked:\n%s", r.stderr)
	}
}
