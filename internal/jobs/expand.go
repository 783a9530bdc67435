package jobs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/retrywise/retrywise/internal/expand"
	"github.com/retrywise/retrywise/internal/expr"
)

// The reference forms: ${NAME} is an environment variable,
// ${steps.ID.outputs.NAME} an earlier step's output.
const (
	stepsPrefix   = "steps"
	outputsMember = "outputs"
)

// parseStepRef splits a reference name of the form steps.ID.outputs.NAME;
// ok is false for any other form.
func parseStepRef(name string) (id, output string, ok bool) {
	parts := strings.Split(name, ".")
	if len(parts) != 4 || parts[0] != stepsPrefix || parts[2] != outputsMember || !validID(parts[1]) || !validID(parts[3]) {
		return "", "", false
	}
	return parts[1], parts[3], true
}

// ExpandValue expands v for a step about to start in st: ${NAME} from
// st.Env, ${steps.ID.outputs.NAME} from st.Steps[ID].Outputs[NAME] as
// FormatOutput renders it, and $$ as $. An unset variable or a missing
// step or output is an *expand.UnsetError whose Name is the whole
// reference (e.g. steps.quota.outputs.count); a malformed reference is an
// *expand.SyntaxError.
func ExpandValue(v string, st State) (string, error) {
	return expand.Func(v, func(r expand.Ref) (string, error) {
		if id, out, ok := parseStepRef(r.Name); ok {
			s, ok := st.Steps[id]
			if !ok {
				return "", &expand.UnsetError{Name: r.Name}
			}
			val, ok := s.Outputs[out]
			if !ok {
				return "", &expand.UnsetError{Name: r.Name}
			}
			return FormatOutput(val), nil
		}
		if !expand.ValidName(r.Name) {
			return "", &expand.SyntaxError{Offset: r.Offset, Msg: fmt.Sprintf("%q is neither a variable name nor steps.ID.outputs.NAME", r.Name)}
		}
		val, ok := st.Env[r.Name]
		if !ok {
			return "", &expand.UnsetError{Name: r.Name}
		}
		return val, nil
	})
}

