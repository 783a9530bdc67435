package retry

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
)

func TestPoll(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	t.Run("done on the third try", func(t *testing.T) {
		clk := clock.NewFake(t0, true)
		var tries []int
		err := Poll(context.Background(), clk, 250*time.Millisecond, time.Minute, func(n int) bool {
			tries = append(tries, n)
			return n < 3
		})
		if err != nil || len(tries) != 3 {
			t.Fatalf("err %v, tries %v; want nil after 3 tries", err, tries)
		}
		if got := clk.Waits(); len(got) != 2 || got[0] != 250*time.Millisecond || got[1] != 250*time.Millisecond {
			t.Errorf("waits %v, want two of 250ms", got)
		}
	})
	t.Run("time runs out", func(t *testing.T) {
		clk := clock.NewFake(t0, true)
		n := 0
		err := Poll(context.Background(), clk, 250*time.Millisecond, time.Second, func(int) bool { n++; return true })
		if !errors.Is(err, ErrPollExpired) {
			t.Fatalf("err %v, want ErrPollExpired", err)
		}
		if n != 5 || clk.Now().Sub(t0) != time.Second {
			t.Errorf("%d tries over %v, want 5 over 1s", n, clk.Now().Sub(t0))
		}
	})
	t.Run("no wait at all", func(t *testing.T) {
		clk := clock.NewFake(t0, true)
		n := 0
		err := Poll(context.Background(), clk, 250*time.Millisecond, 0, func(int) bool { n++; return true })
		if !errors.Is(err, ErrPollExpired) || n != 1 || len(clk.Waits()) != 0 {
			t.Errorf("err %v after %d tries and waits %v, want ErrPollExpired after 1 and none", err, n, clk.Waits())
		}
	})
	t.Run("a signal ends the wait", func(t *testing.T) {
		clk := clock.NewFake(t0, false)
		sig := errors.New("terminated")
		ctx, cancel := context.WithCancelCause(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- Poll(ctx, clk, time.Hour, 24*time.Hour, func(int) bool { return true })
		}()
		<-clk.TimerCreated()
		cancel(sig)
		select {
		case err := <-done:
			if !errors.Is(err, sig) {
				t.Errorf("err %v, want the cause", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Poll did not end on cancellation")
		}
	})
}
