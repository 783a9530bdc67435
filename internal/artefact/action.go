package artefact

import (
	"flag"
	"fmt"
	"strings"

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/options"
	"github.com/retrywise/retrywise/internal/step"
)

// actionInputDocs and actionInputDefaults are the descriptions and the
// defaults of the inputs that are not flags, from their field table
// (internal/options): only those inputs have a default in action.yml, as a
// flag's default depends on the mode and an empty input means the mode's own.
var actionInputDocs, actionInputDefaults = actionInputs()

func actionInputs() (docs, defaults map[string]string) {
	var o options.Action
	fields := o.CommonFields()
	for _, fs := range o.ModeFields() {
		fields = append(fields, fs...)
	}
	docs, defaults = map[string]string{}, map[string]string{}
	for _, f := range fields {
		docs[f.Name] = f.Doc
		if f.Default != "" {
			defaults[f.Name] = f.Default
		}
	}
	return docs, defaults
}

// actionOutputDocs describe the action's own outputs, in order.
var actionOutputDocs = [][2]string{
	{"result", "success, failure or cancelled."},
	{"class", "The final failure's class: transient, policy, structural, absent or unknown; empty on success."},
	{"code", "The final failure's stable code (docs/failure-codes.md); empty on success."},
	{"attempts", "How many attempts ran, in all steps."},
	{"reason", "The final failure's one-line reason."},
	{"remedy", "What to do about the final failure."},
	{"exit-code", "The exit code, as the command line's: 0 ok, 1 unknown, 64 usage, 65 structural, 66 absent, 75 transient, 77 policy, 78 configuration, 130/143 cancelled (docs/reference/exit-codes.md)."},
	{"report", "The path of the JSON report (docs/report.schema.json), under $RUNNER_TEMP."},
	{"rerun", "Mode explain: true when the run's failed jobs were handed back to GitHub for a re-run, else false; empty in the other modes."},
	{"persistent", "true when a step's transient-looking failure repeated the runs before (hindsight, with report-issue), so it made no retries; else false."},
	{"outputs", "JSON of the step's outputs (for fromJSON): a run: script's $GITHUB_OUTPUT names, http's status, found, value, body-file and fields, push's pushed, landed, refs; in config mode by step id. Kept under GitHub's 1 MiB: the longest values are replaced by a note and named in retrywise-cut."},
}

// flagDoc is a flag's usage on one line, without the backquotes that name
// its value.
func flagDoc(fl *flag.Flag) string {
	return strings.ReplaceAll(strings.ReplaceAll(fl.Usage, "\n", " "), "`", "")
}

// actionYAML renders action.yml from the modes' flags.
func actionYAML() string {
	uses := actionFlagUses()
	modeName := func(m action.Mode) string { return string(m) }
	var b strings.Builder
	b.WriteString(`# Generated from the flags of each mode by internal/artefact: go generate ./...
name: retrywise
description: Run a step (a script, git push, an HTTP request or a job file) and classify every failure before deciding to retry.
author: retrywise
branding:
  icon: refresh-cw
  color: blue
`)
	b.WriteString(renderActionInputs(uses, modeName))
	b.WriteString("outputs:\n")
	for _, o := range actionOutputDocs {
		fmt.Fprintf(&b, "  %s:\n    description: %s\n", o[0], yamlString(o[1]))
	}
	b.WriteString("runs:\n  using: docker\n  image: Dockerfile\n  args:\n    - action\n")
	return b.String()
}

// renderActionInputs is the inputs: block both forms of the action share.
func renderActionInputs(uses map[string][]struct {
	mode action.Mode
	fl   *flag.Flag
}, modeName func(action.Mode) string) string {
	var b strings.Builder
	b.WriteString("inputs:\n")
	names := action.Inputs()
	for _, n := range names {
		var desc string
		if d, ok := actionInputDocs[n]; ok {
			desc = d
		} else {
			us := uses[n]
			var modes []string
			docs := map[string][]string{}
			var order []string
			var defaults []string
			defaultValues := map[string]bool{}
			repeatable := false
			for _, u := range us {
				modes = append(modes, modeName(u.mode))
				d := flagDoc(u.fl)
				if _, ok := docs[d]; !ok {
					order = append(order, d)
				}
				docs[d] = append(docs[d], modeName(u.mode))
				if u.fl.DefValue != "" && u.fl.DefValue != "[]" && u.fl.DefValue != "false" {
					defaults = append(defaults, fmt.Sprintf("%s %s", modeName(u.mode), u.fl.DefValue))
					defaultValues[u.fl.DefValue] = true
				}
				if k := step.KindNamed(u.mode.Kind()); k != nil {
					if fd := step.Lookup(k.Fields(), u.fl.Name); fd != nil && fd.Type == step.List {
						repeatable = true
					}
				}
			}
			var parts []string
			if len(order) == 1 {
				parts = append(parts, order[0]+".")
			} else {
				for _, d := range order {
					parts = append(parts, fmt.Sprintf("%s: %s.", strings.Join(docs[d], ", "), d))
				}
			}
			word := "Modes"
			if len(modes) == 1 {
				word = "Mode"
			}
			desc = fmt.Sprintf("%s %s: the --%s flag: %s", word, strings.Join(modes, ", "), n, strings.Join(parts, " "))
			if repeatable {
				desc += " One value per line."
			}
			switch {
			case len(defaultValues) == 1 && len(defaults) == len(us):
				for v := range defaultValues {
					desc += " Empty means " + v + "."
				}
			case len(defaults) > 0:
				desc += " Empty means the mode's default (" + strings.Join(defaults, "; ") + ")."
			}
		}
		fmt.Fprintf(&b, "  %s:\n    description: %s\n    required: false\n", n, yamlString(desc))
		if d, ok := actionInputDefaults[n]; ok {
			fmt.Fprintf(&b, "    default: %s\n", yamlString(d))
		}
	}
	return b.String()
}

