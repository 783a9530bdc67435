package httpstep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
)

// Field is one --field NAME=PATH: a value to extract from a JSON response.
//
// PATH is a small syntax read left to right from the document's root:
//
//	.           the whole document
//	.name       the member "name" of an object (any characters but . [ ] and blanks)
//	["a.b"]     the member "a.b", for names with other characters (a JSON string)
//	[0]         the first element of an array; [-1] is the last
//
// so `.items[0].id`, `.data["full.name"]` and `.[2]` are paths. A path that
// does not lead to a value means the value is not there (absent).
type Field struct {
	// Name is the NAME printed as NAME=value.
	Name string
	// Path is the parsed PATH.
	Path Path
}

// Path is a parsed field path: a list of member names (string) and indices (int).
type Path struct {
	src   string
	steps []any
}

// String returns the path as written.
func (p Path) String() string { return p.src }

// ParseField parses "NAME=PATH"; NAME is letters, digits, _ and -.
func ParseField(s string) (Field, error) {
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return Field{}, fmt.Errorf("invalid --field %q: want NAME=PATH, e.g. id=.items[0].id", s)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return Field{}, fmt.Errorf("invalid --field %q: NAME may hold letters, digits, _ and -", s)
		}
	}
	p, err := ParsePath(path)
	if err != nil {
		return Field{}, fmt.Errorf("invalid --field %q: %w", s, err)
	}
	return Field{Name: name, Path: p}, nil
}

// ParsePath parses a field path such as ".items[0].id".
func ParsePath(s string) (Path, error) {
	p := Path{src: s}
	if s == "" || (s[0] != '.' && s[0] != '[') {
		return p, fmt.Errorf("path %q must start with . or [", s)
	}
	if s == "." {
		return p, nil
	}
	for i := 0; i < len(s); {
		switch s[i] {
		case '.':
			j := i + 1
			for j < len(s) && !strings.ContainsRune(".[] \t", rune(s[j])) {
				j++
			}
			if j == i+1 {
				if j < len(s) && s[j] == '[' { // ".[0]" is the same as "[0]"
					i = j
					continue
				}
				return p, fmt.Errorf("path %q: empty member name at byte %d", s, i)
			}
			p.steps = append(p.steps, s[i+1:j])
			i = j
		case '[':
			end := strings.IndexByte(s[i:], ']')
			if i+1 < len(s) && s[i+1] == '"' {
				// a JSON string may contain "]": find the closing quote first
				var name string
				dec := json.NewDecoder(strings.NewReader(s[i+1:]))
				if err := dec.Decode(&name); err != nil {
					return p, fmt.Errorf("path %q: bad quoted name at byte %d", s, i)
				}
				k := i + 1 + int(dec.InputOffset())
				if k >= len(s) || s[k] != ']' {
					return p, fmt.Errorf("path %q: missing ] after the quoted name at byte %d", s, i)
				}
				p.steps = append(p.steps, name)
				i = k + 1
				continue
			}
			if end < 0 {
				return p, fmt.Errorf("path %q: [ without ] at byte %d", s, i)
			}
			n, err := strconv.Atoi(s[i+1 : i+end])
			if err != nil {
				return p, fmt.Errorf("path %q: %q is not an index (write [\"name\"] for a member)", s, s[i+1:i+end])
			}
			p.steps = append(p.steps, n)
			i += end + 1
		default:
			return p, fmt.Errorf("path %q: unexpected %q at byte %d", s, s[i], i)
		}
	}
	return p, nil
}

// Lookup follows the path in a decoded JSON document (as decoded with
// UseNumber); ok is false when the path leads nowhere.
func (p Path) Lookup(doc any) (v any, ok bool) {
	v = doc
	for _, st := range p.steps {
		switch k := st.(type) {
		case string:
			m, isObj := v.(map[string]any)
			if !isObj {
				return nil, false
			}
			if v, ok = m[k]; !ok {
				return nil, false
			}
		case int:
			a, isArr := v.([]any)
			if !isArr {
				return nil, false
			}
			if k < 0 {
				k += len(a)
			}
			if k < 0 || k >= len(a) {
				return nil, false
			}
			v = a[k]
		}
	}
	return v, true
}

// decodeJSON decodes a whole JSON document, keeping numbers exact.
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
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// extract fills Result.Fields; a path that leads nowhere makes the answer absent.
func (s *Step) extract(kept *capture) *failure.Failure {
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
		v, ok := fd.Path.Lookup(doc)
		s.result.Fields[fd.Name] = v
		if !ok {
			missing = append(missing, fd.Name+"="+fd.Path.String())
		}
	}
	if len(missing) > 0 {
		s.result.Found = false
		return failure.FieldsMissing(missing)
	}
	return nil
}
