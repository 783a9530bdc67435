package redact

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
)

// The encodings other encoders write: any character of a secret as a JSON
// \uXXXX escape (Python's json.dumps, .NET's System.Text.Json, a mix), and
// percent-encodings by Python's quote()/quote_plus() and JavaScript's
// encodeURIComponent, in either hex case.

// uEscape writes r as JSON's \uXXXX (a surrogate pair above U+FFFF).
func uEscape(b *strings.Builder, r rune, hex string) {
	if r > 0xFFFF {
		hi, lo := utf16.EncodeRune(r)
		fmt.Fprintf(b, `\u`+hex+`\u`+hex, hi, lo)
		return
	}
	fmt.Fprintf(b, `\u`+hex, r)
}

// jsonEscaping writes s as an encoder that \u-escapes the runes esc
// selects, writing the rest as they are (after \" and \\).
func jsonEscaping(s, hex string, esc func(rune) bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case esc(r):
			uEscape(&b, r, hex)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '/':
			b.WriteString(`\/`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// percentEscaping writes s with every byte outside keep as %XX.
func percentEscaping(s, keep, hex string, plus bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case plus && c == ' ':
			b.WriteByte('+')
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(keep, c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%"+hex, c)
		}
	}
	return b.String()
}

var encodedSecrets = []string{
	"p\u00e4ssw\u00f6rd-K3y",
	"a+b=c/d e!'()*~x",
	"\U0001F511 key-secret",
	"Tr0ub4dor&3+<x>",
	"plain-secret-value",
}

func encodedVariants(s string) map[string]string {
	nonASCII := func(r rune) bool { return r >= 0x80 }
	dotnet := func(r rune) bool { return r >= 0x80 || strings.ContainsRune("+<>&'`\"", r) }
	all := func(rune) bool { return true }
	odd := func(r rune) bool { return r%2 == 1 }
	return map[string]string{
		"python json.dumps":           jsonEscaping(s, "%04x", nonASCII),
		".NET json":                   jsonEscaping(s, "%04X", dotnet),
		"every rune \\u":              jsonEscaping(s, "%04x", all),
		"every rune \\u upper":        jsonEscaping(s, "%04X", all),
		"odd runes \\u":               jsonEscaping(s, "%04x", odd),
		"python quote":                percentEscaping(s, "_.-~/", "%02X", false),
		"python quote safe=''":        percentEscaping(s, "_.-~", "%02X", false),
		"python quote_plus":           percentEscaping(s, "_.-~", "%02X", true),
		"python quote_plus lower":     percentEscaping(s, "_.-~", "%02x", true),
		"js encodeURIComponent":       percentEscaping(s, "-_.!~*'()", "%02X", false),
		"js encodeURIComponent lower": percentEscaping(s, "-_.!~*'()", "%02x", false),
		"js encodeURI":                percentEscaping(s, "-_.!~*'();/?:@&=+$,#", "%02X", false),
	}
}

func TestEncodedSecretsMasked(t *testing.T) {
	r := New(Options{Values: encodedSecrets})
	for _, secret := range encodedSecrets {
		for name, enc := range encodedVariants(secret) {
			in := `{"detail":"rejected ` + enc + ` here"}`
			got := r.String(in)
			if strings.Contains(got, enc) || !strings.Contains(got, Mask) || !strings.Contains(got, "rejected ") || !strings.Contains(got, " here") {
				t.Errorf("%s of %q: String(%q) = %q", name, secret, in, got)
			}
			// Through a Writer, the line written in small pieces.
			var b strings.Builder
			w := r.Writer(&b)
			for i := 0; i < len(in); i += 7 {
				w.Write([]byte(in[i:min(i+7, len(in))]))
			}
			w.Write([]byte("\n"))
			w.Close()
			if strings.Contains(b.String(), enc) || !strings.Contains(b.String(), Mask) {
				t.Errorf("%s of %q: Writer wrote %q", name, secret, b.String())
			}
		}
	}
}

// TestJSONEscapedURLUserinfo: the userinfo rule sees a URL written with JSON
// escapes (https:\/\/user:pw@host, \u002F), whatever the password.
func TestJSONEscapedURLUserinfo(t *testing.T) {
	testStrings(t, []stringTest{
		{"slash-escaped", `{"url":"https:\/\/alice:Unreg1stered@host.example\/x.git"}`, `{"url":"https:\/\/alice:***@host.example\/x.git"}`},
		{"u-escaped slashes", `{"url":"https:\u002F\u002Falice:Unreg1stered@host.example\u002Fx"}`, `{"url":"https:\u002F\u002Falice:***@host.example\u002Fx"}`},
		{"escaped at sign", `{"url":"https:\/\/alice:Unreg1stered\u0040host.example\/x"}`, `{"url":"https:\/\/alice:***\u0040host.example\/x"}`},
		{"user only", `"https:\/\/ghs_tok3nvalue@host\/x"`, `"https:\/\/***@host\/x"`},
		{"no userinfo untouched", `{"url":"https:\/\/host.example\/x"}`, `{"url":"https:\/\/host.example\/x"}`},
	})
}

// TestPlainTextUntouchedByDecoding: text with escapes but no secret stays.
func TestPlainTextUntouchedByDecoding(t *testing.T) {
	r := New(Options{Values: encodedSecrets})
	for _, in := range []string{
		`{"msg":"caf\u00e9 50%25 off a+b today"}`,
		"GET /search?q=a%20b+c&x=%zz%",
		`trailing \u12 and \ud83d alone %4`,
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q", in, got)
		}
	}
}
