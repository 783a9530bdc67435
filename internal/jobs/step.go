package jobs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/retrywise/retrywise/internal/step"

	"github.com/goccy/go-yaml/ast"
)

// stepBuild is a step being read.
type stepBuild struct {
	step  *Step
	where string
	// idPos is where the id is written; hasID is false when it is missing
	// or not an id.
	idPos Pos
	hasID bool
	// kindSettings are the kind's keys as read; kindBad is true when the
	// kind's value could not be read at all.
	kindSettings []raw
	kindBad      bool
	retry        []raw
	ifEntry      *entry
}

// stepFields are the keys of a step besides its kind.
func stepFields() []field[*stepBuild] {
	return []field[*stepBuild]{
		{"id", (*loader).readID},
		{"if", (*loader).readIf},
		{"retry", (*loader).readStepRetry},
		{"continue-on-error", (*loader).readContinueOnError},
		{"env", (*loader).readStepEnv},
	}
}

// runWideFix says where a run-wide key belongs.
const runWideFix = "move it under defaults: it applies to the whole run (one egress prober, one breaker registry per run)"

// readSteps reads a job's steps: and each step.
func (l *loader) readSteps(e entry, b *jobBuild) {
	nodes, pos, ok := l.items(e.val)
	switch {
	case !ok && !isNull(e.val):
		l.errorf(e.valPos, "write steps: as a list, each item starting with - id: NAME", "steps: want a list of steps, not %s", what(e.val))
		return
	case len(nodes) == 0:
		l.errorf(e.keyPos, "add a step: - id: NAME with one kind of step", "job %q: steps: has no steps", b.job.Name)
		return
	}
	for i, n := range nodes {
		b.steps = append(b.steps, l.step(n, pos[i], i))
	}
}

// step reads one step.
func (l *loader) step(n ast.Node, pos Pos, index int) *stepBuild {
	sb := &stepBuild{step: &Step{Pos: pos}, where: fmt.Sprintf("step %d", index+1)}
	entries, ok := l.mapping(n, pos, "a step")
	if !ok {
		sb.kindBad = true
		return sb
	}
	for _, e := range entries {
		if sc, ok := l.scalar(e.val); e.key == "id" && ok && !sc.null {
			sb.where = fmt.Sprintf("step %q", sc.text)
		}
	}
	fs := stepFields()
	readFields(l, entries, fs, sb, func(e entry) {
		if k := l.cat.Kind(e.key); k != nil {
			l.readKind(k, e, sb)
			return
		}
		if _, ok := findKey(l.cat.Run, e.key); ok {
			l.errorf(e.keyPos, runWideFix, "%s: %s is a run-wide setting, not a step's", sb.where, e.key)
			return
		}
		if _, ok := findKey(l.cat.Retry, e.key); ok {
			l.errorf(e.keyPos, "write it under the step's retry:", "%s: %s is a retry key; it goes under retry:", sb.where, e.key)
			return
		}
		allowed := append(fieldNames(fs), l.cat.KindNames()...)
		fix := didYouMean(e.key, allowed)
		if fix == "" {
			fix = "remove it, or use one of: " + strings.Join(allowed, ", ")
		}
		l.errorf(e.keyPos, fix, "unknown key %q in %s; allowed: %s, and one kind: %s", e.key, sb.where,
			strings.Join(fieldNames(fs), ", "), strings.Join(l.cat.KindNames(), ", "))
	})
	if !sb.hasID && !hasKey(entries, "id") {
		l.errorf(pos, "add id: NAME (letters, digits, _ and -)", "%s has no id", sb.where)
	}
	if sb.step.Kind == nil && !sb.kindBad {
		l.errorf(pos, "add one of: "+strings.Join(l.cat.KindNames(), ", "), "%s has no kind; a step has exactly one of: %s", sb.where, strings.Join(l.cat.KindNames(), ", "))
		sb.kindBad = true
	}
	return sb
}

// hasKey reports whether entries has key.
func hasKey(entries []entry, key string) bool {
	for _, e := range entries {
		if e.key == key {
			return true
		}
	}
	return false
}

// readID reads a step's id:.
func (l *loader) readID(e entry, sb *stepBuild) {
	sc, ok := l.scalar(e.val)
	switch {
	case !ok || sc.null:
		l.errorf(e.valPos, "write id: NAME", "%s: id: want a name, not %s", sb.where, what(e.val))
	case !validID(sc.text):
		l.errorf(sc.pos, "use letters, digits, _ and -, starting with a letter or _", "id %q is not an id", sc.text)
	default:
		sb.step.ID, sb.idPos, sb.hasID = sc.text, sc.pos, true
	}
}

