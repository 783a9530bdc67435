package jobs

import "github.com/retrywise/retrywise/internal/step"

// Catalog is what a job file may name, supplied by the CLI from its
// commands and flag definitions: the kinds of step, the keys of a retry:
// block and the run-wide keys allowed under defaults.
type Catalog struct {
	// Kinds are the kinds of step, each a step key.
	Kinds []Kind
	// Retry are the keys of a retry: block (schedule, max-attempts,
	// max-elapsed, retry-after-cap, on-unknown).
	Retry []*step.Field
	// Run are the run-wide keys allowed under defaults (egress-status-url,
	// egress-canary, breaker-threshold).
	Run []*step.Field
}

// The retry keys the loader checks for an unbounded policy; a catalog
// without them is not checked.
const (
	retryMaxElapsed  = "max-elapsed"
	retryMaxAttempts = "max-attempts"
)

// Kind returns the kind named name, or nil.
func (c Catalog) Kind(name string) Kind {
	for _, k := range c.Kinds {
		if k.Name() == name {
			return k
		}
	}
	return nil
}

// KindNames are the kinds' names in catalog order.
func (c Catalog) KindNames() []string {
	names := make([]string, len(c.Kinds))
	for i, k := range c.Kinds {
		names[i] = k.Name()
	}
	return names
}

// findKey returns the key named name among keys.
func findKey(keys []*step.Field, name string) (*step.Field, bool) {
	for _, k := range keys {
		if k.Name == name {
			return k, true
		}
	}
	return nil, false
}

// keyNames are the keys' names in order.
func keyNames(keys []*step.Field) []string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	return names
}
