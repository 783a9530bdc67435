package step

import (
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/redact"
)

// TestStepOutputs: what a step of each kind declares it may output, from
// its settings: exec the names of its outputs: list (declared only when
// the list is given, an empty one declaring none), http its fixed outputs
// and each field's NAME, the other kinds their fixed outputs.
func TestStepOutputs(t *testing.T) {
	for _, tt := range []struct {
		name     string
		k        *Kind
		settings map[string][]string
		want     []string
		declared bool
	}{
		{"exec without outputs:", ExecKind, map[string][]string{"run": {"true"}}, nil, false},
		{"exec with outputs:", ExecKind, map[string][]string{"run": {"true"}, "outputs": {"url", "id"}}, []string{"url", "id"}, true},
		{"exec with an empty outputs:", ExecKind, map[string][]string{"run": {"true"}, "outputs": {}}, []string{}, true},
		{"http without fields", HTTPKind, map[string][]string{"url": {"https://x"}}, []string{"status", "found", "value", "body-file"}, true},
		{"http with fields", HTTPKind, map[string][]string{"url": {"https://x"}, "field": {"url=.url", "count=length"}}, []string{"status", "found", "value", "body-file", "url", "count"}, true},
		{"http with a field without =", HTTPKind, map[string][]string{"field": {"broken"}}, []string{"status", "found", "value", "body-file"}, true},
		{"push", PushKind, nil, []string{"pushed", "landed", "refs"}, true},
		{"probe", ProbeKind, nil, []string{"verdict"}, true},
		{"github-quota", QuotaKind, map[string][]string{"field": {"x=1"}}, QuotaKind.Outputs, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, declared := tt.k.StepOutputs(func(name string) ([]string, bool) {
				v, ok := tt.settings[name]
				return v, ok
			})
			if declared != tt.declared || !slices.Equal(got, tt.want) {
				t.Errorf("StepOutputs = %q, %v; want %q, %v", got, declared, tt.want, tt.declared)
			}
		})
	}
}

// TestOutputsNamesChecked: outputs: takes names a reference can name
// (letters, digits, _ and -, not starting with a digit or -), each once,
// at most MaxDeclaredOutputs of them.
func TestOutputsNamesChecked(t *testing.T) {
	many := make([]string, MaxDeclaredOutputs+1)
	for i := range many {
		many[i] = "o" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strings.Repeat("y", i/26)
	}
	for _, tt := range []struct {
		outputs []string
		msg     string // "" when valid
	}{
		{[]string{"url", "post-id", "_n2"}, ""},
		{[]string{"url", "2nd"}, `"2nd" is not an output name`},
		{[]string{"a b"}, `"a b" is not an output name`},
		{[]string{"url", "url"}, `"url" is declared twice`},
		{many, "more than 256 outputs"},
	} {
		c := ExecKind.New()
		fields := c.Fields()
		Lookup(fields, "run").Set("true")
		if err := Lookup(fields, "outputs").SetValues(tt.outputs); err != nil {
			t.Fatal(err)
		}
		_, err := Prepare(context.Background(), ExecKind, c)
		switch {
		case tt.msg == "" && err != nil:
			t.Errorf("%q refused: %v", tt.outputs, err)
		case tt.msg != "" && (err == nil || !strings.Contains(err.Error(), tt.msg) || FieldErrors(err)[0].Field != "outputs"):
			t.Errorf("%.40q: error %v, want one of outputs containing %q", tt.outputs, err, tt.msg)
		}
	}
}

// TestUndeclaredOutputKeptWithNote: a script that declares outputs: and
// writes one it does not declare keeps it, with a note in the step's
// report naming it; a declared output gets no note, and a step without
// outputs: none either.
func TestUndeclaredOutputKeptWithNote(t *testing.T) {
	for _, tt := range []struct {
		name     string
		outputs  []string // nil: no outputs: list
		wantNote bool
	}{
		{"undeclared", []string{"url"}, true},
		{"all declared", []string{"url", "extra"}, false},
		{"no outputs: list", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := ExecKind.New()
			fields := c.Fields()
			Lookup(fields, "run").Set(`echo "url=https://x/1" >> "$RETRYWISE_OUTPUT"; echo "extra=2" >> "$RETRYWISE_OUTPUT"`)
			if tt.outputs != nil {
				Lookup(fields, "outputs").SetValues(tt.outputs)
			}
			p, err := Prepare(context.Background(), ExecKind, c)
			if err != nil {
				t.Fatal(err)
			}
			red := redact.New(redact.Options{})
			rep, serr := p.RunStep(context.Background(), &Services{Env: os.Environ()}, &IO{
				Stdin: strings.NewReader(""), Stdout: red.Writer(io.Discard), Stderr: red.Writer(io.Discard), Red: red,
				Env: os.Environ(), TempDir: t.TempDir(),
			})
			if serr != nil {
				t.Fatal(serr)
			}
			if rep.Outputs["url"] != "https://x/1" || rep.Outputs["extra"] != "2" {
				t.Errorf("outputs %v, want both kept", rep.Outputs)
			}
			note := ""
			for _, n := range rep.Notes {
				if strings.Contains(n, "extra") {
					note = n
				}
			}
			if (note != "") != tt.wantNote {
				t.Errorf("notes %q; want a note naming extra: %v", rep.Notes, tt.wantNote)
			}
			if tt.wantNote && !strings.Contains(note, "outputs:") {
				t.Errorf("note %q does not say where to declare it", note)
			}
		})
	}
}
