package execstep

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/interrupt"
)

// lineSignal is a writer that closes seen once want was written to it.
type lineSignal struct {
	mu   sync.Mutex
	b    bytes.Buffer
	want string
	seen chan struct{}
}

func (l *lineSignal) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, _ := l.b.Write(p)
	if l.seen != nil && strings.Contains(l.b.String(), l.want) {
		close(l.seen)
		l.seen = nil
	}
	return n, nil
}

// TestSignalDuringTimeoutGrace: the timeout fired and the child, which traps
// SIGTERM, is in a 20 s grace when retrywise is signalled: the attempt ends
// within cancelGrace (plus the pipes' grace), not when the 20 s are over.
func TestSignalDuringTimeoutGrace(t *testing.T) {
	seen := make(chan struct{})
	errw := &lineSignal{want: "got TERM", seen: seen}
	s := newShStep(t, `trap 'echo got TERM >&2' TERM; while :; do sleep 0.05; done`,
		Options{Stderr: errw, Timeout: 200 * time.Millisecond, KillGrace: 20 * time.Second})
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var cancelled time.Time
	go func() {
		select {
		case <-seen:
		case <-time.After(30 * time.Second):
		}
		cancelled = time.Now()
		cancel(&interrupt.Signal{Sig: syscall.SIGTERM})
	}()
	err := s.Attempt(ctx, 1)
	if took := time.Since(cancelled); took > cancelGrace+pipeGrace+200*time.Millisecond {
		t.Errorf("attempt ended %s after the signal, want about %s", took, cancelGrace)
	}
	if err == nil {
		t.Error("a killed attempt succeeded")
	}
}

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
