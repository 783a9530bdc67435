package gitpush

import (
	"bytes"
	"strings"
	"sync"

	"github.com/retrywise/retrywise/internal/failure"
)

// maxLine bounds a porcelain line kept while it is incomplete.
const maxLine = 64 << 10

// porcelain reads `git push --porcelain` standard output as it is written:
// "To <url>", one line per ref ("<flag>\t<from>:<to>\t<summary> (<reason>)"),
// and "Done".
type porcelain struct {
	mu      sync.Mutex
	partial []byte
	refs    []failure.PushRef
	to      string
	done    bool
}

// Write parses complete lines; it never fails.
func (p *porcelain) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(p.partial)+len(b) <= maxLine {
				p.partial = append(p.partial, b...)
			}
			break
		}
		line := string(append(p.partial, b[:i]...))
		p.partial = p.partial[:0]
		b = b[i+1:]
		p.line(strings.TrimSuffix(line, "\r"))
	}
	return n, nil
}

func (p *porcelain) line(l string) {
	switch {
	case strings.HasPrefix(l, "To "):
		p.to = strings.TrimSpace(l[3:])
	case l == "Done":
		p.done = true
	default:
		if r, ok := parseRefLine(l); ok {
			p.refs = append(p.refs, r)
		}
	}
}

// reset forgets everything read, for the next push.
func (p *porcelain) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partial, p.refs, p.to, p.done = p.partial[:0], nil, "", false
}

// result returns the refs read and the "To" destination (git prints it
// without credentials).
func (p *porcelain) result() ([]failure.PushRef, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.partial) > 0 {
		if r, ok := parseRefLine(string(p.partial)); ok {
			p.refs = append(p.refs, r)
		}
		p.partial = p.partial[:0]
	}
	return append([]failure.PushRef(nil), p.refs...), p.to
}

// parseRefLine parses "<flag>\t<from>:<to>\t<summary>[ (<reason>)]".
func parseRefLine(l string) (failure.PushRef, bool) {
	if len(l) < 3 || l[1] != '\t' || !strings.ContainsRune(" +-*!=", rune(l[0])) {
		return failure.PushRef{}, false
	}
	refs, summary, ok := strings.Cut(l[2:], "\t")
	if !ok {
		return failure.PushRef{}, false
	}
	from, to, ok := strings.Cut(refs, ":")
	if !ok {
		return failure.PushRef{}, false
	}
	r := failure.PushRef{Flag: l[0], From: from, To: to}
	summary = strings.TrimSpace(summary)
	rest := ""
	if strings.HasPrefix(summary, "[") {
		if end := strings.IndexByte(summary, ']'); end > 0 {
			summary, rest = summary[:end+1], strings.TrimSpace(summary[end+1:])
		}
	} else if i := strings.Index(summary, " ("); i > 0 {
		summary, rest = summary[:i], strings.TrimSpace(summary[i+1:])
	}
	r.Summary = summary
	if strings.HasPrefix(rest, "(") && strings.HasSuffix(rest, ")") {
		r.Reason = rest[1 : len(rest)-1]
	}
	return r, true
}
