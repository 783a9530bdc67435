package failure

import (
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/retrywise/retrywise/internal/redact"
)

// The scanner reads a text once: every matcher names literal gate strings, the
// text is searched for each gate (strings.Index, linear), and only the lines
// holding a gate are handed to the matchers' regular expressions. A log padded
// with megabytes of progress lines therefore costs a few substring searches.

const (
	// MaxWindow bounds how far the scanner looks for a line's ends around a
	// gate; a longer line is cut into windows so that no regexp ever runs over
	// more than 2*maxWindow bytes.
	MaxWindow = 512
	// maxEvidenceLen is the longest evidence line, in bytes; longer lines are
	// cut to a window around the match (a substring of the input, with
	// redact.Cut where it was cut).
	maxEvidenceLen = 300
	// maxEvidenceLines bounds the evidence of one failure.
	maxEvidenceLines = 5
	// maxName bounds a value (host, branch, file) quoted into a reason.
	maxName = 120
	// maxCandidates bounds the lines handed to the regexps: only the last
	// ones of a text where more lines hold a gate are examined. Realistic
	// logs have a few dozen; this keeps adversarial input cheap.
	maxCandidates = 256
	// lookAhead bounds the lines read after a GH006/GH013 line for its rules.
	lookAhead = 16
)

// Ranks order the hits: the most decisive evidence wins. A rejection beats the
// "remote end hung up" that follows it; an explicit HTTP status beats both the
// transport noise around it and a status merely mentioned in free text.
const (
	RankMention   = 20  // a frame without a recognised message
	RankStatusTxt = 30  // a status mentioned in free text: "403 Forbidden"
	RankAftermath = 40  // consequences: hung up, early EOF, sideband disconnect
	rankExitCode  = 45  // the process exit status alone
	RankCurlCode  = 50  // "curl: (N) <unrecognised message>"
	RankTransport = 60  // timeouts, resets, DNS, TLS receive errors
	rankGoPhrase  = 70  // Go's bare CONNECT reason phrase
	RankStatus    = 80  // an explicit status from the client: "returned error: 403"
	rankConfig    = 85  // certificates, TLS negotiation, proxy CONNECT answers
	RankRateLimit = 90  // rate limits, Squid error pages
	rankHint      = 95  // git's "Updates were rejected because ..." hints
	RankRefusal   = 100 // identity/ACL refusals, rejections, size limits, absence
	rankRule      = 110 // GitHub's GHnnn rule codes
)

// Hit is one matcher's verdict on one line.
type Hit struct {
	Class      Class
	Code       Code
	Rank       int
	Trace      TraceBits // what the line says about the way to the server
	Reason     string
	Remedy     string
	RetryAfter time.Duration
	// ResetIn is how long after the text was written a spent limit resets,
	// as the text states it (Failure.ResetIn); zero when not stated.
	ResetIn   time.Duration
	Extra     []string // further evidence lines (GH013 rules), substrings of the text
	line      string   // the evidence line, filled in by the scanner
	pos       int      // offset of the line in the text
	synthetic bool     // not from a line of the text (the exit status)
}

// Matcher recognises one kind of failure on a line.
type Matcher struct {
	// Gates are literal substrings; a line is only examined when it holds one.
	// Every match of re must contain one of them.
	Gates []string
	// RE, when set, must match the line; its submatches go to Build.
	RE *LazyRegexp
	// Frame matchers wrap a message (curl's "(N) msg", git's "unable to access
	// 'url': msg") and classify the message with the other matchers.
	Frame bool
	// cut starts the evidence at the match (curl's message after a progress meter).
	cut bool
	// Build makes the verdict; ok=false drops the match.
	Build func(c *ScanCtx, line string, m []string) (h Hit, ok bool)
}

// ScanCtx is the state of one classification.
type ScanCtx struct {
	Text       string
	Tool       Tool // the tool the text comes from (detected for auto)
	method     string
	methodDone bool
	LineEnd    int // end offset in text of the line being examined
	ms         []Matcher
	keys       *keyIndex
	Facts      facts   // for the trace, filled in by the matchers
	run        runOpts // the step's environment and the run's max elapsed
	inFrame    bool    // classifying a message a frame wraps (curl's, git's)
	answer     bool    // the body of an HTTP answer whose status is known
	status     int     // that answer's status
	pushSized  bool    // pushGiB was read
	pushGiB    float64 // the largest pack git reported writing, in GiB
}

// quotaLimit is the longest reset a quota recogniser waits for: the run's
// max elapsed when the caller gave it, else maxQuotaWait.
func (c *ScanCtx) quotaLimit() time.Duration {
	if c.run.maxElapsed > 0 {
		return c.run.maxElapsed
	}
	return maxQuotaWait
}

