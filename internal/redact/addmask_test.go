package redact

import (
	"strings"
	"testing"
)

// TestWriterLearnsAddMask: a ::add-mask::VALUE line that passes through a
// Writer registers VALUE at once: masked in the same write, in later
// writes, in String, in its encoded forms; with ForwardAddMask the command
// line itself reaches the runner intact (it reads it, never shows it).
func TestWriterLearnsAddMask(t *testing.T) {
	for _, tt := range []struct {
		name, in, value string
	}{
		{"own line", "::add-mask::learned-V4lue-1\nthen learned-V4lue-1 leaks\n", "learned-V4lue-1"},
		{"crlf", "::add-mask::learned-V4lue-2\r\nthen learned-V4lue-2\r\n", "learned-V4lue-2"},
		{"same write, value before", "early learned-V4lue-3\n::add-mask::learned-V4lue-3\n", "learned-V4lue-3"},
		{"blanks around", "  ::add-mask::  learned-V4lue-4  \nx learned-V4lue-4\n", "learned-V4lue-4"},
		{"no newline at the end", "::add-mask::learned-V4lue-5", "learned-V4lue-5"},
	} {
		for _, forward := range []bool{false, true} {
			r := New(Options{})
			var b strings.Builder
			w := r.Writer(&b)
			if forward {
				w.ForwardAddMask()
			}
			step := 5
			if strings.HasPrefix(tt.name, "same write") {
				step = len(tt.in) // an earlier line of the same write is masked too
			}
			for i := 0; i < len(tt.in); i += step {
				w.Write([]byte(tt.in[i:min(i+step, len(tt.in))]))
			}
			w.Flush()
			w.Write([]byte("later " + tt.value + "\n"))
			w.Close()
			out := b.String()
			want := 0
			if forward {
				want = 1 // the command line itself
			}
			if got := strings.Count(out, tt.value); got != want {
				t.Errorf("%s (forward %v): %d times in %q", tt.name, forward, got, out)
			}
			if forward && !strings.Contains(out, "::add-mask::") {
				t.Errorf("%s: command not forwarded: %q", tt.name, out)
			}
			if s := r.String(`{"v":"` + tt.value + `"} %` + tt.value); strings.Contains(s, tt.value) {
				t.Errorf("%s: String after the Writer: %q", tt.name, s)
			}
			if !forward && strings.Contains(out, "::add-mask::"+tt.value) {
				t.Errorf("%s: %q", tt.name, out)
			}
		}
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
