package redact

import "strings"

// Literal secrets are found with Wu-Manber multi-pattern search: a window as
// long as the shortest secret (at most maxWindow bytes) slides over the text,
// and the hash of the window's last gram bytes says how far it may safely
// jump. Long secrets therefore let the scan skip most of the text, and every
// occurrence of every secret, overlapping ones included, is found in one
// pass.
const (
	gram      = 3 // bytes hashed per probe; no secret is shorter (MinValueLen)
	hashBits  = 13
	maxWindow = 64
)

// matcher finds every occurrence of a fixed set of literal secrets.
type matcher struct {
	pats   []string
	wide   []bool // wide[i]: widen a match of pats[i] to its base64 run
	window int
	shift  [1 << hashBits]uint8
	bucket map[uint32][]int32 // hash of the gram ending a window prefix -> pats
}

func hashGram(a, b, c byte) uint32 {
	return (uint32(a) | uint32(b)<<8 | uint32(c)<<16) * 2654435761 >> (32 - hashBits)
}

// newMatcher builds a matcher for pats, each at least gram bytes long; a
// match of pats[i] is widened to the base64 run around it when wide[i].
func newMatcher(pats []string, wide []bool) *matcher {
	m := &matcher{pats: pats, wide: wide, window: maxWindow, bucket: make(map[uint32][]int32)}
	for _, p := range pats {
		m.window = min(m.window, len(p))
	}
	def := uint8(m.window - gram + 1)
	for i := range m.shift {
		m.shift[i] = def
	}
	for i, p := range pats {
		for j := gram; j <= m.window; j++ {
			h := hashGram(p[j-3], p[j-2], p[j-1])
			m.shift[h] = min(m.shift[h], uint8(m.window-j))
		}
		h := hashGram(p[m.window-3], p[m.window-2], p[m.window-1])
		m.bucket[h] = append(m.bucket[h], int32(i))
	}
	return m
}

// find appends a span for every occurrence of every pattern in s.
func (m *matcher) find(s string, dst []span) []span {
	w := m.window
	for pos := w - 1; pos < len(s); {
		h := hashGram(s[pos-2], s[pos-1], s[pos])
		if sh := m.shift[h]; sh > 0 {
			pos += int(sh)
			continue
		}
		start := pos - w + 1
		for _, i := range m.bucket[h] {
			if p := m.pats[i]; strings.HasPrefix(s[start:], p) {
				lo, hi := start, start+len(p)
				if m.wide[i] {
					lo, hi = b64Run(s, lo, hi)
				}
				dst = append(dst, span{lo: lo, hi: hi, from: lo, open: hi == len(s) && m.wide[i]})
			}
		}
		pos++
	}
	return dst
}

// literalSpans finds every occurrence of every literal secret, so that
// overlapping secrets are masked as their union.
func literalSpans(snap *snapshot, s string, dst []span) []span {
	if snap.match == nil {
		return dst
	}
	return snap.match.find(s, dst)
}

// b64Run widens s[lo:hi] to the run of base64 characters around it, its
// "=" padding included.
func b64Run(s string, lo, hi int) (int, int) {
	for lo > 0 && isB64(s[lo-1]) {
		lo--
	}
	for hi < len(s) && isB64(s[hi]) {
		hi++
	}
	for hi < len(s) && s[hi] == '=' {
		hi++
	}
	return lo, hi
}

// isB64 reports whether c is a character of the standard or the URL-safe
// base64 alphabet.
func isB64(c byte) bool {
	return isAlpha(c) || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}
