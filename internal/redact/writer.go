package redact

import (
	"bytes"
	"io"
	"io/fs"
	"regexp"
	"slices"
	"sync"
	"unsafe"
)

// maxPartial is the longest partial line, in bytes, that a Writer holds back
// before writing out all but its tail.
const maxPartial = 64 << 10

// minKeep is the shortest tail, in bytes, of an over-long partial line that a
// Writer keeps back so that the pattern rules see a split URL or header whole.
const minKeep = 512

// Writer is a line-aware redacting io.Writer built by Redactor.Writer; it is
// safe for concurrent use.
//
// Complete lines, ended by "\n" or "\r", are masked and written out at once,
// so "\r"-driven progress meters stay live. A partial line is held until its
// terminator arrives or Flush or Close is called, except that a partial line
// longer than 64 KiB is written out but for a tail of at least 512 bytes and
// at least the longest secret's length minus one, so a secret split across
// writes is still masked; a credential header value too long to hold is
// masked and the rest of its line dropped. The first error from the
// underlying writer is returned by every later call.
type Writer struct {
	r *Redactor
	w io.Writer

	mu     sync.Mutex
	buf    []byte // the pending partial line
	out    []byte // scratch for masked output
	spans  []span // scratch for scan
	skip   bool   // drop input up to the next line terminator
	fwd    bool   // write ::add-mask:: lines unmasked (ForwardAddMask)
	closed bool
	err    error // first error from w; returned by every later call
}

// Writer returns a Writer that writes the masked form of its input to w.
func (r *Redactor) Writer(w io.Writer) *Writer {
	return &Writer{r: r, w: w}
}

// Write masks and writes out the complete lines of p and buffers the rest;
// it returns len(p) unless writing to the underlying writer fails.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return 0, err
	}
	n := len(p)
	snap := w.r.load()
	if w.skip {
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			return n, nil
		}
		w.skip = false
		p = p[i:]
	}
	if last := lastEOL(p); last >= 0 {
		lines := p[:last+1]
		if len(w.buf) > 0 {
			w.buf = append(w.buf, lines...)
			lines = w.buf
		}
		if err := w.emit(snap, lines); err != nil {
			return 0, err
		}
		w.buf = w.buf[:0]
		if cap(w.buf) > 4*maxPartial {
			w.buf = nil // do not pin the memory of one huge write
		}
		p = p[last+1:]
	}
	w.buf = append(w.buf, p...)
	if len(w.buf) > maxPartial {
		if err := w.flushLong(snap); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Flush masks and writes out the pending partial line. A secret that
// continues in later writes cannot be recognised, except that the rest of a
// credential header value is dropped up to the end of its line.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	return w.flushAll(w.r.load())
}

// Close flushes the pending partial line; it does not close the underlying
// writer, and later calls to Write or Flush fail with fs.ErrClosed.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.err
	}
	err := w.err
	if err == nil {
		err = w.flushAll(w.r.load())
	}
	w.closed = true
	w.buf, w.out, w.spans = nil, nil, nil
	return err
}

// usable returns the error that stops w from writing, if any.
func (w *Writer) usable() error {
	if w.closed {
		return fs.ErrClosed
	}
	return w.err
}

// emit masks and writes b, which ends with a line terminator.
func (w *Writer) emit(snap *snapshot, b []byte) error {
	if w.fwd && bytes.Contains(b, []byte(addMaskCmd)) {
		return w.emitForwarding(snap, b)
	}
	return w.emitMasked(snap, b)
}

// emitMasked masks and writes b.
func (w *Writer) emitMasked(snap *snapshot, b []byte) error {
	s := view(b)
	w.spans = scan(snap, s, w.spans[:0])
	if len(w.spans) == 0 {
		return w.write(b)
	}
	w.out = render(w.out[:0], s, w.spans)
	return w.write(w.out)
}

// flushAll masks and writes the whole partial line; when it ends inside a
// credential header value, the rest of that line is dropped.
func (w *Writer) flushAll(snap *snapshot) error {
	if len(w.buf) == 0 {
		return nil
	}
	if w.fwd && bytes.Contains(w.buf, []byte(addMaskCmd)) {
		err := w.emitForwarding(snap, w.buf)
		w.buf = w.buf[:0]
		return err
	}
	s := view(w.buf)
	w.buf = w.buf[:0]
	w.spans = scan(snap, s, w.spans[:0])
	for _, sp := range w.spans {
		if sp.open && sp.lo < sp.hi && sp.hi == len(s) {
			w.skip = true
		}
	}
	w.out = render(w.out[:0], s, w.spans)
	return w.write(w.out)
}

