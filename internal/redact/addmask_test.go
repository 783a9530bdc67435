package redact

import (
	"strings"
	"testing"
)

// TestWriterLearnsNothing: a ::add-mask::VALUE line that passes through a
// Writer registers nothing (it may be a server's answer, a remote's message
// or a name retrywise prints); a child's request is learned where its
// output is read (internal/execstep), which Adds VALUE before the line
// reaches the Writer. With ForwardAddMask the command line of a given
// value reaches the runner intact (it reads it, never shows it); any other
// add-mask line is masked like any other line.
func TestWriterLearnsNothing(t *testing.T) {
	for _, tt := range []struct {
		name, in, value string
	}{
		{"own line", "::add-mask::learned-V4lue-1\nthen learned-V4lue-1 leaks\n", "learned-V4lue-1"},
		{"crlf", "::add-mask::learned-V4lue-2\r\nthen learned-V4lue-2\r\n", "learned-V4lue-2"},
		{"blanks around", "  ::add-mask::  learned-V4lue-4  \nx learned-V4lue-4\n", "learned-V4lue-4"},
		{"no newline at the end", "::add-mask::learned-V4lue-5", "learned-V4lue-5"},
	} {
		for _, given := range []bool{false, true} {
			for _, forward := range []bool{false, true} {
				r := New(Options{})
				if given {
					r.Add(tt.value) // as the child's own learner does, first
				}
				var b strings.Builder
				w := r.Writer(&b)
				if forward {
					w.ForwardAddMask()
				}
				for i := 0; i < len(tt.in); i += 5 {
					w.Write([]byte(tt.in[i:min(i+5, len(tt.in))]))
				}
				w.Flush()
				w.Write([]byte("later " + tt.value + "\n"))
				w.Close()
				out := b.String()
				want := 3 // nothing learned: the command, the next line and "later"
				switch {
				case given && forward:
					want = 1 // the command line itself
				case given:
					want = 0
				}
				if tt.name == "no newline at the end" && !given {
					want = 2
				}
				if got := strings.Count(out, tt.value); got != want {
					t.Errorf("%s (given %v, forward %v): %d times in %q, want %d", tt.name, given, forward, got, out, want)
				}
				if masked := r.String(tt.value) != tt.value; masked != given {
					t.Errorf("%s (given %v, forward %v): the Writer changed what is masked", tt.name, given, forward)
				}
			}
		}
	}
	// A line that is not a given secret's is masked, even when forwarding.
	r := New(Options{})
	var b strings.Builder
	w := r.Writer(&b)
	w.ForwardAddMask()
	w.Write([]byte("::add-mask::ghp_0123456789abcdefghij0123456789abcdef\n"))
	w.Close()
	if strings.Contains(b.String(), "ghp_") {
		t.Errorf("a token of an add-mask line no one gave was forwarded: %q", b.String())
	}
}

func TestScriptMasks(t *testing.T) {
	got := ScriptMasks(`echo "::add-mask::lit-1"
echo ::add-mask::lit-2 >&2
echo "::add-mask::$TOKEN"
printf '::add-mask::lit-3\n'`)
	if strings.Join(got, ",") != "lit-1,lit-2,lit-3" {
		t.Errorf("ScriptMasks = %q", got)
	}
}
