package hindsight

import (
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

var (
	t0      = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	timeout = failure.Fingerprint{Class: failure.Transient, Kind: failure.KindNetwork, Target: "api.example.com"}
	server  = failure.Fingerprint{Class: failure.Transient, Kind: failure.KindServer, Target: "api.example.com"}
)

// TestJudge: with K = 3, two runs before that failed the same way make the
// third's failure persistent; a different fingerprint, a success between, a
// short span or hindsight off do not.
func TestJudge(t *testing.T) {
	hour := time.Hour
	for _, tc := range []struct {
		name   string
		before []failure.Fingerprint
		clear  int // a success after this many records (-1: none)
		rule   Rule
		now    failure.Fingerprint
		want   bool
	}{
		{"two before, same", []failure.Fingerprint{timeout, timeout}, -1, Rule{After: 3}, timeout, true},
		{"one before", []failure.Fingerprint{timeout}, -1, Rule{After: 3}, timeout, false},
		{"different kind before", []failure.Fingerprint{server, timeout}, -1, Rule{After: 3}, timeout, false},
		{"older different, newest two same", []failure.Fingerprint{server, timeout, timeout}, -1, Rule{After: 3}, timeout, true},
		{"success between", []failure.Fingerprint{timeout, timeout}, 1, Rule{After: 3}, timeout, false},
		{"off", []failure.Fingerprint{timeout, timeout, timeout}, -1, Rule{After: 0}, timeout, false},
		{"K=2", []failure.Fingerprint{timeout}, -1, Rule{After: 2}, timeout, true},
		{"other host", []failure.Fingerprint{timeout, timeout}, -1, Rule{After: 3}, failure.Fingerprint{Class: failure.Transient, Kind: failure.KindNetwork, Target: "other.example.com"}, false},
		{"policy is never persistent", []failure.Fingerprint{{Class: failure.Policy, Kind: "http-403"}, {Class: failure.Policy, Kind: "http-403"}}, -1, Rule{After: 3}, failure.Fingerprint{Class: failure.Policy, Kind: "http-403"}, false},
		{"span met", []failure.Fingerprint{timeout, timeout}, -1, Rule{After: 3, Span: 2 * hour}, timeout, true},
		{"span not met", []failure.Fingerprint{timeout, timeout}, -1, Rule{After: 3, Span: 3 * hour}, timeout, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := Decode(nil)
			at := t0
			for i, fp := range tc.before {
				if i == tc.clear {
					b.Succeeded("s")
				}
				b.Failed("s", fp, "timeout", at)
				at = at.Add(time.Hour)
			}
			// at is now one hour after the last run before
			p := b.Judge("s", tc.now, tc.rule, at)
			if (p != nil) != tc.want {
				t.Fatalf("Judge = %+v, want persistent %v", p, tc.want)
			}
			if p != nil {
				if p.Runs != tc.rule.After || len(p.Dates) != tc.rule.After-1 || !p.Since.Equal(p.Dates[0]) {
					t.Errorf("persistence = %+v", p)
				}
			}
		})
	}
}

// TestBookBounds: records per step and steps per book are bounded; a book
// too large, of another version or not JSON is refused.
func TestBookBounds(t *testing.T) {
	b, _ := Decode(nil)
	for i := range KeepRecords + 10 {
		b.Failed("s", timeout, "timeout", t0.Add(time.Duration(i)*time.Minute))
	}
	if n := len(b.Steps["s"]); n != KeepRecords {
		t.Errorf("records kept = %d, want %d", n, KeepRecords)
	}
	for i := range MaxSteps + 5 {
		b.Failed("step"+strings.Repeat("x", i%3)+string(rune('a'+i%26))+time.Duration(i).String(), timeout, "timeout", t0.Add(time.Duration(i)*time.Second))
	}
	if n := len(b.Steps); n != MaxSteps {
		t.Errorf("steps kept = %d, want %d", n, MaxSteps)
	}
	again, err := Decode(b.Encode())
	if err != nil || len(again.Steps) != MaxSteps {
		t.Fatalf("round trip: %v, %d steps", err, len(again.Steps))
	}
	for _, bad := range []string{`{"version":2,"steps":{}}`, `not json`, `{"version":1,"steps":` + strings.Repeat(" ", MaxBookSize) + `{}}`} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%.40q) accepted", bad)
		}
	}
}

