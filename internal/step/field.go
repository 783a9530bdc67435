package step

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/retry"
)

// Type is how a field's value is written: on a command line, in a job
// file, in an action input.
type Type int

// The field types.
const (
	// String is one string.
	String Type = iota
	// Bool is true or false.
	Bool
	// Int is a whole number.
	Int
	// Float is a number such as 0.2.
	Float
	// Duration is a Go duration such as 10s or 1m30s.
	Duration
	// List is repeatable: a flag given several times, a YAML list (a scalar
	// is a list of one), an input of one item per line.
	List
	// CSV is a list written as one comma-separated string (durations, exit
	// codes, statuses) or, in a job file, as a YAML list of items.
	CSV
)

// String names the type for messages and the schema.
func (t Type) String() string {
	switch t {
	case Bool:
		return "bool"
	case Int:
		return "int"
	case Float:
		return "number"
	case Duration:
		return "duration"
	case List:
		return "list"
	case CSV:
		return "comma-list"
	}
	return "string"
}

// Want describes the values a type takes, for messages.
func (t Type) Want() string {
	switch t {
	case Bool:
		return "true or false"
	case Int:
		return "a whole number"
	case Float:
		return "a number"
	case Duration:
		return "a duration such as 10s or 1m30s"
	case List:
		return "a list of strings"
	case CSV:
		return "a comma-separated string or a list"
	}
	return "a string"
}

// Place says where a field lives outside the command line.
type Place int

// The places.
const (
	// Own is a kind's own key: a job step's kind mapping, an action input.
	Own Place = iota
	// Retry is a retry key: retry: in a job file (defaults.retry or the step's).
	Retry
	// Egress is a run-wide egress key: defaults: in a job file (one prober per run).
	Egress
	// Command is a command-line flag only (the step command's own report
	// and masks; probe's --json).
	Command
)

// Field is one setting of a step kind: its name (the long flag without
// dashes, the job key, the action input), type, default, one-line doc and
// where it lives, bound to the config field it sets.
type Field struct {
	// Name is the flag's long name, the job key and the action input.
	Name string
	// Short is a one-letter alias of the flag (-X, -H), with its own
	// usage text ShortDoc; "" for none.
	Short, ShortDoc string
	// Type is how the value is written, derived from the variable the
	// field is bound to (bind, bindList, bindCSV), never declared.
	Type Type
	// Default is the default as text; "" means the zero value.
	Default string
	// Doc is the help text; a `NAME` in backquotes names the flag's value.
	Doc string
	// Place says where the field lives in a job file and the action.
	Place Place
	// RunWide fields may also be set for the whole run under a job file's
	// defaults: (breaker-threshold).
	RunWide bool
	// Positional fields are the command's positional arguments (url, args,
	// targets, command, run, shell).
	Positional bool
	// Min and Max bound an Int's, a Float's or a Duration's value, as text
	// ("0", "1", "5m"); "" means unbounded. Prepare checks them (CheckBounds)
	// and the job file's schema states them.
	Min, Max string
	// MinMsg and MaxMsg are what a value below Min or above Max is told;
	// empty means "must not be negative" (Min 0) or "must be at least MIN",
	// and "must be at most MAX". BoundFix, when set, says how to fix either.
	MinMsg, MaxMsg, BoundFix string
	// Secret fields hold credentials: their values are masked and never
	// quoted in an error.
	Secret bool
	// NoInput is true for a field the action does not take as an input
	// (it chooses the value itself: stdout modes, the report).
	NoInput bool

	ptr  any
	mark func(name string)
}

// FieldError is a field's invalid value: the surfaces name the field their
// own way (--name, input name, the key at its position).
type FieldError struct {
	// Field is the field at fault; "" means the step as a whole.
	Field string
	// Value is the value as written; "" when not worth quoting (or secret).
	Value string
	// Msg says what is wrong, in one line, without naming the field.
	Msg string
	// Fix says in one line how to fix it; may be empty.
	Fix string
	// Plain is true when Msg is a whole sentence that needs no name (a
	// positional argument's: "no target given: ...").
	Plain bool
}

// Error names the field as a flag: "invalid --name VALUE: msg".
func (e *FieldError) Error() string { return e.Render(FlagName) }

// Render names the field with ref.
func (e *FieldError) Render(ref func(name string) string) string {
	switch {
	case e.Field == "" || e.Plain:
		return e.Msg
	case e.Value != "":
		return fmt.Sprintf("invalid %s %s: %s", ref(e.Field), e.Value, e.Msg)
	}
	return fmt.Sprintf("invalid %s: %s", ref(e.Field), e.Msg)
}

// FlagName names a field as the command line does: --name, or -X for a
// one-letter alias.
func FlagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// InputName names a field as the action does: input name.
func InputName(name string) string { return "input " + name }

// FieldErrors returns the *FieldError values joined in err (errors.Join);
// an error that is not one becomes a FieldError of the step as a whole.
func FieldErrors(err error) []*FieldError {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*FieldError
		for _, e := range j.Unwrap() {
			out = append(out, FieldErrors(e)...)
		}
		return out
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return []*FieldError{fe}
	}
	return []*FieldError{{Msg: err.Error()}}
}

