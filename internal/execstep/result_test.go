package execstep

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

func TestClassifyReplacesTheVerdict(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		timeout  time.Duration
		answer   error
		exit     int
		timedOut bool
		builtin  failure.Class // -1 when there is no built-in verdict (success, or an exit status left to Classify)
		output   string        // the whole kept output
		signal   syscall.Signal
	}{
		{"success", []string{"sh", "-c", "echo fine"}, 0, nil, 0, false, -1, "fine\n", 0},
		// An exit status is the caller's to classify: no built-in scan.
		{"failure turned success", []string{"sh", "-c", "echo 'curl: (7) Failed to connect' >&2; exit 7"}, 0, nil, 7, false, -1, "curl: (7) Failed to connect\n", 0},
		{"own failure", []string{"sh", "-c", "exit 3"}, 0, failure.New(failure.Structural, failure.CodeGitNonFastForward, "mine", ""), 3, false, -1, "", 0},
		{"timeout", []string{"sleep", "10"}, 100 * time.Millisecond, errors.New("kept"), failure.NoExitCode, true, failure.Transient, "", syscall.SIGTERM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Result
			calls := 0
			s, err := New(Options{Args: tt.args, Timeout: tt.timeout, KillGrace: time.Second, Classify: func(_ context.Context, r Result) error {
				got = r
				calls++
				return tt.answer
			}})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Attempt(context.Background(), 1)
			if calls != 1 || err != tt.answer {
				t.Fatalf("Classify called %d times; Attempt returned %v, want %v", calls, err, tt.answer)
			}
			if got.ExitCode != tt.exit || got.TimedOut != tt.timedOut || got.Output != tt.output || got.Signal != tt.signal {
				t.Errorf("result = %+v", got)
			}
			var f *failure.Failure
			switch {
			case tt.builtin == -1 && got.Err != nil:
				t.Errorf("built-in verdict %v, want success", got.Err)
			case tt.builtin != -1 && (!errors.As(got.Err, &f) || f.Class != tt.builtin):
				t.Errorf("built-in verdict %v, want %v", got.Err, tt.builtin)
			}
		})
	}
}
