package redact

// The literal-values rules: secret environment variables (rule 3) and
// explicit values (rule 4), each also masked in its base64 forms.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/retrywise/retrywise/internal/environ"
)

// gitBasicUser is the user name git and GitHub use with token credentials.
const gitBasicUser = "x-access-token:"

// envNameMarkers are the upper-case fragments that make an environment
// variable secret.
var envNameMarkers = []string{"TOKEN", "SECRET", "KEY", "PASSWORD", "CREDENTIAL"}

// envSecrets returns the literal forms of the secret values in env, a
// KEY=VALUE list; of a name given twice only the last value counts, as in
// os/exec.
func envSecrets(env []string) []form {
	var vals []form
	for name, value := range environ.Map(env) {
		if secretEnvName(name) && !plainSetting(value) {
			vals = appendSecret(vals, value, MinEnvValueLen)
		}
	}
	return vals
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

// form is one literal form of a secret. A match of a base64 form (b64) is
// widened to the base64 run around it, so that "Basic base64(user:TOKEN)"
// is masked whole whoever the user is.
type form struct {
	s   string
	b64 bool
	// given is true for the secret itself (trimmed) and each of its lines,
	// as opposed to a form derived from it.
	given bool
}

// basicUsers are the user names sent with a token in HTTP basic
// authentication whose base64 forms are registered whole; any other user's
// is caught by the alignment-independent core (b64Cores).
var basicUsers = []string{gitBasicUser, "gitlab-ci-token:", "oauth2:"}

// minCore is the shortest base64 core (b64Cores) registered: shorter ones
// would match ordinary text.
const minCore = 6

// appendSecret appends the literal forms of secret v to dst:
//   - v trimmed of white space, and each line of a multi-line v (the Writer
//     sees one line at a time);
//   - their escaped forms: JSON (with and without HTML escapes, and with
//     "\/" for "/"), Go-quoted, and percent-encoded (query and path
//     escaping, and every byte encoded; upper- and lower-case hex);
//   - the base64 forms of v (trimmed and as given), as sent in HTTP basic
//     authentication: of v, of "v:" (a user-only URL), of "user:v" for the
//     basicUsers, padded and unpadded, and the cores of v at each of the
//     three base64 alignments, which any "user:v" or "v:password" contains.
func appendSecret(dst []form, v string, minLen int) []form {
	t := strings.TrimSpace(v)
	if len(t) < minLen {
		return dst
	}
	texts := []string{t}
	if strings.ContainsAny(t, "\r\n") {
		for _, line := range strings.FieldsFunc(t, isEOL) {
			if line = strings.TrimSpace(line); len(line) >= minLen {
				texts = append(texts, line)
			}
		}
	}
	for _, text := range texts {
		dst = append(dst, form{s: text, given: true})
		for _, esc := range escapedForms(text) {
			if esc != text {
				dst = append(dst, form{s: esc})
			}
		}
	}
	raws := []string{t}
	if t != v {
		raws = append(raws, v)
	}
	for _, raw := range raws {
		plains := []string{raw, raw + ":"}
		for _, u := range basicUsers {
			plains = append(plains, u+raw)
		}
		var b64 []string
		for _, plain := range plains {
			b64 = append(b64, base64.StdEncoding.EncodeToString([]byte(plain)))
		}
		b64 = append(b64, b64Cores(raw)...)
		for _, enc := range b64 {
			for _, e := range []string{enc, strings.TrimRight(enc, "=")} {
				dst = append(dst, form{s: e, b64: true})
				// The URL-safe alphabet (JWTs, base64url of Go's and
				// Python's encoders) writes "-" and "_" for "+" and "/".
				if u := b64URL.Replace(e); u != e {
					dst = append(dst, form{s: u, b64: true})
				}
			}
		}
	}
	return dst
}

// b64URL turns the standard base64 alphabet into the URL-safe one.
var b64URL = strings.NewReplacer("+", "-", "/", "_")

// b64Cores returns, for each of the three offsets (mod 3) at which s may
// start in a longer text, the base64 characters of that text's encoding that
// depend on s alone: the characters that mix in a byte before or after s are
// dropped. Every base64 encoding of a text holding s contains one of them.
// For the offsets 1 and 2 it also returns the end of that encoding when s
// ends the text (its last characters, and its padding), so that what a cut
// leaves of the end of "user:s" is known too.
func b64Cores(s string) []string {
	var cores []string
	for k := range 3 {
		enc := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x00", k) + s))
		n := k + len(s)
		lo := []int{0, 2, 3}[k]
		hi := 4*(n/3) + []int{0, 1, 2}[n%3]
		if hi-lo >= minCore {
			cores = append(cores, enc[lo:hi])
			if k > 0 {
				cores = append(cores, enc[lo:])
			}
		}
	}
	return cores
}

// escapedForms returns the ways s is written escaped: in a JSON string
// (HTML-escaped as json.Marshal does, or not; "/" also as "\/"), Go-quoted
// (%q, strconv.Quote), and percent-encoded in a URL.
func escapedForms(s string) []string {
	out := jsonForms(s)
	// The Go-quoted form is also how a report shows control bytes
	// (failure.Printable writes \x01), and then how JSON writes that.
	q := strconv.Quote(s)
	q = q[1 : len(q)-1]
	out = append(out, q)
	if q != s {
		out = append(out, jsonForms(q)...)
	}
	// %+q writes every non-ASCII rune as \u or \U; Python's json.dumps
	// and .NET's encoder as \uXXXX, in lower and upper case.
	if a := strconv.QuoteToASCII(s); a != `"`+q+`"` {
		a = a[1 : len(a)-1]
		out = append(out, a)
		out = append(out, jsonForms(a)...)
	}
	for _, j := range jsonForms(s)[:1] {
		if a := asciiJSON(j, "%04x"); a != j {
			out = append(out, a, asciiJSON(j, "%04X"))
		}
	}
	// HTML (html/template, html.EscapeString) writes &#39; &#34; &amp; &lt; &gt;.
	if h := html.EscapeString(s); h != s {
		out = append(out, h)
	}
	// A shell quotes a "'" inside '...' as '\'' or '"'"'.
	if strings.Contains(s, "'") {
		out = append(out, strings.ReplaceAll(s, "'", `'\''`), strings.ReplaceAll(s, "'", `'"'"'`))
	}
	for _, p := range []string{url.QueryEscape(s), url.PathEscape(s)} {
		out = append(out, p, lowerHex(p))
	}
	const hex = "0123456789ABCDEF"
	upper, lower := make([]byte, 0, 3*len(s)), make([]byte, 0, 3*len(s))
	hexUp, hexLow := make([]byte, 0, 2*len(s)), make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		upper = append(upper, '%', hex[s[i]>>4], hex[s[i]&15])
		lower = append(lower, '%', hex[s[i]>>4]|0x20, hex[s[i]&15]|0x20)
		hexUp = append(hexUp, hex[s[i]>>4], hex[s[i]&15])
		hexLow = append(hexLow, hex[s[i]>>4]|0x20, hex[s[i]&15]|0x20)
	}
	// Hex as %x, %X, hex.EncodeToString, xxd -p and od write it.
	return append(out, string(upper), string(lower), string(hexUp), string(hexLow))
}

// asciiJSON returns the JSON-escaped j with every non-ASCII rune written
// as \uXXXX (a surrogate pair above U+FFFF) with the hex digits of format.
func asciiJSON(j, format string) string {
	var b strings.Builder
	for _, r := range j {
		switch {
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u`+format+`\u`+format, hi, lo)
		case r >= 0x80:
			fmt.Fprintf(&b, `\u`+format, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// jsonForms returns s as JSON writes it inside a string, with and without
// HTML escapes, and with / escaped too when s holds one.
func jsonForms(s string) []string {
	var out []string
	for _, html := range []bool{true, false} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(s) == nil {
			j := strings.TrimSuffix(b.String(), "\n")
			j = j[1 : len(j)-1]
			out = append(out, j)
			if strings.Contains(j, "/") {
				out = append(out, strings.ReplaceAll(j, "/", `\/`))
			}
		}
	}
	return out
}

// lowerHex returns s with the hex digits of its %XX escapes in lower case.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerASCII(b[i+1]), lowerASCII(b[i+2])
		}
	}
	return string(b)
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c | 0x20
	}
	return c
}

func isEOL(c rune) bool { return c == '\n' || c == '\r' }
