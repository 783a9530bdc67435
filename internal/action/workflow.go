package action

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/userfile"
)

// MaxWorkflowSize bounds a workflow file CheckWorkflow reads (1 MiB).
const MaxWorkflowSize = 1 << 20

// usesRetrywise matches a uses: of this action: the repository (either
// form, any ref), or an image named retrywise.
var usesRetrywise = regexp.MustCompile(`^(?:[A-Za-z0-9_.-]+/retrywise(?:/host)?@\S+|docker://\S*retrywise\S*)$`)

// CheckWorkflow checks every step of the workflow at path that uses this
// action: its with: keys against the action's inputs (a typo is named with
// the input it likely meant), exactly one mode, and a config: job file
// (resolved from the repository's root, the git top level of path) that
// exists and validates. A step that uses a local path is checked when the
// action.yml there is retrywise's. actionlint cannot check a remote
// action's inputs; this can.
func CheckWorkflow(ctx context.Context, path string, env []string) (jobs.Errors, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the workflow: %w", err)
	}
	if st.Size() > MaxWorkflowSize {
		return nil, fmt.Errorf("%s is %d bytes, over the limit of %d for a workflow", path, st.Size(), MaxWorkflowSize)
	}
	// A FIFO or device passes the size check: read at most one byte past
	// the limit, abandoned when ctx ends (userfile.ReadFile).
	src, err := userfile.ReadFile(ctx, path, MaxWorkflowSize)
	if err != nil {
		return nil, fmt.Errorf("cannot read the workflow: %w", err)
	}
	if len(src) > MaxWorkflowSize {
		return nil, fmt.Errorf("%s is over the limit of %d bytes for a workflow", path, MaxWorkflowSize)
	}
	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		return jobs.Errors{{Path: path, Pos: jobs.Pos{Line: 1, Col: 1}, Msg: "not a workflow: " + err.Error()}}, nil
	}
	root := repoRoot(path)
	var errs jobs.Errors
	inputs := Inputs()
	for _, doc := range f.Docs {
		ast.Walk(visitor(func(n ast.Node) {
			m, ok := n.(*ast.MappingNode)
			if !ok {
				return
			}
			uses, with := mapValue(m, "uses"), mapValue(m, "with")
			if uses == nil {
				return
			}
			ref := strings.TrimSpace(scalarText(uses))
			if !usesRetrywise.MatchString(ref) && !(strings.HasPrefix(ref, "./") && isRetrywiseAction(ctx, filepath.Join(root, ref))) {
				return
			}
			errs = append(errs, checkStep(ctx, path, root, uses, with, inputs, env)...)
		}), doc)
	}
	errs.Sort()
	return errs, nil
}

