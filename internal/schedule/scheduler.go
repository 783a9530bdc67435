package schedule

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/go-co-op/gocron/v2"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/cronexpr"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/interrupt"
)

// ShutdownCode is what Serve and Once return when the shutdown cut a run
// short: 143, as for SIGTERM.
const ShutdownCode = exitcode.Terminated

// DefaultGrace is how long a running job may go on after the shutdown when
// Grace is 0.
const DefaultGrace = 20 * time.Second

// timeLayout writes times in log lines.
const timeLayout = time.RFC3339

// Scheduler runs jobs when their triggers say, one run of a job at a time,
// saving each run's report in History.
type Scheduler struct {
	// Triggers are the scheduled jobs.
	Triggers []Trigger
	// Run runs one job and returns its exit code and its report (JSON),
	// which the scheduler saves in History; nil report: nothing saved.
	Run func(ctx context.Context, job string) (code int, report []byte)
	// Clock drives the cron times, the jitter, the grace and the wait for
	// the history's lock; nil means the wall clock.
	Clock clock.Clock
	// History holds the reports and the lock; nil means no lock, no saving
	// and no history (no catch-up; Once sees every job as never run).
	History *History
	// Grace is how long a running job may go on after the shutdown before
	// its context is cancelled; 0 means DefaultGrace.
	Grace time.Duration
	// Log receives one line per event (start, end, skip, save), one call at
	// a time; nil means none.
	Log func(string)
	// Rand returns the start jitter, in [0, max]; nil means uniformly at random.
	Rand func(max time.Duration) time.Duration
	// LockWait is how long Once, asked for one job, waits for the
	// history's lock while another process holds it (History.LockWithin);
	// 0 means it does not wait. Plain Once and Serve never wait.
	LockWait time.Duration
}

// GraceError is the cause of a run's context when the shutdown's grace is over.
type GraceError struct {
	// Grace is the grace that ran out.
	Grace time.Duration
	// Cause is the shutdown's cause (a signal, when the lead maps one).
	Cause error
}

// Error says the grace is over.
func (e *GraceError) Error() string {
	return fmt.Sprintf("the scheduler is shutting down and the %s grace is over (%v)", e.Grace, e.Cause)
}

// Unwrap returns the shutdown's cause.
func (e *GraceError) Unwrap() error { return e.Cause }

// session is the state of one Serve or Once: which jobs run, whether the
// shutdown began, and the runs' context.
type session struct {
	s     *Scheduler
	clock clock.Clock
	grace time.Duration
	// stop is the caller's context: done when the shutdown begins.
	stop context.Context
	// runCtx is the runs' context, cancelled by cut once the grace is over.
	runCtx context.Context
	cut    context.CancelCauseFunc

	logMu sync.Mutex // one log line at a time

	mu       sync.Mutex
	running  map[string]time.Time // job → since when (its jitter included)
	stopping bool
	runs     sync.WaitGroup
}

// session starts the state of a Serve or Once under ctx.
func (s *Scheduler) session(ctx context.Context) *session {
	ss := &session{s: s, clock: s.Clock, grace: s.Grace, stop: ctx, running: map[string]time.Time{}}
	if ss.clock == nil {
		ss.clock = clock.Real{}
	}
	if ss.grace <= 0 {
		ss.grace = DefaultGrace
	}
	// The runs hear of a signal when their grace is over (cut), not before.
	ss.runCtx, ss.cut = context.WithCancelCause(interrupt.Detach(context.WithoutCancel(ctx)))
	return ss
}

// logf writes one log line.
func (ss *session) logf(format string, args ...any) {
	if ss.s.Log != nil {
		line := fmt.Sprintf(format, args...)
		ss.logMu.Lock()
		defer ss.logMu.Unlock()
		ss.s.Log(line)
	}
}

// check reports a Scheduler that cannot run: no Run, a bad trigger, a job
// with two triggers.
func (ss *session) check() error {
	if ss.s.Run == nil {
		return errors.New("schedule: no Run")
	}
	seen := map[string]bool{}
	for _, t := range ss.s.Triggers {
		if err := t.Check(); err != nil {
			return err
		}
		if seen[t.Job] {
			return &TriggerError{Job: t.Job, Err: errors.New("two triggers for one job")}
		}
		seen[t.Job] = true
	}
	return nil
}

