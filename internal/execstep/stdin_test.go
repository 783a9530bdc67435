package execstep

import (
	"bytes"
	"github.com/retrywise/retrywise/internal/redact"
	"io"
	"strings"
	"testing"
)

func TestReplayGivesEveryReaderTheSameBytes(t *testing.T) {
	input := strings.Repeat("0123456789", 10000)
	r := newReplay(strings.NewReader(input), 1<<20)
	first := r.reader()
	// The first reader stops half way, as a child that exits early would.
	half := make([]byte, len(input)/2)
	if _, err := io.ReadFull(first, half); err != nil {
		t.Fatal(err)
	}
	first.close()
	if _, err := first.Read(make([]byte, 1)); err != io.ErrClosedPipe {
		t.Errorf("read after close = %v, want ErrClosedPipe", err)
	}
	second, err := io.ReadAll(r.reader())
	if err != nil || string(second) != input {
		t.Fatalf("second reader got %d bytes (err %v), want %d", len(second), err, len(input))
	}
	if r.Overflowed() {
		t.Error("overflowed below the limit")
	}
}

func TestReplayOverflow(t *testing.T) {
	input := bytes.Repeat([]byte("x"), 100)
	r := newReplay(bytes.NewReader(input), 64)
	got, err := io.ReadAll(r.reader())
	if err != nil || !bytes.Equal(got, input) {
		t.Fatalf("the first reader must still get all %d bytes; got %d (err %v)", len(input), len(got), err)
	}
	if !r.Overflowed() {
		t.Error("input beyond the limit was not flagged")
	}
}

func TestReplayReadsNothingUntilAsked(t *testing.T) {
	src := &countingReader{r: strings.NewReader("data")}
	r := newReplay(src, 64)
	rr := r.reader()
	rr.close()
	if src.n != 0 {
		t.Errorf("source read %d times before any reader asked", src.n)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) { c.n++; return c.r.Read(p) }

func TestTailKeepsLastBytes(t *testing.T) {
	tl := newTail(8)
	tl.Write([]byte("abcdef"))
	tl.Write([]byte("ghij"))
	if got := tl.String(); got != redact.Cut+"cdefghij" {
		t.Errorf("tail = %q", got)
	}
	tl.Write([]byte("0123456789"))
	if got := tl.String(); got != redact.Cut+"23456789" {
		t.Errorf("tail = %q", got)
	}
}