// FormatOutput is an output value as the string a workflow sees, as
// GitHub's runner converts a value: a string as it is, a boolean true or
// false, a json.Number as its text (a number the body wrote stays exact),
// any other number as expr.FormatNumber prints it (.NET's G15:
// 1.23456789012346E+19), null the empty string, and an object or array
// its compact JSON.
func FormatOutput(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case nil:
		return ""
	}
	switch x := expr.Value(v).(type) {
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return expr.FormatNumber(x)
	case string:
		return x
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// scope is what a value's references may name.
type scope struct {
	// noSteps, when not empty, names a place set before any step runs
	// (a job's env, defaults), where no step output may be named.
	noSteps string
	// earlier are the job's earlier steps by id, with the outputs each
	// declares; earlierIDs in order.
	earlier    map[string]*earlierStep
	earlierIDs []string
	// all are every step id of the job.
	all map[string]bool
	// self is the step's own id.
	self string
}

// earlierStep is a step before the one being checked: its kind and the
// outputs it declares (Kind.Outputs of its settings); declared is false
// when it may have any (a script without outputs:).
type earlierStep struct {
	kind     Kind
	outputs  []string
	declared bool
}

// caseBlind returns the earlier step's id id names as an if: names it
// (case-blind, as a workflow's contexts are), or id when none does.
func (sc *scope) caseBlind(id string) string {
	if _, ok := sc.earlier[id]; ok {
		return id
	}
	for _, e := range sc.earlierIDs {
		if strings.EqualFold(e, id) {
			return e
		}
	}
	return id
}

// stepProblem says what is wrong with naming step id from sc, with a fix;
// "" when it names an earlier step.
func (sc *scope) stepProblem(id string) (msg, fix string) {
	if _, ok := sc.earlier[id]; ok {
		return "", ""
	}
	switch {
	case id == sc.self:
		return fmt.Sprintf("names step %q itself; a step sees only earlier steps", id), "name an earlier step"
	case sc.all[id]:
		return fmt.Sprintf("names step %q, which runs after this step", id), "only earlier steps are known; move the step before this one"
	}
	fix = didYouMean(id, sc.earlierIDs)
	if fix == "" && len(sc.earlierIDs) > 0 {
		fix = "the earlier steps are: " + strings.Join(sc.earlierIDs, ", ")
	} else if fix == "" {
		fix = "this is the job's first step; no step ran before it"
	}
	return fmt.Sprintf("names no earlier step %q", id), fix
}

// outputProblem says what is wrong with naming output name of step id
// (an earlier step); "" when the step declares it. caseBlind compares
// the names as an if: does (a workflow's contexts are case-blind);
// ${...} names are exact. warn is true when the step declares no outputs
// (a script without outputs:): the reference cannot be checked.
func (sc *scope) outputProblem(id, name string, caseBlind bool) (msg, fix string, warn bool) {
	e := sc.earlier[id]
	if e == nil || e.kind == nil {
		return "", "", false
	}
	if !e.declared {
		return fmt.Sprintf("step %q (%s) has no outputs: list, so its outputs cannot be checked before it runs", id, e.kind.Name()),
			fmt.Sprintf("add outputs: [%s] to step %s's %s, naming what it writes to $RETRYWISE_OUTPUT", name, id, e.kind.Name()), true
	}
	for _, n := range e.outputs {
		if n == name || caseBlind && strings.EqualFold(n, name) {
			return "", "", false
		}
	}
	if len(e.outputs) == 0 {
		return fmt.Sprintf("step %q (%s) has no output %q; it declares none", id, e.kind.Name(), name),
			fmt.Sprintf("add %s to step %s's outputs:", name, id), false
	}
	fix = didYouMeanFold(name, e.outputs)
	if fix == "" {
		fix = "use one of: " + strings.Join(e.outputs, ", ")
	}
	return fmt.Sprintf("step %q (%s) has no output %q; its outputs are: %s", id, e.kind.Name(), name, strings.Join(e.outputs, ", ")), fix, false
}

// didYouMeanFold is didYouMean, where a candidate that differs from s in
// case only is the likeliest.
func didYouMeanFold(s string, candidates []string) string {
	for _, c := range candidates {
		if strings.EqualFold(c, s) {
			return "did you mean " + c + "?"
		}
	}
	return didYouMean(s, candidates)
}

// checkRefs reports the malformed or wrong ${...} references of v; where
// names the key for messages.
func (l *loader) checkRefs(v scalar, sc *scope, where string) {
	refs, err := expand.Refs(v.text)
	var se *expand.SyntaxError
	if errors.As(err, &se) {
		l.errorf(v.pos, "close it with }, or write $$ for a literal $", "%s: malformed ${ at byte %d: %s", where, se.Offset, se.Msg)
	}
	for _, r := range refs {
		ref := "${" + r.Name + "}"
		if expand.ValidName(r.Name) {
			continue
		}
		if r.Name != stepsPrefix && !strings.HasPrefix(r.Name, stepsPrefix+".") {
			l.errorf(v.pos, "write ${NAME} for a variable, ${steps.ID.outputs.NAME} for an output, $$ for a literal $",
				"%s: %s is not a reference: want ${NAME} (an environment variable) or ${steps.ID.outputs.NAME}", where, ref)
			continue
		}
		id, out, ok := parseStepRef(r.Name)
		if !ok {
			fix := "write ${steps.ID.outputs.NAME}"
			if parts := strings.Split(r.Name, "."); len(parts) > 1 && validID(parts[1]) {
				fix = "write ${steps." + parts[1] + ".outputs.NAME}"
			}
			l.errorf(v.pos, fix, "%s: %s is not a step output reference; the form is ${steps.ID.outputs.NAME}", where, ref)
			continue
		}
		if sc.noSteps != "" {
			l.errorf(v.pos, "move it to the env: of the step that needs it", "%s: %s names a step's output, but %s is set before any step runs", where, ref, sc.noSteps)
			continue
		}
		if msg, fix := sc.stepProblem(id); msg != "" {
			l.errorf(v.pos, fix, "%s: %s %s", where, ref, msg)
			continue
		}
		if msg, fix, warn := sc.outputProblem(id, out, false); warn {
			l.warnf(v.pos, fix, "%s: %s: %s", where, ref, msg)
		} else if msg != "" {
			l.errorf(v.pos, fix, "%s: %s: %s", where, ref, msg)
		}
	}
}