// acquire marks t's job running unless it is (the start is skipped and
// logged with why) or the shutdown began; release unmarks it.
func (ss *session) acquire(t Trigger, why string) (release func(), ok bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.stopping {
		ss.logf("not started: job %s (%s): shutting down", t.Job, why)
		return nil, false
	}
	if since, busy := ss.running[t.Job]; busy {
		ss.logf("skipped: job %s (%s) is still running since %s", t.Job, why, since.Format(timeLayout))
		return nil, false
	}
	ss.running[t.Job] = ss.clock.Now()
	ss.runs.Add(1)
	return sync.OnceFunc(func() {
		ss.mu.Lock()
		delete(ss.running, t.Job)
		ss.mu.Unlock()
		ss.runs.Done()
	}), true
}

// jitter waits t's start jitter on the clock; false when the shutdown
// began first.
func (ss *session) jitter(t Trigger) bool {
	if t.StartJitter <= 0 {
		return true
	}
	var d time.Duration
	if ss.s.Rand != nil {
		d = min(max(ss.s.Rand(t.StartJitter), 0), t.StartJitter)
	} else {
		d = time.Duration(rand.Int64N(int64(t.StartJitter) + 1))
	}
	if d == 0 {
		return true
	}
	ss.logf("job %s: start jitter %s", t.Job, d)
	timer := ss.clock.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ss.stop.Done():
		ss.logf("not started: job %s: shutting down during its start jitter", t.Job)
		return false
	case <-timer.C():
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.stopping {
		ss.logf("not started: job %s: shutting down", t.Job)
		return false
	}
	ss.running[t.Job] = ss.clock.Now()
	return true
}

// run runs t's job once, saves its report, releases the job (acquired
// before) and logs the end, last, so that a line "ended: job J" means J
// may start again.
func (ss *session) run(t Trigger, why string, release func()) int {
	start := ss.clock.Now()
	ss.logf("started: job %s (%s)", t.Job, why)
	code, report := ss.s.Run(ss.runCtx, t.Job)
	took := ss.clock.Now().Sub(start)
	saved := ""
	if ss.s.History != nil && report != nil {
		// Reports dated after now first, so that they take no place of the
		// newest kept.
		dropped, derr := ss.s.History.DropFuture(t.Job, ss.clock.Now())
		var path string
		var err error
		var refused *EntryError
		if errors.As(derr, &refused) {
			// The job's folder is a link (or not a folder): Save would
			// refuse it too; said once.
			err, derr = derr, nil
		} else {
			path, err = ss.s.History.Save(t.Job, start, report)
		}
		switch {
		case err != nil && path == "":
			saved = fmt.Sprintf("; the report was not saved: %v", err)
		case err != nil:
			saved = fmt.Sprintf("; saved %s (%v)", path, err)
		default:
			saved = "; saved " + path
		}
		if derr != nil {
			saved += fmt.Sprintf("; %v", derr)
		}
		if len(dropped) > 0 {
			saved += fmt.Sprintf("; removed %d report(s) dated in the future (%s): the clock jumped back", len(dropped), strings.Join(dropped, ", "))
		}
	}
	release()
	ss.logf("ended: job %s: exit %d after %s%s", t.Job, code, took, saved)
	return code
}

// scheduled is one start of a trigger: skipped if its job is running,
// then its jitter, then the run.
func (ss *session) scheduled(t Trigger, why string) {
	release, ok := ss.acquire(t, why)
	if !ok {
		return
	}
	if !ss.jitter(t) {
		release()
		return
	}
	ss.run(t, why, release)
}

// drain begins the shutdown: no run starts any more; the running ones get
// the grace on the clock, then their context is cancelled. It returns once
// every run has ended, and whether one was cut.
func (ss *session) drain() (cut bool) {
	ss.mu.Lock()
	ss.stopping = true
	n := len(ss.running)
	ss.mu.Unlock()
	done := make(chan struct{})
	go func() {
		ss.runs.Wait()
		close(done)
	}()
	if n == 0 {
		<-done
		return false
	}
	ss.logf("shutting down: %d running, %s grace", n, ss.grace)
	timer := ss.clock.NewTimer(ss.grace)
	defer timer.Stop()
	select {
	case <-done:
		return false
	case <-timer.C():
	}
	ss.logf("shutting down: the %s grace is over; cancelling the running jobs", ss.grace)
	ss.cut(&GraceError{Grace: ss.grace, Cause: context.Cause(ss.stop)})
	<-done
	return true
}

// lock takes the history's lock; unlock is a no-op without History.
func (ss *session) lock() (unlock func(), err error) {
	if ss.s.History == nil {
		return func() {}, nil
	}
	return ss.s.History.Lock()
}

// checkHistory refuses a history whose job folders are not folders (a
// symbolic link, a file): the runs' reports could not be saved.
func (ss *session) checkHistory() error {
	if ss.s.History == nil {
		return nil
	}
	for _, t := range ss.s.Triggers {
		var ee *EntryError
		if err := ss.s.History.Check(t.Job); errors.As(err, &ee) {
			return err
		}
	}
	return nil
}

