package retry

import (
	"context"
	"errors"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
)

// ErrPollExpired is what Poll returns when its time ran out while try still
// asked to go again.
var ErrPollExpired = errors.New("poll: time ran out")

// Poll calls try at once and then every interval on clk for as long as try
// asks to go again, for at most within in all: within/interval tries,
// rounded up, after the first, whatever clk says. try is given the try's
// number, from 1. Poll returns nil when try stops asking, ErrPollExpired
// when the time or the tries ran out, and ctx's cause as soon as ctx ends
// (a signal) while it waits. It is the one wait of the program that is not
// an attempt of a step: waiting for a lock another process holds, say.
func Poll(ctx context.Context, clk clock.Clock, interval, within time.Duration, try func(n int) (again bool)) error {
	if interval <= 0 {
		interval = time.Millisecond
	}
	deadline := clk.Now().Add(within)
	maxTries := int(within/interval) + 2
	for n := 1; ; n++ {
		if !try(n) {
			return nil
		}
		left := deadline.Sub(clk.Now())
		if left <= 0 || n > maxTries {
			return ErrPollExpired
		}
		if !clock.Sleep(ctx, clk, min(interval, left)) {
			return context.Cause(ctx)
		}
	}
}
