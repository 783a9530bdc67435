package execstep

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
)

// StdoutMode says what a retried command's stdout becomes.
type StdoutMode string

// The stdout modes.
const (
	// StdoutLive relays every attempt's stdout as it comes; when a failed
	// attempt had written to stdout, the next attempt is preceded by a
	// separator line on stderr, since its consumer got an incomplete copy.
	StdoutLive StdoutMode = "live"
	// StdoutFinal spools each attempt's stdout and writes only the
	// succeeding attempt's (or, when all fail, the last attempt's), once:
	// output is never replayed into the product.
	StdoutFinal StdoutMode = "final"
)

const (
	// DefaultStdoutMax bounds an attempt's spooled stdout in final mode (1 GiB).
	DefaultStdoutMax = 1 << 30
	// spoolMemory is what a spool keeps in memory before it moves to a temporary file (1 MiB).
	spoolMemory = 1 << 20
)

// ParseStdoutMode parses live or final.
func ParseStdoutMode(s string) (StdoutMode, error) {
	switch StdoutMode(s) {
	case StdoutLive, StdoutFinal:
		return StdoutMode(s), nil
	}
	return "", fmt.Errorf("invalid --stdout %q: want auto, live or final", s)
}

// spool holds one attempt's stdout: in memory up to spoolMemory, then in a
// temporary file in dir, at most max bytes; what comes beyond max is
// dropped and marks the spool overflowed.
type spool struct {
	mu         sync.Mutex
	dir        string
	max        int64
	mem        bytes.Buffer
	file       *os.File
	n          int64
	overflowed bool
	err        error
}

func newSpool(dir string, max int64) *spool { return &spool{dir: dir, max: max} }

// Write keeps p, up to the bound; it never fails the child's write, so a
// child is not killed by a broken pipe because retrywise holds its output.
func (s *spool) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	if s.err != nil || s.overflowed {
		return n, nil
	}
	if left := s.max - s.n; int64(len(p)) > left {
		p, s.overflowed = p[:left], true
	}
	if s.file == nil && int64(s.mem.Len()+len(p)) > spoolMemory {
		f, err := os.CreateTemp(s.dir, "retrywise-stdout-")
		if err != nil {
			s.err = fmt.Errorf("cannot spool stdout: %w", err)
			return n, nil
		}
		os.Remove(f.Name()) // unlinked: gone with the file, whatever happens
		if _, err := f.Write(s.mem.Bytes()); err != nil {
			f.Close()
			s.err = fmt.Errorf("cannot spool stdout: %w", err)
			return n, nil
		}
		s.file = f
		s.mem = bytes.Buffer{}
	}
	var err error
	if s.file != nil {
		_, err = s.file.Write(p)
	} else {
		s.mem.Write(p)
	}
	if err != nil {
		s.err = fmt.Errorf("cannot spool stdout: %w", err)
	}
	s.n += int64(len(p))
	return n, nil
}

// WriteTo copies the spooled output to w.
func (s *spool) WriteTo(w io.Writer) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return s.mem.WriteTo(w)
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	// One large buffer: the copy is a few hundred reads of the spool, not
	// tens of thousands (w's own ReadFrom, such as io.Discard's, reads 8 KiB
	// at a time, so it is bypassed).
	return io.CopyBuffer(struct{ io.Writer }{w}, s.file, make([]byte, spoolMemory))
}

// close releases the spool's file.
func (s *spool) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
	s.mem = bytes.Buffer{}
}

// counter counts the bytes written through it.
type counter struct {
	w  io.Writer
	mu sync.Mutex
	n  int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.mu.Lock()
	c.n += int64(n)
	c.mu.Unlock()
	return n, err
}

func (c *counter) written() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
