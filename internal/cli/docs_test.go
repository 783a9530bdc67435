package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/goccy/go-yaml"

	"github.com/retrywise/retrywise/internal/action"
	"github.com/retrywise/retrywise/internal/docgen"
	"github.com/retrywise/retrywise/internal/step"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the generated regions of the docs (the action's inputs and outputs, each command's --help)")

// docCommands are the commands with a page under docs/commands/.
var docCommands = []string{"exec", "push", "http", "classify", "probe", "github-quota", "validate", "run", "schedule", "explain"}

// cell makes s safe in a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// actionInputsTable renders the inputs of action.yml, as renderActionYAML
// generates them, as a Markdown table.
func actionInputsTable(t *testing.T) string {
	t.Helper()
	var meta struct {
		Inputs map[string]struct {
			Description string  `yaml:"description"`
			Default     *string `yaml:"default"`
		} `yaml:"inputs"`
	}
	if err := yaml.Unmarshal([]byte(renderActionYAML()), &meta); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| input | default | description |\n|---|---|---|\n")
	for _, n := range action.Inputs() {
		in, ok := meta.Inputs[n]
		if !ok {
			t.Fatalf("input %s is not in the generated action.yml", n)
		}
		def := ""
		if in.Default != nil {
			def = "`" + *in.Default + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", n, def, cell(in.Description))
	}
	return b.String()
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
func helpBlock(t *testing.T, name string) string {
	t.Helper()
	var out, errs bytes.Buffer
	c := &Command{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs}
	if code := c.Main(context.Background(), []string{"retrywise", name, "--help"}); code != 0 || errs.Len() > 0 {
		t.Fatalf("retrywise %s --help exits %d:\n%s", name, code, errs.String())
	}
	return "```text\n" + strings.TrimRight(out.String(), "\n") + "\n```\n"
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
		for _, n := range action.ModeInputs[mode] {
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

// TestDocsTables keeps the generated regions of docs/ what their sources
// generate: the action's inputs and outputs (the source of action.yml) and
// each command's --help. -update-docs rewrites them; the failure codes'
// region is internal/failure's TestDocsTables.
func TestDocsTables(t *testing.T) {
	files := map[string]map[string]string{
		"docs/github-action.md": {"action-inputs": actionInputsTable(t), "action-outputs": actionOutputsTable()},
	}
	for _, name := range docCommands {
		regions := map[string]string{"help " + name: helpBlock(t, name)}
		if k := step.KindNamed(name); k != nil {
			regions["options "+name] = optionsTable(k)
		}
		files["docs/commands/"+name+".md"] = regions
	}
	for path, regions := range files {
		stale, err := docgen.Sync(filepath.Join("..", "..", path), regions, *updateDocs)
		if err != nil {
			t.Fatal(err)
		}
		if len(stale) > 0 && !*updateDocs {
			t.Errorf("%s: the generated regions %v are stale: run %s", path, stale, docgen.UpdateCommand)
		}
	}
}

// markdownFiles returns README.md, CONTRIBUTING.md and every Markdown page
// under docs/, relative to the repository's root.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md", "CONTRIBUTING.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			files = append(files, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	mdHeading  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	mdCodeSpan = regexp.MustCompile("`+[^`]*`+")
	mdHTMLTag  = regexp.MustCompile(`<[^>]+>`)
)

// proseLines returns the lines of a Markdown text outside fenced blocks,
// with their line numbers.
func proseLines(text string) (lines []string, numbers []int) {
	fence := ""
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(l, " ")
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
		case fence != "" && strings.HasPrefix(trimmed, fence):
			fence = ""
		case fence == "":
			lines = append(lines, l)
			numbers = append(numbers, i+1)
		}
	}
	return lines, numbers
}

// githubAnchor is the anchor GitHub gives a heading: its text lower-cased,
// every character but letters, digits, spaces, '-' and '_' removed, and
// spaces turned into '-'.
func githubAnchor(heading string) string {
	heading = mdHTMLTag.ReplaceAllString(heading, "")
	heading = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown text's headings, duplicates
// numbered -1, -2, ... as GitHub does.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	lines, _ := proseLines(text)
	for _, l := range lines {
		m := mdHeading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		a := githubAnchor(m[1])
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestDocsLinks: every relative link of README.md, CONTRIBUTING.md and
// docs/**/*.md names a file that exists and, with #anchor, a heading of it
// (GitHub's anchor rules).
func TestDocsLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	texts := map[string]string{}
	read := func(rel string) (string, bool) {
		if s, ok := texts[rel]; ok {
			return s, true
		}
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return "", false
		}
		texts[rel] = string(b)
		return string(b), true
	}
	checked := 0
	for _, file := range markdownFiles(t, root) {
		text, ok := read(file)
		if !ok {
			t.Errorf("%s does not exist", file)
			continue
		}
		lines, numbers := proseLines(text)
		for i, l := range lines {
			l = mdCodeSpan.ReplaceAllString(l, "")
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Clean(filepath.Join(filepath.Dir(file), path))
					if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
						t.Errorf("%s:%d: link %s: %s does not exist", file, numbers[i], target, dest)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				destText, ok := read(dest)
				if !ok || !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s:%d: link %s: an anchor into %s, which is not a Markdown page", file, numbers[i], target, dest)
					continue
				}
				if !anchors(destText)[anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading with the anchor #%s", file, numbers[i], target, dest, anchor)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d relative links checked: is the link pattern right?", checked)
	}
}

// TestGithubAnchor: GitHub's rules on headings the docs have.
func TestGithubAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"A first run: the demo (offline)":                      "a-first-run-the-demo-offline",
		"`retrywise exec [flags] -- CMD [ARGS...]`":            "retrywise-exec-flags----cmd-args",
		"Egress: \"not allowed\" or \"not reachable\"":         "egress-not-allowed-or-not-reachable",
		"Conditions: `if:`":                                    "conditions-if",
		"Flags, as `retrywise push --help` prints them":        "flags-as-retrywise-push---help-prints-them",
		"The failure issue (`report-issue: true`)":             "the-failure-issue-report-issue-true",
		"Start-up, and the push target":                        "start-up-and-the-push-target",
		"Checking and running: `validate`, `run`, `--dry-run`": "checking-and-running-validate-run---dry-run",
	} {
		if got := githubAnchor(heading); got != want {
			t.Errorf("githubAnchor(%q) = %q, want %q", heading, got, want)
		}
	}
	a := anchors("# Outputs\n\n## Outputs\n\n```\n# not a heading\n```\n### Outputs\n")
	for _, want := range []string{"outputs", "outputs-1", "outputs-2"} {
		if !a[want] {
			t.Errorf("anchors: no %s in %v", want, a)
		}
	}
	if a["not-a-heading"] {
		t.Errorf("anchors: a fenced line is not a heading")
	}
}