// actionFlagUses are, by input name, the modes whose flag it is.
func actionFlagUses() map[string][]struct {
	mode action.Mode
	fl   *flag.Flag
} {
	uses := map[string][]struct {
		mode action.Mode
		fl   *flag.Flag
	}{}
	for _, m := range action.Modes {
		for _, fl := range action.Flags(m) {
			uses[fl.Name] = append(uses[fl.Name], struct {
				mode action.Mode
				fl   *flag.Flag
			}{m, fl})
		}
	}
	return uses
}

// hostSteps are the host form's install steps: the release binary for the
// runner's OS and arch (verified against SHA256SUMS, kept in the tool
// cache) or, when no release matches, a build from the action's source.
const hostSteps = `runs:
  using: composite
  steps:
    - name: Refuse Windows
      if: runner.os == 'Windows'
      shell: bash
      run: |
        echo "::error title=retrywise::retrywise/host supports Linux and macOS runners only: it relies on process groups and POSIX signals, which Windows lacks"
        exit 1
    # The release binary for this OS/arch, verified against SHA256SUMS and
    # kept in the tool cache (host/install.sh); only when no release matches
    # (@main, a branch, no asset for this arch) the runner's Go builds it.
    - name: Install retrywise
      id: install
      shell: bash
      env:
        # stamped by scripts/release-action; empty on main
        RETRYWISE_VERSION: ""
      run: '"$GITHUB_ACTION_PATH/install.sh" fetch'
    - name: Set up Go (go.mod's version), to build from source
      if: steps.install.outputs.build == 'true'
      uses: actions/setup-go@v6
      with:
        go-version-file: ${{ github.action_path }}/../go.mod
        cache-dependency-path: ${{ github.action_path }}/../go.sum
    - name: Build retrywise from the action's source
      id: build
      if: steps.install.outputs.build == 'true'
      shell: bash
      run: '"$GITHUB_ACTION_PATH/install.sh" build'
`

// hostActionYAML is host/action.yml: the container action's twin on
// the runner itself, with the same inputs and outputs (generated from the
// same definitions). A composite action gets no INPUT_* variables, so its
// last step maps every input into the environment as the container form
// receives it, and one code path (retrywise action) serves both.
func hostActionYAML() string {
	var b strings.Builder
	b.WriteString(`# Generated from the flags of each mode by internal/artefact: go generate ./...
name: retrywise on the runner
description: "The retrywise action run on the runner itself, with the runner's tools (node, python, gh, jq, ...): the same modes, inputs and outputs as the container action. Linux and macOS runners only."
author: retrywise
branding:
  icon: refresh-cw
  color: blue
`)
	b.WriteString(renderActionInputs(actionFlagUses(), func(m action.Mode) string { return string(m) }))
	b.WriteString("outputs:\n")
	for _, o := range actionOutputDocs {
		fmt.Fprintf(&b, "  %s:\n    description: %s\n    value: ${{ steps.action.outputs.%s }}\n", o[0], yamlString(o[1]), o[0])
	}
	b.WriteString(hostSteps)
	b.WriteString("    - name: Run retrywise action\n      id: action\n      shell: bash\n      env:\n")
	for _, n := range action.Inputs() {
		fmt.Fprintf(&b, "        %s: ${{ inputs.%s }}\n", action.InputVar(n), n)
	}
	b.WriteString("        RETRYWISE_BIN: ${{ steps.build.outputs.bin || steps.install.outputs.bin }}\n")
	b.WriteString("      run: '\"$RETRYWISE_BIN\" action'\n")
	return b.String()
}

// yamlString quotes s as a YAML double-quoted scalar.
func yamlString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
