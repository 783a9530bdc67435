package options_test

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/cli"
	"github.com/retrywise/retrywise/internal/options"
	"github.com/retrywise/retrywise/internal/step"
)

// helpFlags reads `retrywise NAME --help` into each flag's usage text
// (its lines joined by a space) and default ("" when none is printed).
func helpFlags(t *testing.T, name string) (usage, def map[string]string) {
	t.Helper()
	var out, errs bytes.Buffer
	c := &cli.Command{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs}
	if code := c.Main(context.Background(), []string{"retrywise", name, "--help"}); code != 0 {
		t.Fatalf("%s --help: exit %d\n%s", name, code, errs.String())
	}
	_, flags, ok := strings.Cut(out.String(), "\nFlags:\n")
	if !ok {
		t.Fatalf("%s --help has no Flags:\n%s", name, out.String())
	}
	usage, def = map[string]string{}, map[string]string{}
	head := regexp.MustCompile(`^  --([a-z-]+)`)
	defRe := regexp.MustCompile(` \(default (.*)\)$`)
	cur := ""
	for _, l := range strings.Split(flags, "\n") {
		if m := head.FindStringSubmatch(l); m != nil {
			cur = m[1]
			usage[cur] = ""
			continue
		}
		if l = strings.TrimSpace(l); l != "" && cur != "" {
			usage[cur] = strings.TrimSpace(usage[cur] + " " + l)
		}
	}
	for n, u := range usage {
		if m := defRe.FindStringSubmatch(u); m != nil {
			def[n], usage[n] = m[1], strings.TrimSuffix(u, m[0])
		}
	}
	return usage, def
}

// TestCommandTablesAreTheFlags: each command's field table has exactly
// the flags its --help prints today, with the same usage and default, so
// the command line can take its flags from the table with no change.
func TestCommandTablesAreTheFlags(t *testing.T) {
	for _, name := range options.Commands {
		t.Run(name, func(t *testing.T) {
			usage, def := helpFlags(t, name)
			var names []string
			for _, f := range options.Command(name) {
				if f.Positional {
					continue
				}
				names = append(names, f.Name)
				u, ok := usage[f.Name]
				if !ok {
					t.Errorf("--%s is not a flag of %s", f.Name, name)
					continue
				}
				if want := strings.Join(strings.Fields(strings.ReplaceAll(f.Doc, "`", "")), " "); u != want {
					t.Errorf("--%s usage:\n got %q\nwant %q", f.Name, u, want)
				}
				text := f.Text()
				if f.Type == step.Bool && text == "false" {
					text = ""
				}
				if d := def[f.Name]; d != text && !(d == "" && text == "") {
					t.Errorf("--%s default %q, the table's %q", f.Name, d, text)
				}
			}
			for n := range usage {
				if !slices.Contains(names, n) {
					t.Errorf("flag --%s of %s is not in its table", n, name)
				}
			}
		})
	}
	if options.Command("exec") != nil {
		t.Errorf("a step kind's table is internal/step's")
	}
}

// TestActionTablesAreTheInputs: the action's mode and common inputs are
// the table's, mode by mode, and the action takes exactly these.
func TestActionTablesAreTheInputs(t *testing.T) {
	var o options.Action
	names := func(fs []*step.Field) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Name)
		}
		return out
	}
	common := []string{"token", "report-issue", "persist-after", "persist-span", "matrix", "step-summary", "git-user-name", "git-user-email"}
	if got := names(o.CommonFields()); !slices.Equal(got, common) {
		t.Errorf("common inputs %v, want %v", got, common)
	}
	if got := action.CommonInputs(); !slices.Equal(got, common) {
		t.Errorf("the action's common inputs %v, want %v", got, common)
	}
	want := map[action.Mode][]string{
		action.ModeRun:     {"run", "shell", "working-directory"},
		action.ModePush:    {"push", "push-args"},
		action.ModeHTTP:    {"url"},
		action.ModeJob:     {"config", "job"},
		action.ModeExplain: {"explain", "rerun", "max-reruns"},
	}
	modes := o.ModeFields()
	for _, m := range action.Modes {
		if got := names(modes[string(m)]); !slices.Equal(got, want[m]) {
			t.Errorf("mode %s inputs %v, want %v", m, got, want[m])
		}
		if got := action.ModeInputs(m); !slices.Equal(got, want[m]) {
			t.Errorf("the action's mode %s inputs %v, want %v", m, got, want[m])
		}
	}
	if len(modes) != len(action.Modes) || len(want) != len(action.Modes) {
		t.Errorf("%d modes in the table, %d in the action", len(modes), len(action.Modes))
	}
}