// checkStep checks one step's with: block.
func checkStep(ctx context.Context, path, root string, uses, with ast.Node, inputs []string, env []string) jobs.Errors {
	var errs jobs.Errors
	given := map[string]string{}
	keyPos := map[string]jobs.Pos{}
	var order []string
	var configPos jobs.Pos
	if m, ok := with.(*ast.MappingNode); ok {
		for _, kv := range m.Values {
			name := scalarText(kv.Key)
			pos := posOf(kv.Key)
			if !contains(inputs, name) {
				msg := fmt.Sprintf("unknown input %q", name)
				if c := jobs.Closest(name, inputs); c != "" {
					msg += fmt.Sprintf("; did you mean %q?", c)
				}
				errs = append(errs, &jobs.Error{Path: path, Pos: pos, Msg: msg, Fix: "the inputs are listed in docs/github-action.md"})
				continue
			}
			given[name] = strings.TrimSpace(scalarText(kv.Value))
			keyPos[name] = pos
			order = append(order, name)
			if name == "config" {
				configPos = posOf(kv.Value)
			}
		}
	}
	mode, err := ChooseMode(func(n string) string { return given[n] })
	if err != nil {
		errs = append(errs, &jobs.Error{Path: path, Pos: posOf(uses), Msg: err.Error()})
	} else {
		errs = append(errs, misplaced(path, mode, given, keyPos, order)...)
	}
	if cfg := given["config"]; cfg != "" && !strings.Contains(cfg, "${{") {
		file := filepath.Join(root, cfg)
		l, jerrs, err := jobs.LoadFile(ctx, file, env)
		switch {
		case err != nil:
			errs = append(errs, &jobs.Error{Path: path, Pos: configPos, Msg: fmt.Sprintf("config: %v (resolved from the repository's root: %s)", err, file), Fix: "give the job file's path from the repository's root"})
		case len(jerrs) > 0:
			errs = append(errs, &jobs.Error{Path: path, Pos: configPos, Msg: fmt.Sprintf("config: %s is invalid (%d error(s); retrywise validate --config %s)", cfg, len(jerrs), file)})
			errs = append(errs, jerrs...)
		default:
			errs = append(errs, l.File.Warnings...)
			if job := given["job"]; job != "" && !strings.Contains(job, "${{") {
				if _, err := l.File.Pick(job); err != nil {
					errs = append(errs, &jobs.Error{Path: path, Pos: configPos, Msg: "job: " + err.Error()})
				}
			}
		}
	}
	return errs
}

// misplaced reports each input of a step that does not apply to its mode
// (MisplacedInputs, from the action's input tables), at the input: the
// action would refuse it and exit 64.
func misplaced(path string, mode Mode, given map[string]string, keyPos map[string]jobs.Pos, order []string) jobs.Errors {
	wrong := MisplacedInputs(mode, func(n string) string { return given[n] })
	var errs jobs.Errors
	for _, n := range order {
		if !slices.Contains(wrong, n) {
			continue
		}
		fix := "remove " + n + modeHint(mode)
		if ms := ModesOf(n); len(ms) > 0 && mode != ModeJob {
			names := make([]string, len(ms))
			for i, m := range ms {
				names[i] = string(m)
			}
			fix += fmt.Sprintf(" (it applies to %s mode)", strings.Join(names, ", "))
		}
		errs = append(errs, &jobs.Error{Path: path, Pos: keyPos[n], Fix: fix,
			Msg: fmt.Sprintf("input %s does not apply to %s mode (the action would exit %d)", n, mode, exitcode.Usage)})
	}
	return errs
}

// isRetrywiseAction reports whether the action.yml in dir is this action's.
func isRetrywiseAction(ctx context.Context, dir string) bool {
	b, err := userfile.ReadFile(ctx, filepath.Join(dir, "action.yml"), MaxWorkflowSize)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "name:") {
			name := strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "name:")), `"'`)
			return name == "retrywise" || name == "retrywise on the runner"
		}
	}
	return false
}

// repoRoot is the git top level of path's folder, or that folder.
func repoRoot(path string) string {
	dir := filepath.Dir(path)
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return dir
	}
	return strings.TrimSpace(string(out))
}

type visitor func(n ast.Node)

func (v visitor) Visit(n ast.Node) ast.Visitor {
	v(n)
	return v
}

// mapValue is the value of key in m, or nil.
func mapValue(m *ast.MappingNode, key string) ast.Node {
	for _, kv := range m.Values {
		if scalarText(kv.Key) == key {
			return kv.Value
		}
	}
	return nil
}

// scalarText is a scalar node's text; "" for anything else.
func scalarText(n ast.Node) string {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value
	case ast.ScalarNode:
		return fmt.Sprint(v.GetValue())
	case *ast.MappingKeyNode:
		return scalarText(v.Value)
	}
	return ""
}

// posOf is where n is written.
func posOf(n ast.Node) jobs.Pos {
	if n == nil || n.GetToken() == nil {
		return jobs.Pos{Line: 1, Col: 1}
	}
	p := n.GetToken().Position
	return jobs.Pos{Line: p.Line, Col: p.Column}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
