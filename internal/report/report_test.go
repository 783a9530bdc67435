package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/retry"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var start = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func policy() retry.Policy {
	p, _ := retry.Policy{Schedule: []time.Duration{10 * time.Second, 20 * time.Second, time.Minute}, MaxElapsed: 15 * time.Minute, RetryAfterCap: 5 * time.Minute}.Normalize()
	return p
}

func TestGolden(t *testing.T) {
	timeout := failure.New(failure.Transient, failure.CodeTimeout, "curl 28, operation timed out", "a network blip: retrying", "curl: (28) Operation timed out after 5001 milliseconds")
	nff := failure.New(failure.Structural, failure.CodeGitNonFastForward, "git push rejected: non-fast-forward on main", "git pull --rebase origin main, then push again",
		" ! [rejected]        main -> main (non-fast-forward)")
	odd := failure.New(failure.Unknown, failure.CodeUnknown, "unrecognised failure (exit 3)", "read the output; if this failure is known to pass on a second try, add --retry-on REGEX for it (or --stop-on to say it never will)",
		"quota service: state 7")
	refused := failure.New(failure.Transient, failure.CodeRefused, "connection refused", "nothing accepted the connection (a restart, a deploy, a blip): retrying; if it persists, check the host, port and proxy settings, or a firewall that rejects them",
		`Get "http://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused`)
	once := policy()
	once.MaxAttempts = 1
	// The exit code in each report is the one exitcode.For gives the outcome,
	// as every command computes it; the golden files hold the expected codes.
	tests := []struct {
		name string
		out  *retry.Outcome
	}{
		{"exhausted", &retry.Outcome{Policy: policy(), Stop: retry.StopAttemptsExhausted, Final: timeout, Detail: "all 4 attempts failed", Elapsed: 95 * time.Second,
			Attempts: []retry.Attempt{
				{N: 1, Start: start, Duration: 5 * time.Second, Class: failure.Transient, Reason: timeout.Reason, Wait: 10 * time.Second},
				{N: 2, Start: start.Add(15 * time.Second), Duration: 5 * time.Second, Class: failure.Transient, Reason: timeout.Reason, Wait: 20 * time.Second},
				{N: 3, Start: start.Add(40 * time.Second), Duration: 5 * time.Second, Class: failure.Transient, Reason: timeout.Reason, Wait: time.Minute},
				{N: 4, Start: start.Add(105 * time.Second), Duration: 5 * time.Second, Class: failure.Transient, Reason: timeout.Reason},
			}}},
		{"structural", &retry.Outcome{Policy: policy(), Stop: retry.StopNotRetryable, Final: nff, Elapsed: 40 * time.Millisecond,
			Attempts: []retry.Attempt{{N: 1, Start: start, Duration: 40 * time.Millisecond, Class: failure.Structural, Reason: nff.Reason}}}},
		{"unknown", &retry.Outcome{Policy: policy(), Stop: retry.StopNotRetryable, Final: odd, Elapsed: 30 * time.Millisecond,
			Attempts: []retry.Attempt{{N: 1, Start: start, Duration: 30 * time.Millisecond, Class: failure.Unknown, Reason: odd.Reason}}}},
		{"one-attempt", &retry.Outcome{Policy: once, Stop: retry.StopAttemptsExhausted, Final: refused, Detail: "the only attempt allowed (max attempts 1) failed", Elapsed: time.Millisecond,
			Attempts: []retry.Attempt{{N: 1, Start: start, Duration: time.Millisecond, Class: failure.Transient, Reason: refused.Reason}}}},
		{"success", &retry.Outcome{Policy: policy(), Stop: retry.StopSucceeded, Elapsed: 12 * time.Millisecond,
			Attempts: []retry.Attempt{{N: 1, Start: start, Duration: 12 * time.Millisecond, OK: true}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code := exitcode.For(tt.out, false)
			r := New("exec", "curl -fsS https://api.example.com/quota", tt.out, code)
			var b bytes.Buffer
			if err := r.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if code != exitcode.OK {
				b.WriteString("retrywise: " + r.Headline() + "\n")
			}
			golden(t, filepath.Join("testdata", tt.name+".txt"), b.Bytes())
			var j bytes.Buffer
			if err := Single(r, start, start.Add(tt.out.Elapsed)).WriteJSON(&j); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", tt.name+".json"), j.Bytes())
			var back Run
			if err := json.Unmarshal(j.Bytes(), &back); err != nil || back.Run.ExitCode != code || len(back.Steps) != 1 || len(back.Steps[0].Attempts) != len(tt.out.Attempts) {
				t.Errorf("JSON does not round-trip: %v %+v", err, back)
			}
		})
	}
}

func TestProgressLine(t *testing.T) {
	got := ProgressLine(retry.Attempt{N: 2, Class: failure.Transient, Reason: "curl 28, operation timed out", Wait: 20 * time.Second}, 4)
	if want := "attempt 2/4 failed (transient: curl 28, operation timed out); retrying in 20s"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestCommandLine(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"curl", "-fsS", "https://api.example.com/x"}, "curl -fsS https://api.example.com/x"},
		{[]string{"sh", "-c", "echo hi\nexit 1"}, `sh -c "echo hi\nexit 1"`},
		{[]string{"git", "commit", "-m", "it's done", ""}, `git commit -m "it's done" ""`},
	}
	for _, tt := range tests {
		if got := CommandLine(tt.argv); got != tt.want {
			t.Errorf("CommandLine(%q) = %s, want %s", tt.argv, got, tt.want)
		}
	}
}

