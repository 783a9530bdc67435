package report_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/report/reporttest"
	"github.com/retrywise/retrywise/internal/retry"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func testPolicy() retry.Policy {
	p, _ := retry.Policy{Schedule: []time.Duration{10 * time.Second, 20 * time.Second, time.Minute}, MaxElapsed: 15 * time.Minute, RetryAfterCap: 5 * time.Minute}.Normalize()
	return p
}

// stepOf builds a step as a job runner does: the loop's outcome through report.New.
func stepOf(id, kind, target string, out *retry.Outcome) *report.Step {
	out.Policy = testPolicy()
	s := report.New(kind, target, out, exitcode.For(out, false))
	s.ID = id
	return s
}

func successStep(id string, start time.Time, d time.Duration) *report.Step {
	return stepOf(id, "http", "GET https://api.github.com/rate_limit", &retry.Outcome{Stop: retry.StopSucceeded, Elapsed: d,
		Attempts: []retry.Attempt{{N: 1, Start: start, Duration: d, OK: true}}})
}

func structuralStep(id string, start time.Time, evidence ...string) *report.Step {
	nff := failure.New(failure.Structural, failure.CodeGitNonFastForward, "git push rejected: non-fast-forward on main", "git pull --rebase origin main, then push again", evidence...)
	s := stepOf(id, "push", "git push origin main", &retry.Outcome{Stop: retry.StopNotRetryable, Final: nff, Elapsed: 40 * time.Millisecond,
		Attempts: []retry.Attempt{{N: 1, Start: start, Duration: 40 * time.Millisecond, Class: failure.Structural, Code: nff.Code, Reason: nff.Reason}}})
	s.Refs = []report.Ref{{From: "main", To: "refs/heads/main", Status: "rejected (non-fast-forward)", Class: failure.Structural, Reason: "non-fast-forward"}}
	return s
}

func transientStep(id string, start time.Time) *report.Step {
	timeout := failure.New(failure.Transient, failure.CodeTimeout, "curl 28, operation timed out", "a network blip: retrying", "curl: (28) Operation timed out after 5001 milliseconds")
	var attempts []retry.Attempt
	at := start
	for n, wait := range []time.Duration{10 * time.Second, 20 * time.Second, time.Minute, 0} {
		attempts = append(attempts, retry.Attempt{N: n + 1, Start: at, Duration: 5 * time.Second, Class: failure.Transient, Code: timeout.Code, Reason: timeout.Reason, Wait: wait})
		at = at.Add(5*time.Second + wait)
	}
	return stepOf(id, "exec", "curl -fsS https://deploy.example.com/hook", &retry.Outcome{Stop: retry.StopAttemptsExhausted, Final: timeout,
		Detail: "all 4 attempts failed", Elapsed: at.Sub(start), Attempts: attempts})
}

// jobRun is a run of four steps: a success with outputs, a skipped step, a
// continue-on-error structural failure whose evidence holds backticks and
// pipes, and the transient failure that ended the job.
func jobRun() *report.Run {
	r := report.NewRun("release", t0)
	quota := successStep("quota", t0, 120*time.Millisecond)
	quota.Outputs = map[string]any{"status": 200, "found": true, "fields": map[string]any{"remaining": 4999, "reset": "2026-11-30T11:00:00Z"}}
	notify := &report.Step{ID: "notify", Kind: "http", Target: "POST https://hooks.example.com/release", Result: report.Skipped, Detail: "if: failure()"}
	log := structuralStep("log", t0.Add(time.Second),
		" ! [rejected]        main -> main (non-fast-forward)",
		"hint: run ```git pull --rebase``` | then push again",
		"````",
		"error: failed to push some refs to 'https://github.com/acme/app.git'")
	log.ContinueOnError = true
	deploy := transientStep("deploy", t0.Add(2*time.Second))
	r.Steps = append(r.Steps, quota, notify, log, deploy)
	r.Finish(t0.Add(2*time.Second+deploy.Elapsed), deploy.ExitCode, "")
	return r
}

func TestJobGolden(t *testing.T) {
	r := jobRun()
	var txt, md, js bytes.Buffer
	if err := r.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	report.Golden(t, filepath.Join("testdata", "job.txt"), txt.Bytes())
	report.Golden(t, filepath.Join("testdata", "job.md"), md.Bytes())
	report.Golden(t, filepath.Join("testdata", "job.json"), js.Bytes())
	reporttest.Validate(t, js.Bytes())
	if !fencesClosed(md.String()) {
		t.Error("job.md leaves a fenced block open")
	}
}

// TestGoldenJSONValidates checks every JSON golden against the schema.
func TestGoldenJSONValidates(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) < 4 {
		t.Fatalf("JSON goldens: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { reporttest.ValidateFile(t, f) })
	}
}

