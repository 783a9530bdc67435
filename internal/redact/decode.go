package redact

// Decoded views: a secret written with escapes that no registered form
// foresees (any character of it as a JSON \uXXXX escape, percent-encoded by
// any encoder's choice of safe characters, in either hex case, "+" for a
// space) is found by decoding the text and matching the decoded text; the
// spans found there are mapped back to the escapes they came from.

import (
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth is how many times JSON escapes are decoded in turn: a JSON
// body quoted inside a JSON report is escaped twice.
const maxJSONDepth = 3

// decodedView is a decoded form of its parent's text (of s itself when
// parent is nil); pieces map its bytes back.
type decodedView struct {
	text   string
	parent *decodedView
	pieces []piece // sorted by at; nil for s itself
}

// piece is a run of decoded bytes [at, next piece's at): a verbatim copy of
// the parent's bytes from src on, or (esc) one escape, the parent's bytes
// [src, srcEnd), decoded.
type piece struct {
	at, src, srcEnd int
	esc             bool
}

// origin returns the bytes of s that the decoded bytes [a, b), b > a, came
// from.
func (v *decodedView) origin(a, b int) (int, int) {
	if v.parent == nil {
		return a, b
	}
	lo, _ := v.byteOrigin(a)
	_, hi := v.byteOrigin(b - 1)
	lo, _ = v.parent.origin(lo, lo+1)
	_, hi = v.parent.origin(hi-1, hi)
	return lo, hi
}

// byteOrigin returns the parent's bytes that decoded byte i came from.
func (v *decodedView) byteOrigin(i int) (int, int) {
	k, found := slices.BinarySearchFunc(v.pieces, i, func(p piece, i int) int { return p.at - i })
	if !found {
		k--
	}
	p := v.pieces[k]
	if p.esc {
		return p.src, p.srcEnd
	}
	o := p.src + i - p.at
	return o, o + 1
}

// decoder builds a view's text and its pieces.
type decoder struct {
	parent *decodedView
	out    []byte
	pieces []piece
	n      int // escapes decoded
}

// copyRun appends the parent's bytes [a, z) verbatim.
func (d *decoder) copyRun(a, z int) {
	if a == z {
		return
	}
	if k := len(d.pieces) - 1; k < 0 || d.pieces[k].esc {
		d.pieces = append(d.pieces, piece{at: len(d.out), src: a})
	}
	d.out = append(d.out, d.parent.text[a:z]...)
}

// put appends the bytes b decoded from the parent's escape [a, z).
func (d *decoder) put(b []byte, a, z int) {
	d.pieces = append(d.pieces, piece{at: len(d.out), src: a, srcEnd: z, esc: true})
	d.out = append(d.out, b...)
	d.n++
}

func (d *decoder) view() *decodedView {
	if d.n == 0 {
		return nil
	}
	return &decodedView{text: string(d.out), parent: d.parent, pieces: d.pieces}
}

// jsonDecode decodes the escapes of a JSON string in p.text (\uXXXX in any
// hex case, surrogate pairs, \/ \\ \" \b \f \n \r \t); nil when it has none.
func jsonDecode(p *decodedView) *decodedView {
	s := p.text
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return nil
	}
	d := &decoder{parent: p}
	var buf [utf8.UTFMax]byte
	last := 0 // s[last:i] is still to copy
	for ; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			continue
		}
		if c, ok := jsonSimpleEscape(s[i+1]); ok {
			d.copyRun(last, i)
			d.put([]byte{c}, i, i+2)
			i++
			last = i + 1
			continue
		}
		r, ok := hex4(s, i)
		if !ok {
			continue
		}
		end := i + 6
		if utf16.IsSurrogate(r) {
			r2, ok2 := hex4(s, end)
			rr := utf16.DecodeRune(r, r2)
			if !ok2 || rr == utf8.RuneError {
				continue // a lone surrogate stays as written
			}
			r, end = rr, end+6
		}
		d.copyRun(last, i)
		n := utf8.EncodeRune(buf[:], r)
		d.put(buf[:n], i, end)
		i = end - 1
		last = end
	}
	if d.n == 0 {
		return nil
	}
	d.copyRun(last, len(s))
	return d.view()
}

// jsonSimpleEscape returns the byte a two-character JSON escape stands for.
func jsonSimpleEscape(c byte) (byte, bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// hex4 reads the \uXXXX escape at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i+2 : i+6]) {
		h, ok := unhex(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(h)
	}
	return r, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c|0x20 && c|0x20 <= 'f':
		return c | 0x20 - 'a' + 10, true
	}
	return 0, false
}

// percentDecode decodes the %XX escapes of p.text in either hex case, and
// "+" as a space when plus (form encoding); nil when it has none.
func percentDecode(p *decodedView, plus bool) *decodedView {
	s := p.text
	var d *decoder
	last := 0
	for i := 0; i < len(s); i++ {
		var b byte
		var n int
		switch {
		case s[i] == '%' && i+2 < len(s):
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if !ok1 || !ok2 {
				continue
			}
			b, n = hi<<4|lo, 3
		case plus && s[i] == '+':
			b, n = ' ', 1
		default:
			continue
		}
		if d == nil {
			d = &decoder{parent: p, out: make([]byte, 0, len(s))}
		}
		d.copyRun(last, i)
		d.put([]byte{b}, i, i+n)
		i += n - 1
		last = i + 1
	}
	if d == nil {
		return nil
	}
	d.copyRun(last, len(s))
	return d.view()
}

// decodedViews returns the decoded views of s worth scanning: JSON escapes
// decoded up to maxJSONDepth times, and percent-escapes decoded in s and in
// each of those (with "+" kept, and as a space when a secret holds one).
func decodedViews(s string, spaced bool) []*decodedView {
	if !strings.ContainsAny(s, `\%+`) {
		return nil
	}
	var views []*decodedView
	bases := []*decodedView{{text: s}}
	for j := bases[0]; len(bases) <= maxJSONDepth; {
		if j = jsonDecode(j); j == nil {
			break
		}
		bases = append(bases, j)
		views = append(views, j)
	}
	for _, b := range bases {
		if strings.IndexByte(b.text, '%') >= 0 {
			if v := percentDecode(b, false); v != nil {
				views = append(views, v)
			}
		}
		if spaced && strings.IndexByte(b.text, '+') >= 0 {
			if v := percentDecode(b, true); v != nil {
				views = append(views, v)
			}
		}
	}
	return views
}

// decodedSpans appends the spans of s whose decoded form is a literal
// secret, a URL's userinfo, a token of a known format or what a cut left
// of one of them.
func decodedSpans(snap *snapshot, s string, dst []span) []span {
	var found []span
	for _, v := range decodedViews(s, snap.spaced) {
		found = literalSpans(snap, v.text, found[:0])
		found = urlSpans(v.text, found)
		found = formatSpans(v.text, found)
		found = cutSpans(snap, v.text, found)
		for _, sp := range found {
			if sp.lo >= sp.hi {
				continue
			}
			lo, hi := v.origin(sp.lo, sp.hi)
			from, _ := v.origin(min(sp.from, sp.lo), sp.hi)
			dst = append(dst, span{lo: lo, hi: hi, from: from, open: sp.open && hi == len(s)})
		}
	}
	return dst
}
