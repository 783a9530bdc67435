// Package interrupt turns SIGINT and SIGTERM into context cancellation whose
// cause names the signal, so steps can forward it and the exit code can say it.
package interrupt

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Signal is the cancellation cause when a signal arrived.
type Signal struct {
	// Sig is the signal received.
	Sig syscall.Signal
}

// Error returns "received SIGTERM".
func (s *Signal) Error() string { return "received " + name(s.Sig) }

// ExitCode returns 128 plus the signal number: 130 for SIGINT, 143 for SIGTERM.
func (s *Signal) ExitCode() int { return 128 + int(s.Sig) }

func name(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

// FromContext returns the signal that cancelled ctx, if any.
func FromContext(ctx context.Context) (syscall.Signal, bool) {
	var s *Signal
	if errors.As(context.Cause(ctx), &s) {
		return s.Sig, true
	}
	return 0, false
}

// NotifyContext returns a context cancelled, with a *Signal cause, on the first
// SIGINT or SIGTERM; stop releases the signal handler. The signal is also
// announced to every context derived from ctx (Received), even one that was
// cancelled before for another reason (a timeout).
func NotifyContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, deliver := WithSignal(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			deliver(s.(syscall.Signal))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		deliver(0)
	}
}

// notice is a signal's announcement, shared by every context derived from
// the one that carries it.
type notice struct {
	once sync.Once
	done chan struct{}
	sig  syscall.Signal // set before done is closed; 0 for no signal
}

type noticeKey struct{}

// WithSignal returns a copy of parent that deliver cancels with a *Signal
// cause and announces to Received; deliver(0) cancels it without a signal
// (context.Canceled) and announces nothing. Only the first call counts.
// NotifyContext uses it for real signals; tests deliver their own.
func WithSignal(parent context.Context) (ctx context.Context, deliver func(syscall.Signal)) {
	n := &notice{done: make(chan struct{})}
	cctx, cancel := context.WithCancelCause(context.WithValue(parent, noticeKey{}, n))
	return cctx, func(sig syscall.Signal) {
		n.once.Do(func() {
			if sig == 0 {
				cancel(context.Canceled)
				return
			}
			n.sig = sig
			close(n.done)
			cancel(&Signal{Sig: sig})
		})
	}
}

// Received returns a channel closed when retrywise receives its signal
// (NotifyContext, WithSignal) and a function naming it once it is closed.
// Unlike ctx.Done, it sees the signal through contexts derived from ctx
// that ended earlier for another reason: a timeout's grace still hears it.
// Without a notifier in ctx the channel is nil (never ready).
func Received(ctx context.Context) (<-chan struct{}, func() syscall.Signal) {
	n, _ := ctx.Value(noticeKey{}).(*notice)
	if n == nil {
		return nil, func() syscall.Signal { return 0 }
	}
	return n.done, func() syscall.Signal {
		select {
		case <-n.done:
			return n.sig
		default:
			return 0
		}
	}
}

// Detach returns a copy of ctx whose steps do not hear retrywise's signal
// through Received: for work that gets a grace of its own after the signal
// (the serving scheduler's running jobs), cancelled later by its owner.
func Detach(ctx context.Context) context.Context {
	return context.WithValue(ctx, noticeKey{}, (*notice)(nil))
}

// Do runs f on a goroutine of its own and returns its error, or ctx's cause
// as soon as ctx ends first: a read blocked on stdin or a pipe cannot be
// interrupted, so it is abandoned (the process is about to exit) and the
// caller is not held by it. f must not touch what the caller uses after
// Do returned early.
func Do(ctx context.Context, f func() error) error {
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