// readIf reads a step's if: (compiled once the earlier steps are known).
func (l *loader) readIf(e entry, sb *stepBuild) {
	sb.ifEntry = &e
}

// readStepRetry reads a step's retry:.
func (l *loader) readStepRetry(e entry, sb *stepBuild) {
	sb.retry = l.retryBlock(e, sb.where+" retry")
}

// readContinueOnError reads a step's continue-on-error:.
func (l *loader) readContinueOnError(e entry, sb *stepBuild) {
	r := l.convert(&step.Field{Name: "continue-on-error", Type: step.Bool}, e)
	if !r.bad {
		sb.step.ContinueOnError = r.Values[0] == "true"
	}
}

// readStepEnv reads a step's env:.
func (l *loader) readStepEnv(e entry, sb *stepBuild) {
	sb.step.Env = l.env(e, sb.where+" env")
}

// readKind reads the step's kind key and its settings.
func (l *loader) readKind(k Kind, e entry, sb *stepBuild) {
	if sb.step.Kind != nil {
		l.errorf(e.keyPos, "split it into two steps", "%s has two kinds, %s and %s; a step has exactly one", sb.where, sb.step.Kind.Name(), k.Name())
		return
	}
	sb.step.Kind, sb.step.KindPos = k, e.keyPos
	where := sb.where + " " + k.Name()
	entries, ok := l.mapping(e.val, e.valPos, where)
	if !ok {
		sb.kindBad = true
		return
	}
	keys := k.Keys()
	sb.kindSettings = make([]raw, 0, len(entries))
	for _, ke := range entries {
		if key, ok := findKey(keys, ke.key); ok {
			sb.kindSettings = append(sb.kindSettings, l.convert(key, ke))
			continue
		}
		if _, ok := findKey(l.cat.Run, ke.key); ok {
			l.errorf(ke.keyPos, runWideFix, "%s: %s is a run-wide setting, not a step's", where, ke.key)
			continue
		}
		if _, ok := findKey(l.cat.Retry, ke.key); ok {
			l.errorf(ke.keyPos, "write it under the step's retry:", "%s: %s is a retry key; it goes under the step's retry:", where, ke.key)
			continue
		}
		l.unknownKey(ke, where, keyNames(keys))
	}
}

// checkSteps checks a job's steps against each other (ids, references,
// if:) and prepares each with its kind.
func (l *loader) checkSteps(b *jobBuild) {
	all := map[string]bool{}
	firstAt := map[string]Pos{}
	for _, sb := range b.steps {
		if !sb.hasID {
			continue
		}
		id := sb.step.ID
		if at, dup := firstAt[id]; dup {
			l.errorf(sb.idPos, "give each step of a job its own id", "step id %q is already used at %s", id, at)
			continue
		}
		firstAt[id], all[id] = sb.idPos, true
	}
	for _, v := range b.job.Env {
		l.checkRefs(scalar{text: v.Value, pos: v.Pos}, &scope{noSteps: fmt.Sprintf("job %q env", b.job.Name)}, "env "+v.Name)
	}
	sc := &scope{earlier: map[string]*earlierStep{}, all: all}
	for _, sb := range b.steps {
		sc.self = sb.step.ID
		if k := sb.step.Kind; k != nil && k.Expands() {
			for _, r := range sb.kindSettings {
				if r.bad || (r.key.Type != step.String && r.key.Type != step.List && r.key.Type != step.CSV) {
					continue
				}
				for _, item := range r.items {
					l.checkRefs(item, sc, r.Key)
				}
			}
		}
		if k := sb.step.Kind; k != nil && !k.Expands() {
			l.checkScript(sb.kindSettings)
		}
		for _, v := range sb.step.Env {
			l.checkRefs(scalar{text: v.Value, pos: v.Pos}, sc, "env "+v.Name)
		}
		if sb.ifEntry != nil {
			sb.step.If = l.condition(*sb.ifEntry, sc)
		}
		if sb.step.Kind != nil {
			merged := l.merge(sb, b.defaults)
			sb.step.Settings = settingsOf(merged)
			if !sb.kindBad {
				l.prepare(sb, merged)
			}
		}
		if sb.hasID {
			if _, seen := sc.earlier[sb.step.ID]; !seen {
				sc.earlier[sb.step.ID] = earlierOf(sb)
				sc.earlierIDs = append(sc.earlierIDs, sb.step.ID)
			}
		}
		b.job.Steps = append(b.job.Steps, sb.step)
	}
}