// TestRuleCheck: K is 0 or 2..MaxAfter; the span 0..MaxSpan.
func TestRuleCheck(t *testing.T) {
	for _, r := range []Rule{{After: 0}, {After: 2}, {After: MaxAfter, Span: MaxSpan}} {
		if err := r.Check("--persist-after", "--persist-span"); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
	for _, r := range []Rule{{After: 1}, {After: -1}, {After: MaxAfter + 1}, {After: 3, Span: -time.Second}, {After: 3, Span: MaxSpan + 1}} {
		err := r.Check("--persist-after", "--persist-span")
		if err == nil || !strings.Contains(err.Error(), "--persist-") {
			t.Errorf("%+v: %v", r, err)
		}
	}
}

// memStore is a Store in memory.
type memStore map[string][]byte

func (s memStore) ReadBook(job string) ([]byte, error)     { return s[job], nil }
func (s memStore) WriteBook(job string, data []byte) error { s[job] = data; return nil }

// TestMemoryStartsAfreshOnABadBook: a damaged book never fails the run.
func TestMemoryStartsAfreshOnABadBook(t *testing.T) {
	s := memStore{"j": []byte("{garbage")}
	m := Open(s, "j", Rule{After: 3})
	if m.Warning == "" {
		t.Fatal("no warning for a damaged book")
	}
	m.Failed("s", timeout, "timeout", t0)
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	if again := Open(s, "j", Rule{After: 3}); again.Warning != "" || len(again.Records("s")) != 1 {
		t.Fatalf("reopened: %q, %d records", again.Warning, len(again.Records("s")))
	}
}

// TestPersistentKeepsClassAndCode: the verdict keeps its class and code,
// and says since when and what to check.
func TestPersistentKeepsClassAndCode(t *testing.T) {
	f := failure.New(failure.Transient, failure.CodeTimeout, "the connection timed out", "retrying")
	p := &failure.Persistence{Runs: 3, Since: t0, Dates: []time.Time{t0, t0.Add(time.Hour)}}
	g := Persistent(f, p, "api.example.com")
	if g.Class != failure.Transient || g.Code != failure.CodeTimeout || g.Persistent != p {
		t.Fatalf("got %+v", g)
	}
	if !strings.Contains(g.Reason, "persistent: the same failure in 3 runs since 2026-12-01T06:00:00Z") || !strings.Contains(g.Remedy, "api.example.com") || !strings.Contains(g.Remedy, "3 runs") {
		t.Errorf("reason %q remedy %q", g.Reason, g.Remedy)
	}
	if f.Persistent != nil || strings.Contains(f.Reason, "persistent") {
		t.Error("the original failure was changed")
	}
}

// TestBookWithin: a book over the size loses its oldest records first,
// and always fits.
func TestBookWithin(t *testing.T) {
	b, _ := Decode(nil)
	for i := range 300 {
		step := []string{"a", "b", "c"}[i%3]
		b.Failed(step, timeout, "timeout", t0.Add(time.Duration(i)*time.Minute))
	}
	whole := b.Encode()
	for _, n := range []int{len(whole), len(whole) / 2, 2000, 300, 10} {
		got := b.Within(n)
		if len(got) > n && n >= len(`{"version":1,"steps":{}}`) {
			t.Fatalf("Within(%d) = %d bytes", n, len(got))
		}
		d, err := Decode(got)
		if err != nil {
			t.Fatal(err)
		}
		// the newest record survives whenever one does
		for _, rs := range d.Steps {
			if last := rs[len(rs)-1].At; last.Before(t0.Add(290 * time.Minute)) {
				t.Errorf("Within(%d) kept an old record %s but not the newest", n, last)
			}
		}
	}
	if len(b.Encode()) != len(whole) {
		t.Error("Within changed the book")
	}
}

// TestMarkedReadsPersistentsReason: the mark Persistent writes is read back
// from a step's output, with its runs and dates; a text without one is none.
func TestMarkedReadsPersistentsReason(t *testing.T) {
	d1 := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	d2 := d1.Add(24 * time.Hour)
	f := failure.New(failure.Transient, failure.CodeTimeout, "i/o timeout to api.example.com", "")
	g := Persistent(f, &failure.Persistence{Runs: 3, Since: d1, Dates: []time.Time{d1, d2}}, "api.example.com")
	out := "npm error code ETIMEDOUT\nretrywise: " + g.Reason + "\n##[error]Process completed with exit code 75."
	p := Marked(out)
	if p == nil || p.Runs != 3 || !p.Since.Equal(d1) || len(p.Dates) != 2 || !p.Dates[1].Equal(d2) {
		t.Fatalf("Marked = %+v, want 3 runs since %s with 2 dates", p, d1)
	}
	if p := Marked("i/o timeout; the same failure again"); p != nil {
		t.Errorf("Marked of an unmarked text = %+v", p)
	}
}

// TestMaskedTargetIsNeverKept: a target the run's masker would change (a
// secret that reads like a host name) is neither judged by nor written to
// the book, which may be published; the failure still counts, unnamed.
func TestMaskedTargetIsNeverKept(t *testing.T) {
	const secret = "tok3n.s3cret.example"
	s := memStore{}
	m := Open(s, "j", Rule{After: 2})
	m.Mask = func(v string) string { return strings.ReplaceAll(v, secret, "***") }
	rep := &report.Step{Result: report.Failure, Class: failure.Transient, Code: failure.CodeTimeout,
		Reason: "dial tcp: lookup " + secret + ": i/o timeout", Attempts: []retry.Attempt{{N: 1}}}
	m.Remember("s", rep, nil, t0)
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(s["j"]), "s3cret") || len(m.Records("s")) != 1 || m.Records("s")[0].Target != "" {
		t.Fatalf("book %s", s["j"])
	}
	// the next run's same failure is judged on the unnamed fingerprint
	f := failure.New(failure.Transient, failure.CodeTimeout, "dial tcp: lookup "+secret+": i/o timeout", "")
	if g := m.Hook("s", nil, t0.Add(time.Hour))(f); g == nil || g.Persistent == nil {
		t.Fatal("the repeat was not judged persistent")
	}
}

// TestBadBookIsNeverQuoted: the warning about a damaged book quotes none
// of its text (it may come from a comment on an issue).
func TestBadBookIsNeverQuoted(t *testing.T) {
	m := Open(memStore{"j": []byte(`{"version":1,"steps":{"s":[{"class":"xyzzy-payload"}]}`)}, "j", Rule{After: 3})
	if m.Warning == "" || strings.Contains(m.Warning, "xyzzy") {
		t.Fatalf("warning %q", m.Warning)
	}
	m = Open(memStore{"j": []byte("Zxyzzy")}, "j", Rule{After: 3})
	if m.Warning == "" || strings.Contains(m.Warning, "'Z'") {
		t.Fatalf("warning %q", m.Warning)
	}
}
