// Package environ reads KEY=VALUE environment lists such as os.Environ().
package environ

import (
	"slices"
	"strings"
)

// Map returns the variables of env by name; the last pair for a name wins,
// as in os/exec, and entries without "=" are skipped. Names are compared
// exactly, case included.
func Map(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// Lookup returns the last value of name in env and whether it is set, as
// Map(env)[name] would, without building the map.
func Lookup(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// Without returns a copy of env with every pair of the given names left
// out; env itself is not changed.
func Without(env []string, names ...string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, k) {
			out = append(out, kv)
		}
	}
	return out
}