// invalid returns a FieldError of f's value v; a secret's value is not quoted.
func (f *Field) invalid(v, format string, args ...any) *FieldError {
	e := &FieldError{Field: f.Name, Msg: fmt.Sprintf(format, args...)}
	if !f.Secret {
		e.Value = strconv.Quote(v)
	}
	return e
}

// Set sets one value as a flag does: a List field gains an item, a CSV
// field is replaced by the value's comma-separated items, any other field
// is replaced.
func (f *Field) Set(v string) error {
	if err := f.set(v); err != nil {
		return err
	}
	if f.mark != nil {
		f.mark(f.Name)
	}
	return nil
}

// SetValues sets the values a job file or an input gives: each item of a
// List or CSV field (an item of a CSV field may itself hold commas), or
// exactly one value for any other field.
func (f *Field) SetValues(vs []string) error {
	switch f.Type {
	case List:
		for _, v := range vs {
			if err := f.Set(v); err != nil {
				return err
			}
		}
		return nil
	case CSV:
		// Each item is a value (a YAML list stays a list); an item may
		// itself hold commas, as the flag's syntax does.
		switch p := f.ptr.(type) {
		case *[]time.Duration:
			var all []time.Duration
			for _, v := range vs {
				ds, err := retry.ParseSchedule(v)
				if err != nil {
					return &FieldError{Field: f.Name, Msg: err.Error()}
				}
				all = append(all, ds...)
			}
			*p = all
		case *[]string:
			var all []string
			for _, v := range vs {
				all = append(all, splitCSV(v)...)
			}
			*p = all
		}
		if f.mark != nil {
			f.mark(f.Name)
		}
		return nil
	}
	if len(vs) != 1 {
		return &FieldError{Field: f.Name, Msg: fmt.Sprintf("want one value, got %d", len(vs))}
	}
	return f.Set(vs[0])
}

func (f *Field) set(v string) error {
	switch p := f.ptr.(type) {
	case *string:
		*p = v
	case *bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return f.invalid(v, "want true or false")
		}
		*p = b
	case *int:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64)
		if err != nil || int64(int(n)) != n {
			return f.invalid(v, "want a whole number")
		}
		*p = int(n)
	case *int64:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64)
		if err != nil {
			return f.invalid(v, "want a whole number")
		}
		*p = n
	case *float64:
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return f.invalid(v, "want a number such as 0.2")
		}
		*p = x
	case *time.Duration:
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return f.invalid(v, "want a duration such as 10s, 1m30s or 2h")
		}
		*p = d
	case *[]time.Duration:
		ds, err := retry.ParseSchedule(v)
		if err != nil {
			return &FieldError{Field: f.Name, Msg: err.Error()}
		}
		*p = ds
	case *[]string:
		if f.Type == CSV {
			*p = splitCSV(v)
		} else {
			*p = append(*p, v)
		}
	default:
		panic(fmt.Sprintf("step: field %s is bound to %T", f.Name, f.ptr))
	}
	return nil
}

