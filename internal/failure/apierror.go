package failure

import (
	"strconv"
	"strings"
)

// The API error reader: the error fields of a structured error body,
// wherever a tool prints it. An HTTP body, JSON quoted in a log line (even
// escaped inside a string), a Python dict repr ({'ok': False, 'error':
// 'invalid_auth'}) or a JS object literal ({ code: 'rest_cannot_create' })
// are read by one lenient parser; AWS's XML <Code> by a look-up. The fields
// of the common shapes (Google's and gRPC's status, Slack's and XRPC's
// error word, Telegram's description and parameters.retry_after, Discord's
// numeric code and retry_after, Anthropic's and OpenAI's type and code,
// AWS's __type, RFC 9457's problem type and status, Cloudflare's errors
// array, WordPress's code and data.status) give words, which the table of
// meanings (meaning.go) turns into a verdict: no API has code of its own.
//
// Everything is bounded: only the text's tail is read, a few candidates
// are parsed, each within a size, a depth and a count of values; a text
// with no '{' and no "<Code>" costs two substring searches.

const (
	// maxAPITail is how much of a text's end the reader looks at.
	maxAPITail = 64 << 10
	// maxAPICandidates bounds the '{' positions the reader tries to parse.
	maxAPICandidates = 48
	// maxAPIObject bounds the bytes of one parsed value.
	maxAPIObject = 16 << 10
	// maxAPIDepth bounds the nesting of a parsed value.
	maxAPIDepth = 8
	// maxAPIValues bounds the values of one parsed candidate.
	maxAPIValues = 512
	// maxAPIRecords bounds the error records read from one text.
	maxAPIRecords = 8
)

// jv is a value of the lenient parser: an object (keys in order), an
// array, a string, a number, a bool or null. at is the value's offset in
// the text it was read from.
type jv struct {
	kind byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null, 'w' bare word
	keys []string
	vals []*jv
	str  string
	num  float64
	b    bool
	at   int
}

func (v *jv) get(key string) *jv {
	if v == nil || v.kind != 'o' {
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			return v.vals[i]
		}
	}
	return nil
}

// text returns a string value (or a bare word), "" otherwise.
func (v *jv) text() string {
	if v != nil && (v.kind == 's' || v.kind == 'w') {
		return v.str
	}
	return ""
}

// number returns a number value (or a string holding one).
func (v *jv) number() (float64, bool) {
	if v == nil {
		return 0, false
	}
	switch v.kind {
	case 'n':
		return v.num, true
	case 's':
		if f, err := strconv.ParseFloat(strings.TrimSpace(v.str), 64); err == nil {
			return f, true
		}
	}
	return 0, false
}

// isFalse reports whether v is false (false, False).
func (v *jv) isFalse() bool { return v != nil && v.kind == 'b' && !v.b }

// jparser reads one value leniently: JSON, Python reprs (single quotes,
// True/False/None, bytes literals, trailing commas), JS literals (unquoted
// keys, [Array]) and Ruby's => between key and value.
type jparser struct {
	s      string
	i      int
	end    int // the parser never reads past end
	values int
	failed bool
}

func (p *jparser) ws() {
	for p.i < p.end {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			p.i++
		case '\\':
			// a literal "\n" of a log that escaped its newlines
			if p.i+1 < p.end && (p.s[p.i+1] == 'n' || p.s[p.i+1] == 't' || p.s[p.i+1] == 'r') {
				p.i += 2
				continue
			}
			return
		default:
			return
		}
	}
}

func (p *jparser) fail() *jv { p.failed = true; return nil }

