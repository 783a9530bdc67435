package retry

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
)

// TestCancelledWaitRecordsTimeWaited: a wait cut short by a signal (or a
// job timeout: its context's end) is recorded as the time actually waited,
// not the planned wait; a plain wait and a recheck's alike.
func TestCancelledWaitRecordsTimeWaited(t *testing.T) {
	for _, waited := range []time.Duration{0, 3 * time.Second, 9*time.Second + 999*time.Millisecond} {
		clk := clock.NewFake(t0, false)
		ctx, cancel := context.WithCancelCause(context.Background())
		done := make(chan *Outcome)
		c := &Coordinator{Policy: Policy{Schedule: secs(10, 20, 60), MaxElapsed: time.Hour}, Clock: clk}
		go func() {
			out, _ := c.Run(ctx, &script{fails: repeat(transient("reset"), 10), canRetry: true})
			done <- out
		}()
		<-clk.TimerCreated() // the loop is now waiting 10s
		clk.Advance(waited)
		cancel(errors.New("received SIGTERM"))
		out := <-done
		if out.Stop != StopCancelled || len(out.Attempts) != 1 {
			t.Fatalf("stop %s, %d attempts", out.Stop, len(out.Attempts))
		}
		if got := out.Attempts[0].Wait; got != waited {
			t.Errorf("waited %s: recorded %s", waited, got)
		}
	}
}
