package jobs

import (
	"github.com/retrywise/retrywise/internal/step"

	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/retrywise/retrywise/internal/expand"
	"github.com/retrywise/retrywise/internal/failure/teamrules"
)

// raw is a setting as read: the Setting, its key, the scalars it was
// written as (for reference checks) and whether it was in error.
type raw struct {
	Setting
	key   *step.Field
	items []scalar
	bad   bool
}

// settingsOf returns the Settings of rs.
func settingsOf(rs []raw) Settings {
	if len(rs) == 0 {
		return nil
	}
	out := make(Settings, len(rs))
	for i, r := range rs {
		out[i] = r.Setting
	}
	return out
}

// want describes the value a key type takes, for messages.
func want(t step.Type) string {
	switch t {
	case step.Bool:
		return "true or false"
	case step.Int:
		return "a whole number"
	case step.Duration:
		return "a duration such as 10s or 1m30s"
	case step.List:
		return "a list of strings"
	case step.CSV:
		return "a comma-separated string or a list"
	case step.Float:
		return "a number such as 0.2"
	}
	return "a string"
}

// typeNoun names a scalar key type's values: duration, number or bool.
func typeNoun(t step.Type) string {
	if t == step.Int {
		return "number"
	}
	return t.String()
}

// convert reads e's value as key k into a setting.
func (l *loader) convert(k *step.Field, e entry) raw {
	r := raw{Setting: Setting{Key: k.Name, Pos: e.keyPos}, key: k}
	fail := func(p Pos, fix, format string, args ...any) raw {
		l.errorf(p, fix, format, args...)
		r.bad = true
		return r
	}
	if isNull(e.val) {
		return fail(e.valPos, "write a value, or remove the key", "%s: no value", k.Name)
	}
	switch k.Type {
	case step.List, step.CSV:
		nodes, _, isList := l.items(e.val)
		if !isList {
			nodes = []ast.Node{e.val}
		}
		for i, n := range nodes {
			sc, ok := l.scalar(n)
			switch {
			case !ok && isList:
				return fail(nodePos(n), "write each item as a string", "%s: item %d: want a string, not %s", k.Name, i+1, what(n))
			case !ok:
				return fail(e.valPos, "write "+want(k.Type), "%s: want %s, not %s", k.Name, want(k.Type), what(n))
			case sc.null:
				return fail(sc.pos, "write a value, or remove the item", "%s: item %d: no value", k.Name, i+1)
			}
			r.items = append(r.items, sc)
		}
		for _, sc := range r.items {
			r.Values = append(r.Values, sc.text)
		}
		return r
	}
	sc, ok := l.scalar(e.val)
	if !ok {
		return fail(e.valPos, "write "+want(k.Type), "%s: want %s, not %s", k.Name, want(k.Type), what(e.val))
	}
	r.items = []scalar{sc}
	text := sc.text
	if k.Type != step.String && strings.Contains(text, "${") {
		return fail(sc.pos, "write the value itself", "%s: ${...} does not expand in a %s; write the value", k.Name, typeNoun(k.Type))
	}
	switch k.Type {
	case step.Bool:
		if text != "true" && text != "false" {
			return fail(sc.pos, "write true or false", "%s: want true or false, not %q", k.Name, text)
		}
	case step.Int:
		if _, err := strconv.ParseInt(text, 0, 64); err != nil {
			return fail(sc.pos, "write a whole number such as 3", "%s: want a whole number, not %q", k.Name, text)
		}
	case step.Float:
		if _, err := strconv.ParseFloat(text, 64); err != nil {
			return fail(sc.pos, "write a number such as 0.2", "%s: want a number, not %q", k.Name, text)
		}
	case step.Duration:
		if _, err := time.ParseDuration(text); err != nil {
			return fail(sc.pos, "write a duration such as 10s, 1m30s or 2h", "%s: %q is not a duration", k.Name, text)
		}
	}
	r.Values = []string{text}
	return r
}

// retryBlock reads a retry: mapping of the catalog's retry keys.
func (l *loader) retryBlock(e entry, where string) []raw {
	entries, ok := l.mapping(e.val, e.valPos, where)
	if !ok {
		return nil
	}
	var out []raw
	for _, re := range entries {
		k, ok := findKey(l.cat.Retry, re.key)
		if !ok {
			l.unknownKey(re, where, keyNames(l.cat.Retry))
			continue
		}
		r := l.convert(k, re)
		if !r.bad {
			for _, sc := range r.items {
				if strings.Contains(sc.text, "${") {
					l.errorf(sc.pos, "write the value itself", "%s: retry keys do not expand ${...}; write the value", k.Name)
					r.bad = true
					break
				}
			}
		}
		if !r.bad {
			l.checkBound(&r)
		}
		out = append(out, r)
	}
	return out
}