// lockWithin takes the history's lock, waiting for it up to LockWait on
// the clock while another process holds it, and logs the wait once.
func (ss *session) lockWithin(ctx context.Context, job string) (unlock func(), err error) {
	if ss.s.History == nil {
		return func() {}, nil
	}
	return ss.s.History.LockWithin(ctx, ss.clock, ss.s.LockWait, func(le *LockedError) {
		ss.logf("job %s: waiting up to %s for the history's lock: %v", job, ss.s.LockWait, le)
	})
}

// last is the start of job's newest report (none without History).
func (ss *session) last(job string) (time.Time, bool) {
	if ss.s.History == nil {
		return time.Time{}, false
	}
	last, ok, err := ss.s.History.LastAt(job, ss.clock.Now())
	if err != nil {
		ss.logf("job %s: no history: %v", job, err)
		return time.Time{}, false
	}
	return last, ok
}

// Serve runs the triggers until ctx is done: one gocron job per cron line,
// in the trigger's zone (a CRON_TZ= prefix), each start after its jitter.
// A job never overlaps itself: a start while the job runs (from any of its
// lines, or its catch-up) is skipped and logged. This is the scheduler's
// own guard, not gocron's singleton mode, which is per line, does not see
// the catch-up, and frees its slot only after the run's function returned.
// At the start, a catch-up trigger whose run was missed runs once. When ctx is done no run starts, running jobs get Grace, then their
// context is cancelled. It returns 0, ShutdownCode when a run was cut,
// exitcode.Config for a bad trigger or history (a symbolic link or
// another kind of file where the lock or a job's folder should be: an
// *EntryError), and for a history folder another process holds (the log
// names its pid).
func (s *Scheduler) Serve(ctx context.Context) int {
	ss := s.session(ctx)
	defer ss.cut(nil)
	if err := ss.check(); err != nil {
		ss.logf("not serving: %v", err)
		return exitcode.Config
	}
	unlock, err := ss.lock()
	var locked *LockedError
	switch {
	case errors.As(err, &locked):
		ss.logf("not serving: another scheduler uses this history: %v", err)
		return exitcode.Config
	case err != nil:
		ss.logf("not serving: %v", err)
		return exitcode.Config
	}
	defer unlock()
	if err := ss.checkHistory(); err != nil {
		ss.logf("not serving: %v", err)
		return exitcode.Config
	}

	sched, err := gocron.NewScheduler(
		gocron.WithClock(gocronClock{ss.clock}),
		gocron.WithLocation(time.UTC),
	)
	if err != nil {
		ss.logf("not serving: %v", err)
		return exitcode.Config
	}
	defer sched.Shutdown() //nolint:errcheck // every run has ended by then
	for _, t := range s.Triggers {
		for _, expr := range t.Cron {
			zoned, err := cronexpr.WithZone(expr, t.Location)
			if err == nil {
				t, why := t, "cron "+expr
				_, err = sched.NewJob(
					gocron.CronJob(zoned, false),
					gocron.NewTask(func() {
						// gocron hands the task over before its loop has
						// recorded the start (next runs, last run); a
						// round trip through the loop waits for that, so
						// that the next slot is computed before anything
						// here can take time, a fake clock's Advance included.
						sched.Jobs()
						ss.scheduled(t, why)
					}),
					gocron.WithName(t.Job),
					gocron.WithTags(expr),
				)
			}
			if err != nil {
				ss.logf("not serving: job %s: cron %q: %v", t.Job, expr, err)
				return exitcode.Config
			}
		}
	}

	now := ss.clock.Now()
	for _, t := range s.Triggers {
		if !t.CatchUp {
			continue
		}
		last, hasLast := ss.last(t.Job)
		due, ok := firstDue(t, last, hasLast, now)
		if !ok {
			continue
		}
		why := fmt.Sprintf("catch-up: the run due at %s was missed", due.In(zone(t)).Format(timeLayout))
		if release, ok := ss.acquire(t, why); ok {
			go func() {
				if !ss.jitter(t) {
					release()
					return
				}
				ss.run(t, why, release)
			}()
		}
	}
	for _, t := range s.Triggers {
		ss.logf("scheduled: job %s: cron %q in %s; next at %s", t.Job, t.Cron, zone(t), Next(t, now).In(zone(t)).Format(timeLayout))
	}
	sched.Start()

	<-ctx.Done()
	if ss.drain() {
		return ShutdownCode
	}
	return exitcode.OK
}

// zone is t's zone, UTC when unset.
func zone(t Trigger) *time.Location {
	if t.Location == nil {
		return time.UTC
	}
	return t.Location
}
