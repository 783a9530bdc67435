package execstep

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The signal during a timeout's grace (TestSignalDuringTimeoutGrace, which
// bounded the stop's wall time with 200 ms of slack) is one of the variants
// of TestSignalCutsEveryGrace, on the fake clock.

// TestAttemptEndingOnItsOwnLeavesItsGroup pins the documented choice: what
// an attempt that nothing stopped left running in the background (with its
// own output, so no pipe holds the attempt open) is the command's business.
func TestAttemptEndingOnItsOwnLeavesItsGroup(t *testing.T) {
	var out bytes.Buffer
	s := newShStep(t, `sleep 45 >/dev/null 2>&1 & echo $!`, Options{Stdout: &out})
	if err := s.Attempt(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("stdout %q", out.String())
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if err := syscall.Kill(pid, 0); err != nil {
		t.Errorf("the background job is gone (%v); an attempt that ended on its own must leave it alone", err)
	}
}
