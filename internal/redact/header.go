package redact

// The credential header rule (rule 2).

import "strings"

// Header name classes.
const (
	plainName  = iota
	weakName   // contains a secret-ish word: mask the whole value
	strongName // Authorization: keep the scheme word, mask the credentials
)

// maxHeaderName bounds the bytes of a field name that are classified; of a
// longer name only its tail is examined.
const maxHeaderName = 96

// classifyName sorts a field name by the secret words it contains, compared
// without case: "authorization" makes a strong name; token, key, secret,
// password, passwd, cookie or credential a weak one.
func classifyName(name string) int {
	if len(name) < 3 {
		return plainName
	}
	kind := plainName
	for i := 0; i+3 <= len(name); i++ {
		rest := name[i:]
		switch name[i] | 0x20 {
		case 'a':
			if hasPrefixFold(rest, "authorization") {
				return strongName
			}
		case 't':
			if hasPrefixFold(rest, "token") {
				kind = weakName
			}
		case 'k':
			if hasPrefixFold(rest, "key") {
				kind = weakName
			}
		case 's':
			if hasPrefixFold(rest, "secret") {
				kind = weakName
			}
		case 'p':
			if hasPrefixFold(rest, "password") || hasPrefixFold(rest, "passwd") {
				kind = weakName
			}
		case 'c':
			if hasPrefixFold(rest, "cookie") || hasPrefixFold(rest, "credential") {
				kind = weakName
			}
		}
	}
	return kind
}

