package cli

import (
	"flag"
	"strings"

	"github.com/retrywise/retrywise/internal/egress"
)

// statusDerived is --egress-status-url's default: PROXY/__agentproxy/status.
const statusDerived = "derived"

// egressFlags are the flags of the egress probe, shared by every command that
// may go through a proxy.
type egressFlags struct {
	statusURL string
	canary    string
}

// addEgressFlags registers --egress-status-url and --egress-canary on fs.
func addEgressFlags(fs *flag.FlagSet) *egressFlags {
	e := &egressFlags{}
	fs.StringVar(&e.statusURL, "egress-status-url", statusDerived, "the egress proxy's status endpoint `URL`, fetched directly when a proxy answer is bare;\n"+statusDerived+" means PROXY"+egress.StatusPath+", off disables it")
	fs.StringVar(&e.canary, "egress-canary", "", "a `HOST:PORT` known to be allowed: a bare 403 that it gets too means the proxy\nfails for everyone (transient), not a denial")
	return e
}

// options resolves the flags into the prober's status endpoint and canary.
func (e *egressFlags) options() egress.Options {
	status := e.statusURL
	if strings.EqualFold(strings.TrimSpace(status), statusDerived) {
		status = ""
	}
	return egress.Options{StatusURL: status, Canary: strings.TrimSpace(e.canary)}
}
