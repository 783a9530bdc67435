// Package redact masks secrets in everything retrywise prints or writes:
// relayed child output, progress lines, reports and error messages.
//
// A Redactor applies four rules and replaces every match with Mask:
//
//  1. URL userinfo: the password in scheme://user:password@host, or the user
//     in scheme://user@host, because a lone user is usually a token.
//  2. Credential headers: the value of Authorization and Proxy-Authorization
//     (keeping the scheme word such as "Bearer" or "basic"), and the whole
//     value of header-like fields whose name contains token, key, secret,
//     password, passwd, cookie or credential, when written at the start of a
//     line, quoted (-H 'X-Api-Key: v'), after "=" (http.extraheader=...) or
//     after -H/--header.
//  3. Secret environment values: the values, at least MinEnvValueLen bytes
//     long, of variables whose names contain TOKEN, SECRET, KEY, PASSWORD or
//     CREDENTIAL in any case.
//  4. Explicit values, at least MinValueLen bytes long, given in
//     Options.Values or added later with Add.
//
// Every literal secret of rules 3 and 4 is also masked in its base64 forms,
// those of the value and of "x-access-token:" plus the value, padded and
// unpadded, since git sends "basic base64(user:token)"; a multi-line secret
// is also masked line by line. Literal secrets are matched as a set in one
// pass, so a secret that contains or overlaps another is masked in full.
package redact