// TestMask: every text of a run goes through the mask, nested outputs too.
func TestMask(t *testing.T) {
	const secret = "s3cr3t<&>\"\\x"
	s := &Step{ID: "a", Kind: "http", Target: "GET /" + secret, Reason: secret, Detail: secret, Remedy: secret,
		Evidence: []string{secret}, Notes: []string{secret}, Refs: []Ref{{From: secret, To: secret, Reason: secret}},
		Attempts: []retry.Attempt{{N: 1, Reason: secret}},
		Outputs:  map[string]any{"v": secret, "n": map[string]any{"deep": []any{secret}}, "refs": []Ref{{Reason: secret}}}}
	r := NewRun("job", start)
	r.Steps = append(r.Steps, s)
	r.Finish(start, 1, secret)
	r.Mask(func(v string) string { return strings.ReplaceAll(v, secret, "***") })
	var j, md, txt bytes.Buffer
	r.WriteJSON(&j)
	r.WriteMarkdown(&md)
	r.WriteText(&txt)
	for name, b := range map[string]string{"json": j.String(), "markdown": md.String(), "text": txt.String()} {
		if strings.Contains(b, "s3cr3t") {
			t.Errorf("%s shows the secret:\n%s", name, b)
		}
	}
}

// TestClassNoneOnTheWire checks that no failure (failure.None) is written as
// the string class always was: no "class" on a successful step or attempt,
// and a report without one reads back as None.
func TestClassNoneOnTheWire(t *testing.T) {
	out := &retry.Outcome{Policy: policy(), Stop: retry.StopSucceeded, Attempts: []retry.Attempt{{N: 1, Start: start, OK: true}}}
	run := Single(New("exec", "true", out, exitcode.OK), start, start)
	var b bytes.Buffer
	if err := run.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `"class"`) {
		t.Errorf("a success's report has a class:\n%s", b.String())
	}
	var back Run
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if s := back.Steps[0]; s.Class != failure.None || s.Attempts[0].Class != failure.None {
		t.Errorf("read back: step class %q, attempt class %q; want None", s.Class, s.Attempts[0].Class)
	}
	if err := json.Unmarshal([]byte(`{"steps":[{"class":"bogus"}]}`), &back); err == nil {
		t.Error("a report with class bogus was read")
	}
}

// TestWaitsRounded: a wait keeps 3 significant digits in the progress lines
// and the text report (1.17s, not 1.172073811s); JSON's wait_ns stays exact.
func TestWaitsRounded(t *testing.T) {
	const wait = 1172073811 * time.Nanosecond
	for d, want := range map[time.Duration]string{wait: "1.17s", 20 * time.Second: "20s", 73456 * time.Millisecond: "1m13.5s", 123456 * time.Microsecond: "123ms", 999600 * time.Microsecond: "1s", 0: "0s"} {
		if got := Wait(d); got != want {
			t.Errorf("Wait(%d) = %q, want %q", d, got, want)
		}
	}
	a := retry.Attempt{N: 2, Start: start, Duration: time.Second, Class: failure.Transient, Reason: "r", Wait: wait}
	if got := ProgressLine(a, 4); !strings.HasSuffix(got, "retrying in 1.17s") {
		t.Errorf("ProgressLine = %q", got)
	}
	a20 := a
	a20.N = 20
	if got, _ := Progress(a20, 100); !strings.HasSuffix(got, "retrying in 1.17s") {
		t.Errorf("Progress = %q", got)
	}
	out := &retry.Outcome{Policy: policy(), Stop: retry.StopSucceeded, Elapsed: 3 * time.Second,
		Attempts: []retry.Attempt{a, {N: 3, Start: start.Add(2 * time.Second), Duration: time.Second, OK: true}}}
	out.Attempts[0].N = 1
	r := New("exec", "true", out, 0)
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "waited 1.17s") || strings.Contains(b.String(), "1.172") {
		t.Errorf("text report:\n%s", b.String())
	}
	var j bytes.Buffer
	if err := Single(r, start, start.Add(out.Elapsed)).WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(j.String(), `"wait_ns": 1172073811`) {
		t.Errorf("JSON:\n%s", j.String())
	}
}