// checkBound reports a retry setting that leaves the policy unbounded: a
// max-elapsed of zero or less, a negative max-attempts.
func (l *loader) checkBound(r *raw) {
	if len(r.Values) == 0 || len(r.items) == 0 { // an empty list (schedule: []): nothing to bound
		return
	}
	v, p := r.Values[0], r.items[0].pos
	switch r.Key {
	case retryMaxElapsed:
		if d, err := time.ParseDuration(v); err == nil && d <= 0 {
			l.errorf(p, "write a positive bound such as max-elapsed: 15m", "%s: %s leaves the retry policy unbounded; it must be positive", r.Key, v)
			r.bad = true
		}
	case retryMaxAttempts:
		if n, err := strconv.ParseInt(v, 0, 64); err == nil && n < 0 {
			l.errorf(p, "write 1 or more, or 0 for one more than the schedule's waits", "%s: %s is negative; the retry policy would be unbounded", r.Key, v)
			r.bad = true
		}
	}
}

// defaultsBuild are the defaults as read.
type defaultsBuild struct {
	retry []raw
	run   []raw
}

// defaultsFields are the keys of defaults: retry, secrets and the
// catalog's run-wide keys.
func (l *loader) defaultsFields() []field[*fileBuild] {
	fs := []field[*fileBuild]{
		{"retry", func(l *loader, e entry, b *fileBuild) {
			b.defaults.retry = l.retryBlock(e, "defaults.retry")
			b.f.Defaults.Retry = settingsOf(b.defaults.retry)
		}},
		{"secrets", (*loader).readSecrets},
		{"persist-after", func(l *loader, e entry, b *fileBuild) { l.readPersistAfter(e, &b.f.Defaults.Persist) }},
		{"persist-span", func(l *loader, e entry, b *fileBuild) { l.readPersistSpan(e, &b.f.Defaults.Persist) }},
	}
	for _, k := range l.cat.Run {
		fs = append(fs, field[*fileBuild]{k.Name, func(l *loader, e entry, b *fileBuild) {
			if k.Name == rulesKey {
				if seq, ok := l.resolve(e.val).(*ast.SequenceNode); ok {
					l.readInlineRules(seq, b)
					return
				}
			}
			r := l.convert(k, e)
			if !r.bad && (k.Type == step.String || k.Type == step.List || k.Type == step.CSV) {
				for _, sc := range r.items {
					l.checkRefs(sc, &scope{noSteps: "defaults"}, k.Name)
				}
			}
			b.defaults.run = append(b.defaults.run, r)
			b.f.Defaults.Run = settingsOf(b.defaults.run)
		}})
	}
	return fs
}

// rulesKey is the run-wide key of team rules: a file's path, or in
// defaults: the rules themselves, inline.
const rulesKey = "rules"

// readInlineRules reads defaults.rules written as a list of rules; its
// errors are at the rules' own positions.
func (l *loader) readInlineRules(seq *ast.SequenceNode, b *fileBuild) {
	rs, err := teamrules.FromNode(l.path, seq)
	for _, e := range flatten(err) {
		var re *teamrules.Error
		if errors.As(e, &re) {
			l.errorf(Pos{re.Line, re.Col}, re.Fix, "rules: %s", re.Msg)
		} else {
			l.errorf(nodePos(seq), "", "rules: %v", e)
		}
	}
	if err == nil {
		b.f.Defaults.Rules = rs
	}
}

// readDefaults reads defaults:.
func (l *loader) readDefaults(e entry, b *fileBuild) {
	entries, ok := l.mapping(e.val, e.valPos, "defaults")
	if !ok {
		return
	}
	fs := l.defaultsFields()
	readFields(l, entries, fs, b, func(de entry) {
		if _, ok := findKey(l.cat.Retry, de.key); ok {
			l.errorf(de.keyPos, "write it under defaults.retry:", "%s is a retry key; in defaults it goes under retry:", de.key)
			return
		}
		l.unknownKey(de, "defaults", fieldNames(fs))
	})
}

// readSecrets reads defaults.secrets.
func (l *loader) readSecrets(e entry, b *fileBuild) {
	nodes, _, ok := l.items(e.val)
	if !ok {
		if !isNull(e.val) {
			l.errorf(e.valPos, "write secrets: [NAME, ...]", "secrets: want a list of variable names, not %s", what(e.val))
		}
		return
	}
	for _, n := range nodes {
		sc, ok := l.scalar(n)
		if !ok || sc.null || !expand.ValidName(sc.text) {
			l.errorf(nodePos(n), "name the variable: letters, digits and _, not starting with a digit", "secrets: %s is not a variable name", quoteScalar(sc, ok, n))
			continue
		}
		b.f.Defaults.Secrets = append(b.f.Defaults.Secrets, sc.text)
	}
}

// quoteScalar renders a scalar for a message, or what the node is.
func quoteScalar(sc scalar, ok bool, n ast.Node) string {
	if !ok || sc.null {
		return what(n)
	}
	return strconv.Quote(sc.text)
}
