package schedule

import (
	"context"
	"errors"
	"strings"

	"github.com/retrywise/retrywise/internal/exitcode"
)

// Once runs, one after the other, each trigger due since its job's last
// report (Due), or only the job named only whatever its cron, without
// start jitter; it is for a system cron or a CI schedule calling
// "retrywise schedule --once". Another process holding the history's lock
// (a scheduler serving it) is a logged skip and 0, unless only names a
// job: that job is asked for now, so Once waits for the lock up to
// LockWait (trying again every LockPoll on Clock) and, still held,
// logs the lock and its holder and returns exitcode.Transient (75),
// never a skip; a signal during the wait returns its code at once. It returns 0 when every
// run succeeded, else the first failing run's code; exitcode.Usage when
// only names no trigger. When ctx ends (retrywise was signalled) no run
// starts and the running one is cut at once, without Grace: its context is
// cancelled with ctx's cause, so its steps forward the signal and stop, and
// its report is saved; Once then returns the signal's code (130 for SIGINT,
// 143 for SIGTERM; 130 for a cancellation without a signal). Grace is the
// serving scheduler's (Serve): a --once run is the caller's to bound.
func (s *Scheduler) Once(ctx context.Context, only string) int {
	ss := s.session(ctx)
	defer ss.cut(nil)
	if err := ss.check(); err != nil {
		ss.logf("not run: %v", err)
		return exitcode.Config
	}
	var picked []Trigger
	if only != "" {
		for _, t := range s.Triggers {
			if t.Job == only {
				picked = append(picked, t)
			}
		}
		if len(picked) == 0 {
			names := make([]string, len(s.Triggers))
			for i, t := range s.Triggers {
				names[i] = t.Job
			}
			ss.logf("not run: no scheduled job %q (scheduled: %s)", only, strings.Join(names, ", "))
			return exitcode.Usage
		}
	}
	var unlock func()
	var err error
	if only == "" {
		unlock, err = ss.lock()
	} else {
		unlock, err = ss.lockWithin(ctx, only)
	}
	var locked *LockedError
	switch {
	case errors.As(err, &locked) && only == "":
		ss.logf("skipped: another scheduler uses this history: %v", err)
		return exitcode.OK
	case errors.As(err, &locked):
		ss.logf("not run: job %s: the history's lock is still held after waiting %s (--lock-wait): %v", only, s.LockWait, err)
		return exitcode.Transient
	case ctx.Err() != nil && errors.Is(err, context.Cause(ctx)):
		ss.logf("not run: job %s: stopped while waiting for the history's lock", only)
		return exitcode.ForCause(ctx)
	case err != nil:
		ss.logf("not run: %v", err)
		return exitcode.Config
	}
	defer unlock()
	if err := ss.checkHistory(); err != nil {
		ss.logf("not run: %v", err)
		return exitcode.Config
	}

	now := ss.clock.Now()
	if only == "" {
		for _, t := range s.Triggers {
			last, hasLast := ss.last(t.Job)
			if Due(t, last, hasLast, now) {
				picked = append(picked, t)
				continue
			}
			ss.logf("not due: job %s; next at %s", t.Job, Next(t, now).In(zone(t)).Format(timeLayout))
		}
	}

	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			ss.mu.Lock()
			ss.stopping = true
			ss.mu.Unlock()
			ss.cut(context.Cause(ctx))
		case <-finished:
		}
	}()
	first := exitcode.OK
	for _, t := range picked {
		if ctx.Err() != nil {
			break
		}
		why := "once: due"
		if only != "" {
			why = "once: asked for"
		}
		release, ok := ss.acquire(t, why)
		if !ok {
			break // the shutdown began
		}
		code := ss.run(t, why, release)
		if code != exitcode.OK && first == exitcode.OK {
			first = code
		}
	}
	close(finished)
	if ctx.Err() != nil {
		return exitcode.ForCause(ctx)
	}
	return first
}
