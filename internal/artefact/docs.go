package artefact

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/cli"
	"github.com/retrywise/retrywise/internal/failure/codedoc"
	"github.com/retrywise/retrywise/internal/step"
)

// docCommands are the commands with a page under docs/commands/.
var docCommands = []string{"exec", "push", "http", "classify", "probe", "github-quota", "validate", "run", "schedule", "explain"}

// cell makes s safe in a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// actionInputsTable renders the inputs of action.yml, as renderActionYAML
// generates them, as a Markdown table.
func actionInputsTable() (string, error) {
	var meta struct {
		Inputs map[string]struct {
			Description string  `yaml:"description"`
			Default     *string `yaml:"default"`
		} `yaml:"inputs"`
	}
	if err := yaml.Unmarshal([]byte(actionYAML()), &meta); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| input | default | description |\n|---|---|---|\n")
	for _, n := range action.Inputs() {
		in, ok := meta.Inputs[n]
		if !ok {
			return "", fmt.Errorf("input %s is not in the generated action.yml", n)
		}
		def := ""
		if in.Default != nil {
			def = "`" + *in.Default + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", n, def, cell(in.Description))
	}
	return b.String(), nil
}

// actionOutputsTable renders the action's outputs as a Markdown table.
func actionOutputsTable() string {
	var b strings.Builder
	b.WriteString("| output | value |\n|---|---|\n")
	for _, o := range actionOutputDocs {
		fmt.Fprintf(&b, "| `%s` | %s |\n", o[0], cell(o[1]))
	}
	return b.String()
}

// helpBlock is what `retrywise NAME --help` prints, in a fenced block.
func helpBlock(name string) (string, error) {
	var out, errs bytes.Buffer
	c := &cli.Command{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs}
	if code := c.Main(context.Background(), []string{"retrywise", name, "--help"}); code != 0 || errs.Len() > 0 {
		return "", fmt.Errorf("retrywise %s --help exits %d:\n%s", name, code, errs.String())
	}
	return "```text\n" + strings.TrimRight(out.String(), "\n") + "\n```\n", nil
}

// optionsTable renders a step kind's field table (internal/step, the one
// definition of its flags, job keys and action inputs) as Markdown.
func optionsTable(k *step.Kind) string {
	var mode action.Mode
	for _, m := range action.Modes {
		if m.Kind() == k.Name {
			mode = m
		}
	}
	inputs := map[string]bool{}
	if mode != "" {
		for _, fl := range action.Flags(mode) {
			inputs[fl.Name] = true
		}
		for _, n := range action.ModeInputs(mode) {
			inputs[n] = true
		}
	}
	var b strings.Builder
	b.WriteString("| flag | job file | action input | type | default | what it does |\n|---|---|---|---|---|---|\n")
	for _, f := range k.Fields() {
		flagName := "`--" + f.Name + "`"
		if f.Short != "" {
			flagName += ", `-" + f.Short + "`"
		}
		where := "`" + k.Name + ": {" + f.Name + ": …}`"
		switch {
		case f.Positional:
			flagName = "(arguments)"
		case f.Place == step.Retry:
			where = "`retry: {" + f.Name + ": …}`"
		case f.Place == step.Egress:
			where = "`defaults: {" + f.Name + ": …}`"
		case f.Place == step.Command:
			where = "—"
		case f.RunWide:
			where += ", or `defaults:`"
		}
		input := "—"
		switch {
		case inputs[f.Name]:
			input = "`" + f.Name + "`"
		case f.Positional && inputs[k.Name+"-"+f.Name]: // push's args: push-args
			input = "`" + k.Name + "-" + f.Name + "`"
		}
		def := ""
		if f.Default != "" {
			def = "`" + f.Default + "`"
		}
		doc := strings.ReplaceAll(strings.ReplaceAll(f.Doc, "\n", " "), "`", "")
		if f.Secret {
			doc += " (masked everywhere)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", flagName, where, input, f.Type, def, cell(doc))
	}
	return b.String()
}

// page is a docs page and the content of its generated regions, by name.
type page struct {
	path    string
	regions map[string]string
}

// docRegions renders the generated regions of the docs: the action's inputs
// and outputs, each command's --help and, for a step kind, its options
// table (the kind's field table), and the failure codes.
func docRegions() ([]page, error) {
	inputs, err := actionInputsTable()
	if err != nil {
		return nil, err
	}
	pages := []page{
		{"docs/github-action.md", map[string]string{"action-inputs": inputs, "action-outputs": actionOutputsTable()}},
		{"docs/failure-codes.md", map[string]string{"failure-codes": codesTable()}},
	}
	for _, name := range docCommands {
		help, err := helpBlock(name)
		if err != nil {
			return nil, err
		}
		regions := map[string]string{"help " + name: help}
		if k := step.KindNamed(name); k != nil {
			regions["options "+name] = optionsTable(k)
		}
		pages = append(pages, page{"docs/commands/" + name + ".md", regions})
	}
	return pages, nil
}

// codesTable renders the failure codes (internal/failure/codedoc) as the
// Markdown table of docs/failure-codes.md.
func codesTable() string {
	var b strings.Builder
	b.WriteString("| code | class | kind |\n|---|---|---|\n")
	for _, d := range codedoc.Docs {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", d.Code, d.Class, d.Kind)
	}
	return b.String()
}
