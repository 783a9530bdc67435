// Package expand substitutes ${NAME} references in command-line values (an
// HTTP step's URL, header values and body) from the environment.
//
// The syntax is deliberately small: ${NAME} is replaced by the variable's
// value, $$ is a literal $, and any other $ stands for itself. NAME is a
// letter or underscore followed by letters, digits and underscores. An unset
// variable is an error naming it, never an empty string: a missing token
// that silently became "" would turn into a confusing 401.
//
// Func and Refs serve richer names (the job file's dotted
// ${steps.ID.outputs.NAME}): they find every ${...} and leave its name to
// the caller.
package expand

import (
	"fmt"
	"strings"

	"github.com/retrywise/retrywise/internal/environ"
)

// UnsetError reports a ${NAME} whose variable is not set.
type UnsetError struct {
	// Name is the variable's name.
	Name string
}

// Error returns "${NAME} is not set".
func (e *UnsetError) Error() string { return "${" + e.Name + "} is not set" }

// SyntaxError reports a malformed reference such as "${" without "}" or "${1X}".
type SyntaxError struct {
	// Offset is the byte offset of the "$" that starts the reference.
	Offset int
	// Msg says what is wrong.
	Msg string
}

// Error returns "at byte N: msg".
func (e *SyntaxError) Error() string { return fmt.Sprintf("at byte %d: %s", e.Offset, e.Msg) }

// Lookup returns a variable's value and whether it is set.
type Lookup func(name string) (string, bool)

// EnvLookup returns a Lookup over KEY=VALUE pairs; the last pair for a key wins,
// as in os/exec.
func EnvLookup(env []string) Lookup {
	m := environ.Map(env)
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// String expands s with lookup; it returns an *UnsetError or a *SyntaxError.
func String(s string, lookup Lookup) (string, error) {
	return Func(s, func(r Ref) (string, error) {
		if !ValidName(r.Name) {
			return "", &SyntaxError{Offset: r.Offset, Msg: fmt.Sprintf("%q is not a variable name (letters, digits and _, not starting with a digit)", r.Name)}
		}
		v, ok := lookup(r.Name)
		if !ok {
			return "", &UnsetError{Name: r.Name}
		}
		return v, nil
	})
}

// Ref is one ${...} reference found in a string.
type Ref struct {
	// Name is the text between "${" and "}", unchecked (it may be dotted,
	// such as steps.quota.outputs.count, or empty).
	Name string
	// Offset is the byte offset of the "$" that starts the reference.
	Offset int
	// End is the byte offset just after its "}".
	End int
}

// Func expands s, replacing each ${...} with what value returns for it and
// $$ with $; the first error value returns is returned as is, and a "${"
// without "}" is a *SyntaxError.
func Func(s string, value func(Ref) (string, error)) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			i++
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i += 2
		case '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return "", &SyntaxError{Offset: i, Msg: `"${" without a closing "}" (write $$ for a literal $)`}
			}
			r := Ref{Name: s[i+2 : i+2+end], Offset: i, End: i + 2 + end + 1}
			v, err := value(r)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
			i = r.End
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

// Refs lists the ${...} references of s in order, names unchecked ($$ is
// not one); a "${" without "}" is a *SyntaxError.
func Refs(s string) ([]Ref, error) {
	var refs []Ref
	_, err := Func(s, func(r Ref) (string, error) {
		refs = append(refs, r)
		return "", nil
	})
	return refs, err
}

// ValidName reports whether n is a variable name: a letter or underscore
// followed by letters, digits and underscores.
func ValidName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
