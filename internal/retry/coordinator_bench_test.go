package retry

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
)

// BenchmarkCoordinatorOverhead measures what the loop itself costs per
// attempt: a Step that fails transiently `fails` times and then succeeds,
// under a zero-wait schedule on an auto-firing fake clock, so no time is
// spent waiting. ns/attempt is the loop's overhead per attempt (the step's
// own work is one failure.New); compare the sizes with each other.
func BenchmarkCoordinatorOverhead(b *testing.B) {
	for _, fails := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("fails=%d", fails), func(b *testing.B) {
			pol := Policy{Schedule: make([]time.Duration, fails), MaxElapsed: time.Hour}
			step := StepFunc(func(_ context.Context, n int) error {
				if n <= fails {
					return failure.New(failure.Transient, failure.CodeTimeout, "timed out", "")
				}
				return nil
			})
			ctx := context.Background()
			start := t0
			b.ReportAllocs()
			for b.Loop() {
				c := &Coordinator{Policy: pol, Clock: clock.NewFake(start, true)}
				out, err := c.Run(ctx, step)
				if err != nil || !out.OK() || out.Count() != fails+1 {
					b.Fatalf("run: %v, %+v", err, out)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(fails+1)), "ns/attempt")
		})
	}
}
