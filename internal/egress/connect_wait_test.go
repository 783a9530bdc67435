package egress

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
)

// TestReadBoundedOnTheClock: the wait for a CONNECT refusal's body is on the
// injected clock (it ends when the clock reaches connectBodyWait, not
// before) and ends at once with the request's context; a body that arrives
// is kept.
func TestReadBoundedOnTheClock(t *testing.T) {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	t.Run("clock", func(t *testing.T) {
		clk := clock.NewFake(start, false)
		r, w := io.Pipe()
		defer w.Close()
		got := make(chan []byte, 1)
		go func() { got <- readBounded(context.Background(), clk, r, connectBodyWait) }()
		select {
		case <-clk.TimerCreated():
		case <-time.After(30 * time.Second):
			t.Fatal("no wait started")
		}
		clk.Advance(connectBodyWait - time.Millisecond)
		select {
		case b := <-got:
			t.Fatalf("gave up before the wait was over: %q", b)
		default:
		}
		clk.Advance(time.Millisecond)
		if b := <-got; b != nil {
			t.Errorf("body %q, want none", b)
		}
		if w := clk.Waits(); len(w) != 1 || w[0] != connectBodyWait {
			t.Errorf("waits %v, want [%v]", w, connectBodyWait)
		}
	})
	t.Run("context", func(t *testing.T) {
		clk := clock.NewFake(start, false)
		r, w := io.Pipe()
		defer w.Close()
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan []byte, 1)
		go func() { got <- readBounded(ctx, clk, r, connectBodyWait) }()
		<-clk.TimerCreated()
		cancel()
		if b := <-got; b != nil {
			t.Errorf("body %q, want none", b)
		}
	})
	t.Run("body", func(t *testing.T) {
		clk := clock.NewFake(start, false)
		if b := readBounded(context.Background(), clk, strings.NewReader("denied"), connectBodyWait); string(b) != "denied" {
			t.Errorf("body %q", b)
		}
	})
}
