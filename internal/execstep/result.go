package execstep

import (
	"context"
	"syscall"

	"github.com/retrywise/retrywise/internal/failure"
)

// Result is what one attempt's process did. A caller that reads the
// command's output itself (git push --porcelain) receives it through
// Options.Classify and decides the attempt's verdict.
type Result struct {
	// ExitCode is the exit status; failure.NoExitCode when the process was killed by a signal.
	ExitCode int
	// Signal is the signal that killed the process; 0 when it exited.
	Signal syscall.Signal
	// TimedOut is true when Options.Timeout stopped the attempt.
	TimedOut bool
	// Output is the kept tail of the attempt's combined output (TailSize).
	Output string
	// Err is the built-in verdict: nil on success, otherwise the classified
	// failure (a timeout is transient, a signal is never a success). With
	// Options.Classify set, it is nil for an attempt that exited with a
	// status: the caller classifies its output itself.
	Err error
}

// ClassifyFunc decides an attempt's verdict from its Result: nil means success.
type ClassifyFunc func(ctx context.Context, r Result) error

// result describes the finished process for Options.Classify.
func (s *Step) result(ws syscall.WaitStatus, st stopped, verdict error) Result {
	r := Result{ExitCode: failure.NoExitCode, Output: s.lastOutput, Err: verdict}
	switch {
	case ws.Exited():
		r.ExitCode = ws.ExitStatus()
	case ws.Signaled():
		r.Signal = ws.Signal()
	}
	r.TimedOut = st.timedOut
	return r
}
