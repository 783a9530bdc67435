package failure

import "strconv"

// An egress probe asks the proxy a failed request went through whether it
// lets the target through. Its finding turns a network failure into a denial
// (policy: waiting will not change it) or confirms an outage (transient).
// The rules that do so are here, with every other rule that turns evidence
// into a class; internal/egress only asks the proxy.

// ProbeVerdict is a probe's answer about one target.
type ProbeVerdict int

// The probe verdicts; the zero value is ProbeUnclear.
const (
	// ProbeUnclear: the proxy answered something the probe cannot read.
	ProbeUnclear ProbeVerdict = iota
	// ProbeAllowed: the proxy lets the target through.
	ProbeAllowed
	// ProbeDenied: the proxy refuses the target: policy.
	ProbeDenied
	// ProbeUpstreamUnreachable: the proxy is up but cannot reach the target (transient).
	ProbeUpstreamUnreachable
	// ProbeProxyUnreachable: the proxy itself cannot be reached or does not answer (transient).
	ProbeProxyUnreachable
	// ProbeProxyFailing: the proxy refuses a host known to be allowed the same way: it fails for everyone (transient).
	ProbeProxyFailing
	// ProbeRejected: the proxy refuses the request's form or size (structural).
	ProbeRejected
	// ProbeDirect: no proxy applies to the target; nothing was probed.
	ProbeDirect
)

var probeVerdictNames = [...]string{
	ProbeUnclear: "unclear", ProbeAllowed: "allowed", ProbeDenied: "denied", ProbeUpstreamUnreachable: "upstream-unreachable",
	ProbeProxyUnreachable: "proxy-unreachable", ProbeProxyFailing: "proxy-failing", ProbeRejected: "rejected", ProbeDirect: "direct",
}

// String returns the verdict's name, e.g. "upstream-unreachable".
func (v ProbeVerdict) String() string {
	if v < 0 || int(v) >= len(probeVerdictNames) {
		return "verdict(" + strconv.Itoa(int(v)) + ")"
	}
	return probeVerdictNames[v]
}

// MarshalText encodes the verdict by name.
func (v ProbeVerdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Summary returns the one-word summary `retrywise probe` prints: allowed,
// denied, unreachable, direct or unclear.
func (v ProbeVerdict) Summary() string {
	switch v {
	case ProbeUpstreamUnreachable, ProbeProxyUnreachable, ProbeProxyFailing:
		return "unreachable"
	case ProbeRejected:
		return "unclear"
	}
	return v.String()
}

// Class returns the failure class of the verdict; ProbeAllowed and
// ProbeDirect are not failures and return Unknown.
func (v ProbeVerdict) Class() Class {
	switch v {
	case ProbeDenied:
		return Policy
	case ProbeUpstreamUnreachable, ProbeProxyUnreachable, ProbeProxyFailing:
		return Transient
	case ProbeRejected:
		return Structural
	}
	return Unknown
}

// Code returns the failure code of the verdict: proxy-denied,
// proxy-upstream-failed, proxy-unreachable, proxy-failing, proxy-rejected or
// proxy-unclear; "" for ProbeAllowed and ProbeDirect.
func (v ProbeVerdict) Code() Code {
	switch v {
	case ProbeDenied:
		return CodeProxyDenied
	case ProbeUpstreamUnreachable:
		return CodeProxyUpstream
	case ProbeProxyUnreachable:
		return CodeProxyUnreachable
	case ProbeProxyFailing:
		return CodeProxyFailing
	case ProbeRejected:
		return CodeProxyRejected
	case ProbeUnclear:
		return CodeProxyUnclear
	}
	return ""
}

// Probe is what an egress probe found about a failed request's target.
type Probe struct {
	// Verdict is the probe's answer.
	Verdict ProbeVerdict
	// Code is the failure code of the proxy's own answer; it refines a
	// denial (proxy-auth-required for a proxy that wants credentials) and is
	// ignored otherwise.
	Code Code
	// Reason says in one line what the probe found.
	Reason string
	// Remedy says what to do.
	Remedy string
	// Evidence quotes the answers the verdict rests on.
	Evidence []string
}

// maxProbeEvidence bounds the evidence of a diagnosed failure.
const maxProbeEvidence = 7

// FailureCode returns the code of the probe's finding: the verdict's,
// refined for a denial by the answer's; "" when allowed or direct.
func (p Probe) FailureCode() Code {
	if p.Verdict == ProbeDenied && p.Code != "" {
		return p.Code
	}
	return p.Verdict.Code()
}

// Failure returns the probe's finding as a failure on its own (what
// `retrywise probe` reports); nil when the target is allowed or direct.
func (p Probe) Failure() *Failure {
	if p.Verdict == ProbeAllowed || p.Verdict == ProbeDirect {
		return nil
	}
	return &Failure{Class: p.Verdict.Class(), Code: p.FailureCode(), Reason: p.Reason, Remedy: p.Remedy,
		Evidence: append([]string(nil), p.Evidence...), Trace: Trace{Network: true, Proxy: true}}
}

// FromProbe folds a probe's finding into the client's failure f and returns
// the failure the loop decides on; f itself when the target is reached
// directly. The client's own evidence line comes first, then the probe's.
//   - A denial is policy, with the probe's reason and remedy: waiting will
//     not change it (a server-requested wait is dropped).
//   - A proxy that fails for everyone (the canary is refused the same way)
//     is transient.
//   - An outage behind or at the proxy keeps a transient or unknown
//     failure transient; a client told something final keeps its class.
//   - Anything else keeps f's class, with the probe's evidence added.
func FromProbe(f *Failure, p Probe) *Failure {
	if f == nil || p.Verdict == ProbeDirect {
		return f
	}
	out := *f
	out.Err = f
	out.Evidence = nil
	if len(f.Evidence) > 0 {
		out.Evidence = append(out.Evidence, f.Evidence[0])
	}
	for _, e := range p.Evidence {
		if len(out.Evidence) < maxProbeEvidence {
			out.Evidence = append(out.Evidence, e)
		}
	}
	switch p.Verdict {
	case ProbeDenied:
		out.Class, out.Code, out.Reason, out.Remedy, out.RetryAfter = Policy, p.FailureCode(), p.Reason, p.Remedy, 0
		out.Trace.Proxy, out.Trace.AuthRefused = true, false
	case ProbeProxyFailing:
		out.Class, out.Code, out.Reason, out.Remedy = Transient, p.FailureCode(), p.Reason, p.Remedy
		out.Trace.Proxy = true
	case ProbeUpstreamUnreachable, ProbeProxyUnreachable:
		if f.Class == Transient || f.Class == Unknown {
			out.Class, out.Code, out.Reason, out.Remedy = Transient, p.FailureCode(), p.Reason, p.Remedy
		}
		out.Trace.Proxy = true
	}
	return &out
}