// waitLimit is the longest wait the run can make: its max elapsed.
func (c *ScanCtx) waitLimit() time.Duration {
	if c.run.maxElapsed > 0 {
		return c.run.maxElapsed
	}
	return DefaultMaxElapsed
}

// OutlastsRun reports whether a wait of d (a limit's published window, when
// the answer gives no reset) is longer than the run can wait: its max
// elapsed, else DefaultMaxElapsed.
func (c *ScanCtx) OutlastsRun(d time.Duration) bool { return d > c.waitLimit() }

// FromAnswer reports whether the text is the body of an HTTP answer whose
// status (and headers) the caller gave: its Retry-After, not a published
// window, is the wait.
func (c *ScanCtx) FromAnswer() bool { return c.answer }

// LookupMethod returns the HTTP method, inferring it from the text when the
// caller did not know it; "" means a lookup (GET).
func (c *ScanCtx) LookupMethod() string {
	if !c.methodDone {
		c.methodDone = true
		if c.method == "" {
			c.method = inferMethod(c.Text)
		}
	}
	return c.method
}

// Phrase classifies a message wrapped by a frame with the non-frame matchers.
func (c *ScanCtx) Phrase(msg string) (Hit, bool) {
	c.inFrame = true
	defer func() { c.inFrame = false }()
	h, _, ok := c.bestOnLine(msg, false)
	return h, ok
}

// bestOnLine runs the gated matchers over one line and returns the best hit
// and the offset of its match in the line.
func (c *ScanCtx) bestOnLine(line string, frames bool) (Hit, int, bool) {
	var best Hit
	bestAt, bestCut, found := 0, false, false
	for i := range c.ms {
		m := &c.ms[i]
		if m.Frame && !frames {
			continue
		}
		at := gateIndex(line, m.Gates)
		if at < 0 {
			continue
		}
		var sub []string
		if m.RE != nil {
			idx := m.RE.FindStringSubmatchIndex(line)
			if idx == nil {
				continue
			}
			at = idx[0]
			sub = make([]string, len(idx)/2)
			for j := range sub {
				if idx[2*j] >= 0 {
					sub[j] = line[idx[2*j]:idx[2*j+1]]
				}
			}
		}
		h, ok := m.Build(c, line, sub)
		if !ok {
			continue
		}
		if !found || Better(h, best) {
			best, bestAt, bestCut, found = h, at, m.cut, true
		}
	}
	if bestCut {
		return best, -1 - bestAt, found
	}
	return best, bestAt, found
}

// Better reports whether a beats b: higher rank, and at equal rank a stop
// class beats a transient one (a wasted retry is the worst mistake).
func Better(a, b Hit) bool {
	if a.Rank != b.Rank {
		return a.Rank > b.Rank
	}
	return a.Class != Transient && b.Class == Transient
}

func gateIndex(line string, gates []string) int {
	for _, g := range gates {
		if i := strings.Index(line, g); i >= 0 {
			return i
		}
	}
	return -1
}

// scans counts the texts scanned (Scans).
var scans atomic.Uint64

// Scans returns how many texts the process has scanned for recognisers: a
// test of an adapter counts the scans of one attempt (each attempt's
// output is classified once).
func Scans() uint64 { return scans.Load() }

// scan returns the hits of all candidate lines, in text order.
func (c *ScanCtx) scan() []Hit {
	scans.Add(1)
	var hits []Hit
	for _, sp := range candidateLines(c.Text, c.keys) {
		line := c.Text[sp.start:sp.end]
		c.LineEnd = sp.end
		h, at, ok := c.bestOnLine(line, true)
		if !ok {
			continue
		}
		startedAtMatch := at < 0
		if startedAtMatch { // the matcher asked for the evidence to start at its match
			at = -1 - at
			line = line[at:]
			at = 0
		}
		if h.Trace&TrNet != 0 && mentionsProxy(line) {
			h.Trace |= trProxy
		}
		// A window of a huge line was cut out of it.
		cutBefore := !startedAtMatch && sp.start > 0 && !isLineEnd(c.Text[sp.start-1])
		cutAfter := sp.end < len(c.Text) && !isLineEnd(c.Text[sp.end])
		h.line = evidenceCut(line, at, cutBefore, cutAfter)
		h.pos = sp.start
		hits = append(hits, h)
	}
	return append(hits, c.apiHits()...)
}

func isLineEnd(c byte) bool { return c == '\n' || c == '\r' }

// span is a line (or a window of a very long line) of the text.
type span struct{ start, end int }

