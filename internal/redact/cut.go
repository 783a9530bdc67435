package redact

// The cut: how retrywise shortens a text it quotes (Clip), and the rule
// that masks what a cut left of a secret (rule 6), whoever made the cut.

import (
	"strings"
	"unicode/utf8"
)

// Cut marks where retrywise shortened a text (evidence, quoted values and
// names); the redactor masks a secret's fragment next to it.
const Cut = "…"

// cutMarks are the ways a cut is marked: Cut, and the three dots of other
// tools and of older messages.
var cutMarks = [...]string{Cut, "..."}

// minFragment is the shortest fragment of a literal secret masked next to a
// cut; shorter ones would match ordinary words. A cut shows at most
// minFragment-1 bytes of a secret.
const minFragment = 3

// Clip returns s cut to at most n bytes, at a rune boundary, and followed by
// Cut when anything was cut. It is the one way a message quoting a value
// shortens it, so that the redactor, which knows Cut, masks what the cut
// left of a secret.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + Cut
}

// isCutEdge reports whether c may end or start a value cut without a mark:
// a line's end or a quote.
func isCutEdge(c byte) bool {
	return c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '`'
}

// cutEndsAt reports whether a cut text may end at s[:i]: a cut mark follows,
// or the text, a line or a quote ends there.
func cutEndsAt(s string, i int) bool {
	return i >= len(s) || isCutEdge(s[i]) || cutMarkAt(s, i)
}

// cutMarkAt reports whether a cut mark starts at s[i:].
func cutMarkAt(s string, i int) bool {
	for _, m := range cutMarks {
		if strings.HasPrefix(s[i:], m) {
			return true
		}
	}
	return false
}

// cutMarkBefore reports whether a cut mark ends at s[:i]. A text cut at
// its start is always marked: unmarked, the end of a secret at the start
// of a line or a quote is too often a word's.
func cutMarkBefore(s string, i int) bool {
	for _, m := range cutMarks {
		if strings.HasSuffix(s[:i], m) {
			return true
		}
	}
	return false
}

// gramKey packs 3 bytes.
func gramKey(s string) uint32 { return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 }

// gramBit is the bit of a gram in a gramSet.
func gramBit(k uint32) uint32 { return (k * 2654435761) >> 16 }

// gramSet is a 64 Kibit filter of gram keys.
type gramSet [1 << 10]uint64

func (g *gramSet) add(k uint32)      { b := gramBit(k); g[b>>6] |= 1 << (b & 63) }
func (g *gramSet) has(k uint32) bool { b := gramBit(k); return g[b>>6]&(1<<(b&63)) != 0 }

// cutIndex finds the fragments a cut may leave of the literal secrets: it
// holds the first and the last 3 bytes of every form, so a text is scanned
// once whatever the number of secrets.
type cutIndex struct {
	any         gramSet            // the grams of first and last
	first, last map[uint32][]int32 // gram -> the forms it starts, ends
}

// newCutIndex indexes the forms of a snapshot.
func newCutIndex(secrets []string) *cutIndex {
	x := &cutIndex{first: map[uint32][]int32{}, last: map[uint32][]int32{}}
	for i, sec := range secrets {
		if len(sec) <= minFragment {
			continue // a fragment is shorter than the secret and 3 bytes at least
		}
		h, t := gramKey(sec), gramKey(sec[len(sec)-minFragment:])
		x.any.add(h)
		x.any.add(t)
		x.first[h] = append(x.first[h], int32(i))
		x.last[t] = append(x.last[t], int32(i))
	}
	return x
}

