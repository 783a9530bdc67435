package redact

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// The encodings a tool prints a credential in (hex, base64 of either
// alphabet, padded or not and inside a Basic credential at each of the three
// alignments, percent-encoding, JSON, Go's %q and %+q, shell quoting), each
// masked whole, cut at its start or end, and split across writes.

// printedSecrets are the secrets of the table: plain, one holding what the
// encodings escape (a quote, a backslash, "+", "/", a space, a non-ASCII
// letter, a control byte), and a short one (5 bytes, the shortest whose
// base64 is found at every alignment).
var printedSecrets = []string{
	"Q7vK2mX9pL4wR8tY3bN6cJ5hF1dG7sA2eU",
	"Q7v'K2m\"X9p\\L4w+R8t/Y3b \u00e4N6c\x01J5h?>~",
	"Zq9x7",
}

// printed is one way a tool prints a secret: enc returns the printed text
// and the bytes [lo, hi) of it that depend on the secret alone (the rest is
// a user name or padding).
type printed struct {
	name string
	enc  func(s string) (out string, lo, hi int)
}

// escapeOnly are the encodings that write every character as an escape
// (\uXXXX), whose 3 bytes in a row ("\u0") say nothing: what the output
// shows, decoded, must hold no 3 bytes of the secret.
var escapeOnly = map[string]bool{"every rune \\u": true, "every rune \\u upper": true}

// whole wraps an encoding whose every byte depends on the secret.
func whole(f func(string) string) func(string) (string, int, int) {
	return func(s string) (string, int, int) { e := f(s); return e, 0, len(e) }
}

// quoted wraps an encoding that adds a quote at each end.
func quoted(f func(string) string) func(string) (string, int, int) {
	return func(s string) (string, int, int) { e := f(s); return e, 1, len(e) - 1 }
}

// b64With returns base64 of prefix+s+suffix in enc, and the characters of
// it that depend on s alone.
func b64With(enc *base64.Encoding, prefix, suffix string) func(string) (string, int, int) {
	return func(s string) (string, int, int) {
		out := enc.EncodeToString([]byte(prefix + s + suffix))
		bitLo, bitHi := 8*len(prefix), 8*(len(prefix)+len(s))
		lo := (bitLo + 5) / 6 // the first character all of whose bits are s's
		hi := bitHi / 6       // the characters before it hold only s's bits
		if suffix == "" {
			hi = (bitHi + 5) / 6 // the last character's low bits are zero, not another byte's
		}
		return out, lo, hi
	}
}

func hexWith(prefix string, upper bool) func(string) (string, int, int) {
	return func(s string) (string, int, int) {
		out := hex.EncodeToString([]byte(prefix + s))
		if upper {
			out = strings.ToUpper(out)
		}
		return out, 2 * len(prefix), 2 * (len(prefix) + len(s))
	}
}

// pyJSON writes s as Python's json.dumps does: non-ASCII as \uXXXX.
func pyJSON(s string) string {
	b, _ := json.Marshal(s)
	var out strings.Builder
	for _, r := range string(b[1 : len(b)-1]) {
		switch {
		case r > 0xFFFF:
			a, z := utf16.EncodeRune(r)
			fmt.Fprintf(&out, `\u%04x\u%04x`, a, z)
		case r >= 0x80:
			fmt.Fprintf(&out, `\u%04x`, r)
		default:
			out.WriteRune(r)
		}
	}
	return out.String()
}

