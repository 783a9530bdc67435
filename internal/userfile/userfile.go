// Package userfile opens, reads and writes the files a user names
// (--report, --summary, --rules, --data-file, the job file, the runner's
// GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH and GITHUB_STEP_SUMMARY): any of
// them may be a FIFO or a device, whose open waits for the other end and
// whose reads and writes may wait for ever. Every call here is abandoned
// when its context ends, so a signal stops retrywise within a second
// whatever the file; FIFOs and devices are not refused (--report
// /dev/stdout, or a FIFO whose reader comes later, work as before).
package userfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
)

// FinishGrace bounds the writes that record a run ended by a signal (its
// JSON report, its summary, the runner's file commands): a reader of a
// FIFO that does not take them within it loses them. It is wall-clock time:
// it waits for another process, not for retrywise's schedule.
const FinishGrace = 500 * time.Millisecond

// WaitError is an open, read or write abandoned because its context ended
// while the file waited (a FIFO with no one at the other end, a reader that
// does not read).
type WaitError struct {
	// Op is "open", "read" or "write".
	Op string
	// Path is the file.
	Path string
	// Cause is the context's cause (an *interrupt.Signal for a signal).
	Cause error
	// Before is true when the context had ended before the call: nothing
	// waited, nothing was tried.
	Before bool
}

// Error says what waited, and for what.
func (e *WaitError) Error() string {
	if e.Before {
		return fmt.Sprintf("%s: not %s: %v", e.Path, map[string]string{"open": "opened", "read": "read", "write": "written"}[e.Op], e.Cause)
	}
	other := "a reader"
	if e.Op == "read" {
		other = "a writer"
	}
	what := map[string]string{
		"open":  "opening it waited for " + other + " (a FIFO or device with no one at its other end)",
		"read":  "reading it waited for " + other + " that sent nothing",
		"write": "writing it waited for " + other + " that took nothing",
	}[e.Op]
	return fmt.Sprintf("%s: %s; abandoned: %v", e.Path, what, e.Cause)
}

// Unwrap returns the context's cause.
func (e *WaitError) Unwrap() error { return e.Cause }

// waitError returns the WaitError of op on path, abandoned as ctx ended.
func waitError(ctx context.Context, op, path string) error {
	return &WaitError{Op: op, Path: path, Cause: context.Cause(ctx)}
}

// Open opens path as os.OpenFile does, abandoned when ctx ends first.
// Opening a FIFO waits for its other end (a reader to write to it, a
// writer to read it) and a device may wait too, in the kernel, where no
// signal reaches: the open is made on a goroutine of its own, which is
// left behind when ctx ends. A FIFO's blocked open is then released by
// opening its other end without waiting, and the file it returns closed,
// so no thread stays blocked. The error is then a *WaitError.
//
// The file's reads and writes are on Go's poller when it is a FIFO, a
// pipe or a terminal: Read, Write and Append below abandon them too.
func Open(ctx context.Context, path string, flag int, perm os.FileMode) (*os.File, error) {
	if ctx.Err() != nil {
		return nil, &WaitError{Op: "open", Path: path, Cause: context.Cause(ctx), Before: true}
	}
	type result struct {
		f   *os.File
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := os.OpenFile(path, flag, perm)
		done <- result{f, err}
	}()
	select {
	case r := <-done:
		return r.f, r.err
	case <-ctx.Done():
	}
	go func() {
		// Release a FIFO's open: open its other end without waiting
		// (a reader's open never waits; a writer's succeeds now that
		// the blocked reader is there).
		other := os.O_RDONLY | syscall.O_NONBLOCK
		if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
			other = os.O_WRONLY | syscall.O_NONBLOCK
		}
		var release *os.File
		if st, err := os.Stat(path); err == nil && st.Mode()&fs.ModeNamedPipe != 0 {
			release, _ = os.OpenFile(path, other, 0)
		}
		if r := <-done; r.f != nil {
			r.f.Close()
		}
		if release != nil {
			release.Close()
		}
	}()
	return nil, waitError(ctx, "open", path)
}

// ReadFile reads the file at path, at most limit+1 bytes (so that the
// caller can tell a file longer than limit; a negative limit reads it
// all), abandoned when ctx ends first: its open and its reads (a FIFO
// whose writer never writes).
func ReadFile(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, err := Open(ctx, path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r io.Reader = f
		if limit >= 0 {
			r = io.LimitReader(f, limit+1)
		}
		b, err := io.ReadAll(r)
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-ctx.Done():
		f.SetReadDeadline(time.Unix(1, 0)) // wakes a read on the poller
		return nil, waitError(ctx, "read", path)
	}
}

// AbandonReads wakes f's reads where the poller can (a FIFO, a pipe, a
// terminal) once ctx ends, so that a reader that waits for a writer
// returns; call stop when the reading is done.
func AbandonReads(ctx context.Context, f *os.File) (stop func() bool) {
	return context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Unix(1, 0)) })
}

// Write writes b to f, abandoned when ctx ends first (a FIFO whose reader
// does not read): the write is then woken where the poller can (a FIFO, a
// pipe, a terminal) and f should be closed.
func Write(ctx context.Context, f *os.File, b []byte) error {
	if ctx.Err() != nil {
		return &WaitError{Op: "write", Path: f.Name(), Cause: context.Cause(ctx), Before: true}
	}
	done := make(chan error, 1)
	go func() {
		_, err := f.Write(b)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		f.SetWriteDeadline(time.Unix(1, 0)) // wakes a write on the poller
		return waitError(ctx, "write", f.Name())
	}
}

// WriteClose writes b to f and closes it, abandoned when ctx ends first;
// it returns the first error.
func WriteClose(ctx context.Context, f *os.File, b []byte) error {
	err := Write(ctx, f, b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Append appends b to the file at path, creating it (0644) when it is not
// there, as the runner's file commands are written; the open and the write
// are abandoned when ctx ends first.
func Append(ctx context.Context, path string, b []byte) error {
	f, err := Open(ctx, path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return WriteClose(ctx, f, b)
}

// Finishing returns the context of the writes that record a run (its
// reports, the runner's file commands): ctx itself while it runs (a signal
// abandons them at once), and, once ctx has ended (the run was cancelled,
// its record is still due), a context of its own that ends FinishGrace
// later. Call cancel when the writes are done.
func Finishing(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Err() == nil {
		return ctx, func() {}
	}
	return clock.WithTimeout(context.WithoutCancel(ctx), clock.Real{}, FinishGrace, fmt.Errorf("%w; the record of the run had %s more", context.Cause(ctx), FinishGrace))
}

// RemoveIfRegular removes path when it is a regular file: a report file
// made for a command that failed before it ran, never a FIFO or a device
// the user named (--report /dev/stdout).
func RemoveIfRegular(path string) {
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() {
		os.Remove(path)
	}
}

// IsWait reports whether err is an abandoned wait (*WaitError).
func IsWait(err error) bool {
	var w *WaitError
	return errors.As(err, &w)
}
