package failure

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// EvidenceLine returns the first line of s, trimmed, control bytes escaped (Printable), and cut to the evidence length (300 bytes, cuts marked with redact.Cut), safe to quote as evidence.
func EvidenceLine(s string) string { return evidenceLine(firstLine(s), 0) }

// EvidenceAt is the evidence of one line whose match starts at byte at:
// the line, or a window of it around at where it is too long, as the
// built-in recognisers quote theirs.
func EvidenceAt(line string, at int) string { return evidenceLine(line, at) }

// Printable returns s with what a terminal would act on escaped: C0 controls
// but tab as \x1b, DEL as \x7f, C1 controls as \u009b and bytes that are not
// UTF-8 as \xff, so quoting a tool's output can neither move the cursor nor
// recolour, retitle or clear the reader's terminal.
func Printable(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is in b
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		esc := ""
		switch {
		case r == utf8.RuneError && n == 1:
			esc = fmt.Sprintf(`\x%02x`, s[i])
		case r < 0x20 && r != '\t', r == 0x7f:
			esc = fmt.Sprintf(`\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			esc = fmt.Sprintf(`\u%04x`, r)
		}
		if esc != "" {
			b.WriteString(s[done:i])
			b.WriteString(esc)
			done = i + n
		}
		i += n
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// escapeAround returns how far i must move (back when back is true, forward
// otherwise) so as not to cut an escape Printable wrote (\x1b, \u009b) in t.
func escapeAround(t string, i int, back bool) int {
	for j := max(0, i-5); j < i; j++ {
		if t[j] != '\\' || j+1 >= len(t) {
			continue
		}
		n := 0
		switch t[j+1] {
		case 'x':
			n = 4
		case 'u':
			n = 6
		}
		if j+n > i && j+n <= len(t) && isHex(t[j+2:j+n]) {
			if back {
				return j
			}
			return j + n
		}
	}
	return i
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdef", rune(s[i])) {
			return false
		}
	}
	return true
}