func (p *jparser) value(depth int) *jv {
	p.ws()
	if p.failed || p.i >= p.end || depth > maxAPIDepth {
		return p.fail()
	}
	p.values++
	if p.values > maxAPIValues {
		return p.fail()
	}
	at := p.i
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"' || c == '\'':
		s, ok := p.str()
		if !ok {
			return p.fail()
		}
		return &jv{kind: 's', str: s, at: at}
	case c == 'b' && p.i+1 < p.end && (p.s[p.i+1] == '\'' || p.s[p.i+1] == '"'):
		p.i++
		s, ok := p.str()
		if !ok {
			return p.fail()
		}
		return &jv{kind: 's', str: s, at: at}
	case c == '-' || c >= '0' && c <= '9':
		j := p.i + 1
		for j < p.end && (p.s[j] >= '0' && p.s[j] <= '9' || p.s[j] == '.' || p.s[j] == 'e' || p.s[j] == 'E' || p.s[j] == '+' || p.s[j] == '-') {
			j++
		}
		f, err := strconv.ParseFloat(p.s[p.i:j], 64)
		if err != nil {
			return p.fail()
		}
		p.i = j
		return &jv{kind: 'n', num: f, at: at}
	case isWordByte(c):
		j := p.i
		for j < p.end && (isWordByte(p.s[j]) || p.s[j] == '.' || p.s[j] == '$') {
			j++
		}
		w := p.s[p.i:j]
		p.i = j
		switch w {
		case "true", "True":
			return &jv{kind: 'b', b: true, at: at}
		case "false", "False":
			return &jv{kind: 'b', at: at}
		case "null", "None", "nil", "undefined":
			return &jv{kind: 'z', at: at}
		}
		return &jv{kind: 'w', str: w, at: at}
	}
	return p.fail()
}

func (p *jparser) object(depth int) *jv {
	o := &jv{kind: 'o', at: p.i}
	p.i++ // {
	for {
		p.ws()
		if p.i >= p.end {
			return p.fail()
		}
		if p.s[p.i] == '}' {
			p.i++
			return o
		}
		var key string
		switch c := p.s[p.i]; {
		case c == '"' || c == '\'':
			k, ok := p.str()
			if !ok {
				return p.fail()
			}
			key = k
		case isWordByte(c) || c == '$' || c == '@':
			j := p.i + 1
			for j < p.end && (isWordByte(p.s[j]) || p.s[j] == '$' || p.s[j] == '-') {
				j++
			}
			key = p.s[p.i:j]
			p.i = j
		default:
			return p.fail()
		}
		p.ws()
		switch {
		case p.i < p.end && p.s[p.i] == ':':
			p.i++
		case p.i+1 < p.end && p.s[p.i] == '=' && p.s[p.i+1] == '>':
			p.i += 2
		default:
			return p.fail()
		}
		v := p.value(depth + 1)
		if p.failed {
			return nil
		}
		o.keys = append(o.keys, key)
		o.vals = append(o.vals, v)
		p.ws()
		if p.i < p.end && p.s[p.i] == ',' {
			p.i++
		}
	}
}

func (p *jparser) array(depth int) *jv {
	a := &jv{kind: 'a', at: p.i}
	p.i++ // [
	for {
		p.ws()
		if p.i >= p.end {
			return p.fail()
		}
		if p.s[p.i] == ']' {
			p.i++
			return a
		}
		v := p.value(depth + 1)
		if p.failed {
			return nil
		}
		a.vals = append(a.vals, v)
		p.ws()
		if p.i < p.end && p.s[p.i] == ',' {
			p.i++
		}
	}
}

// str reads a quoted string (either quote), with backslash escapes.
func (p *jparser) str() (string, bool) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < p.end {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), true
		case c == '\\' && p.i+1 < p.end:
			p.i++
			switch e := p.s[p.i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'u':
				if p.i+4 < p.end {
					if r, err := strconv.ParseUint(p.s[p.i+1:p.i+5], 16, 32); err == nil {
						b.WriteRune(rune(r))
						p.i += 4
						break
					}
				}
				b.WriteByte('u')
			default:
				b.WriteByte(e)
			}
			p.i++
		case c == '\n' && q == '\'':
			return "", false // a Python string never spans lines: an apostrophe in prose
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", false
}

// parseAt parses the value starting at s[i] (a '{'); ok is false when it
// is not a well-formed value within the bounds.
func parseAt(s string, i int) (*jv, int, bool) {
	p := &jparser{s: s, i: i, end: min(len(s), i+maxAPIObject)}
	v := p.value(0)
	if p.failed || v == nil {
		return nil, i, false
	}
	return v, p.i, true
}