// hasPrefixFold reports whether s starts with lower, ignoring ASCII case;
// lower must be lower-case letters.
func hasPrefixFold(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if s[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}

// isNameByte reports whether c may appear in a header name. Dots are
// excluded so that "token_test.go:42: msg" is not taken for a field.
func isNameByte(c byte) bool {
	return isAlpha(c) || '0' <= c && c <= '9' || c == '-' || c == '_'
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func isQuote(c byte) bool { return c == '\'' || c == '"' }

// headerSpans masks the values of credential header fields.
func headerSpans(s string, dst []span) []span {
	for i := 0; i < len(s); {
		c := strings.IndexByte(s[i:], ':')
		if c < 0 {
			break
		}
		c += i
		i = c + 1
		b := c
		for b > 0 && c-b < maxHeaderName && isNameByte(s[b-1]) {
			b--
		}
		if b == c {
			dst = jsonFieldSpan(s, c, dst)
			continue
		}
		kind := classifyName(s[b:c])
		if kind == plainName {
			continue
		}
		ctx, argAt := fieldContext(s, b)
		if kind == weakName && ctx == inText {
			continue
		}
		quote, quoteAt := quoteContext(s, b)
		v := c + 1
		for v < len(s) && isBlank(s[v]) {
			v++
		}
		end := v
		for end < len(s) && s[end] != '\n' && s[end] != '\r' &&
			(quote == 0 || s[end] != quote) && (ctx != inArg || !isBlank(s[end])) {
			end++
		}
		i = end
		open := end == len(s)
		hi := end
		if !open {
			for hi > v && isBlank(s[hi-1]) {
				hi--
			}
		}
		if hi == v {
			continue // empty value, e.g. a YAML key opening a block
		}
		lo := v
		if kind == strongName {
			lo = afterScheme(s, v, hi)
		}
		// A Writer must keep the quote or -H with the field it belongs to.
		from := min(argAt, quoteAt)
		dst = append(dst, span{lo: lo, hi: hi, from: from, open: open})
	}
	return dst
}

// afterScheme returns where the credentials of the Authorization value
// s[v:hi] start: after its scheme word ("Bearer xyz", "basic xyz"), or v.
func afterScheme(s string, v, hi int) int {
	j := v
	for j < hi && isNameByte(s[j]) {
		j++
	}
	if j > v && j < hi && isBlank(s[j]) {
		k := j
		for k < hi && isBlank(s[k]) {
			k++
		}
		if k < hi {
			return k
		}
	}
	return v
}

// jsonFieldSpan masks the string value of a JSON field whose name marks a
// credential, as in {"token": "v"} or {"password":"v"}, when the ':' at c
// follows the field's quoted name; a name and value written in an escaped
// JSON string ({\"token\":\"v\"}) count too. An Authorization value keeps
// its scheme word.
func jsonFieldSpan(s string, c int, dst []span) []span {
	e := c
	for e > 0 && isBlank(s[e-1]) {
		e--
	}
	if e == 0 || s[e-1] != '"' {
		return dst
	}
	e--
	esc := e > 0 && s[e-1] == '\\'
	if esc {
		e--
	}
	b := e
	for b > 0 && e-b < maxHeaderName && isNameByte(s[b-1]) {
		b--
	}
	if b == e || b == 0 || s[b-1] != '"' || esc && (b < 2 || s[b-2] != '\\') {
		return dst
	}
	kind := classifyName(s[b:e])
	if kind == plainName {
		return dst
	}
	v := c + 1
	for v < len(s) && isBlank(s[v]) {
		v++
	}
	if esc {
		if !strings.HasPrefix(s[v:], `\"`) {
			return dst
		}
		v += 2
	} else {
		if v >= len(s) || s[v] != '"' {
			return dst
		}
		v++
	}
	end := v
	for end < len(s) && s[end] != '\n' && s[end] != '\r' {
		if esc && strings.HasPrefix(s[end:], `\"`) {
			break
		}
		if !esc && s[end] == '"' {
			break
		}
		if s[end] == '\\' {
			end++ // an escaped character
		}
		end++
	}
	end = min(end, len(s))
	if end == v {
		return dst
	}
	lo := v
	if kind == strongName {
		lo = afterScheme(s, v, end)
	}
	from := b - 1
	if esc {
		from--
	}
	return append(dst, span{lo: lo, hi: end, from: from, open: end == len(s)})
}

// Where a header-like field appears.
const (
	inText = iota // in running text: only Authorization counts
	inLine        // alone on its line, quoted, or after "="
	inArg         // an unquoted curl argument, -H name:value
)

// fieldContext tells where a field whose name starts at b appears, and
// where that context starts: the -H of an inArg field, else b. A line may
// start with white space and list or diff markers such as "> " or "- ".
func fieldContext(s string, b int) (ctx, at int) {
	if b == 0 {
		return inLine, b
	}
	if p := s[b-1]; isQuote(p) || p == '=' {
		return inLine, b
	}
	for j := b - 1; j >= 0; j-- {
		switch s[j] {
		case '\n', '\r':
			return inLine, b
		case ' ', '\t', '>', '<', '*', '+', '-', '#', '|':
			continue
		}
		before := strings.TrimRight(s[:b], " \t")
		if len(before) == b {
			return inText, b
		}
		for _, flag := range []string{"-H", "--header"} {
			if strings.HasSuffix(before, flag) {
				return inArg, len(before) - len(flag)
			}
		}
		return inText, b
	}
	return inLine, b
}

// quoteContext returns the quote that encloses a field starting at b, as in
// -H 'Authorization: token x' or "http.extraheader=AUTHORIZATION: basic x",
// and the quote's index; it returns 0 and b when the field is not quoted.
func quoteContext(s string, b int) (quote byte, at int) {
	if b == 0 {
		return 0, b
	}
	if p := s[b-1]; isQuote(p) {
		return p, b - 1
	}
	if s[b-1] != '=' {
		return 0, b
	}
	k := b - 1
	for k > 0 && s[k-1] > ' ' {
		k--
	}
	if isQuote(s[k]) {
		return s[k], k
	}
	return 0, b
}

// CredentialName reports whether a header or field name marks a credential
// (authorization, token, key, secret, password, passwd, cookie, credential),
// the names whose values the header rule masks.
func CredentialName(name string) bool { return classifyName(name) != plainName }
