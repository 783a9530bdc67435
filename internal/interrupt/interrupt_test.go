package interrupt

import (
	"context"
	"errors"
	"syscall"
	"testing"
)

func TestNotifyContextCancelsWithSignalCause(t *testing.T) {
	ctx, stop := NotifyContext(context.Background())
	defer stop()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	sig, ok := FromContext(ctx)
	if !ok || sig != syscall.SIGINT {
		t.Fatalf("FromContext = %v, %v; want SIGINT", sig, ok)
	}
	var s *Signal
	if !errors.As(context.Cause(ctx), &s) || s.ExitCode() != 130 || s.Error() != "received SIGINT" {
		t.Errorf("cause = %v", context.Cause(ctx))
	}
}

func TestStopReleases(t *testing.T) {
	ctx, stop := NotifyContext(context.Background())
	stop()
	if _, ok := FromContext(ctx); ok {
		t.Error("a stopped context reports a signal")
	}
	if (&Signal{Sig: syscall.SIGTERM}).ExitCode() != 143 {
		t.Error("SIGTERM must map to 143")
	}
}
