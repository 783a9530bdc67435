package execstep

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
)

// TestSpool: memory up to 1 MiB, then a temporary file, whole at the end;
// past the bound it drops the rest and is marked overflowed, without
// failing the child's writes.
func TestSpool(t *testing.T) {
	for _, tt := range []struct {
		name     string
		size     int
		max      int64
		overflow bool
	}{
		{"small, in memory", 1000, DefaultStdoutMax, false},
		{"over the memory part, on disk", 3 << 20, DefaultStdoutMax, false},
		{"over the bound", 5000, 4096, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sp := newSpool(t.TempDir(), tt.max)
			defer sp.close()
			data := bytes.Repeat([]byte("0123456789abcdef"), tt.size/16+1)[:tt.size]
			for chunk := data; len(chunk) > 0; {
				n := min(len(chunk), 4093)
				if w, err := sp.Write(chunk[:n]); w != n || err != nil {
					t.Fatalf("write = %d, %v", w, err)
				}
				chunk = chunk[n:]
			}
			var got bytes.Buffer
			if _, err := sp.WriteTo(&got); err != nil {
				t.Fatal(err)
			}
			want := data
			if tt.overflow {
				want = data[:tt.max]
			}
			if sp.overflowed != tt.overflow || !bytes.Equal(got.Bytes(), want) {
				t.Errorf("overflowed %v, %d bytes back of %d", sp.overflowed, got.Len(), len(want))
			}
			if (sp.file != nil) != (tt.size > spoolMemory && !tt.overflow) {
				t.Errorf("file = %v for %d bytes", sp.file != nil, tt.size)
			}
		})
	}
}

// TestLineMatcher: the last match of the pattern wins, across writes that
// split lines, CRLF and a line over the bound.
func TestLineMatcher(t *testing.T) {
	c := &capture{re: regexp.MustCompile(`session id: (\S+)`)}
	m := &lineMatcher{c: c}
	for _, p := range []string{"noise\nsess", "ion id: a1\r\n", strings.Repeat("x", maxContextLine+10) + " session id: lost\n", "session id: b2"} {
		m.Write([]byte(p))
	}
	if v, _ := c.get(); v != "a1" {
		t.Errorf("before flush = %q, want a1 (the long line is cut before its match)", v)
	}
	m.flush()
	if v, ok := c.get(); !ok || v != "b2" {
		t.Errorf("after flush = %q, %v; want b2", v, ok)
	}
}

// BenchmarkStdout100MiB: a child writing 100 MiB of stdout, relayed live vs
// spooled (final) and then written once: final adds no more than a copy.
func BenchmarkStdout100MiB(b *testing.B) {
	for _, mode := range []StdoutMode{StdoutLive, StdoutFinal} {
		b.Run(string(mode), func(b *testing.B) {
			b.SetBytes(100 << 20)
			for b.Loop() {
				s, err := New(Options{Args: []string{"head", "-c", "104857600", "/dev/zero"}, Stdout: io.Discard, StdoutMode: mode, SpoolDir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Attempt(context.Background(), 1); err != nil {
					b.Fatal(err)
				}
				if err := s.WriteStdout(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
