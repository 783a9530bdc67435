package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// cutSecret is 59 random-looking bytes: its 3-byte pieces (an upper-case
// letter, a digit and a lower-case letter in turn) occur in no test's
// ordinary text.
const cutSecret = "Q7vK2mX9pL4wR8tY3bN6cJ5hF1dG7sA2eU9oI4uV8xW3qM6nB1kH5jD9gP"

// showsTriple returns a piece of 3 bytes of secret that out shows, or "".
func showsTriple(out, secret string) string {
	for i := 0; i+3 <= len(secret); i++ {
		if strings.Contains(out, secret[i:i+3]) {
			return secret[i : i+3]
		}
	}
	return ""
}

// TestClip: the one cut keeps at most n bytes, never splits a rune, and
// marks the cut with Cut; a text that fits is returned as it is.
func TestClip(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 40, "short"},
		{"exactly", 7, "exactly"},
		{"abcdefgh", 3, "abc" + Cut},
		{"aé", 2, "a" + Cut},
		{"日本語", 4, "日" + Cut},
		{"abc", 0, Cut},
		{"abc", -1, Cut},
	} {
		got := Clip(tt.in, tt.n)
		if got != tt.want || !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// TestStringCutVariants: whatever marks a cut (Cut, "...", or, for a cut
// that keeps a secret's start, nothing but the end of the text, a line or
// a quote), and however the cut text is
// written (as it is, Go-quoted, JSON-escaped, JSON-escaped twice, inside a
// longer text derived from the secret), no 3 bytes of the secret are left.
func TestStringCutVariants(t *testing.T) {
	r := New(Options{Env: []string{"API_TOKEN=" + cutSecret}})
	goQuote := func(s string) string { return strconv.Quote(s) }
	jsonQuote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	writings := map[string]func(string) string{
		"plain":        func(s string) string { return s },
		"go-quoted":    goQuote,
		"json":         jsonQuote,
		"json twice":   func(s string) string { return jsonQuote(jsonQuote(s)) },
		"go then json": func(s string) string { return jsonQuote(goQuote(s)) },
	}
	for n := 3; n < len(cutSecret); n++ {
		head, tail := cutSecret[:n], cutSecret[len(cutSecret)-n:]
		cuts := map[string]string{
			"prefix …":             head + Cut,
			"prefix ...":           head + "...",
			"prefix at the end":    head,
			"prefix at a line end": head + "\nnext line",
			"prefix at a CR":       head + "\rnext",
			"prefix in quotes":     `"` + head + `" is not JSON`,
			"prefix in ' quotes":   `'` + head + `' is not JSON`,
			"derived prefix …":     `x"` + head + Cut,
			"derived prefix ...":   `a,` + head + "...",
			"suffix …":             Cut + tail + " rejected",
			"suffix ...":           "..." + tail + " rejected",
			"suffix … in quotes":   `got "` + Cut + tail + `"`,
		}
		for wname, write := range writings {
			for cname, cut := range cuts {
				in := "if: fromJSON(env.API_TOKEN): " + write(cut) + " (at 1:1)"
				if cname == "prefix at the end" || cname == "prefix …" && wname == "plain" {
					in = "fromJSON: " + write(cut)
				}
				got := r.String(in)
				if p := showsTriple(got, cutSecret); p != "" {
					t.Fatalf("%d bytes, %s, %s: String(%q) = %q shows %q", n, cname, wname, in, got, p)
				}
			}
		}
	}
}

// TestStringCutBase64: basic credentials made from the secret, of any
// user, cut with or without a mark, show no 3 bytes of the secret's
// base64 either.
func TestStringCutBase64(t *testing.T) {
	r := New(Options{Env: []string{"API_TOKEN=" + cutSecret}})
	for _, user := range []string{"", "x-access-token:", "alice:", "bo:"} {
		enc := base64.StdEncoding.EncodeToString([]byte(user + cutSecret))
		core := base64.StdEncoding.EncodeToString([]byte(cutSecret))[4:40]
		for n := len(enc) / 3; n < len(enc)-4; n += 5 {
			for _, in := range []string{
				"Authorization: Basic " + enc[:n] + Cut,
				"Authorization: Basic " + enc[:n] + "...",
				"Authorization: Basic " + enc[:n] + "\n",
				`{"auth": "` + enc[:n] + `"}`,
			} {
				got := r.String(in)
				if strings.Contains(got, enc[n-8:n]) || user == "" && strings.Contains(got, core[:8]) {
					t.Errorf("user %q, %d bytes: String(%q) = %q", user, n, in, got)
				}
			}
		}
	}
}

// TestStringCutVariantsKeepText: a cut rule masks only what the cut left of a
// secret: ordinary text at a line's end, in quotes or before "..." stays.
func TestStringCutVariantsKeepText(t *testing.T) {
	r := New(Options{Env: []string{"API_TOKEN=" + cutSecret}, Values: []string{"hunter2-pass"}})
	for _, in := range []string{
		"Loading...\n",
		`error: "invalid value" at 1:1`,
		"'quoted' words\nnext line\r",
		"Q7 and P are two bytes only: Q7" + Cut,
		"hu\n",
		"6nB1kH5jD9gP was a suffix, unmarked\n",
		fmt.Sprintf("%q", "Retrying in 4 seconds..."),
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it as it is", in, got)
		}
	}
}

// TestWriterCutVariants: a Writer, line by line, masks a cut prefix before
// "..." and at the end of a line, and a cut suffix after a Cut.
func TestWriterCutVariants(t *testing.T) {
	r := New(Options{Env: []string{"API_TOKEN=" + cutSecret}})
	var b strings.Builder
	w := r.Writer(&b)
	fmt.Fprintf(w, "fromJSON: %q is not JSON\n", cutSecret[:40]+"...")
	fmt.Fprintf(w, "cut here: %s\n%s%s was the rest\n", cutSecret[:30], Cut, cutSecret[30:])
	w.Close()
	if p := showsTriple(b.String(), cutSecret); p != "" {
		t.Errorf("the Writer shows %q:\n%s", p, b.String())
	}
}
