package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/redact"
)

// noise is a reader of n bytes of unrecognisable lines ending with tail.
type noise struct {
	n    int64
	tail string
	read int64
}

var noiseChunk = bytes.Repeat([]byte("building module 1234 of 9999 ...\n"), 2000)

func (z *noise) Read(p []byte) (int, error) {
	if z.read >= z.n+int64(len(z.tail)) {
		return 0, io.EOF
	}
	if z.read < z.n {
		k := copy(p[:min(int64(len(p)), z.n-z.read)], noiseChunk)
		z.read += int64(k)
		return k, nil
	}
	k := copy(p, z.tail[z.read-z.n:])
	z.read += int64(k)
	return k, nil
}

// TestClassifyBoundedStdin: classify reads 200 MB of stdin in bounded memory
// and classifies its tail.
func TestClassifyBoundedStdin(t *testing.T) {
	in := &noise{n: 200 << 20, tail: " ! [rejected]        main -> main (non-fast-forward)\nerror: failed to push some refs\n"}
	var out, errb bytes.Buffer
	c := &Command{Stdin: in, Stdout: &out, Stderr: &errb, Env: os.Environ(), Clock: clock.NewFake(testStart, true), Version: "test", Rand: noJitter}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code := c.Main(context.Background(), []string{"retrywise", "classify", "--tool", "git"})
	runtime.ReadMemStats(&after)
	if code != exitcode.OK || !strings.Contains(out.String(), "git-non-fast-forward") {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if in.read != in.n+int64(len(in.tail)) {
		t.Errorf("read %d bytes of %d", in.read, in.n+int64(len(in.tail)))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("classify allocated %d MiB for 200 MiB of input; want a bounded tail", alloc>>20)
	}
	if !strings.Contains(errb.String(), "last 64 KiB") {
		t.Errorf("stderr does not say the input was cut:\n%s", errb.String())
	}
}

// TestReadTail: readTail keeps at most its limit, from the first whole
// line of the tail, and reads its input to the end.
func TestReadTail(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		limit     int
		want      string
		wantTotal int64
	}{
		{"empty", "", 8, "", 0},
		{"under the limit", "abc\n", 8, "abc\n", 4},
		{"at the limit", "1234567\n", 8, "1234567\n", 8},
		{"over: from the first whole line", "aaaa\nbbbb\ncc\n", 8, "cc\n", 13},
		{"over, no line break in the tail: the cut marked", "aaaaaaaaaaaaaaaaaaaa", 8, redact.Cut + "aaaaaaaa", 20},
		{"over, the line break ends the tail: the cut marked", "aaaaaaaaaaaaaaaaaaa\n", 8, redact.Cut + "aaaaaaa\n", 20},
		{"over, the tail starts a line", "aaaaaaaaaaa\nbbbbbbb", 8, "bbbbbbb", 19},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, total, err := readTail(strings.NewReader(tt.in), tt.limit)
			if err != nil || got != tt.want || total != tt.wantTotal {
				t.Errorf("readTail = %q, %d, %v; want %q, %d", got, total, err, tt.want, tt.wantTotal)
			}
		})
	}
	in := &noise{n: 10 << 20, tail: "the end\n"}
	got, total, err := readTail(in, classifyTail)
	if err != nil || len(got) > classifyTail || !strings.HasSuffix(got, "the end\n") || total != in.n+8 {
		t.Errorf("10 MiB: kept %d bytes (limit %d), total %d, err %v, tail %q", len(got), classifyTail, total, err, got[max(len(got)-20, 0):])
	}
}
