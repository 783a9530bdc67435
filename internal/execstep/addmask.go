package execstep

import (
	"bytes"

	"github.com/retrywise/retrywise/internal/redact"
)

// maxLearnLine is the longest line a maskLearner examines; the rest of a
// longer line is skipped.
const maxLearnLine = 64 << 10

// maskLearner watches a child's stream for ::add-mask::VALUE lines and
// hands each VALUE to learn as the line arrives, before the line is relayed
// (it comes first in the stream's writers), so that the value is masked
// in the line itself, in all that follows on that stream, in the failure's
// evidence and in the report, whatever the stdout mode.
type maskLearner struct {
	learn func(string)
	buf   []byte
	skip  bool // the current line is over maxLearnLine
}

func (m *maskLearner) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			if !m.skip {
				m.buf = append(m.buf, p...)
				if len(m.buf) > maxLearnLine {
					m.buf, m.skip = m.buf[:0], true
				}
			}
			break
		}
		if !m.skip {
			m.buf = append(m.buf, p[:i]...)
			m.line()
		}
		m.buf, m.skip = m.buf[:0], false
		p = p[i+1:]
	}
	return n, nil
}

// line learns the value of the buffered line if it is an add-mask command.
func (m *maskLearner) line() {
	if v, ok := redact.AddMaskValue(m.buf); ok {
		m.learn(v)
	}
}

// flush examines an unterminated last line.
func (m *maskLearner) flush() {
	if !m.skip && len(m.buf) > 0 {
		m.line()
	}
	m.buf, m.skip = m.buf[:0], false
}
