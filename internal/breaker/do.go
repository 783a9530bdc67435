package breaker

import (
	"context"
	"errors"

	"github.com/retrywise/retrywise/internal/failure"
)

// Do runs attempt and records its result with Done (Neutral when attempt says neutral or ctx is done); an open b returns its breaker-open failure, shortCircuited, without calling attempt, and a nil b only runs attempt.
func (b *Breaker) Do(ctx context.Context, attempt func() (f *failure.Failure, neutral bool)) (f *failure.Failure, shortCircuited bool) {
	if b == nil {
		f, _ = attempt()
		return f, false
	}
	t, err := b.Allow()
	var oe *OpenError
	if errors.As(err, &oe) {
		return oe.Failure(b.clk.Now()), true
	}
	f, neutral := attempt()
	r := ResultOf(f)
	if neutral || ctx.Err() != nil {
		r = Neutral
	}
	reason := ""
	if f != nil {
		reason = f.Class.String() + ": " + f.Reason
	}
	b.Done(t, r, reason)
	return f, false
}