// keyIndex finds any of a set of literal keys in one pass: a table indexed
// by a position's two bytes rejects almost every position with one load, and
// only the keys starting with those two bytes are compared there.
type keyIndex struct {
	slot   [1 << 16]uint16 // 0: no key starts with these two bytes
	keys   [][]string      // keys[slot-1]
	maxLen int
}

func newKeyIndex(keys []string) *keyIndex {
	x := &keyIndex{}
	for _, k := range keys {
		if len(k) < 2 {
			panic("failure: gate shorter than two bytes: " + k)
		}
		p := uint16(k[0])<<8 | uint16(k[1])
		if x.slot[p] == 0 {
			if len(x.keys) == 1<<16-1 {
				panic("failure: too many gate prefixes")
			}
			x.keys = append(x.keys, nil)
			x.slot[p] = uint16(len(x.keys))
		}
		x.keys[x.slot[p]-1] = append(x.keys[x.slot[p]-1], k)
		x.maxLen = max(x.maxLen, len(k))
	}
	return x
}

// at returns the length of a key starting at text[i:], or 0.
func (x *keyIndex) at(text string, i int) int {
	s := x.slot[uint16(text[i])<<8|uint16(text[i+1])]
	if s == 0 {
		return 0
	}
	for _, k := range x.keys[s-1] {
		if strings.HasPrefix(text[i:], k) {
			return len(k)
		}
	}
	return 0
}

// candidateLines returns, in order, the lines of text holding a key: one
// pass over the text; after a hit the rest of its line is skipped.
func candidateLines(text string, x *keyIndex) []span {
	var spans []span
	for i := 0; i+1 < len(text); i++ {
		n := x.at(text, i)
		if n == 0 {
			continue
		}
		sp := lineSpan(text, i, i+n)
		if len(spans) == 0 || spans[len(spans)-1] != sp {
			spans = append(spans, sp)
		}
		next := sp.end
		if next < len(text) && text[next] != '\n' && text[next] != '\r' {
			// a window of a huge line: a key may straddle its end
			next -= x.maxLen - 1
		}
		i = max(i, next-1)
	}
	if len(spans) > maxCandidates {
		// the end of a log is where a failure is told; keep the tail
		spans = spans[len(spans)-maxCandidates:]
	}
	return spans
}

// lineSpan returns the line around text[a:b]; lines end at \n or \r (progress
// meters overwrite with \r). A line longer than maxWindow is cut into windows
// aligned on a grid, so that every gate in the same stretch of a huge line
// lands in the same window (and the window is examined once).
func lineSpan(text string, a, b int) span {
	const half = MaxWindow / 2
	lo := max(0, a-MaxWindow)
	s := lo
	if i := strings.LastIndexAny(text[lo:a], "\r\n"); i >= 0 {
		s = lo + i + 1
	} else {
		s = max(0, a-a%half-half)
		for s < a && !utf8.RuneStart(text[s]) {
			s++
		}
	}
	hi := min(len(text), s+2*MaxWindow, max(b, a-a%half+MaxWindow+half))
	e := hi
	if i := strings.IndexAny(text[b:max(b, hi)], "\r\n"); i >= 0 {
		e = b + i
	} else {
		e = max(e, b)
		for e > b && e < len(text) && !utf8.RuneStart(text[e]) {
			e--
		}
	}
	return span{s, e}
}

// FollowingLines returns up to n lines of text after offset from.
func FollowingLines(text string, from, n int) []string {
	var out []string
	rest := text[from:]
	for len(out) < n && len(rest) > 0 {
		if rest[0] == '\n' || rest[0] == '\r' {
			rest = rest[1:]
			continue
		}
		i := strings.IndexAny(rest, "\r\n")
		if i < 0 {
			i = len(rest)
		}
		if i > MaxWindow {
			break
		}
		out = append(out, rest[:i])
		rest = rest[i:]
	}
	return out
}

// EvidenceLineAt trims a line and cuts it to maxEvidenceLen around offset at.
func EvidenceLineAt(line string, at int) string { return evidenceCut(line, at, false, false) }