var printedEncodings = []printed{
	{"as is", whole(func(s string) string { return s })},
	{"hex %x", hexWith("", false)},
	{"hex %X", hexWith("", true)},
	{"hex of user:secret", hexWith("user:", false)},
	{"base64 std", b64With(base64.StdEncoding, "", "")},
	{"base64 std raw", b64With(base64.RawStdEncoding, "", "")},
	{"base64 url", b64With(base64.URLEncoding, "", "")},
	{"base64 url raw", b64With(base64.RawURLEncoding, "", "")},
	{"basic u:secret", b64With(base64.StdEncoding, "u:", "")},
	{"basic us:secret", b64With(base64.StdEncoding, "us:", "")},
	{"basic use:secret", b64With(base64.StdEncoding, "use:", "")},
	{"basic url u:secret", b64With(base64.URLEncoding, "u:", "")},
	{"basic url us:secret raw", b64With(base64.RawURLEncoding, "us:", "")},
	{"basic url use:secret", b64With(base64.URLEncoding, "use:", "")},
	{"basic secret:pw", b64With(base64.StdEncoding, "", ":pw")},
	{"basic u:secret:x", b64With(base64.StdEncoding, "u:", ":x")},
	{"percent query", whole(url.QueryEscape)},
	{"percent path", whole(url.PathEscape)},
	{"percent every byte", whole(func(s string) string { return percentEscaping(s, "", "%02X", false) })},
	{"percent every byte lower", whole(func(s string) string { return percentEscaping(s, "", "%02x", false) })},
	{"json", quoted(func(s string) string { b, _ := json.Marshal(s); return string(b) })},
	{"python json", whole(pyJSON)},
	{"every rune \\u", whole(func(s string) string { return jsonEscaping(s, "%04x", func(rune) bool { return true }) })},
	{"every rune \\u upper", whole(func(s string) string { return jsonEscaping(s, "%04X", func(rune) bool { return true }) })},
	{"python quote_plus", whole(func(s string) string { return percentEscaping(s, "_.-~", "%02X", true) })},
	{"go %q", quoted(strconv.Quote)},
	{"go %+q", quoted(strconv.QuoteToASCII)},
	{"html", whole(html.EscapeString)},
	{"shell '\\''", quoted(func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" })},
	{"shell '\"'\"'", quoted(func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'" })},
}

// frameBefore and frameAfter surround a printed secret.
const frameBefore, frameAfter = "auth: ", " ; fin"

// secretWindows returns the 3-byte windows of out[lo:hi].
func secretWindows(out string, lo, hi int) []string {
	var w []string
	for i := lo; i+3 <= hi; i++ {
		w = append(w, out[i:i+3])
	}
	return w
}

// shownWindow returns a window that text shows, or "".
func shownWindow(text string, windows []string) string {
	for _, w := range windows {
		if strings.Contains(text, w) {
			return w
		}
	}
	return ""
}

// TestPrintedSecretsMasked: every encoding of every secret, whole, cut at
// its start (by Cut, "...", or unmarked at the end of a line), cut at its
// end (after Cut or "..."), and split across two writes at every byte,
// shows no 3 bytes in a row of what depends on the secret.
func TestPrintedSecretsMasked(t *testing.T) {
	r := New(Options{Values: printedSecrets})
	for _, secret := range printedSecrets {
		for _, p := range printedEncodings {
			enc, lo, hi := p.enc(secret)
			windows := secretWindows(enc, lo, hi)
			if escapeOnly[p.name] {
				windows = secretWindows(secret, 0, len(secret))
			}
			if len(windows) == 0 {
				t.Fatalf("%s of %q: nothing to check", p.name, secret)
			}
			for _, frame := range []string{frameBefore, frameAfter, Mask, Cut, "..."} {
				if w := shownWindow(frame, windows); w != "" {
					t.Fatalf("%s of %q: the frame %q holds %q", p.name, secret, frame, w)
				}
			}
			check := func(how, in, out string) {
				t.Helper()
				texts := []string{out}
				if escapeOnly[p.name] {
					for _, v := range decodedViews(out, true) {
						texts = append(texts, v.text)
					}
				}
				for _, text := range texts {
					if w := shownWindow(text, windows); w != "" {
						t.Errorf("%s of %q, %s: %q shows %q:\n in %q\nout %q", p.name, secret, how, text, w, in, out)
					}
				}
				if !strings.HasPrefix(out, frameBefore) {
					t.Errorf("%s of %q, %s: the text before is masked: %q", p.name, secret, how, out)
				}
			}
			line := frameBefore + enc + frameAfter
			out := r.String(line)
			check("whole", line, out)
			if !strings.HasSuffix(out, frameAfter) {
				t.Errorf("%s of %q: the text after is masked: %q", p.name, secret, out)
			}
			for n := 3; n < len(enc); n++ {
				for _, in := range []string{
					frameBefore + enc[:n] + Cut + frameAfter,
					frameBefore + enc[:n] + "..." + frameAfter,
					frameBefore + enc[:n] + "\nnext",
					frameBefore + Cut + enc[len(enc)-n:] + frameAfter,
					frameBefore + "..." + enc[len(enc)-n:] + frameAfter,
				} {
					check(fmt.Sprintf("cut to %d bytes", n), in, r.String(in))
				}
			}
			for i := 0; i <= len(line); i++ {
				var b strings.Builder
				w := r.Writer(&b)
				io.WriteString(w, line[:i])
				io.WriteString(w, line[i:]+"\n")
				w.Close()
				check(fmt.Sprintf("split at %d", i), line, b.String())
			}
		}
	}
}

// TestPrintedSecretSplitPastTheHeldLine: a line longer than the Writer
// holds, with an encoded secret where the Writer writes out its start,
// still shows none of it.
func TestPrintedSecretSplitPastTheHeldLine(t *testing.T) {
	secret := printedSecrets[1]
	r := New(Options{Values: []string{secret}})
	for _, p := range printedEncodings {
		enc, lo, hi := p.enc(secret)
		windows := secretWindows(enc, lo, hi)
		for _, at := range []int{maxPartial - 3, maxPartial, maxPartial + len(enc)/2, maxPartial + 200} {
			pad := strings.Repeat("x ", at/2)
			var b strings.Builder
			w := r.Writer(&b)
			io.WriteString(w, pad+frameBefore+enc[:len(enc)/2])
			io.WriteString(w, enc[len(enc)/2:]+frameAfter+strings.Repeat(" y", 40000))
			w.Close()
			if s := shownWindow(b.String(), windows); s != "" {
				t.Errorf("%s at %d: shows %q", p.name, at, s)
			}
		}
	}
}

// TestBasicAuthAnyUserAnyAlignment: an Authorization header and a URL's
// userinfo carry the secret after any user, base64 at every alignment or
// percent-encoded.
func TestBasicAuthAnyUserAnyAlignment(t *testing.T) {
	secret := printedSecrets[1]
	r := New(Options{Values: []string{secret}})
	for _, user := range []string{"a", "ab", "abc", "deploy-bot", "x-access-token"} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
			blob := enc.EncodeToString([]byte(user + ":" + secret))
			in := "curl -H 'X-Forwarded: Basic " + blob + "' " + blob + "\n"
			if out := r.String(in); strings.Contains(out, blob[len(blob)-8:]) || strings.Count(out, Mask) != 2 {
				t.Errorf("user %q: %q", user, out)
			}
		}
		for _, esc := range []string{url.QueryEscape(secret), url.PathEscape(secret), percentEscaping(secret, "", "%02x", false)} {
			in := "fetch https://" + user + ":" + esc + "@git.example/r.git failed"
			if out := r.String(in); out != "fetch https://"+user+":***@git.example/r.git failed" {
				t.Errorf("user %q, %q: %q", user, esc, out)
			}
		}
	}
}

// realisticLog is ordinary output with hex digests, base64 blobs, numbers,
// URLs and JSON: nothing in it is a secret.
const realisticLog = `2026-12-07T05:01:22.1234567Z ##[group]Run actions/checkout@v4
HEAD is now at 3f9c2a1b7d4e8f6051a2c3d4e5f60718293a4b5c Merge pull request #4812 from o/r
sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  dist/app.tar.gz
remote: Counting objects: 100% (5137/5137), done.
Receiving objects:  41% (2107/5137), 1.21 MiB | 2.40 MiB/s
{"id":"a1b2c3d4-e5f6-4789-abcd-ef0123456789","etag":"W/\"5d41402abc4b2a76b9719d911017c592\"","size":5137}
Content-MD5: XrY7u+Ae7tCTyyK7j1rNww==
cache key: node-modules-Linux-x64-8e2a5f0c1d3b4a69
GET https://api.github.com/repos/o/r/actions/runs/7001234567/jobs?per_page=100&page=2 -> 200 (412 ms)
curl: (22) The requested URL returned error: 503 Service Unavailable
npm ERR! code E503
Step 3/9 : RUN go build -trimpath -ldflags="-s -w -X main.version=1.4.2" ./cmd/retrywise
 ---> Running in 0c2f3e4d5a6b
docker.io/library/golang:1.26@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
the quick brown fox jumps over the lazy dog, 'quoted' and "double" words 42
%E2%9C%93 done 100%
`

// TestPrintedFormsDoNotOverMask: ordinary output holding hex digests,
// base64, percent-escapes and numbers is left as it is while secrets of
// every kind are registered.
func TestPrintedFormsDoNotOverMask(t *testing.T) {
	r := New(Options{Values: append(benchSecrets(), printedSecrets...)})
	if got := r.String(realisticLog); got != realisticLog {
		t.Errorf("ordinary text masked:\n%s", got)
	}
}

// benchSecrets are 10 secrets of the kinds a job holds.
func benchSecrets() []string {
	return []string{
		"ghs_16C7e42F292c6912E7710c838347Ae178B4a",
		"glpat-Xy3vQ9mZ2kL8pW4rT6nB",
		"sk_live_51HqLyjWDarjtT1zdp7dc",
		"AKIAIOSFODNN7EXAMPLE",
		"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"hunter2-Extra!",
		"p\u00e4ssw\u00f6rd+Key/42",
		"xoxb-263594206564-FGqddMF8t08v8N7Oq4i57vs1",
		"npm_Q2hrZWQgaW4gYnkgdGhlIGJvdA4x",
		"Zq9x7",
	}
}

// benchLog is a 64 KiB log with each of benchSecrets printed in one of the
// encodings, among ordinary lines.
func benchLog() string {
	var b strings.Builder
	secrets := benchSecrets()
	for i := 0; b.Len() < 64<<10; i++ {
		b.WriteString(realisticLog)
		s := secrets[i%len(secrets)]
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "using token %s for push\n", s)
		case 1:
			fmt.Fprintf(&b, "Authorization: Basic %s\n", base64.StdEncoding.EncodeToString([]byte("bot:"+s)))
		case 2:
			fmt.Fprintf(&b, "debug: key=%x\n", s)
		case 3:
			fmt.Fprintf(&b, "config %q\n", s)
		}
	}
	return b.String()
}

