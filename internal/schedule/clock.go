package schedule

import (
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/retrywise/retrywise/internal/clock"
)

// RunClock returns c as the project's clock.Clock, for the jobs runner of
// a scheduled run (jobs.Runner.Clock), so that its retry waits and
// timeouts follow the scheduler's clock, a fake one in tests included.
func RunClock(c clockwork.Clock) clock.Clock { return runClock{c} }

// runClock is a clockwork.Clock seen as a clock.Clock.
type runClock struct{ c clockwork.Clock }

// Now returns the clockwork clock's time.
func (r runClock) Now() time.Time { return r.c.Now() }

// NewTimer returns a clockwork timer.
func (r runClock) NewTimer(d time.Duration) clock.Timer { return runTimer{r.c.NewTimer(d)} }

// runTimer is a clockwork.Timer seen as a clock.Timer.
type runTimer struct{ t clockwork.Timer }

// C returns the timer's channel.
func (r runTimer) C() <-chan time.Time { return r.t.Chan() }

// Stop stops the timer.
func (r runTimer) Stop() bool { return r.t.Stop() }