// evidenceCut is evidenceLine of a line that may itself be cut out of a
// longer one: before and after tell whether it was cut at its start and at
// its end. Wherever the evidence stops short of the input's line, it says
// so with redact.Cut, so that the redactor can mask the fragment of a
// secret the cut leaves: evidence is cut before it is masked, as failure
// knows no secrets.
func evidenceCut(line string, at int, before, after bool) string {
	t := strings.TrimLeft(line, " \t\v\f\x00")
	before = before && len(t) == len(line) // a cut before a blank splits no word
	at -= len(line) - len(t)
	u := strings.TrimSpace(t)
	after = after && len(u) == len(t)
	t = u
	at = min(max(at, 0), len(t))
	// Escape first, so the cut bounds what is shown; at moves with its text.
	at = len(Printable(t[:at]))
	t = Printable(t)
	if len(marked(before, t, after)) <= maxEvidenceLen {
		return marked(before, t, after)
	}
	const room = maxEvidenceLen - 2*len(redact.Cut)
	lo := max(0, at-room/3)
	hi := min(len(t), lo+room)
	lo = max(0, hi-room)
	if lo > 0 && lo < at {
		// start at a word if one starts shortly after the cut
		if i := strings.IndexByte(t[lo:min(at, lo+40)], ' '); i >= 0 {
			lo += i + 1
		}
	}
	for lo < hi && !utf8.RuneStart(t[lo]) {
		lo++
	}
	for hi > lo && hi < len(t) && !utf8.RuneStart(t[hi]) {
		hi--
	}
	lo, hi = escapeAround(t, lo, false), escapeAround(t, hi, true)
	if lo >= hi {
		return redact.Cut
	}
	return marked(before || lo > 0, strings.TrimSpace(t[lo:hi]), after || hi < len(t))
}

// marked returns s with redact.Cut before and after it as asked.
func marked(before bool, s string, after bool) string {
	if before {
		s = redact.Cut + s
	}
	if after {
		s += redact.Cut
	}
	return s
}

// lastLine returns the last non-blank line of text as evidence.
func lastLine(text string) string {
	t := strings.TrimRight(text, " \t\r\n\v\f\x00")
	i := strings.LastIndexAny(t, "\r\n")
	line := t[i+1:]
	return EvidenceLineAt(line, len(line))
}

// bestHit returns the index of the most decisive hit; -1 when there is none.
func bestHit(hits []Hit) int {
	best := -1
	for i := range hits {
		if best < 0 || Better(hits[i], hits[best]) {
			best = i
		}
	}
	return best
}

// resolve picks the most decisive hit and gathers the evidence that agrees
// with it: its own lines first, then other lines of the same class in order.
// The failure's trace comes from the same hits.
func (c *ScanCtx) resolve(hits []Hit) (*Failure, bool) {
	best := bestHit(hits)
	if best < 0 {
		return nil, false
	}
	b := hits[best]
	f := &Failure{Class: b.Class, Code: b.Code, Reason: b.Reason, Remedy: b.Remedy, RetryAfter: b.RetryAfter, ResetIn: b.ResetIn,
		Trace: traceOf(hits, b, c.Facts)}
	add := func(s string) {
		if s == "" || len(f.Evidence) >= maxEvidenceLines {
			return
		}
		for _, e := range f.Evidence {
			if e == s {
				return
			}
		}
		f.Evidence = append(f.Evidence, s)
	}
	add(b.line)
	for _, e := range b.Extra {
		add(e)
	}
	for i, h := range hits {
		if i == best || h.Class != b.Class || h.synthetic {
			continue
		}
		if f.ResetIn == 0 {
			f.ResetIn = h.ResetIn // the wait a line of the same verdict states
		}
		add(h.line)
		for _, e := range h.Extra {
			add(e)
		}
		if b.Class == Transient && h.RetryAfter > f.RetryAfter {
			f.RetryAfter = h.RetryAfter
		}
	}
	if f.Class != Transient {
		f.RetryAfter = 0
	}
	return f, true
}

// collectGates returns the distinct gates of the matchers, dropping any gate
// that contains another (the shorter one already finds its lines).
func collectGates(ms []Matcher) []string {
	var all []string
	for _, m := range ms {
		all = append(all, m.Gates...)
	}
	sort.Slice(all, func(i, j int) bool { return len(all[i]) < len(all[j]) })
	var keys []string
next:
	for _, g := range all {
		for _, k := range keys {
			if strings.Contains(g, k) {
				continue next
			}
		}
		keys = append(keys, g)
	}
	return keys
}

// Clip shortens a value quoted from the input into a reason or remedy, with
// the one cut (redact.Clip), and keeps it on one line.
func Clip(s string) string {
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s))
	return redact.Clip(s, maxName)
}

// HostOf returns the host of a URL or scp-like git address, or s itself.
func HostOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	} else if i := strings.IndexByte(s, ':'); i > 0 && !strings.Contains(s[:i], "/") {
		s = s[:i] // git@github.com:o/r.git
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return "the host"
	}
	return Clip(s)
}

// Atoi parses a small non-negative decimal number; -1 when it is not one.
func Atoi(s string) int {
	if s == "" || len(s) > 9 {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}
