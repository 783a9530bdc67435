//go:build bench

package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/retry"
)

// herdJobs is how many scheduled jobs start at the same cron minute, and
// herdRecovery when their shared endpoint comes back.
const (
	herdJobs     = 50
	herdRecovery = 95 * time.Second
	herdWindow   = 100 * time.Millisecond
)

// herd runs herdJobs copies of the one retry loop (retry.Coordinator, the
// default schedule 10s,20s,60s) against an endpoint that fails every
// request until herdRecovery, each on its own fake clock from the same
// start (the loop's waits are simulated, not slept), and returns the time
// of every retry (the first attempts all fall at the cron minute, which
// jitter does not move; start-jitter: does).
func herd(t *testing.T, jitter float64, seed uint64) []time.Duration {
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var at []time.Duration
	for j := range herdJobs {
		clk := clock.NewFake(start, true)
		r := rand.New(rand.NewPCG(seed, uint64(j)))
		c := &retry.Coordinator{
			Policy: retry.Policy{Schedule: []time.Duration{10 * time.Second, 20 * time.Second, 60 * time.Second}, MaxAttempts: 10, MaxElapsed: 15 * time.Minute, Jitter: jitter},
			Clock:  clk, Rand: r.Float64,
		}
		_, err := c.Run(context.Background(), retry.StepFunc(func(_ context.Context, n int) error {
			now := clk.Now().Sub(start)
			if n > 1 { // the retries: the first attempts share the cron minute whatever the jitter
				at = append(at, now)
			}
			if now < herdRecovery {
				return &failure.Failure{Class: failure.Transient, Code: "http-503", Reason: "HTTP 503"}
			}
			return nil
		}))
		if err != nil {
			t.Fatal(err)
		}
	}
	return at
}

// peakToMean is the busiest 100 ms window's requests over the mean of the
// windows from the first request to the last.
func peakToMean(at []time.Duration) (peak int, mean, ratio float64) {
	sort.Slice(at, func(i, j int) bool { return at[i] < at[j] })
	counts := map[int64]int{}
	for _, a := range at {
		w := int64(a / herdWindow)
		counts[w]++
		peak = max(peak, counts[w])
	}
	windows := float64(at[len(at)-1]/herdWindow-at[0]/herdWindow) + 1
	mean = float64(len(at)) / windows
	return peak, mean, float64(peak) / mean
}

// TestJitterHerd is the scripted comparison of jitter 0 and 0.2: 50 jobs
// started at the same minute retry one endpoint that recovers after 95 s;
// the requests per 100 ms window at the endpoint, peak over mean.
func TestJitterHerd(t *testing.T) {
	out := "| jitter | retries | peak per 100 ms | mean per 100 ms | peak / mean |\n|---|---|---|---|---|\n"
	ratios := map[float64]float64{}
	for _, j := range []float64{0, 0.2} {
		at := herd(t, j, 1)
		peak, mean, ratio := peakToMean(at)
		ratios[j] = ratio
		out += fmt.Sprintf("| %v | %d | %d | %.3f | %.0f |\n", j, len(at), peak, mean, ratio)
	}
	t.Log("\n" + out)
	if ratios[0.2] >= ratios[0] {
		t.Errorf("jitter 0.2 did not spread the herd: peak/mean %.0f vs %.0f with none", ratios[0.2], ratios[0])
	}
	if p := os.Getenv("HERD_OUT"); p != "" {
		os.WriteFile(p, []byte(out), 0o644)
	}
}
