package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/retrywise/retrywise/internal/retry"
	"github.com/retrywise/retrywise/internal/step"
)

// fakeKind is a kind for tests: its keys, outputs and a Prepare that
// checks a few things and returns *step.FieldError.
type fakeKind struct {
	name     string
	keys     []*step.Field
	outputs  []string
	fixed    bool
	expands  bool
	prepared *[]Settings // where Prepare records what it was given, or nil
}

func (k *fakeKind) Name() string        { return k.name }
func (k *fakeKind) Keys() []*step.Field { return k.keys }
func (k *fakeKind) Outputs(s Settings) ([]string, bool) {
	if k.fixed {
		names := append([]string(nil), k.outputs...)
		if st, ok := s.Get("field"); ok {
			for _, v := range st.Values {
				if n, _, ok := strings.Cut(v, "="); ok {
					names = append(names, n)
				}
			}
		}
		return names, true
	}
	st, ok := s.Get("outputs")
	if ok && st.Values == nil {
		return []string{}, true
	}
	return st.Values, ok
}
func (k *fakeKind) Expands() bool { return k.expands }
func (k *fakeKind) Prepare(_ context.Context, s Settings) (Prepared, error) {
	if k.prepared != nil {
		*k.prepared = append(*k.prepared, s)
	}
	if st, ok := s.Get("url"); ok && !strings.HasPrefix(st.Values[0], "http") && !strings.HasPrefix(st.Values[0], "${") {
		return nil, &step.FieldError{Field: "url", Msg: fmt.Sprintf("url %q is not an http(s) URL", st.Values[0]), Fix: "write https://..."}
	}
	if st, ok := s.Get("on-unknown"); ok {
		if _, err := retry.ParseOnUnknown(st.Values[0]); err != nil {
			return nil, &step.FieldError{Field: "on-unknown", Msg: "on-unknown must be stop or retry", Fix: "write stop or retry"}
		}
	}
	if st, ok := s.Get("method"); ok && st.Values[0] == "TRACE" {
		return nil, &step.FieldError{Field: "verb", Msg: "TRACE is not allowed", Fix: "use GET"}
	}
	_, run := s.Get("run")
	_, command := s.Get("command")
	if run && command {
		return nil, errors.New("give run or command, not both")
	}
	if k.name == "push" {
		if _, ok := s.Get("args"); !ok {
			return nil, &step.FieldError{Msg: "push needs args", Fix: "write args: [origin, HEAD:main]"}
		}
	}
	return nil, nil
}

// fakeCatalog is the tests' catalog: http (fixed outputs and each field's
// NAME, expands), push (fixed outputs, expands) and exec (its outputs:
// list, or any without one; does not expand).
func fakeCatalog(prepared *[]Settings) Catalog {
	return Catalog{
		Kinds: []Kind{
			&fakeKind{name: "http", expands: true, fixed: true, outputs: []string{"status", "found", "count"}, prepared: prepared, keys: []*step.Field{
				{Name: "url", Type: step.String, Positional: true, Doc: "the URL"},
				{Name: "method", Type: step.String, Doc: "the method", Default: "GET"},
				{Name: "header", Type: step.List, Doc: "a header"},
				{Name: "data-file", Type: step.String, Doc: "the body's file"},
				{Name: "field", Type: step.List, Doc: "an output field"},
				{Name: "timeout", Type: step.Duration, Doc: "per attempt"},
				{Name: "fail-on", Type: step.CSV, Doc: "statuses that fail"},
				{Name: "insecure", Type: step.Bool, Doc: "skip TLS checks"},
				{Name: "breaker-threshold", Type: step.Int, Doc: "failures that open the breaker"},
			}},
			&fakeKind{name: "push", expands: true, fixed: true, outputs: []string{"sha"}, prepared: prepared, keys: []*step.Field{
				{Name: "args", Type: step.List, Positional: true, Doc: "remote and refspec"},
				{Name: "rebase-on-reject", Type: step.Int, Doc: "rebases allowed"},
			}},
			&fakeKind{name: "exec", prepared: prepared, keys: []*step.Field{
				{Name: "run", Type: step.String, Positional: true, Doc: "a shell script"},
				{Name: "command", Type: step.List, Positional: true, Doc: "a command and its arguments"},
				{Name: "shell", Type: step.String, Positional: true, Doc: "the shell of run"},
				{Name: "outputs", Type: step.CSV, Doc: "the outputs the script writes"},
			}},
		},
		Retry: []*step.Field{
			{Name: "schedule", Type: step.CSV, Doc: "waits before retries", Default: "10s,20s,60s"},
			{Name: "max-attempts", Type: step.Int, Doc: "attempts bound"},
			{Name: "max-elapsed", Type: step.Duration, Doc: "time bound", Default: "15m"},
			{Name: "retry-after-cap", Type: step.Duration, Doc: "longest Retry-After honoured"},
			{Name: "on-unknown", Type: step.String, Doc: "stop or retry"},
		},
		Run: []*step.Field{
			{Name: "egress-status-url", Type: step.String, Doc: "status page for egress"},
			{Name: "egress-canary", Type: step.List, Doc: "canary hosts"},
			{Name: "breaker-threshold", Type: step.Int, Doc: "failures that open the breaker"},
		},
	}
}