// unescapeQuoted undoes one level of backslash escaping (\" → ", \\ → \,
// \n → newline): JSON quoted inside a string of another language's dump.
func unescapeQuoted(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// parsedValue is a value read from a text, with the offset its source
// starts at (the evidence line is found from it).
type parsedValue struct {
	v    *jv
	base int // offset in the text of the string v's offsets count from; -1: an unescaped copy
	at   int // offset in the text of the value's start
}

// readValues returns the structured values of text's tail: every
// top-level object a '{' starts that parses within the bounds, the
// objects of JSON quoted inside them (a message holding a body), and the
// objects of JSON quoted with escapes (\"ok\":false) in a log line.
func readValues(text string) []parsedValue {
	off := 0
	if len(text) > maxAPITail {
		off = len(text) - maxAPITail
	}
	s := text[off:]
	var out []parsedValue
	tries := 0
	for i := 0; i < len(s) && tries < maxAPICandidates; {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 {
			break
		}
		i += j
		tries++
		if i+1 < len(s) && s[i+1] == '\\' {
			// {\"ok\":false,...}: JSON quoted in a string
			end := min(len(s), i+maxAPIObject)
			u := unescapeQuoted(s[i:end])
			if v, n, ok := parseAt(u, 0); ok {
				out = append(out, parsedValue{v: v, base: -1, at: off + i})
				i += escapedLen(s[i:end], n)
				continue
			}
		}
		v, next, ok := parseAt(s, i)
		if !ok {
			i++
			continue
		}
		out = append(out, parsedValue{v: v, base: off, at: off + i})
		out = appendQuoted(out, v, off+i, 0)
		i = next
	}
	return out
}

// escapedLen returns how many bytes of s unescapeQuoted turns into its
// first n bytes.
func escapedLen(s string, n int) int {
	i := 0
	for out := 0; i < len(s) && out < n; out++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		i++
	}
	return max(i, 1)
}

// appendQuoted adds the objects of JSON held in v's strings ("message":
// "{\n \"error\": {...}}"), a level or two deep.
func appendQuoted(out []parsedValue, v *jv, at, depth int) []parsedValue {
	if v == nil || depth > 2 || len(out) >= maxAPICandidates {
		return out
	}
	switch v.kind {
	case 'o', 'a':
		for _, c := range v.vals {
			out = appendQuoted(out, c, at, depth)
		}
	case 's':
		t := strings.TrimSpace(v.str)
		if i := strings.IndexByte(t, '{'); i >= 0 && i < 8 && len(t) <= maxAPIObject {
			if q, _, ok := parseAt(t, i); ok {
				out = append(out, parsedValue{v: q, base: -1, at: at})
				out = appendQuoted(out, q, at, depth+1)
			}
		}
	}
	return out
}

// xmlCode returns AWS's XML error code (<Code>AccessDenied</Code>) and its
// offset, or "".
func xmlCode(text string) (string, int) {
	i := strings.LastIndex(text, "<Code>")
	if i < 0 {
		return "", -1
	}
	rest := text[i+len("<Code>"):]
	j := strings.Index(rest, "</Code>")
	if j <= 0 || j > 80 {
		return "", -1
	}
	return strings.TrimSpace(rest[:j]), i
}

// codeLine returns the error code of a "Code: X" line and its offset, or
// "": the Azure SDKs and the az CLI print an error as "(X) message",
// then "Code: X" and "Message: ..." on lines of their own; the .NET SDK
// prints "ErrorCode: X". The code must
// be one token (letters, digits, '_', '.').
func codeLine(text string) (string, int) {
	label := "\nCode: "
	i := strings.LastIndex(text, label)
	if j := strings.LastIndex(text, "\nErrorCode: "); j > i {
		i, label = j, "\nErrorCode: " // the Azure .NET SDK's RequestFailedException
	}
	if i < 0 {
		return "", -1
	}
	rest := text[i+len(label):]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	rest = strings.TrimRight(rest, " \r")
	if rest == "" || len(rest) > 80 {
		return "", -1
	}
	for k := 0; k < len(rest); k++ {
		if c := rest[k]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return "", -1
		}
	}
	return rest, i + 1
}
