package step

import (
	"errors"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/egress"
)

// StatusDerived is egress-status-url's default: PROXY/__agentproxy/status.
const StatusDerived = "derived"

// EgressConfig is the egress probe's settings: run-wide keys under a job
// file's defaults: (one prober per run).
type EgressConfig struct {
	// StatusURL is the proxy's status endpoint: StatusDerived, a URL, or off.
	StatusURL string
	// Canary is a HOST:PORT known to be allowed.
	Canary string
}

func (e *EgressConfig) fields(s *fieldSet) {
	bind(s, Field{Name: "egress-status-url", Place: Egress, Default: StatusDerived, Doc: "the egress proxy's status endpoint `URL`, fetched directly when a proxy answer is bare;\n" + StatusDerived + " means PROXY" + egress.StatusPath + ", off disables it"}, &e.StatusURL)
	bind(s, Field{Name: "egress-canary", Place: Egress, Doc: "a `HOST:PORT` known to be allowed: a bare 403 that it gets too means the proxy\nfails for everyone (transient), not a denial"}, &e.Canary)
}

// Options are the prober's options in env, with timeout (0 means egress.DefaultTimeout).
func (e *EgressConfig) Options(env []string, timeout time.Duration) egress.Options {
	status := e.StatusURL
	if strings.EqualFold(strings.TrimSpace(status), StatusDerived) {
		status = ""
	}
	return egress.Options{Env: env, Timeout: timeout, StatusURL: status, Canary: strings.TrimSpace(e.Canary)}
}

// EgressFields returns the egress fields bound to e, with their defaults
// applied: a job file's run-wide defaults.
func EgressFields(e *EgressConfig) []*Field {
	s := &fieldSet{given: &givenSet{}}
	e.fields(s)
	applyDefaults(s.fields)
	return s.fields
}

// Prober builds the prober of e in env; its errors name the field.
func (e *EgressConfig) Prober(env []string, timeout time.Duration) (*egress.Prober, error) {
	p, err := egress.New(e.Options(env, timeout))
	var oe *egress.OptionError
	if errors.As(err, &oe) {
		return nil, &FieldError{Field: "egress-" + oe.Option, Msg: err.Error()}
	}
	return p, err
}
