package httpstep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/retrywise/retrywise/internal/failure"
)

// deliver writes the body of an expected answer and extracts the fields.
func (s *Step) deliver(ctx, actx context.Context, resp *http.Response) (*failure.Failure, bool) {
	if m := s.opts.MaxBody; m > 0 && resp.ContentLength > m {
		return failure.BodyTooLarge(m, resp.ContentLength), true
	}
	var dst io.Writer
	var tmp *os.File
	if s.opts.OutputFile != "" {
		var err error
		tmp, err = os.CreateTemp(filepath.Dir(s.opts.OutputFile), "."+filepath.Base(s.opts.OutputFile)+".retrywise-*")
		if err != nil {
			return failure.OutputWrite("--output", err, "check the folder and its permissions"), true
		}
		defer func() {
			if tmp != nil {
				tmp.Close()
				os.Remove(tmp.Name())
			}
		}()
		dst = tmp
	} else {
		dst = &countingWriter{w: s.opts.Stdout, partial: &s.last.partial}
	}
	limit := maxValueBody
	if len(s.opts.Fields) > 0 {
		limit = MaxFieldBody
	}
	kept := &capture{limit: limit}
	src := &readErrReader{r: resp.Body}
	size := 32 << 10
	if n := resp.ContentLength; n >= 0 && n < int64(size) {
		size = int(n) + 1 // small answers need no 32 KiB copy buffer
	}
	var w io.Writer = io.MultiWriter(dst, kept)
	if s.opts.MaxBody > 0 {
		w = &capWriter{w: w, left: s.opts.MaxBody}
	}
	_, err := io.CopyBuffer(w, src, make([]byte, size))
	if err != nil {
		if errors.Is(err, errBodyTooLarge) {
			return failure.BodyTooLarge(s.opts.MaxBody, -1), true
		}
		if src.err == nil {
			return failure.OutputWrite("the response body", err, "check where the output goes (disk space, a closed pipe)"), true
		}
		if ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
			return s.transportFailure(ctx, actx, src.err), false
		}
		return failure.FromRequest(src.err, failure.Request{}), false
	}
	if tmp != nil {
		if err := tmp.Close(); err != nil {
			return failure.OutputWrite("--output", err, "check the disk"), true
		}
		if err := os.Rename(tmp.Name(), s.opts.OutputFile); err != nil {
			return failure.OutputWrite("--output", err, "check the folder and its permissions"), true
		}
		tmp = nil
	}
	s.result.Found = true
	s.result.Value = nil
	if !kept.over && len(kept.b) <= maxValueBody && json.Valid(kept.b) {
		s.result.Value = json.RawMessage(bytes.Clone(kept.b))
	}
	if len(s.opts.Fields) == 0 {
		return nil, false
	}
	return s.extract(ctx, kept), false
}

// errBodyTooLarge stops the copy of a body over Options.MaxBody.
var errBodyTooLarge = errors.New("the body is over --max-body")

// capWriter passes on at most left bytes; a write beyond them is cut at
// the bound and fails with errBodyTooLarge.
type capWriter struct {
	w    io.Writer
	left int64
}

func (c *capWriter) Write(p []byte) (int, error) {
	if int64(len(p)) <= c.left {
		n, err := c.w.Write(p)
		c.left -= int64(n)
		return n, err
	}
	n, err := c.w.Write(p[:c.left])
	c.left -= int64(n)
	if err == nil {
		err = errBodyTooLarge
	}
	return n, err
}

// countingWriter notes when a byte reached the caller's stdout.
type countingWriter struct {
	w       io.Writer
	partial *bool
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if n > 0 {
		*c.partial = true
	}
	return n, err
}

// capture keeps the first limit bytes written to it and notes an overflow.
type capture struct {
	b     []byte
	limit int
	over  bool
}

func (c *capture) Write(p []byte) (int, error) {
	keep := p
	if room := c.limit - len(c.b); len(p) > room {
		c.over = true
		keep = p[:max(room, 0)]
	}
	c.b = append(c.b, keep...)
	return len(p), nil
}

// readErrReader remembers the read error, to tell it from a write error in io.Copy.
type readErrReader struct {
	r   io.Reader
	err error
}

func (r *readErrReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}