// flushLong writes out the start of an over-long partial line, keeping back
// a tail that may hold the start of a secret. The cut is moved back so that
// it splits no masked span, URL or header.
func (w *Writer) flushLong(snap *snapshot) error {
	keep := max(snap.longest-1, minKeep)
	n := len(w.buf)
	if n <= keep {
		return nil
	}
	s := view(w.buf)
	spans := scan(snap, s, w.spans[:0])
	w.spans = spans
	cut := n - keep
	for moved := true; moved; {
		moved = false
		for _, sp := range spans {
			end := sp.hi
			if sp.open {
				end = n
			}
			if sp.from < cut && cut < end {
				cut, moved = sp.from, true
			}
		}
	}
	if cut <= 0 {
		// One construct, such as a huge header value, fills the line.
		return w.flushAll(snap)
	}
	head := spans[:0]
	for _, sp := range spans {
		if sp.hi <= cut {
			head = append(head, sp)
		}
	}
	w.out = render(w.out[:0], s[:cut], head)
	w.buf = w.buf[:copy(w.buf, w.buf[cut:])] // s is dead from here on
	return w.write(w.out)
}

func (w *Writer) write(b []byte) error {
	n, err := w.w.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = err
	}
	return err
}

// view returns the bytes of b as a string without copying them. The string
// is only scanned and copied out, never retained, and b is not modified while
// it is in use: b is the caller's p during Write, or buf under mu.
func view(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// lastEOL returns the index of the last "\n" or "\r" in p, or -1.
func lastEOL(p []byte) int {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '\n' || p[i] == '\r' {
			return i
		}
	}
	return -1
}

// addMaskCmd starts the workflow command that asks a runner to mask a value.
const addMaskCmd = "::add-mask::"

// ForwardAddMask makes w write an ::add-mask::VALUE line unmasked when
// VALUE is a secret the Redactor was given (a child's own request, learned
// where its output is read): w writes to a GitHub Actions runner, which
// reads the line as a command (and masks the value in its own log) and
// never shows it. Without it the line is written masked, like any other.
//
// A Writer learns nothing from what passes through it: a value is masked
// because it was given (Options, Add), and the only ::add-mask:: lines that
// add to it are a child's, read from the child's own output (internal/execstep),
// never retrywise's own lines, a server's answer or a remote's messages.
func (w *Writer) ForwardAddMask() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fwd = true
}

// AddMaskValue returns the value of an ::add-mask:: line (blanks around the
// command and the value aside): what a child asks a runner to mask.
func AddMaskValue(line []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(bytes.TrimLeft(line, " \t"), []byte(addMaskCmd))
	if !ok {
		return "", false
	}
	return string(bytes.TrimSpace(rest)), true
}

// emitForwarding writes b masked, but for its ::add-mask:: lines whose
// value is a given secret, written as they are.
func (w *Writer) emitForwarding(snap *snapshot, b []byte) error {
	var given []string
	start := 0 // b[start:i] is still to mask
	for i := 0; i < len(b); {
		end := len(b)
		if j := bytes.IndexAny(b[i:], "\r\n"); j >= 0 {
			end = i + j + 1
		}
		if v, ok := AddMaskValue(bytes.TrimRight(b[i:end], "\r\n")); ok && v != "" {
			if given == nil {
				given = w.r.Given()
			}
			if !slices.Contains(given, v) {
				i = end
				continue
			}
			if start < i {
				if err := w.emitMasked(snap, b[start:i]); err != nil {
					return err
				}
			}
			if err := w.write(b[i:end]); err != nil {
				return err
			}
			start = end
		}
		i = end
	}
	if start < len(b) {
		return w.emitMasked(snap, b[start:])
	}
	return nil
}

// scriptAddMask finds the literal values a script's text asks to mask
// (echo "::add-mask::VALUE"), up to a quote, a blank or a "$" (a variable's
// value is learned when the script prints it).
var scriptAddMask = regexp.MustCompile(`::add-mask::([^"'\s$\\` + "`" + `]+)`)

// ScriptMasks returns the literal values of the ::add-mask:: commands in a
// script's text, to register before the script (its first line the target
// of the step) is shown anywhere.
func ScriptMasks(script string) []string {
	var out []string
	for _, m := range scriptAddMask.FindAllStringSubmatch(script, -1) {
		out = append(out, m[1])
	}
	return out
}
