package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/retry"
)

// TestProgressFolds: the first ten failed attempts have a line each, then
// one line stands for 10 attempts up to 100, for 100 up to 1000 and for
// 1000 after; the attempt before the last closes its group; a re-check
// always has its own line.
func TestProgressFolds(t *testing.T) {
	a := func(n int) retry.Attempt {
		return retry.Attempt{N: n, Class: failure.Transient, Reason: "HTTP 503", Wait: time.Second}
	}
	tests := []struct {
		attempt retry.Attempt
		max     int
		want    string // "" when folded
	}{
		{a(1), 500, "attempt 1/500 failed (transient: HTTP 503); retrying in 1s"},
		{a(10), 500, "attempt 10/500 failed (transient: HTTP 503); retrying in 1s"},
		{a(11), 500, ""},
		{a(19), 500, ""},
		{a(20), 500, "attempts 11-20/500 failed (last: transient: HTTP 503); retrying in 1s"},
		{a(100), 500, "attempts 91-100/500 failed (last: transient: HTTP 503); retrying in 1s"},
		{a(110), 500, ""},
		{a(200), 500, "attempts 101-200/500 failed (last: transient: HTTP 503); retrying in 1s"},
		{a(499), 500, "attempts 401-499/500 failed (last: transient: HTTP 503); retrying in 1s"},
		{a(14), 16, ""},
		{a(15), 16, "attempts 11-15/16 failed (last: transient: HTTP 503); retrying in 1s"},
		{a(2000), 5000, "attempts 1001-2000/5000 failed (last: transient: HTTP 503); retrying in 1s"},
		{a(2500), 5000, ""},
		{retry.Attempt{N: 13, Class: failure.Policy, Reason: "HTTP 403", Wait: 5 * time.Second, Recheck: "a fresh token may propagate"}, 100,
			"attempt 13/100 failed (policy: HTTP 403); a fresh token may propagate: checking once more in 5s"},
	}
	for _, tt := range tests {
		got, ok := Progress(tt.attempt, tt.max)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("Progress(attempt %d/%d) = %q, %v; want %q", tt.attempt.N, tt.max, got, ok, tt.want)
		}
	}
	lines := 0
	for n := 1; n < 100000; n++ {
		if _, ok := Progress(a(n), 100000); ok {
			lines++
		}
	}
	if lines != 10+9+9+99 {
		t.Errorf("100000 attempts print %d progress lines, want %d", lines, 10+9+9+99)
	}
}

// TestListAttempts: a report for people lists every attempt of a short run,
// the first and last five of a longer one, and counts the rest, omitted
// records included.
func TestListAttempts(t *testing.T) {
	run := func(n int) []retry.Attempt {
		as := make([]retry.Attempt, n)
		for i := range as {
			as[i].N = i + 1
		}
		return as
	}
	tests := []struct {
		n, omitted       int
		head, tail, more int
	}{
		{1, 0, 1, 0, 0},
		{11, 0, 11, 0, 0},
		{12, 0, 5, 5, 2},
		{500, 0, 5, 5, 490},
		{1000, 1500, 5, 5, 2490},
	}
	for _, tt := range tests {
		head, tail, hidden := listAttempts(run(tt.n), tt.omitted)
		if len(head) != tt.head || len(tail) != tt.tail || hidden != tt.more {
			t.Errorf("%d attempts (%d omitted): %d, %d and %d hidden; want %d, %d and %d", tt.n, tt.omitted, len(head), len(tail), hidden, tt.head, tt.tail, tt.more)
		}
		if tt.tail > 0 && (head[0].N != 1 || tail[len(tail)-1].N != tt.n) {
			t.Errorf("%d attempts: lists %d..%d", tt.n, head[0].N, tail[len(tail)-1].N)
		}
	}
}

// TestLongRunReportsStayShort: a step of 2500 attempts, 1500 of them
// omitted from the record, says 2500 in its header, lists ten attempts in
// the text and in Markdown, and counts the rest.
func TestLongRunReportsStayShort(t *testing.T) {
	f := failure.New(failure.Transient, failure.HTTPCode(503), "HTTP 503", "wait")
	out := &retry.Outcome{Policy: policy(), Stop: retry.StopAttemptsExhausted, Final: f, Omitted: 1500}
	for i := range 1000 {
		n := i + 1
		if i >= 500 {
			n += 1500
		}
		out.Attempts = append(out.Attempts, retry.Attempt{N: n, Start: start, Class: failure.Transient, Reason: "HTTP 503", Wait: time.Second})
	}
	r := New("http", "GET https://example.com", out, 75)
	var b bytes.Buffer
	r.WriteText(&b)
	text := b.String()
	if !strings.Contains(text, "after 2500 attempts") || !strings.Contains(text, "2490 more attempts") {
		t.Errorf("text:\n%s", text)
	}
	if n := strings.Count(text, "attempt:"); n != 11 {
		t.Errorf("text lists %d attempt lines, want 11:\n%s", n, text)
	}
	if StepLine(r) != "step http: failure (transient http-503) after 2500 attempts in 0s" {
		t.Errorf("StepLine = %q", StepLine(r))
	}
	b.Reset()
	run := Single(r, start, start)
	run.WriteMarkdown(&b)
	if md := b.String(); strings.Count(md, "| transient: HTTP 503 |") != 10 || !strings.Contains(md, "2490 more attempts") {
		t.Errorf("markdown:\n%s", md)
	}
}
