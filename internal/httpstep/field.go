package httpstep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/retrywise/retrywise/internal/failure"
)

// Field is one --field NAME=EXPR: a jq expression (gojq's dialect, as
// `gh --jq` takes) run on a JSON response, such as `.items[0].id`,
// `.data["full.name"]`, `[.items[].id]`, `.items | length` or `.tag // "none"`.
//
// The expression must yield at most one value. A null or no value at all is
// the same "not there" (absent); a jq error, or several values, is
// structural. `env` and `$ENV` are an empty object: an expression never
// reads the process's environment.
type Field struct {
	// Name is the NAME printed as NAME=value.
	Name string
	// Expr is the jq expression as written.
	Expr string
	code *gojq.Code
}

// String returns the field as written, NAME=EXPR.
func (f Field) String() string { return f.Name + "=" + f.Expr }

// ParseField parses "NAME=EXPR" and compiles EXPR; NAME is letters, digits, _ and -.
func ParseField(s string) (Field, error) {
	name, expr, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return Field{}, fmt.Errorf("invalid --field %q: want NAME=EXPR, e.g. id=.items[0].id", s)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return Field{}, fmt.Errorf("invalid --field %q: NAME may hold letters, digits, _ and -", s)
		}
	}
	if strings.TrimSpace(expr) == "" {
		return Field{}, fmt.Errorf("invalid --field %q: EXPR is empty (. is the whole document)", s)
	}
	q, err := gojq.Parse(expr)
	if err != nil {
		return Field{}, fmt.Errorf("invalid --field %q: jq: %v", s, err)
	}
	// No environment loader: env and $ENV are {}, never the process's secrets.
	// No module loader and no input iterator: import, include, input and
	// inputs do not compile.
	code, err := gojq.Compile(q, gojq.WithEnvironLoader(func() []string { return nil }))
	if err != nil {
		return Field{}, fmt.Errorf("invalid --field %q: jq: %v", s, err)
	}
	return Field{Name: name, Expr: expr, code: code}, nil
}

// errSeveral is eval's error for an expression that yields more than one value.
var errSeveral = errors.New("more than one result")

// eval runs the expression on doc (decoded by decodeJSON) until ctx ends; v
// is nil when it yields null or nothing, err is the jq error or errSeveral.
func (f Field) eval(ctx context.Context, doc any) (v any, err error) {
	it := f.code.RunWithContext(ctx, doc)
	n := 0
	for {
		x, ok := it.Next()
		if !ok {
			return v, nil
		}
		if e, isErr := x.(error); isErr {
			var halt *gojq.HaltError
			if errors.As(e, &halt) && halt.Value() == nil {
				return v, nil // halt: the values so far are all there is
			}
			return nil, e
		}
		if n++; n > 1 {
			return nil, errSeveral
		}
		v = jsonSafe(x)
	}
}

// jsonSafe returns v with the numbers JSON cannot hold replaced as jq
// prints them (NaN as null, ±Inf as ±MaxFloat64), so that the value always
// marshals; v itself when it holds none, which is nearly always.
func jsonSafe(v any) any {
	if !nonFinite(v) {
		return v
	}
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) {
			return nil
		}
		return math.Copysign(math.MaxFloat64, x)
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = jsonSafe(e)
		}
		return c
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = jsonSafe(e)
		}
		return c
	}
	return v
}

// nonFinite reports whether v holds a NaN or an infinity.
func nonFinite(v any) bool {
	switch x := v.(type) {
	case float64:
		return math.IsNaN(x) || math.IsInf(x, 0)
	case []any:
		for _, e := range x {
			if nonFinite(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if nonFinite(e) {
				return true
			}
		}
	}
	return false
}

// decodeJSON decodes a whole JSON document, keeping numbers exact
// (json.Number, which gojq reads as it is and computes with exactly).
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

// FormatValue renders a field value for a NAME=value line: strings as they
// are (JSON-quoted when they hold a line break), null as null, numbers and
// booleans as in JSON, objects and arrays as compact JSON.
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if strings.ContainsAny(x, "\r\n") {
			b, _ := json.Marshal(x)
			return string(b)
		}
		return x
	case json.Number:
		return x.String()
	case *big.Int:
		return x.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// extract fills Result.Fields; a field that yields null or nothing makes
// the answer absent, a jq error or several values is structural.
func (s *Step) extract(ctx context.Context, kept *capture) *failure.Failure {
	if kept.over {
		return failure.FieldBodyTooLarge(MaxFieldBody)
	}
	doc, err := decodeJSON(kept.b)
	if err != nil {
		return failure.FieldNotJSON(err, kept.b)
	}
	s.result.Fields = make(map[string]any, len(s.opts.Fields))
	var missing []string
	for _, fd := range s.opts.Fields {
		v, err := fd.eval(ctx, doc)
		s.result.Fields[fd.Name] = v
		switch {
		case err != nil && ctx.Err() != nil:
			return failure.FromError(ctx.Err())
		case errors.Is(err, errSeveral):
			return failure.FieldSeveralResults(fd.String())
		case err != nil:
			return failure.FieldExprFailed(fd.String(), err)
		case v == nil:
			missing = append(missing, fd.String())
		}
	}
	if len(missing) > 0 {
		s.result.Found = false
		return failure.FieldsMissing(missing)
	}
	return nil
}
