package failure

import (
	"fmt"
	"strings"
	"time"
)

// Live evidence before retrying a network-level failure: a reset, refusal,
// DNS failure or timeout reads the same whether the network blinked or a
// policy dropped the connection. internal/egress connects again to the
// target and to a canary through the step's own egress path (at most two
// probes, two seconds); FromLiveProbes reads the two outcomes.

// CodeEgressBlocked: a live probe found the target refused, unresolvable or
// sinkholed while a canary got through, in an allowlisting environment.
const CodeEgressBlocked Code = "egress-blocked"

// LiveOutcome is what one live probe found.
type LiveOutcome string

// The outcomes.
const (
	// LiveConnected: the connection (or the proxy's tunnel) was opened.
	LiveConnected LiveOutcome = "connected"
	// LiveRefused: nothing accepted the connection, or the proxy refused the tunnel.
	LiveRefused LiveOutcome = "refused"
	// LiveUnresolvable: the name did not resolve.
	LiveUnresolvable LiveOutcome = "unresolvable"
	// LiveSinkholed: the name resolved to a sinkhole (0.0.0.0, harden-runner's address).
	LiveSinkholed LiveOutcome = "sinkholed"
	// LiveReset: the connection (or the proxy's tunnel) was reset or closed unanswered.
	LiveReset LiveOutcome = "reset"
	// LiveTimeout: no answer within the probe's budget.
	LiveTimeout LiveOutcome = "timeout"
	// LiveFailed: anything else (the proxy itself unreachable, an upstream error).
	LiveFailed LiveOutcome = "failed"
)

// LiveProbe is one live probe: of the target or of the canary.
type LiveProbe struct {
	// Host is the probed host:port.
	Host string `json:"host"`
	// Via is the proxy's host:port, or "" for a direct connection.
	Via string `json:"via,omitempty"`
	// Outcome is what it found; Detail says it in a few words.
	Outcome LiveOutcome `json:"outcome"`
	Detail  string      `json:"detail,omitempty"`
	// Elapsed is what it cost.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// Evidence renders the probe as one evidence line.
func (p LiveProbe) Evidence(role string) string {
	via := "direct"
	if p.Via != "" {
		via = "via proxy " + p.Via
	}
	s := fmt.Sprintf("live probe of the %s %s (%s): %s", role, p.Host, via, p.Outcome)
	if p.Detail != "" {
		s += " (" + p.Detail + ")"
	}
	return s
}

// blocked reports whether the outcome may be a policy's: refused,
// unresolvable, sinkholed, or reset/timed out by a proxy or firewall.
func (o LiveOutcome) blocked() bool {
	switch o {
	case LiveRefused, LiveUnresolvable, LiveSinkholed, LiveReset, LiveTimeout:
		return true
	}
	return false
}

// NetworkLevel reports whether f is the kind of failure live evidence can
// tell apart: a transient reset, refusal, DNS failure or timeout on the
// way to the server.
func NetworkLevel(f *Failure) bool {
	if f == nil || f.Class != Transient || !f.Trace.Network {
		return false
	}
	switch f.Code {
	case CodeReset, CodeRefused, CodeDNS, CodeTimeout, CodeConnectFailed, CodeUnexpectedEOF, CodeEmptyReply, CodeProxyUnreachable:
		return true
	}
	return false
}

// AllowlistingEnv names what in env shows an allowlisting environment: a
// proxy variable, a sandbox's variable; "" when none does. A sinkholed
// name shows harden-runner by itself.
func AllowlistingEnv(env []string) string {
	ro := newRunOpts(env, 0)
	for _, name := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"} {
		if ro.env[name] != "" {
			return "a proxy in the environment (" + name + ")"
		}
	}
	for _, name := range []string{"COPILOT_AGENT_FIREWALL_ENABLED", "CODEX_SANDBOX_NETWORK_DISABLED", "CODEX_SANDBOX"} {
		if v := ro.env[name]; v != "" && v != "0" && !strings.EqualFold(v, "false") {
			return "a sandbox variable (" + name + ")"
		}
	}
	return ""
}

// FromLiveProbes folds the live probes of the target and of the canary
// (hasCanary false when there was none) into f, a network-level failure:
//   - the target is reached now: transient, retried;
//   - the canary is reached, the target refused, unresolvable, sinkholed
//     (or reset, timed out) and the environment allowlists: policy,
//     egress-blocked, with both probes as evidence;
//   - both fail: transient, the network is down;
//   - otherwise f stays as it is, with the probes as evidence.
func FromLiveProbes(f *Failure, target LiveProbe, canary LiveProbe, hasCanary bool, env []string) *Failure {
	if f == nil {
		return nil
	}
	out := *f
	out.Err = f
	out.Evidence = append(append([]string(nil), f.Evidence...), target.Evidence("target"))
	if hasCanary {
		out.Evidence = append(out.Evidence, canary.Evidence("canary"))
	}
	lt := &LiveTrace{Target: target}
	if hasCanary {
		lt.Canary = canary
	}
	out.Trace.Live = lt
	why := AllowlistingEnv(env)
	if why == "" && target.Outcome == LiveSinkholed {
		why = "a sinkholed name (harden-runner or a DNS filter)"
	}
	switch {
	case target.Outcome == LiveConnected:
		out.Reason = f.Reason + "; a live probe reaches " + target.Host + " again: retrying"
	case hasCanary && canary.Outcome == LiveConnected && target.Outcome.blocked() && why != "":
		out.Class, out.Code, out.RetryAfter = Policy, CodeEgressBlocked, 0
		out.Reason = fmt.Sprintf("%s is blocked by the egress policy: it is %s while the canary %s is reached through the same path, behind %s", target.Host, target.Outcome, canary.Host, why)
		out.Remedy = "add " + hostOnly(target.Host) + " to the egress allowlist of the proxy, sandbox or firewall the step runs behind; retrying cannot succeed"
		out.Trace.AuthRefused = false
	case hasCanary && canary.Outcome != LiveConnected:
		out.Reason = f.Reason + "; the canary " + canary.Host + " fails too: the network is down, retrying"
	}
	return &out
}

func hostOnly(hostport string) string {
	if i := strings.LastIndexByte(hostport, ':'); i > 0 && !strings.Contains(hostport[i:], "]") {
		return strings.Trim(hostport[:i], "[]")
	}
	return hostport
}
