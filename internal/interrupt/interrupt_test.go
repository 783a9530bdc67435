package interrupt

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestNotifyContextCancelsWithSignalCause delivers each real signal to this
// process: the context is cancelled with a *Signal naming it, whose exit code
// is the shell's 128 plus the signal number.
func TestNotifyContextCancelsWithSignalCause(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{
		{syscall.SIGINT, "received SIGINT", 130},
		{syscall.SIGTERM, "received SIGTERM", 143},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, stop := NotifyContext(context.Background())
			defer stop()
			if err := syscall.Kill(syscall.Getpid(), tc.sig); err != nil {
				t.Fatal(err)
			}
			<-ctx.Done()
			sig, ok := FromContext(ctx)
			if !ok || sig != tc.sig {
				t.Fatalf("FromContext = %v, %v; want %v", sig, ok, tc.sig)
			}
			var s *Signal
			if !errors.As(context.Cause(ctx), &s) || s.ExitCode() != tc.code || s.Error() != tc.name {
				t.Errorf("cause = %v, want %q with exit code %d", context.Cause(ctx), tc.name, tc.code)
			}
		})
	}
}

// TestStopReleases: stop cancels the context without a signal cause, and
// gives the signal back to its default action: a SIGTERM after stop ends the
// process, as it would without retrywise's handler. The process is a helper
// run of this test binary.
func TestStopReleases(t *testing.T) {
	if os.Getenv("INTERRUPT_HELPER") == "stop-then-sigterm" {
		ctx, stop := NotifyContext(context.Background())
		stop()
		if _, ok := FromContext(ctx); ok || ctx.Err() == nil || context.Cause(ctx) != context.Canceled {
			os.Stdout.WriteString("stopped context: cause " + context.Cause(ctx).Error() + "\n")
			os.Exit(2)
		}
		syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
		// Only reached if the signal was still caught: give it ample time to
		// be delivered, then report that the process survived it.
		<-time.After(10 * time.Second)
		os.Stdout.WriteString("survived SIGTERM after stop\n")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStopReleases$")
	cmd.Env = append(os.Environ(), "INTERRUPT_HELPER=stop-then-sigterm")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("helper ended with %v, want killed by SIGTERM (the default action)\n%s", err, out)
	}
}

// TestReceivedThroughCancelledContexts: a context derived from the signal's
// context, then cancelled for another reason (a timeout), still hears the
// signal through Received; deliver(0) cancels without announcing one.
func TestReceivedThroughCancelledContexts(t *testing.T) {
	ctx, deliver := WithSignal(context.Background())
	timed, cancel := context.WithCancelCause(ctx)
	cancel(errors.New("timeout"))
	got, sig := Received(timed)
	select {
	case <-got:
		t.Fatal("announced before any signal")
	default:
	}
	deliver(syscall.SIGTERM)
	deliver(syscall.SIGINT) // only the first counts
	<-got
	if sig() != syscall.SIGTERM {
		t.Errorf("signal %v, want SIGTERM", sig())
	}
	if s, ok := FromContext(ctx); !ok || s != syscall.SIGTERM {
		t.Errorf("FromContext = %v, %v", s, ok)
	}

	ctx, deliver = WithSignal(context.Background())
	got, _ = Received(ctx)
	deliver(0)
	<-ctx.Done()
	select {
	case <-got:
		t.Error("deliver(0) announced a signal")
	default:
	}
	if got, _ := Received(context.Background()); got != nil {
		t.Error("a context without a notifier has a channel")
	}
}

// TestDetach: a detached context does not hear the signal.
func TestDetach(t *testing.T) {
	ctx, deliver := WithSignal(context.Background())
	d := Detach(ctx)
	deliver(syscall.SIGTERM)
	if got, _ := Received(d); got != nil {
		t.Error("a detached context hears the signal")
	}
	if got, _ := Received(ctx); got == nil {
		t.Error("the signal's own context does not")
	}
}

// TestDoAbandonsABlockedRead: a read blocked on a pipe no one writes or
// closes returns the signal as soon as it comes; a read that ends returns
// its own result.
func TestDoAbandonsABlockedRead(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	ctx, deliver := WithSignal(context.Background())
	got := make(chan error, 1)
	go func() {
		got <- Do(ctx, func() error {
			_, err := r.Read(make([]byte, 10))
			return err
		})
	}()
	deliver(syscall.SIGINT)
	var s *Signal
	if err := <-got; !errors.As(err, &s) || s.Sig != syscall.SIGINT {
		t.Errorf("Do = %v, want the SIGINT", err)
	}
	if err := Do(context.Background(), func() error { return errors.New("own") }); err == nil || err.Error() != "own" {
		t.Errorf("Do = %v, want f's error", err)
	}
}