// cutSpans masks what a cut left of a secret, whoever cut it and however
// the cut is marked (Cut, "...", or not at all): a fragment of 3 bytes or
// more that starts a literal secret and ends where a cut text may end
// (cutEndsAt), or that ends one right after a cut mark; and before a cut mark, a URL's userinfo left without its
// "@" (an authority that is not a plain host[:port]).
func cutSpans(snap *snapshot, s string, dst []span) []span {
	for _, m := range cutMarks {
		for i := 0; ; {
			k := strings.Index(s[i:], m)
			if k < 0 {
				break
			}
			k += i
			i = k + len(m)
			before := s[max(0, k-maxCutReach):k]
			if j := strings.LastIndexAny(before, "\r\n"); j >= 0 {
				before = before[j+1:]
			}
			if a := openAuthority(before); a >= 0 {
				base := k - len(before)
				dst = append(dst, span{lo: base + a, hi: k, from: base + a})
			}
		}
	}
	x := snap.cut
	if x == nil || len(s) < minFragment {
		return dst
	}
	k := uint32(s[0])<<8 | uint32(s[1])<<16
	for p := 0; p+minFragment <= len(s); p++ {
		k = k>>8 | uint32(s[p+2])<<16 // gramKey(s[p:])
		if !x.any.has(k) {
			continue
		}
		for _, j := range x.first[k] {
			dst = headFragment(snap, s, p, int(j), dst)
		}
		for _, j := range x.last[k] {
			dst = tailFragment(snap, s, p+minFragment, int(j), dst)
		}
	}
	return dst
}

// headFragment appends the span of the longest start of secret j at s[q:]
// that ends where a cut text may end; none when s holds the whole secret
// there (the literal rule's).
func headFragment(snap *snapshot, s string, q, j int, dst []span) []span {
	sec := snap.secrets[j]
	n := 0
	for n < len(sec) && q+n < len(s) && s[q+n] == sec[n] {
		n++
	}
	if n == len(sec) {
		return dst
	}
	for ; n >= minFragment; n-- {
		hi := q + n + escapeHead(s[q+n:])
		if cutEndsAt(s, hi) {
			lo := q
			if snap.wide[j] {
				lo, _ = b64Run(s, q, q+n)
			}
			return append(dst, span{lo: lo, hi: hi, from: lo})
		}
	}
	return dst
}

// maxRemnant is the longest part of an escape a cut may leave: "u" and
// four hex digits of a JSON \uXXXX.
const maxRemnant = 5

// escapeHead returns the length of the start of an escape that s starts
// with ("%", "%X", "\\", "\\u", "\\uXXX"), which a cut at its end left
// unfinished; 0 when there is none.
func escapeHead(s string) int {
	switch {
	case strings.HasPrefix(s, "%"):
		if len(s) > 1 && isHex(s[1]) {
			return 2
		}
		return 1
	case strings.HasPrefix(s, `\u`):
		n := 2
		for n < 5 && n < len(s) && isHex(s[n]) {
			n++
		}
		return n
	case strings.HasPrefix(s, `\`):
		return 1
	}
	return 0
}

// escapeTailCut reports the length of the end of an escape (one to four
// hex digits of a %XX or a \uXXXX, or "u" and up to four) that s[:i] ends
// with right after a cut mark, which a cut at the escape's start left.
func escapeTailCut(s string, i int) (int, bool) {
	for r := 1; r <= maxRemnant && r <= i; r++ {
		c := s[i-r]
		if c != 'u' && (r > 4 || !isHex(c)) {
			return 0, false
		}
		if cutMarkBefore(s, i-r) {
			return r, true
		}
		if c == 'u' {
			return 0, false
		}
	}
	return 0, false
}

func isHex(c byte) bool { _, ok := unhex(c); return ok }

// tailFragment appends the span of the longest end of secret j that ends at
// s[:e] and starts right after a cut mark; none when s holds the whole
// secret there.
func tailFragment(snap *snapshot, s string, e, j int, dst []span) []span {
	sec := snap.secrets[j]
	n := 0
	for n < len(sec) && e-n > 0 && s[e-n-1] == sec[len(sec)-n-1] {
		n++
	}
	if n == len(sec) {
		return dst
	}
	for ; n >= minFragment; n-- {
		if cutMarkBefore(s, e-n) {
			return append(dst, span{lo: e - n, hi: e, from: e - n})
		}
		if r, ok := escapeTailCut(s, e-n); ok {
			return append(dst, span{lo: e - n - r, hi: e, from: e - n - r})
		}
	}
	return dst
}
