// Package interrupt turns SIGINT and SIGTERM into context cancellation whose
// cause names the signal, so steps can forward it and the exit code can say it.
package interrupt

import (
	"context"
	"errors"
	"os"
	"os/signal"
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
// SIGINT or SIGTERM; stop releases the signal handler.
func NotifyContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancel(&Signal{Sig: s.(syscall.Signal)})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(context.Canceled)
	}
}
