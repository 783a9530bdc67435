package cli

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/options"
	"github.com/retrywise/retrywise/internal/step"
)

// TestActionInputsMatchFlags reads action.yml as the runner does and holds
// it to the flags: every input is a flag of some mode, a mode input or a
// common one; every flag of every mode is an input (but the documented
// exceptions); and no flag input has a default, so that an empty input
// means the chosen mode's own default.
func TestActionInputsMatchFlags(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Inputs map[string]struct {
			Default *string `yaml:"default"`
		} `yaml:"inputs"`
		Outputs map[string]any `yaml:"outputs"`
		Runs    struct {
			Using string   `yaml:"using"`
			Image string   `yaml:"image"`
			Args  []string `yaml:"args"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Runs.Using != "docker" || meta.Runs.Image != "Dockerfile" || !slices.Equal(meta.Runs.Args, []string{"action"}) {
		t.Errorf("runs = %+v, want docker, Dockerfile, [action]", meta.Runs)
	}
	nonFlag := map[string]bool{}
	for _, n := range action.CommonInputs() {
		nonFlag[n] = true
	}
	for _, m := range action.Modes {
		for _, n := range action.ModeInputs(m) {
			nonFlag[n] = true
		}
	}
	flags := map[string]bool{}
	var notInputs []string
	for _, m := range action.Modes {
		k := step.KindNamed(m.Kind())
		var fs *flag.FlagSet
		switch {
		case k != nil:
			fs = newFlagSet(k.Name, k.Synopsis)
			step.Flags(fs, k.Fields())
		case m == action.ModeExplain: // its inputs are mode inputs, not flags
			fs = newFlagSet("explain", "")
		default:
			fs = fieldFlagSet("run", runSynopsis, (&options.Run{}).Fields())
			for _, f := range (&options.Run{}).Fields() {
				if f.NoInput {
					notInputs = append(notInputs, f.Name)
				}
			}
		}
		fs.VisitAll(func(fl *flag.Flag) {
			switch {
			case len(fl.Name) == 1: // -X, -H: short aliases of long flags
			case slices.Contains(action.FlagExceptions, fl.Name):
			case m == action.ModeJob && slices.Contains(notInputs, fl.Name): // hindsight's: not yet the action's
			case m == action.ModeJob && (fl.Name == "config" || fl.Name == "job"): // the mode inputs
			default:
				flags[fl.Name] = true
				if _, ok := meta.Inputs[fl.Name]; !ok {
					t.Errorf("flag --%s of %s mode is not an input of action.yml", fl.Name, m)
				}
			}
		})
	}
	var names []string
	for n, in := range meta.Inputs {
		names = append(names, n)
		switch {
		case flags[n]:
			if in.Default != nil {
				t.Errorf("input %s has a default (%q): a flag's default is the mode's, so its input must have none", n, *in.Default)
			}
		case nonFlag[n]:
		default:
			t.Errorf("input %s is neither a flag of a mode nor a mode or common input", n)
		}
	}
	sort.Strings(names)
	if !slices.Equal(names, action.Inputs()) {
		t.Errorf("inputs = %v\nwant %v", names, action.Inputs())
	}
	for _, o := range action.Reserved {
		if _, ok := meta.Outputs[o]; !ok {
			t.Errorf("output %s is not declared", o)
		}
	}
	if len(meta.Outputs) != len(action.Reserved) {
		t.Errorf("outputs = %d, want the %d reserved ones", len(meta.Outputs), len(action.Reserved))
	}
}
