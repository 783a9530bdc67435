package execstep

import (
	"sync"

	"github.com/retrywise/retrywise/internal/redact"
)

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
	// dropped is true when older bytes were dropped: the kept text starts
	// mid-stream, perhaps inside a secret.
	dropped bool
}

func newTail(max int) *tail { return &tail{max: max} }

// Write appends p, dropping the oldest bytes beyond max.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= t.max {
		t.dropped = t.dropped || len(t.buf) > 0 || len(p) > t.max
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.dropped = true
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// String returns the kept bytes; when older ones were dropped, it starts
// with redact.Cut, so that the redactor masks what the cut left of a secret.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped {
		return redact.Cut + string(t.buf)
	}
	return string(t.buf)
}

// Reset empties the buffer.
func (t *tail) Reset() {
	t.mu.Lock()
	t.buf, t.dropped = t.buf[:0], false
	t.mu.Unlock()
}