import (
	"encoding/base64"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Mask is the text that replaces every secret.
const Mask = "***"

// MinValueLen is the shortest explicit value (Options.Values, Add) that is
// masked; shorter values are ignored so that masking stays readable.
const MinValueLen = 3

// MinEnvValueLen is the shortest secret environment value that is masked;
// shorter values such as "1" or "on" are ignored.
const MinEnvValueLen = 4

// gitBasicUser is the user name git and GitHub use with token credentials.
const gitBasicUser = "x-access-token:"

// envNameMarkers are the upper-case fragments that make an environment
// variable secret.
var envNameMarkers = []string{"TOKEN", "SECRET", "KEY", "PASSWORD", "CREDENTIAL"}

// Options configures New; the zero value masks only the pattern-based rules.
type Options struct {
	// Env holds KEY=VALUE pairs such as os.Environ(); values of variables
	// with secret-looking names and at least MinEnvValueLen bytes are masked.
	Env []string
	// Values holds explicit secrets such as --mask arguments; values with at
	// least MinValueLen bytes (after trimming white space) are masked.
	Values []string
}

// Redactor masks secrets in strings and streams; it is safe for concurrent
// use, and its zero value masks only the pattern-based rules.
type Redactor struct {
	mu      sync.Mutex          // serialises Add
	secrets map[string]struct{} // every literal secret, guarded by mu
	snap    atomic.Pointer[snapshot]
}

// snapshot is an immutable view of the literal secrets, swapped atomically
// by Add so that readers never lock.
type snapshot struct {
	secrets []string // longest first
	match   *matcher // finds secrets; nil when there are none
	longest int      // length of secrets[0]
}

var emptySnapshot = &snapshot{}

// New returns a Redactor masking the pattern-based rules and the secrets
// found in opts.
func New(opts Options) *Redactor {
	r := &Redactor{}
	var vals []string
	for _, kv := range opts.Env {
		name, value, ok := strings.Cut(kv, "=")
		if ok && secretEnvName(name) && !plainSetting(value) {
			vals = appendSecret(vals, value, MinEnvValueLen)
		}
	}
	for _, v := range opts.Values {
		vals = appendSecret(vals, v, MinValueLen)
	}
	r.add(vals)
	return r
}

// Add registers more secrets, such as tokens discovered after start-up; values
// shorter than MinValueLen are ignored, and it is safe to call while other
// goroutines use the Redactor or its Writers.
func (r *Redactor) Add(values ...string) {
	var vals []string
	for _, v := range values {
		vals = appendSecret(vals, v, MinValueLen)
	}
	r.add(vals)
}

// add registers literal secrets and publishes a new snapshot if any is new.
func (r *Redactor) add(vals []string) {
	if len(vals) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.secrets == nil {
		r.secrets = make(map[string]struct{}, len(vals))
	}
	grew := false
	for _, v := range vals {
		if _, ok := r.secrets[v]; !ok {
			r.secrets[v] = struct{}{}
			grew = true
		}
	}
	if !grew {
		return
	}
	s := &snapshot{secrets: make([]string, 0, len(r.secrets))}
	for v := range r.secrets {
		s.secrets = append(s.secrets, v)
	}
	// Longest first: snapshot.longest sizes the Writer's kept-back tail.
	slices.SortFunc(s.secrets, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	s.match = newMatcher(s.secrets)
	s.longest = len(s.secrets[0])
	r.snap.Store(s)
}

// load returns the current snapshot, never nil.
func (r *Redactor) load() *snapshot {
	if s := r.snap.Load(); s != nil {
		return s
	}
	return emptySnapshot
}

// plainSetting reports whether a secret-named variable holds an ordinary
// setting word (KEYCHAIN=true, GIT_ASKPASS_TOKEN=none) rather than a secret;
// masking it would hide every "true" in the output.
func plainSetting(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "false", "yes", "no", "none", "null", "nil", "unset", "empty", "enabled", "disabled", "on", "off":
		return true
	}
	return false
}

// secretEnvName reports whether an environment variable name marks a secret.
func secretEnvName(name string) bool {
	up := strings.ToUpper(name)
	for _, m := range envNameMarkers {
		if strings.Contains(up, m) {
			return true
		}
	}
	return false
}

// appendSecret appends the literal forms of secret v to dst: v trimmed of
// white space, each line of a multi-line v (the Writer sees one line at a
// time), and the base64 encodings of v and of "x-access-token:"+v, padded and
// unpadded, as sent in HTTP basic authentication.
func appendSecret(dst []string, v string, minLen int) []string {
	t := strings.TrimSpace(v)
	if len(t) < minLen {
		return dst
	}
	dst = append(dst, t)
	if strings.ContainsAny(t, "\r\n") {
		for _, line := range strings.FieldsFunc(t, isEOL) {
			if line = strings.TrimSpace(line); len(line) >= minLen {
				dst = append(dst, line)
			}
		}
	}
	raws := []string{t}
	if t != v {
		raws = append(raws, v)
	}
	for _, raw := range raws {
		for _, plain := range []string{raw, gitBasicUser + raw} {
			enc := base64.StdEncoding.EncodeToString([]byte(plain))
			dst = append(dst, enc)
			if short := strings.TrimRight(enc, "="); short != enc {
				dst = append(dst, short)
			}
		}
	}
	return dst
}

func isEOL(c rune) bool { return c == '\n' || c == '\r' }

// String returns s with every secret replaced by Mask; s itself is returned
// when nothing is masked.
func (r *Redactor) String(s string) string {
	spans := scan(r.load(), s, nil)
	if len(spans) == 0 {
		return s
	}
	return string(render(make([]byte, 0, len(s)), s, spans))
}

// span is a byte range [lo, hi) to replace with Mask, found by one rule.
type span struct {
	lo, hi int
	// from is where the construct that produced the span starts (a URL's
	// scheme, a header's name); a Writer never splits output inside
	// [from, hi).
	from int
	// open is set when the construct reaches the end of the input and may
	// continue in later input.
	open bool
}

// scan appends to dst the spans of s to mask, sorted by lo and merged where
// they overlap. Spans with lo == hi mask nothing and only protect a
// construct from being split.
func scan(snap *snapshot, s string, dst []span) []span {
	dst = literalSpans(snap, s, dst)
	dst = urlSpans(s, dst)
	dst = headerSpans(s, dst)
	if len(dst) < 2 {
		return dst
	}
	slices.SortFunc(dst, func(a, b span) int { return a.lo - b.lo })
	out := dst[:1]
	for _, sp := range dst[1:] {
		last := &out[len(out)-1]
		if sp.lo < last.hi {
			last.hi = max(last.hi, sp.hi)
			last.from = min(last.from, sp.from)
			last.open = last.open || sp.open
			continue
		}
		out = append(out, sp)
	}
	return out
}

// render appends s to dst with every non-empty span replaced by Mask.
func render(dst []byte, s string, spans []span) []byte {
	last := 0
	for _, sp := range spans {
		if sp.lo >= sp.hi {
			continue
		}
		dst = append(dst, s[last:sp.lo]...)
		dst = append(dst, Mask...)
		last = sp.hi
	}
	return append(dst, s[last:]...)
}

// literalSpans finds every occurrence of every literal secret, so that
// overlapping secrets are masked as their union.
func literalSpans(snap *snapshot, s string, dst []span) []span {
	if snap.match == nil {
		return dst
	}
	return snap.match.find(s, dst)
}

// urlSpans masks the userinfo of scheme://user:password@host URLs.
func urlSpans(s string, dst []span) []span {
	i := 0
	if strings.IndexByte(s, '@') < 0 {
		// No userinfo yet, but a URL ending s may still receive its '@'.
		j := len(s)
		for j > 0 && !isAuthorityEnd(s[j-1]) {
			j--
		}
		if !strings.HasSuffix(s[:j], "://") {
			return dst
		}
		i = j - 3
	}
	for i < len(s) {
		k := strings.Index(s[i:], "://")
		if k < 0 {
			break
		}
		k += i
		i = k + 3
		b := k
		for b > 0 && isSchemeByte(s[b-1]) {
			b--
		}
		for b < k && !isAlpha(s[b]) {
			b++
		}
		if b == k {
			continue
		}
		a := k + 3
		e, at := a, -1
		for e < len(s) && !isAuthorityEnd(s[e]) {
			if s[e] == '@' {
				at = e
			}
			e++
		}
		open := e == len(s)
		i = e
		if at <= a {
			if open && e > a {
				// Its '@' may still arrive: protect it from being split.
				dst = append(dst, span{lo: e, hi: e, from: b, open: true})
			}
			continue
		}
		lo, hi := a, at // no password: the user is the token
		if p := strings.IndexByte(s[a:at], ':'); p >= 0 {
			if a+p+1 < at {
				lo = a + p + 1
			} else {
				hi = a + p
			}
		}
		if lo < hi {
			dst = append(dst, span{lo: lo, hi: hi, from: b, open: open})
		}
	}
	return dst
}

func isAlpha(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func isSchemeByte(c byte) bool {
	return isAlpha(c) || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

// isAuthorityEnd reports whether c ends a URL authority in free text.
func isAuthorityEnd(c byte) bool {
	switch c {
	case '/', '?', '#', '"', '<', '>', '`', '\\', 0x7f:
		return true
	}
	return c <= ' '
}

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
			// Keep the scheme word of "Bearer xyz" and "basic xyz".
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
					lo = k
				}
			}
		}
		// A Writer must keep the quote or -H with the field it belongs to.
		from := min(argAt, quoteAt)
		dst = append(dst, span{lo: lo, hi: hi, from: from, open: open})
	}
	return dst
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