func TestWriteJSONValidates(t *testing.T) {
	tests := []struct {
		name string
		run  func() *report.Run
	}{
		{"no steps", func() *report.Run {
			r := &report.Run{Version: report.Version, Run: report.RunInfo{Job: "empty", Start: t0}}
			r.Finish(t0, exitcode.Config, "the job file has no steps")
			return r
		}},
		{"skipped step with no attempts or policy", func() *report.Run {
			r := report.NewRun("j", t0)
			r.Steps = append(r.Steps, &report.Step{ID: "a", Kind: "exec", Result: report.Skipped, Detail: "if: false"})
			r.Finish(t0, exitcode.OK, "")
			return r
		}},
		{"cancelled run", func() *report.Run {
			r := report.NewRun("j", t0)
			s := successStep("a", t0, time.Second)
			s.Result, s.Stop, s.Detail = report.Cancelled, retry.StopCancelled, "cancelled: interrupted"
			r.Steps = append(r.Steps, s)
			r.Finish(t0.Add(time.Second), exitcode.Interrupted, "interrupted by SIGINT")
			return r
		}},
		{"every form of Go duration in the policy", func() *report.Run {
			r := report.NewRun("j", t0)
			s := successStep("a", t0, time.Second)
			s.Policy.Schedule = []time.Duration{0, 100, 1500, 1500 * time.Microsecond, 90 * time.Second, 2*time.Hour + 45*time.Minute + 500*time.Millisecond}
			s.Policy.RetryAfterCap = 0
			r.Steps = append(r.Steps, s)
			r.Finish(t0.Add(time.Second), exitcode.OK, "")
			return r
		}},
		{"job", jobRun},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.run().WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b.Bytes(), []byte("null")) {
				t.Errorf("JSON holds a null:\n%s", b.Bytes())
			}
			reporttest.Validate(t, b.Bytes())
		})
	}
}

// TestRunTextOneStep: a run of one step renders as its step, unchanged.
func TestRunTextOneStep(t *testing.T) {
	for _, s := range []*report.Step{successStep("quota", t0, 12*time.Millisecond), structuralStep("push", t0, "x"), transientStep("exec", t0)} {
		var want, got bytes.Buffer
		if err := s.WriteText(&want); err != nil {
			t.Fatal(err)
		}
		if err := report.Single(s, t0, t0.Add(s.Elapsed)).WriteText(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("run of one step:\n%s\nwant its step's text:\n%s", got.String(), want.String())
		}
	}
}

func TestRunText(t *testing.T) {
	tests := []struct {
		name string
		run  func() *report.Run
		want []string
		not  []string
	}{
		{"detail", func() *report.Run {
			r := report.NewRun("nightly", t0)
			r.Steps = append(r.Steps, successStep("a", t0, time.Second), successStep("b", t0, time.Second))
			r.Finish(t0.Add(10*time.Minute), exitcode.Terminated, "the job's timeout of 10m0s ran out")
			return r
		}, []string{"retrywise job nightly was cancelled in 10m0s (exit 143)\n", "  detail:   the job's timeout of 10m0s ran out\n"}, []string{"\nstep "}},
		{"success", func() *report.Run {
			r := report.NewRun("ok", t0)
			r.Steps = append(r.Steps, successStep("a", t0, time.Second), successStep("b", t0, 2*time.Second))
			r.Finish(t0.Add(3*time.Second), exitcode.OK, "")
			return r
		}, []string{"retrywise job ok succeeded in 3s (exit 0)\n", "  b     http  success  -      1         2s\n"}, []string{"detail:", "\nstep "}},
		{"a succeeded step's note (a rebase) gets one line", func() *report.Run {
			r := report.NewRun("rb", t0)
			s := successStep("log", t0, time.Second)
			s.Notes = []string{"--rebase-on-reject: main was rejected as non-fast-forward; rebased it onto origin/main (abc1234), from 1111111 to 2222222, and pushed again (rebase 1 of 1)"}
			r.Steps = append(r.Steps, successStep("a", t0, time.Second), s)
			r.Finish(t0.Add(2*time.Second), exitcode.OK, "")
			return r
		}, []string{"\n  step log: --rebase-on-reject: main was rejected as non-fast-forward; rebased it onto origin/main (abc1234), from 1111111 to 2222222, and pushed again (rebase 1 of 1)\n"}, []string{"\nstep log:", "step a:"}},
		{"no steps", func() *report.Run {
			r := report.NewRun("none", t0)
			r.Finish(t0, exitcode.Config, "")
			return r
		}, []string{"retrywise job none failed in 0s (exit 78)\n  no steps ran\n"}, nil},
		{"cancelled step gets a block", func() *report.Run {
			r := report.NewRun("c", t0)
			s := successStep("slow", t0, time.Second)
			s.Result, s.Stop, s.Detail = report.Cancelled, retry.StopCancelled, "cancelled: interrupted"
			r.Steps = append(r.Steps, successStep("a", t0, time.Second), s)
			r.Finish(t0.Add(2*time.Second), exitcode.Interrupted, "")
			return r
		}, []string{"\nstep slow:\n    target:   GET https://api.github.com/rate_limit\n    stopped:  cancelled: interrupted\n"}, []string{"step a:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.run().WriteText(&b); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("text lacks %q:\n%s", w, b.String())
				}
			}
			for _, n := range tt.not {
				if strings.Contains(b.String(), n) {
					t.Errorf("text holds %q:\n%s", n, b.String())
				}
			}
		})
	}
}