// splitCSV splits a comma-separated value into its trimmed, non-empty items.
func splitCSV(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Text renders the field's current value as it is written (the flag's
// default in --help, a plan's settings).
func (f *Field) Text() string {
	switch p := f.ptr.(type) {
	case *string:
		return *p
	case *bool:
		return strconv.FormatBool(*p)
	case *int:
		return strconv.Itoa(*p)
	case *int64:
		return strconv.FormatInt(*p, 10)
	case *float64:
		return strconv.FormatFloat(*p, 'g', -1, 64)
	case *time.Duration:
		return p.String()
	case *[]time.Duration:
		s := make([]string, len(*p))
		for i, d := range *p {
			s[i] = d.String()
		}
		return strings.Join(s, ",")
	case *[]string:
		if f.Type == CSV {
			return strings.Join(*p, ",")
		}
		return strings.Join(*p, ", ")
	}
	return ""
}

// Values are the field's current values, one per item of a list.
func (f *Field) Values() []string {
	if p, ok := f.ptr.(*[]string); ok && f.Type == List {
		return append([]string(nil), *p...)
	}
	return []string{f.Text()}
}

// fieldSet builds a config's field table: add binds each field to its
// config field and to the config's record of what was given. The fields
// live in one array (a table is built for every config a job file sets).
type fieldSet struct {
	store  [maxFields]Field
	fields []*Field
	given  *givenSet
}

// maxFields is how many fields of a table live in its array (the
// largest, exec's, has 28); more are allocated one by one.
const maxFields = 32

// Scalar are the Go types a field may be bound to by bind: each has one
// field type (a []time.Duration is a CSV of durations).
type Scalar interface {
	string | bool | int | int64 | float64 | time.Duration | []time.Duration
}

// bind adds f bound to the variable at p; f's Type is derived from p's, so
// a field cannot be declared with a type its variable does not have.
func bind[T Scalar](s *fieldSet, f Field, p *T) {
	switch any(p).(type) {
	case *string:
		f.Type = String
	case *bool:
		f.Type = Bool
	case *int, *int64:
		f.Type = Int
	case *float64:
		f.Type = Float
	case *time.Duration:
		f.Type = Duration
	case *[]time.Duration:
		f.Type = CSV
	}
	s.add(f, p)
}

// bindList adds f, a repeatable field (List), bound to the list at p.
func bindList(s *fieldSet, f Field, p *[]string) {
	f.Type = List
	s.add(f, p)
}

// bindCSV adds f, a comma-separated list (CSV), bound to the list at p.
func bindCSV(s *fieldSet, f Field, p *[]string) {
	f.Type = CSV
	s.add(f, p)
}

// Table is a field table built outside this package (internal/options,
// the commands that are not steps): Bind, BindList and BindCSV add its
// fields, each bound to a variable that gives its type.
type Table struct{ s fieldSet }

// NewTable returns an empty table.
func NewTable() *Table {
	t := &Table{}
	t.s.given = &givenSet{}
	t.s.fields = make([]*Field, 0, maxFields)
	return t
}

// Fields are the table's fields in the order they were added.
func (t *Table) Fields() []*Field { return t.s.fields }

// Bind adds f bound to the variable at p, its Type derived from p's.
func Bind[T Scalar](t *Table, f Field, p *T) { bind(&t.s, f, p) }

// BindList adds f, a repeatable field, bound to the list at p.
func BindList(t *Table, f Field, p *[]string) { bindList(&t.s, f, p) }

// SetDefaults sets every field to its default, as a step kind's New does.
func SetDefaults(fields []*Field) { applyDefaults(fields) }

// add adds f, its Type already derived from ptr (bind, bindList, bindCSV).
func (s *fieldSet) add(f Field, ptr any) {
	f.ptr, f.mark = ptr, s.given.mark
	if i := len(s.fields); i < maxFields {
		s.store[i] = f
		s.fields = append(s.fields, &s.store[i])
		return
	}
	s.fields = append(s.fields, &f) // a table that outgrew the array
}

// givenSet records which fields were set explicitly.
type givenSet struct{ names map[string]bool }

func (g *givenSet) mark(name string) {
	if g.names == nil {
		g.names = map[string]bool{}
	}
	g.names[name] = true
}

// Given reports whether the field name was set explicitly (a flag, a key,
// an input), rather than left at its default.
func (g *givenSet) Given(name string) bool { return g.names[name] }

// applyDefaults sets every field to its default; a default that does not
// parse is a programming error.
func applyDefaults(fields []*Field) {
	for _, f := range fields {
		if f.Default == "" {
			continue
		}
		if err := f.set(f.Default); err != nil {
			panic(fmt.Sprintf("step: default of %s: %v", f.Name, err))
		}
	}
}

// CheckBounds returns a *FieldError for each field whose value lies outside
// its Min and Max (a number that is not one, NaN, is outside any bounds).
// A bound that does not parse as the field's type is a programming error.
func CheckBounds(fields []*Field) []error {
	var errs []error
	for _, f := range fields {
		if f.Min == "" && f.Max == "" {
			continue
		}
		below, above := f.outside()
		switch {
		case below:
			msg := f.MinMsg
			if msg == "" && f.Min == "0" {
				msg = "must not be negative"
			} else if msg == "" {
				msg = "must be at least " + f.Min
			}
			errs = append(errs, &FieldError{Field: f.Name, Value: f.boundValue(), Msg: msg, Fix: f.BoundFix})
		case above:
			msg := f.MaxMsg
			if msg == "" {
				msg = "must be at most " + f.Max
			}
			errs = append(errs, &FieldError{Field: f.Name, Value: f.boundValue(), Msg: msg, Fix: f.BoundFix})
		}
	}
	return errs
}

// boundValue is the field's value as an out-of-bounds error quotes it.
func (f *Field) boundValue() string {
	if f.Secret {
		return ""
	}
	return f.Text()
}

// outside reports whether the field's value is below its Min or above its
// Max.
func (f *Field) outside() (below, above bool) {
	cmp := func(bound string, parse func(string) (float64, error), v float64) (lt, gt bool) {
		if bound == "" {
			return false, false
		}
		b, err := parse(bound)
		if err != nil {
			panic(fmt.Sprintf("step: bound %q of %s: %v", bound, f.Name, err))
		}
		return !(v >= b), !(v <= b) // NaN is outside either way
	}
	var v float64
	parse := func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	switch p := f.ptr.(type) {
	case *int:
		v = float64(*p)
	case *int64:
		v = float64(*p)
	case *float64:
		v = *p
	case *time.Duration:
		v = float64(*p)
		parse = func(s string) (float64, error) {
			d, err := time.ParseDuration(s)
			return float64(d), err
		}
	default:
		panic(fmt.Sprintf("step: field %s of %T has bounds", f.Name, f.ptr))
	}
	below, _ = cmp(f.Min, parse, v)
	_, above = cmp(f.Max, parse, v)
	return below, above
}

// Lookup returns the field named name among fields, or nil.
func Lookup(fields []*Field, name string) *Field {
	for _, f := range fields {
		if f.Name == name || (f.Short != "" && f.Short == name) {
			return f
		}
	}
	return nil
}
