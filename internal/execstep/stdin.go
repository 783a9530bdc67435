package execstep

import (
	"io"
	"sync"
)

// replay hands every attempt the same standard input: the bytes read so far
// come from a buffer, later ones from the source, read on demand. Beyond limit
// bytes the buffer stops growing and the input can no longer be replayed.
type replay struct {
	src   io.Reader
	limit int

	mu       sync.Mutex
	cond     *sync.Cond
	data     []byte
	spill    []byte // bytes beyond limit, handed only to the current reader
	eof      bool
	overflow bool
	want     chan struct{}
	started  bool
}

func newReplay(src io.Reader, limit int) *replay {
	r := &replay{src: src, limit: limit, want: make(chan struct{}, 1)}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// Overflowed reports whether the input outgrew the replay buffer.
func (r *replay) Overflowed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.overflow
}

// pump reads the source one chunk per demand, so a child that never reads
// standard input never makes retrywise read it either.
func (r *replay) pump() {
	buf := make([]byte, 32*1024)
	for range r.want {
		n, err := r.src.Read(buf)
		r.mu.Lock()
		if n > 0 {
			if !r.overflow && len(r.data)+n <= r.limit {
				r.data = append(r.data, buf[:n]...)
			} else {
				r.overflow = true
				r.spill = append(r.spill, buf[:n]...)
			}
		}
		if err != nil {
			r.eof = true
		}
		r.cond.Broadcast()
		done := r.eof
		r.mu.Unlock()
		if done {
			return
		}
	}
}

// reader returns a reader over the whole input for one attempt; close ends it.
func (r *replay) reader() *replayReader { return &replayReader{r: r} }

type replayReader struct {
	r      *replay
	pos    int
	closed bool
}

func (rr *replayReader) Read(p []byte) (int, error) {
	r := rr.r
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if rr.closed {
			return 0, io.ErrClosedPipe
		}
		if rr.pos < len(r.data) {
			n := copy(p, r.data[rr.pos:])
			rr.pos += n
			return n, nil
		}
		if len(r.spill) > 0 {
			n := copy(p, r.spill)
			r.spill = r.spill[n:]
			return n, nil
		}
		if r.eof {
			return 0, io.EOF
		}
		if !r.started {
			r.started = true
			go r.pump()
		}
		select {
		case r.want <- struct{}{}:
		default:
		}
		r.cond.Wait()
	}
}

// close makes a pending and every later Read return io.ErrClosedPipe.
func (rr *replayReader) close() {
	rr.r.mu.Lock()
	rr.closed = true
	rr.r.cond.Broadcast()
	rr.r.mu.Unlock()
}
