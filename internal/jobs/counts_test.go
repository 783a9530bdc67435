package jobs

import (
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/egress"
)

// TestPreflightCountsSingular: a count of one reads "1 host", "1 request",
// "1 step", never "1 host(s)".
func TestPreflightCountsSingular(t *testing.T) {
	got := preflightSummary(1, 1, 1500*time.Microsecond, 1, 0, 1)
	if want := "preflight: 1 host of 1 step probed in 2ms (1 request); 0 denied; 1 step probed when they start"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	got = preflightSummary(2, 3, time.Millisecond, 2, 1, 0)
	if want := "preflight: 2 hosts of 3 steps probed in 1ms (2 requests); 1 denied; 0 steps probed when they start"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	rep := preflightReport([]denial{{ref: hostRef{step: "notify", kind: "http", target: egress.Target{Host: "x.test", Port: "443"}}, reason: "denied"}}, "nothing ran")
	if !strings.HasPrefix(rep, "preflight: 1 host the job will touch is denied by the egress proxy; nothing ran\n") || strings.Contains(rep, "(s)") {
		t.Errorf("report:\n%s", rep)
	}
}
