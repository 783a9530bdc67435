package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/retrywise/retrywise/internal/retry"
)

// fakeKind is a kind for tests: its keys, outputs and a Prepare that
// checks a few things and returns *SettingError.
type fakeKind struct {
	name     string
	keys     []Key
	outputs  []string
	fixed    bool
	expands  bool
	prepared *[]Settings // where Prepare records what it was given, or nil
}

func (k *fakeKind) Name() string              { return k.name }
func (k *fakeKind) Keys() []Key               { return k.keys }
func (k *fakeKind) Outputs() ([]string, bool) { return k.outputs, k.fixed }
func (k *fakeKind) Expands() bool             { return k.expands }
func (k *fakeKind) Prepare(_ context.Context, s Settings) (Prepared, error) {
	if k.prepared != nil {
		*k.prepared = append(*k.prepared, s)
	}
	if st, ok := s.Get("url"); ok && !strings.HasPrefix(st.Values[0], "http") && !strings.HasPrefix(st.Values[0], "${") {
		return nil, &SettingError{Key: "url", Msg: fmt.Sprintf("url %q is not an http(s) URL", st.Values[0]), Fix: "write https://..."}
	}
	if st, ok := s.Get("on-unknown"); ok {
		if _, err := retry.ParseOnUnknown(st.Values[0]); err != nil {
			return nil, &SettingError{Key: "on-unknown", Msg: "on-unknown must be stop or retry", Fix: "write stop or retry"}
		}
	}
	if st, ok := s.Get("method"); ok && st.Values[0] == "TRACE" {
		return nil, &SettingError{Key: "verb", Msg: "TRACE is not allowed", Fix: "use GET"}
	}
	_, run := s.Get("run")
	_, command := s.Get("command")
	if run && command {
		return nil, errors.New("give run or command, not both")
	}
	if k.name == "push" {
		if _, ok := s.Get("args"); !ok {
			return nil, &SettingError{Msg: "push needs args", Fix: "write args: [origin, HEAD:main]"}
		}
	}
	return nil, nil
}

// fakeCatalog is the tests' catalog: http (fixed outputs, expands), push
// (fixed outputs, expands) and exec (any outputs, does not expand).
func fakeCatalog(prepared *[]Settings) Catalog {
	return Catalog{
		Kinds: []Kind{
			&fakeKind{name: "http", expands: true, fixed: true, outputs: []string{"status", "found", "count"}, prepared: prepared, keys: []Key{
				{Name: "url", Type: KeyString, Positional: true, Usage: "the URL"},
				{Name: "method", Type: KeyString, Usage: "the method", Default: "GET"},
				{Name: "header", Type: KeyList, Usage: "a header"},
				{Name: "data-file", Type: KeyString, Usage: "the body's file"},
				{Name: "field", Type: KeyList, Usage: "an output field"},
				{Name: "timeout", Type: KeyDuration, Usage: "per attempt"},
				{Name: "fail-on", Type: KeyCSV, Usage: "statuses that fail"},
				{Name: "insecure", Type: KeyBool, Usage: "skip TLS checks"},
				{Name: "breaker-threshold", Type: KeyInt, Usage: "failures that open the breaker"},
			}},
			&fakeKind{name: "push", expands: true, fixed: true, outputs: []string{"sha"}, prepared: prepared, keys: []Key{
				{Name: "args", Type: KeyList, Positional: true, Usage: "remote and refspec"},
				{Name: "rebase-on-reject", Type: KeyInt, Usage: "rebases allowed"},
			}},
			&fakeKind{name: "exec", prepared: prepared, keys: []Key{
				{Name: "run", Type: KeyString, Positional: true, Usage: "a shell script"},
				{Name: "command", Type: KeyList, Positional: true, Usage: "a command and its arguments"},
			}},
		},
		Retry: []Key{
			{Name: "schedule", Type: KeyCSV, Usage: "waits before retries", Default: "10s,20s,60s"},
			{Name: "max-attempts", Type: KeyInt, Usage: "attempts bound"},
			{Name: "max-elapsed", Type: KeyDuration, Usage: "time bound", Default: "15m"},
			{Name: "retry-after-cap", Type: KeyDuration, Usage: "longest Retry-After honoured"},
			{Name: "on-unknown", Type: KeyString, Usage: "stop or retry"},
		},
		Run: []Key{
			{Name: "egress-status-url", Type: KeyString, Usage: "status page for egress"},
			{Name: "egress-canary", Type: KeyList, Usage: "canary hosts"},
			{Name: "breaker-threshold", Type: KeyInt, Usage: "failures that open the breaker"},
		},
	}
}
