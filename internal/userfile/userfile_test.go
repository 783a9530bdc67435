package userfile

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/interrupt"
)

// bound is the wall-clock bound of every wait here: generous, it only
// catches a hang; the events are the errors returned.
const bound = 5 * time.Second

// mkfifo makes a FIFO in a temp folder.
func mkfifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// partnerWaits counts the threads of this process that wait in the kernel
// for a FIFO's other end.
func partnerWaits() int {
	n := 0
	tasks, _ := filepath.Glob("/proc/self/task/*/wchan")
	for _, w := range tasks {
		if b, _ := os.ReadFile(w); strings.Contains(string(b), "wait_for_partner") {
			n++
		}
	}
	return n
}

// waitPartnerWaits polls /proc until partnerWaits is want, at most bound.
func waitPartnerWaits(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for partnerWaits() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d threads wait for a FIFO's other end, want %d", partnerWaits(), want)
		}
		time.Sleep(5 * time.Millisecond) // polling /proc, not waiting for behaviour
	}
}

// signalled returns a context and the function that cancels it as SIGTERM does.
func signalled() (context.Context, func()) {
	ctx, deliver := interrupt.WithSignal(context.Background())
	return ctx, func() { deliver(syscall.SIGTERM) }
}

// wantSignal fails unless err is a *WaitError of op whose cause is SIGTERM.
func wantSignal(t *testing.T, err error, op string) {
	t.Helper()
	var w *WaitError
	var s *interrupt.Signal
	if !errors.As(err, &w) || w.Op != op || !errors.As(err, &s) || s.Sig != syscall.SIGTERM {
		t.Fatalf("err = %v, want a %s abandoned on SIGTERM", err, op)
	}
}

// TestOpenFIFOAbandoned: opening a FIFO no one opens at the other end, for
// writing (a report) or reading (rules), returns at the signal, and the
// thread left in the kernel's open is released (none waits after).
func TestOpenFIFOAbandoned(t *testing.T) {
	for _, flag := range []int{os.O_WRONLY | os.O_CREATE | os.O_TRUNC, os.O_RDONLY} {
		fifo := mkfifo(t)
		ctx, signal := signalled()
		done := make(chan error, 1)
		go func() {
			f, err := Open(ctx, fifo, flag, 0o644)
			if f != nil {
				f.Close()
			}
			done <- err
		}()
		waitPartnerWaits(t, 1)
		signal()
		select {
		case err := <-done:
			wantSignal(t, err, "open")
			if !strings.Contains(err.Error(), "no one at its other end") {
				t.Errorf("the error does not say why: %v", err)
			}
		case <-time.After(bound):
			t.Fatalf("flag %#x: Open still waits after the signal", flag)
		}
		waitPartnerWaits(t, 0)
	}
}

// TestOpenFIFOReaderComesLater: a FIFO whose reader comes later is opened
// then, and what is written reaches the reader.
func TestOpenFIFOReaderComesLater(t *testing.T) {
	fifo := mkfifo(t)
	got := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	f, err := Open(context.Background(), fifo, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteClose(context.Background(), f, []byte("report")); err != nil {
		t.Fatal(err)
	}
	if b := <-got; string(b) != "report" {
		t.Fatalf("the reader got %q", b)
	}
}

// TestReadFileAbandonedWhileReading: a FIFO whose writer opened it and
// never writes: the read returns at the signal.
func TestReadFileAbandonedWhileReading(t *testing.T) {
	fifo := mkfifo(t)
	w, err := os.OpenFile(fifo, os.O_RDWR, 0) // a writer that never writes
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, signal := signalled()
	done := make(chan error, 1)
	go func() {
		_, err := ReadFile(ctx, fifo, 1<<10)
		done <- err
	}()
	// The open does not wait (a writer is there); the read does, until
	// the signal, whenever it comes.
	signal()
	select {
	case err := <-done:
		var w *WaitError
		if !errors.As(err, &w) {
			t.Fatalf("err = %v, want a *WaitError", err)
		}
	case <-time.After(bound):
		t.Fatal("ReadFile still reads after the signal")
	}
}

// TestWriteAbandoned: a FIFO whose reader never reads fills up; the write
// returns at the signal.
func TestWriteAbandoned(t *testing.T) {
	fifo := mkfifo(t)
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a reader that never reads
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := Open(context.Background(), fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, signal := signalled()
	done := make(chan error, 1)
	go func() { done <- Write(ctx, f, bytes.Repeat([]byte("x"), 4<<20)) }()
	signal()
	select {
	case err := <-done:
		var w *WaitError
		if !errors.As(err, &w) {
			t.Fatalf("err = %v, want a *WaitError", err)
		}
	case <-time.After(bound):
		t.Fatal("Write still writes after the signal")
	}
}

// TestReadFileLimit: a longer file is read to one byte past the limit; a
// negative limit reads it all.
func TestReadFileLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(context.Background(), p, 10); err != nil || len(b) != 11 {
		t.Fatalf("limit 10: %d bytes, %v", len(b), err)
	}
	if b, err := ReadFile(context.Background(), p, -1); err != nil || len(b) != 100 {
		t.Fatalf("no limit: %d bytes, %v", len(b), err)
	}
	if _, err := ReadFile(context.Background(), filepath.Join(t.TempDir(), "none"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a missing file: %v", err)
	}
}

// TestFinishing: while the run goes on, the writes have its context;
// after a signal, a grace of their own that ends by itself.
func TestFinishing(t *testing.T) {
	ctx, signal := signalled()
	f, cancel := Finishing(ctx)
	if f != ctx {
		t.Error("a running context is not the writes' own")
	}
	cancel()
	signal()
	f, cancel = Finishing(ctx)
	defer cancel()
	if f.Err() != nil {
		t.Fatal("the grace ended at once")
	}
	select {
	case <-f.Done():
		var s *interrupt.Signal
		if !errors.As(context.Cause(f), &s) {
			t.Errorf("the grace's cause %v does not name the signal", context.Cause(f))
		}
	case <-time.After(bound):
		t.Fatal("the grace never ended")
	}
}

// TestRemoveIfRegular: a regular file is removed; a link (/dev/stdout is
// one) or a FIFO is not.
func TestRemoveIfRegular(t *testing.T) {
	dir := t.TempDir()
	reg, link, fifo := filepath.Join(dir, "r"), filepath.Join(dir, "l"), mkfifo(t)
	os.WriteFile(reg, nil, 0o644)
	os.Symlink("/proc/self/fd/1", link)
	for _, p := range []string{reg, link, fifo} {
		RemoveIfRegular(p)
	}
	if _, err := os.Lstat(reg); err == nil {
		t.Error("the regular file is still there")
	}
	for _, p := range []string{link, fifo} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
}
