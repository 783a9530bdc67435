package step

import (
	"errors"
	"flag"
	"sort"
)

// Kinds are the step kinds, in the order the docs list them.
func Kinds() []*Kind { return []*Kind{ExecKind, PushKind, HTTPKind, ProbeKind, QuotaKind} }

// KindNamed returns the kind named name, or nil.
func KindNamed(name string) *Kind {
	for _, k := range Kinds() {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// KeyFields are the fields a job step's kind mapping takes: the kind's own
// fields and its positional ones (not the retry, egress or command-only ones).
func (k *Kind) KeyFields() []*Field {
	var out []*Field
	for _, f := range k.Fields() {
		if f.Place == Own {
			out = append(out, f)
		}
	}
	return out
}

// RetryFields are the keys of a retry: block, each once (the schedule
// without a default: each kind has its own), sorted by name.
func RetryFields() []*Field {
	return collect(func(f *Field) bool { return f.Place == Retry }, func(f *Field) {
		if f.Name == "schedule" || f.Name == "jitter" {
			f.Default = "" // each kind has its own
		}
	})
}

// RunFields are the run-wide keys of a job file's defaults: the egress
// settings and the run-wide fields of the kinds (breaker-threshold), each
// once, sorted by name.
func RunFields() []*Field {
	return collect(func(f *Field) bool { return f.Place == Egress || f.RunWide }, nil)
}

// collect returns the fields of every kind that keep says, each name once,
// sorted, after adjust.
func collect(keep func(*Field) bool, adjust func(*Field)) []*Field {
	seen := map[string]bool{}
	var out []*Field
	for _, k := range Kinds() {
		for _, f := range k.Fields() {
			if !keep(f) || seen[f.Name] {
				continue
			}
			seen[f.Name] = true
			if adjust != nil {
				adjust(f)
			}
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Flags registers every field of fields that is not positional on fs, as
// the command's flags (a Short alias as a flag of its own).
func Flags(fs *flag.FlagSet, fields []*Field) {
	for _, f := range fields {
		if f.Positional {
			continue
		}
		v := &flagValue{f: f, text: f.Text()}
		if f.Type == CSV || f.Type == List {
			v.text = f.Default // as written: 10s,20s,60s
		}
		if f.Short != "" {
			fs.Var(v, f.Short, f.ShortDoc)
		}
		fs.Var(v, f.Name, f.Doc)
	}
}

// flagValue is a field as a flag.Value.
type flagValue struct {
	f    *Field
	text string
}

func (v *flagValue) String() string {
	if v == nil {
		return ""
	}
	return v.text
}

func (v *flagValue) Set(s string) error {
	if err := v.f.Set(s); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return errors.New(fe.Msg) // the flag package names the flag and the value
		}
		return err
	}
	v.text = v.f.Text()
	return nil
}

// IsBoolFlag lets a bool flag stand alone (--absent-ok).
func (v *flagValue) IsBoolFlag() bool { return v.f.Type == Bool }

// ValueName names the flag's value in --help when its doc names none, as
// the flag package names its own types: string, int, float, duration;
// "value" for a list.
func (v *flagValue) ValueName() string {
	switch v.f.Type {
	case String:
		return "string"
	case Int:
		return "int"
	case Float:
		return "float"
	case Duration:
		return "duration"
	}
	return "value"
}
