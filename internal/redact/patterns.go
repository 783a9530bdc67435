package redact

// The credential pattern rules: well-known token formats and "Bearer x" or
// "Basic x" credentials in free text (rule 5), and the fragments of secrets
// next to a cut (rule 6).

import (
	"encoding/base64"
	"strings"
)

// maxCutReach bounds how far before a cut a URL's authority is looked for.
const maxCutReach = 2 << 10

// tokenFormat is a well-known token format: a prefix, then at least min
// characters of the format's alphabet.
type tokenFormat struct {
	prefix string
	min    int
	under  bool // '_' belongs to the alphabet
	dash   bool // '-' belongs to the alphabet
}

func (f tokenFormat) alphabet(c byte) bool {
	return isAlpha(c) || '0' <= c && c <= '9' || f.under && c == '_' || f.dash && c == '-'
}

// tokenGates group the well-known token formats by a rare byte of their
// prefixes (c, at offset off), which the text is searched for before the
// group's formats are tried: GitHub's (classic, OAuth, user, server and
// refresh tokens, fine-grained personal access tokens) and GitLab's
// personal access tokens at "g", npm's at the "p" of "npm_", Slack's at "x".
var tokenGates = []struct {
	c       byte
	off     int
	formats []tokenFormat
}{
	{'g', 0, []tokenFormat{
		{prefix: "ghp_", min: 20}, {prefix: "gho_", min: 20}, {prefix: "ghu_", min: 20},
		{prefix: "ghs_", min: 20}, {prefix: "ghr_", min: 20},
		{prefix: "github_pat_", min: 20, under: true},
		{prefix: "glpat-", min: 20, under: true, dash: true},
	}},
	{'p', 1, []tokenFormat{{prefix: "npm_", min: 30}}},
	{'x', 0, []tokenFormat{
		{prefix: "xoxb-", min: 10, dash: true}, {prefix: "xoxp-", min: 10, dash: true},
		{prefix: "xoxa-", min: 10, dash: true}, {prefix: "xoxr-", min: 10, dash: true},
	}},
}

// isWordByte reports whether c continues a word or token: a format's prefix
// after one is part of a longer word.
func isWordByte(c byte) bool {
	return isAlpha(c) || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// formatAt returns the end of the token of one of formats that starts at
// s[i:], and whether one does; a token shorter than its format's minimum
// counts only when it runs into a cut mark (it was shortened).
func formatAt(s string, i int, formats []tokenFormat) (int, bool) {
	if i < 0 || i+4 > len(s) || i > 0 && isWordByte(s[i-1]) && s[i-1] != '-' {
		return 0, false
	}
	for _, f := range formats {
		if f.prefix[1] != s[i+1] || !strings.HasPrefix(s[i:], f.prefix) {
			continue
		}
		e := i + len(f.prefix)
		for e < len(s) && f.alphabet(s[e]) {
			e++
		}
		if n := e - i - len(f.prefix); n >= f.min || n > 0 && cutMarkAt(s, e) {
			return e, true
		}
	}
	return 0, false
}

// formatSpans masks tokens of the well-known formats.
func formatSpans(s string, dst []span) []span {
	for _, g := range tokenGates {
		for i := 0; i < len(s); {
			k := strings.IndexByte(s[i:], g.c)
			if k < 0 {
				break
			}
			k += i
			i = k + 1
			if e, ok := formatAt(s, k-g.off, g.formats); ok {
				dst = append(dst, span{lo: k - g.off, hi: e, from: k - g.off, open: e == len(s)})
				i = e
			}
		}
	}
	return dst
}

// schemeSpans masks the credentials of "Bearer x" and "Basic x" written
// anywhere, outside an Authorization header too: a Bearer credential of at
// least 8 token68 characters holding a character other than a letter, and
// a Basic one that is base64 of "user:password". The scheme word is kept.
func schemeSpans(s string, dst []span) []span {
	for _, first := range []byte("bB") {
		for i := 0; ; {
			k := strings.IndexByte(s[i:], first)
			if k < 0 {
				break
			}
			w := k + i // the scheme word starts at w
			i = w + 1
			var basic bool
			switch {
			case hasPrefixFold(s[w+1:], "earer"):
			case hasPrefixFold(s[w+1:], "asic"):
				basic = true
			default:
				continue
			}
			if w > 0 && isWordByte(s[w-1]) {
				continue
			}
			v := w + len("bearer")
			if basic {
				v = w + len("basic")
			}
			if v >= len(s) || !isBlank(s[v]) {
				continue
			}
			for v < len(s) && isBlank(s[v]) {
				v++
			}
			e := v
			for e < len(s) && isToken68(s[e]) {
				e++
			}
			for e < len(s) && s[e] == '=' {
				e++
			}
			if e < len(s) && !credentialEnd(s[e]) {
				continue // "Bearer realm=..." or a word run on
			}
			if basic && !isBasicCredential(s[v:e]) || !basic && !isBearerCredential(s[v:e]) {
				continue
			}
			dst = append(dst, span{lo: v, hi: e, from: w, open: e == len(s)})
			i = e
		}
	}
	return dst
}

// isToken68 reports whether c may appear in an RFC 7235 token68 credential,
// its "=" padding excepted.
func isToken68(c byte) bool {
	return isAlpha(c) || '0' <= c && c <= '9' || strings.IndexByte("-._~+/", c) >= 0
}

// credentialEnd reports whether c may follow a credential: white space,
// punctuation and quotes, but not a "=" or a word character.
func credentialEnd(c byte) bool {
	return c <= ' ' || strings.IndexByte("\"'`,;)]}>|", c) >= 0
}

// isBearerCredential reports whether v looks like a bearer token rather
// than a word: at least 8 characters, one of them not a letter.
func isBearerCredential(v string) bool {
	if len(v) < 8 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isAlpha(v[i]) {
			return true
		}
	}
	return false
}

// isBasicCredential reports whether v is the base64, padded or not, of a
// "user:password" pair.
func isBasicCredential(v string) bool {
	if len(v) < 8 {
		return false
	}
	enc := base64.StdEncoding
	if !strings.HasSuffix(v, "=") {
		enc = base64.RawStdEncoding
	}
	b, err := enc.DecodeString(v)
	return err == nil && strings.IndexByte(string(b), ':') >= 0
}

// openAuthority returns where the authority of a URL that s ends inside
// starts, when that authority may hold userinfo cut before its "@": it is
// not a plain host name with an optional numeric port. It returns -1
// otherwise; an authority with its "@" is the URL rule's.
func openAuthority(s string) int {
	a := len(s)
	for a > 0 && !isAuthorityEnd(s[a-1]) {
		a--
	}
	auth := s[a:]
	if auth == "" || !strings.HasSuffix(s[:a], "://") || strings.IndexByte(auth, '@') >= 0 {
		return -1
	}
	host, port, _ := strings.Cut(auth, ":")
	for i := 0; i < len(host); i++ {
		if c := host[i]; !isAlpha(c) && (c < '0' || c > '9') && c != '.' && c != '-' {
			return a
		}
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return a
		}
	}
	return -1
}
