package retry

import (
	"context"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
)

// TestCoordinatorHindsightStopsAtOnce: a failure hindsight marks persistent
// ends the loop after its attempt, without a wait, with the marked
// failure; one it does not mark is retried as before; a failure the loop
// would not retry is never asked about.
func TestCoordinatorHindsightStopsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fail    *failure.Failure
		persist bool
		stop    Stop
		calls   int
		asked   int
	}{
		{"persistent", transient("i/o timeout"), true, StopPersistent, 1, 1},
		{"not persistent", transient("i/o timeout"), false, StopAttemptsExhausted, 3, 3},
		{"policy never asked", failure.New(failure.Policy, failure.HTTPCode(403), "forbidden", ""), true, StopNotRetryable, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clock.NewFake(t0, true)
			asked := 0
			c := &Coordinator{
				Policy: Policy{Schedule: secs(2, 4), MaxAttempts: 3, MaxElapsed: time.Hour},
				Clock:  clk,
				Hindsight: func(f *failure.Failure) *failure.Failure {
					asked++
					if !tc.persist {
						return nil
					}
					g := *f
					g.Persistent = &failure.Persistence{Runs: 3, Since: t0}
					return &g
				},
			}
			st := &script{fails: repeat(tc.fail, 10), canRetry: true}
			out, err := c.Run(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if out.Stop != tc.stop || st.calls != tc.calls || asked != tc.asked {
				t.Fatalf("stop=%s attempts=%d asked=%d", out.Stop, st.calls, asked)
			}
			if tc.stop == StopPersistent {
				if out.Final.Persistent == nil || out.Final.Class != failure.Transient || len(clk.Waits()) != 0 || out.Detail != "failed the same way in 3 runs: no retries" {
					t.Errorf("final=%+v waits=%v detail=%q", out.Final, clk.Waits(), out.Detail)
				}
			}
		})
	}
}