func TestProgressStart(t *testing.T) {
	tests := []struct{ id, kind, target, want string }{
		{"quota", "http", "GET https://api.github.com/rate_limit", "step quota (http GET https://api.github.com/rate_limit) ..."},
		{"probe", "probe", "", "step probe (probe) ..."},
		{"build", "exec", `sh -c "make\nmake test"`, `step build (exec sh -c "make\nmake test") ...`},
		{"raw", "exec", "a\nb", "step raw (exec a b) ..."},
	}
	for _, tt := range tests {
		if got := report.ProgressStart(tt.id, tt.kind, tt.target); got != tt.want {
			t.Errorf("ProgressStart(%q, %q, %q) = %q, want %q", tt.id, tt.kind, tt.target, got, tt.want)
		}
	}
}

func TestStepLine(t *testing.T) {
	absent := stepOf("page", "http", "GET https://x/y", &retry.Outcome{Stop: retry.StopNotRetryable, Elapsed: 30 * time.Millisecond,
		Final:    failure.New(failure.Absent, failure.Code("http-not-found"), "HTTP 404", ""),
		Attempts: []retry.Attempt{{N: 1, Start: t0, Duration: 30 * time.Millisecond, Class: failure.Absent, Reason: "HTTP 404"}}})
	absent.Result = report.Success // absent-ok
	coe := structuralStep("log", t0, "x")
	coe.ContinueOnError = true
	cancelled := successStep("slow", t0, 2*time.Second)
	cancelled.Result, cancelled.Stop, cancelled.Detail = report.Cancelled, retry.StopCancelled, "cancelled: interrupted"
	tests := []struct {
		name string
		step *report.Step
		want string
	}{
		{"success", successStep("quota", t0, 120*time.Millisecond), "step quota: success after 1 attempt in 120ms"},
		{"allowed absence", absent, "step page: success (absent http-not-found, allowed) after 1 attempt in 30ms"},
		{"skipped", &report.Step{ID: "post", Result: report.Skipped, Detail: "if: failure()"}, "step post: skipped (if: failure())"},
		{"skipped without detail", &report.Step{ID: "post", Result: report.Skipped}, "step post: skipped"},
		{"structural", structuralStep("log", t0, "x"), "step log: failure (structural git-non-fast-forward) after 1 attempt in 40ms"},
		{"continue-on-error", coe, "step log: failure (structural git-non-fast-forward) after 1 attempt in 40ms (continue-on-error)"},
		{"exhausted", transientStep("deploy", t0), "step deploy: failure (transient timeout) after 4 attempts in 1m50s"},
		{"cancelled", cancelled, "step slow: cancelled after 1 attempt in 2s (cancelled: interrupted)"},
		{"one line", &report.Step{ID: "s", Result: report.Skipped, Detail: "if: a &&\nb"}, "step s: skipped (if: a && b)"},
	}
	for _, tt := range tests {
		if got := report.StepLine(tt.step); got != tt.want {
			t.Errorf("%s: StepLine = %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestMarkdownEscapes(t *testing.T) {
	r := report.NewRun("a|b *c*", t0)
	s := structuralStep("x|y\nz", t0, "```` | ``", "`````")
	s.Reason = "bad | <b>html</b>\nsecond line"
	s.Target = "echo `a` | b"
	s.Attempts[0].Reason = s.Reason
	r.Steps = append(r.Steps, s, successStep("ok", t0, time.Second))
	r.Finish(t0.Add(time.Second), exitcode.Structural, "")
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, w := range []string{
		"### retrywise: a\\|b \\*c\\* — failure\n",
		"| x\\|y<br>z | push | failure | structural | 1 | 40ms |\n",
		"#### x\\|y<br>z — structural (git-non-fast-forward)\n",
		"- **reason:** bad \\| \\<b\\>html\\</b\\><br>second line\n",
		"- **target:** ``echo `a` | b``\n",
		"``````text\n```` | ``\n`````\n``````\n",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("Markdown lacks %q:\n%s", w, md)
		}
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ") {
			if n := cells(line); n != 6 && n != 5 {
				t.Errorf("table row has %d cells: %q", n, line)
			}
		}
	}
	if !fencesClosed(md) {
		t.Errorf("a fenced block is left open:\n%s", md)
	}
}

func TestMarkdownCut(t *testing.T) {
	const big = 5 << 20
	lines := func(n int, f string) []string {
		var out []string
		for i, size := 0, 0; size < n; i++ {
			out = append(out, fmt.Sprintf(f, i))
			size += len(out[i]) + 1
		}
		return out
	}
	tests := []struct {
		name  string
		steps func() []*report.Step
		want  []string
	}{
		{"5 MiB of evidence", func() []*report.Step {
			return []*report.Step{successStep("quota", t0, time.Second), structuralStep("log", t0, lines(big, "line %d: ``` | café ✓ ü")...), transientStep("deploy", t0)}
		}, []string{"line 0: ``` | café ✓ ü\nline 1:", "#### deploy — transient (timeout)", "_evidence cut: ", "| 4 | 10:01:45 | 5s |"}},
		{"one 5 MiB line of runes", func() []*report.Step {
			return []*report.Step{structuralStep("log", t0, strings.Repeat("é✓", big/5)), transientStep("deploy", t0)}
		}, []string{"é✓é✓", "_evidence cut: 1 of 1 lines shown", "#### deploy"}},
		{"two steps share", func() []*report.Step {
			return []*report.Step{structuralStep("a", t0, lines(3<<20, "a%d")...), structuralStep("b", t0, lines(3<<20, "b%d")...), structuralStep("c", t0, "small evidence")}
		}, []string{"\na0\na1\n", "\nb0\nb1\n", "\nsmall evidence\n"}},
		{"huge notes: hard cut", func() []*report.Step {
			s := structuralStep("a", t0, lines(big, "e%d")...)
			s.Notes = lines(3<<20, "note %d é")
			return []*report.Step{s}
		}, []string{"- **note:** note 0 é\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := report.NewRun("big", t0)
			r.Steps = append(r.Steps, tt.steps()...)
			r.Finish(t0.Add(time.Minute), exitcode.Structural, "")
			var b bytes.Buffer
			if err := r.WriteMarkdown(&b); err != nil {
				t.Fatal(err)
			}
			md := b.String()
			if len(md) >= report.MaxMarkdown {
				t.Errorf("Markdown is %d bytes, over %d", len(md), report.MaxMarkdown)
			}
			if len(md) < report.MaxMarkdown*9/10 {
				t.Errorf("Markdown is %d bytes: cut far more than needed", len(md))
			}
			if !utf8.ValidString(md) {
				t.Error("Markdown is not valid UTF-8")
			}
			if !strings.HasSuffix(md, "\n_report cut at 1 MiB: see the JSON report for everything_\n") {
				t.Errorf("Markdown does not end with the cut note: ...%q", md[max(0, len(md)-200):])
			}
			if !fencesClosed(md) {
				t.Error("a fenced block is left open")
			}
			for _, w := range tt.want {
				if !strings.Contains(md, w) {
					t.Errorf("Markdown lacks %q", w)
				}
			}
		})
	}
}

func TestMarkdownUncut(t *testing.T) {
	r := jobRun()
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "report cut") || strings.Contains(b.String(), "evidence cut") {
		t.Errorf("a small report is cut:\n%s", b.String())
	}
	invalid := report.NewRun("bad\xff", t0)
	invalid.Steps = append(invalid.Steps, structuralStep("s", t0, "bytes \xc3 and \xff here"))
	invalid.Finish(t0, exitcode.Structural, "")
	b.Reset()
	if err := invalid.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(b.Bytes()) {
		t.Errorf("Markdown of invalid UTF-8 input is not valid UTF-8:\n%q", b.String())
	}
}

// cells counts a Markdown table row's cells: its unescaped pipes, less one.
func cells(row string) int {
	n := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n - 1
}

// fencesClosed reports whether every backtick fence in md is closed, as
// CommonMark reads them: a closing fence is backticks alone, at least as
// many as the opening one.
func fencesClosed(md string) bool {
	open := 0
	for _, line := range strings.Split(md, "\n") {
		n := len(line) - len(strings.TrimLeft(line, "`"))
		switch {
		case open == 0 && n >= 3 && !strings.Contains(line[n:], "`"):
			open = n
		case open > 0 && n >= open && strings.TrimSpace(line[n:]) == "":
			open = 0
		}
	}
	return open == 0
}
