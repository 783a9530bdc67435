// Package redact masks secrets in everything retrywise prints or writes:
// relayed child output, progress lines, reports and error messages.
//
// A Redactor applies six rules and replaces every match with Mask:
//
//  1. URL userinfo: the password in scheme://user:password@host, or the user
//     in scheme://user@host, because a lone user is usually a token.
//  2. Credential fields: the value of Authorization and Proxy-Authorization
//     (keeping the scheme word such as "Bearer" or "basic"), and the whole
//     value of header-like fields whose name contains token, key, secret,
//     password, passwd, cookie or credential, when written at the start of a
//     line, quoted (-H 'X-Api-Key: v'), after "=" (http.extraheader=...) or
//     after -H/--header; and the string value of JSON fields with such
//     names ({"token": "v"}, {\"password\":\"v\"} in an escaped body).
//  3. Secret environment values: the values, at least MinEnvValueLen bytes
//     long, of variables whose names contain TOKEN, SECRET, KEY, PASSWORD or
//     CREDENTIAL in any case.
//  4. Explicit values, at least MinValueLen bytes long, given in
//     Options.Values or added later with Add.
//  5. Credential patterns: tokens of well-known formats (GitHub's ghp_,
//     gho_, ghu_, ghs_, ghr_ and github_pat_, GitLab's glpat-, npm_, Slack's
//     xox?-), "Bearer x" with a token-like x and "Basic x" with x the base64
//     of user:password, anywhere in the text (the scheme word is kept).
//  6. Cut fragments: the part of a literal secret (of any of its forms)
//     a cut left, at least 3 bytes: its start before a cut mark (Cut, which
//     marks where retrywise shortened a text with Clip, or "...") or,
//     unmarked, at the end of the text, a line or before a quote; its end
//     after a cut mark. Next to a cut mark also a token of rule 5 however
//     short, and before one a URL authority that may be userinfo cut
//     before its "@".
//
// Every literal secret of rules 3 and 4 is also masked in its escaped and
// encoded forms: JSON-escaped (with and without HTML escapes, "/" as "\/",
// non-ASCII as \uXXXX in either case), Go-quoted (%q and %+q), HTML-escaped,
// shell-quoted (a quote closed, escaped and reopened), percent-encoded (query and path
// escaping, every byte encoded, upper- or lower-case hex), hex (%x, %X), and
// base64 in the standard and the URL-safe alphabet, as sent in HTTP basic
// authentication: of the value, of "value:" and of "user:value" for any
// user (and "value:password"), padded or not; a base64 match is widened to
// the whole base64 run around it. A multi-line secret is also masked line
// by line. Literal secrets are matched as a set in one pass, so a secret
// that contains or overlaps another is masked in full.
//
// URL removes the userinfo from a single URL that is shown on purpose, such
// as the endpoint of a failed push; ArgSecrets finds the credentials of a
// command line, for its usage errors.
package redact

import (
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

// Options configures New; the zero value masks only the pattern-based rules.
type Options struct {
	// Env holds KEY=VALUE pairs such as os.Environ(); values of variables
	// with secret-looking names and at least MinEnvValueLen bytes are masked.
	// Of a variable given twice only the last value counts, as in os/exec.
	Env []string
	// Values holds explicit secrets such as --mask arguments; values with at
	// least MinValueLen bytes (after trimming white space) are masked.
	Values []string
}

// Redactor masks secrets in strings and streams; it is safe for concurrent
// use, and its zero value masks only the pattern-based rules.
type Redactor struct {
	mu      sync.Mutex      // serialises Add
	secrets map[string]bool // every literal form, true for a base64 one; guarded by mu
	given   []string        // the secrets as given, in the order added; guarded by mu
	snap    atomic.Pointer[snapshot]
}

// snapshot is an immutable view of the literal secrets, swapped atomically
// by Add so that readers never lock.
type snapshot struct {
	secrets []string  // longest first
	wide    []bool    // wide[i]: secrets[i] is a base64 form, widened to its run
	match   *matcher  // finds secrets; nil when there are none
	cut     *cutIndex // finds what a cut left of them; nil when there are none
	longest int       // length of secrets[0], or of a secret's longest escaped form
	spaced  bool      // a secret holds a space (written "+" in a form)
}

var emptySnapshot = &snapshot{}

// New returns a Redactor masking the pattern-based rules and the secrets
// found in opts.
func New(opts Options) *Redactor {
	r := &Redactor{}
	vals := envSecrets(opts.Env)
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
	var vals []form
	for _, v := range values {
		vals = appendSecret(vals, v, MinValueLen)
	}
	r.add(vals)
}

// add registers literal secrets and publishes a new snapshot if any is new.
func (r *Redactor) add(vals []form) {
	if len(vals) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.secrets == nil {
		r.secrets = make(map[string]bool, len(vals))
	}
	grew := false
	for _, v := range vals {
		if v.given && !slices.Contains(r.given, v.s) {
			r.given = append(r.given, v.s)
		}
		if b64, ok := r.secrets[v.s]; !ok || v.b64 && !b64 {
			r.secrets[v.s] = b64 || v.b64
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
	s.wide = make([]bool, len(s.secrets))
	for i, v := range s.secrets {
		s.wide[i] = r.secrets[v]
	}
	s.match = newMatcher(s.secrets, s.wide)
	s.cut = newCutIndex(s.secrets)
	s.longest = len(s.secrets[0])
	for _, g := range r.given {
		// Every byte of a secret may be written as a 6-byte \uXXXX escape,
		// 9 bytes when JSON-escaped three times (\\\\u0001).
		s.longest = max(s.longest, 9*len(g))
		s.spaced = s.spaced || strings.ContainsRune(g, ' ')
	}
	r.snap.Store(s)
}

// load returns the current snapshot, never nil.
func (r *Redactor) load() *snapshot {
	if s := r.snap.Load(); s != nil {
		return s
	}
	return emptySnapshot
}

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
	dst = formatSpans(s, dst)
	dst = schemeSpans(s, dst)
	dst = cutSpans(snap, s, dst)
	dst = decodedSpans(snap, s, dst)
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

// isAlpha reports whether c is an ASCII letter.
func isAlpha(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// AddEnv registers the secrets of more environment variables (KEY=VALUE), by
// the same name rules as Options.Env: a job's env: and a step's.
func (r *Redactor) AddEnv(env []string) {
	r.add(envSecrets(env))
}

// Given returns the secrets as they were given (trimmed, and each line of
// a multi-line one), in the order added, without the forms derived from
// them: what a runner is asked to mask too (an action's ::add-mask::).
func (r *Redactor) Given() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.given)
}

// Masks reports whether String would mask anything in s.
func (r *Redactor) Masks(s string) bool { return r.String(s) != s }