// checkScript reports a step reference written in a script a shell runs
// (run: with the default shell, bash or sh): nothing expands it there,
// and the shell fails on it ("bad substitution"). The script's own ${f}
// is the shell's; a script for another interpreter is its own.
func (l *loader) checkScript(settings []raw) {
	var script *raw
	shell := ""
	for i := range settings {
		switch r := &settings[i]; {
		case r.bad:
		case r.Key == "run":
			script = r
		case r.Key == "shell" && len(r.Values) == 1:
			shell = r.Values[0]
		}
	}
	if script == nil || len(script.items) != 1 || (shell != "" && shell != "bash" && shell != "sh") {
		return
	}
	text := script.items[0].text
	for _, open := range []string{"${" + stepsPrefix + ".", "${{"} {
		i := strings.Index(text, open)
		if i < 0 {
			continue
		}
		ref := text[i:]
		if end := strings.Index(ref, "}"); end >= 0 {
			if open == "${{" && strings.HasPrefix(ref[end:], "}}") {
				end++
			}
			ref = ref[:end+1]
		}
		inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(ref, "${{"), "${"), "}}"))
		inner = strings.TrimSuffix(inner, "}")
		inner = strings.TrimSpace(inner)
		fix := fmt.Sprintf("pass it through the step's env: {NAME: \"${%s}\"} and write \"$NAME\" in the script", inner)
		if name, ok := strings.CutPrefix(inner, "env."); ok {
			fix = fmt.Sprintf("write \"$%s\": the job's and step's env: are the script's environment", name)
		}
		l.errorf(script.items[0].pos, fix,
			"run: %s is not expanded in a script, and the shell fails on it (bad substitution)", ref)
		return
	}
}

// earlierStep is sb as the steps after it see it: its kind and the
// outputs its settings declare. A step whose kind is unknown declares
// none, and may have any: its own error is reported.
func earlierOf(sb *stepBuild) *earlierStep {
	k := sb.step.Kind
	if k == nil || sb.kindBad {
		return &earlierStep{kind: k}
	}
	good := make([]raw, 0, len(sb.kindSettings))
	for _, r := range sb.kindSettings {
		if !r.bad {
			good = append(good, r)
		}
	}
	names, declared := k.Outputs(settingsOf(good))
	return &earlierStep{kind: k, outputs: names, declared: declared}
}

// merge returns a step's settings: its kind's keys, then the retry keys of
// defaults.retry overridden key by key by the step's retry:, then the
// defaults' run-wide keys its kind has and the step does not set.
func (l *loader) merge(sb *stepBuild, d *defaultsBuild) []raw {
	out := make([]raw, 0, len(sb.kindSettings)+len(d.retry)+len(sb.retry)+len(d.run))
	out = append(out, sb.kindSettings...)
	set := map[string]bool{}
	for _, r := range sb.kindSettings {
		set[r.Key] = true
	}
	stepRetry := map[string]raw{}
	for _, r := range sb.retry {
		stepRetry[r.Key] = r
	}
	inDefaults := map[string]bool{}
	for _, r := range d.retry {
		inDefaults[r.Key] = true
		if o, ok := stepRetry[r.Key]; ok {
			r = o
		}
		out = append(out, r)
	}
	for _, r := range sb.retry {
		if !inDefaults[r.Key] {
			out = append(out, r)
		}
	}
	keys := sb.step.Kind.Keys()
	for _, r := range d.run {
		if _, has := findKey(keys, r.Key); has && !set[r.Key] {
			out = append(out, r)
		}
	}
	return out
}

// prepare calls the kind's Prepare with the step's settings, leaving out
// those in error, and reports its complaints where the settings are
// written.
func (l *loader) prepare(sb *stepBuild, merged []raw) {
	pass := make(Settings, 0, len(merged))
	left := map[string]bool{}
	for _, r := range merged {
		if r.bad {
			left[r.Key] = true
			continue
		}
		pass = append(pass, r.Setting)
	}
	k := sb.step.Kind
	prepared, err := k.Prepare(l.ctx, pass)
	if err == nil {
		sb.step.Prepared = prepared
	}
	for _, err := range flatten(err) {
		var se *step.FieldError
		if !errors.As(err, &se) {
			l.errorf(sb.step.KindPos, "", "%s: %s", k.Name(), err)
			continue
		}
		if left[se.Field] {
			continue // already reported as the setting's own error
		}
		pos := sb.step.KindPos
		if st, ok := settingsOf(merged).Get(se.Field); ok && se.Field != "" {
			pos = st.Pos
		}
		msg := se.Msg
		if se.Field != "" && !strings.Contains(msg, se.Field) {
			msg = se.Field + ": " + msg
		}
		l.errorf(pos, se.Fix, "%s", msg)
	}
}

// joinErrors joins errs; nil when there are none.
func joinErrors(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errors.Join(errs...)
}

// flatten returns the errors joined in err (errors.Join), or err alone.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}