// BenchmarkRedact64KiB masks a realistic 64 KiB log with 10 secrets, with
// String and through a Writer.
func BenchmarkRedact64KiB(b *testing.B) {
	r := New(Options{Values: benchSecrets()})
	log := benchLog()
	b.Run("String", func(b *testing.B) {
		b.SetBytes(int64(len(log)))
		for b.Loop() {
			r.String(log)
		}
	})
	b.Run("Writer", func(b *testing.B) {
		b.SetBytes(int64(len(log)))
		for b.Loop() {
			w := r.Writer(io.Discard)
			for p := log; len(p) > 0; {
				n := min(4096, len(p))
				io.WriteString(w, p[:n])
				p = p[n:]
			}
			w.Close()
		}
	})
}

// TestTripleEscapedSecretSplitPastTheHeldLine: a secret of control bytes
// JSON-escaped three times (9 bytes a byte, \\\\u0001) and split where a
// Writer writes out the start of an over-long line is still masked.
func TestTripleEscapedSecretSplitPastTheHeldLine(t *testing.T) {
	secret := strings.Repeat("\x01\x02", 50)
	r := New(Options{Values: []string{secret}})
	enc := secret
	for range 3 {
		b, _ := json.Marshal(enc)
		enc = string(b[1 : len(b)-1])
	}
	if len(enc) != 9*len(secret) {
		t.Fatalf("the form is %d bytes", len(enc))
	}
	for _, start := range []int{650, 750, 850} { // where the form starts before the held line's end
		var b strings.Builder
		w := r.Writer(&b)
		pad := strings.Repeat("x", maxPartial+100-start)
		io.WriteString(w, pad+enc[:start])
		io.WriteString(w, enc[start:]+" end\n")
		w.Close()
		if strings.Contains(b.String(), "u000") || !strings.HasSuffix(b.String(), Mask+" end\n") {
			t.Errorf("start %d: %q", start, b.String()[len(pad)-10:])
		}
	}
}
