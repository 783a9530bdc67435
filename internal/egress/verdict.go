package egress

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

// judge reads a proxy's answer into r, consulting the status endpoint and the
// canary when the answer alone is not conclusive.
func (p *Prober) judge(ctx context.Context, r *Result, proxy *Proxy, target Target, a failure.ProxyAnswer) {
	rd := describe(r, proxy, target, a)
	if rd.Bare || r.Verdict == Unclear || (p.statusU != nil && r.Verdict == Denied) {
		p.consultStatus(ctx, r, proxy, target)
	}
	if p.canary != nil && rd.Bare && r.Verdict == Denied && *p.canary != target {
		p.consultCanary(ctx, r, proxy, a, rd)
	}
}

// describe reads a proxy's answer about target into r: verdict, reason,
// remedy and evidence. It sends nothing.
func describe(r *Result, proxy *Proxy, target Target, a failure.ProxyAnswer) failure.ProxyReading {
	rd := failure.ReadProxyAnswer(a)
	r.Dialect, r.ProxyError = rd.Dialect, rd.Code
	if rd.Failure != nil {
		r.answerCode = rd.Failure.Code
	}
	method := a.Method
	if method == "" {
		method = http.MethodConnect
	}
	r.Evidence = append(r.Evidence, fmt.Sprintf("probe: %s %s via proxy %s: %s", method, target.Addr(), proxy.Addr, statusLine(a)))
	if rd.Failure != nil && len(rd.Failure.Evidence) > 1 {
		r.Evidence = append(r.Evidence, rd.Failure.Evidence[1:]...)
	}
	label := rd.Label(a)
	host := target.Host

	switch rd.Verdict {
	case failure.ProxyAllowed:
		r.Verdict = Allowed
		r.Reason = fmt.Sprintf("proxy %s lets %s through (%s)", proxy.Addr, target.Addr(), statusLine(a))
	case failure.ProxyDenied:
		r.Verdict = Denied
		r.Reason = fmt.Sprintf("%s is not on the egress allowlist of proxy %s (%s)", target.Addr(), proxy.Addr, label)
		r.Remedy = fmt.Sprintf("Waiting will not change this: add %s to the allowlist, or run where it is allowed.", host)
		if rd.Dialect == failure.DialectSandbox && rd.Failure != nil {
			// srt's or Codex's proxy: name the setting (allowedDomains, allowed_domains)
			r.Remedy = strings.Replace(rd.Failure.Remedy, "the host", host, 1)
		}
	case failure.ProxyAuthRequired:
		r.Verdict = Denied
		r.Reason = fmt.Sprintf("proxy %s refuses %s without valid proxy credentials (%s)", proxy.Addr, target.Addr(), label)
		r.Remedy = "Waiting will not change this: give the client proxy credentials that are allowed (https_proxy=http://USER:PASSWORD@HOST:PORT)."
	case failure.ProxyUpstreamFailed:
		r.Verdict = UpstreamUnreachable
		r.Reason = fmt.Sprintf("%s is unreachable behind proxy %s (%s)", target.Addr(), proxy.Addr, label)
		r.Remedy = "the proxy allows the host but cannot reach it: an outage behind the proxy; retrying"
	case failure.ProxyRejected:
		r.Verdict = Rejected
		r.Reason = fmt.Sprintf("proxy %s rejected the request for %s (%s)", proxy.Addr, target.Addr(), label)
		r.Remedy = rd.Failure.Remedy
	default:
		r.Verdict = Unclear
		r.Reason = fmt.Sprintf("proxy %s answered %s for %s", proxy.Addr, statusLine(a), target.Addr())
		if rd.Failure != nil {
			r.Remedy = rd.Failure.Remedy
		}
	}
	return rd
}

// consultCanary sends the control CONNECT: when the canary is refused the same
// way, the proxy fails for everyone and the denial becomes transient.
func (p *Prober) consultCanary(ctx context.Context, r *Result, proxy *Proxy, a failure.ProxyAnswer, rd failure.ProxyReading) {
	ca, err := p.ask(ctx, proxy, *p.canary, http.MethodConnect)
	r.Requests++
	if err != nil {
		r.Evidence = append(r.Evidence, fmt.Sprintf("canary: CONNECT %s: %s (no conclusion)", p.canary.Addr(), netReason(err, p.opts.Timeout)))
		return
	}
	crd := failure.ReadProxyAnswer(ca)
	r.Evidence = append(r.Evidence, fmt.Sprintf("canary: CONNECT %s via proxy %s: %s", p.canary.Addr(), proxy.Addr, statusLine(ca)))
	switch {
	case crd.Verdict == failure.ProxyAllowed:
		r.Reason += "; the canary " + p.canary.Addr() + " is allowed"
	case ca.Status == a.Status && crd.Verdict == rd.Verdict:
		r.Verdict = ProxyFailing
		r.Reason = fmt.Sprintf("proxy %s answers the canary %s the same way (%s): it is failing for everyone, not denying %s", proxy.Addr, p.canary.Addr(), rd.Label(a), r.Target)
		r.Remedy = "the proxy refuses even a host known to be allowed: an outage of the proxy, retrying; if it persists, ask the proxy's operator"
		r.Misconfigured = false
	}
}

// unanswered records a request the proxy did not answer.
func (p *Prober) unanswered(r *Result, method string, err error) {
	switch {
	case errors.Is(err, ErrUnsupportedProxy):
		r.Verdict = Unclear
		r.Reason = fmt.Sprintf("cannot probe through proxy %s: %v", r.Proxy, err)
		return
	case errors.Is(err, errNotHTTP):
		r.Verdict = Unclear
		r.Reason = fmt.Sprintf("proxy %s did not answer %s with HTTP", r.Proxy, method)
		r.Evidence = append(r.Evidence, "probe: "+err.Error())
		return
	}
	why := netReason(err, p.opts.Timeout)
	r.netErr = err
	r.Verdict = ProxyUnreachable
	r.Reason = fmt.Sprintf("proxy %s is unreachable: %s", r.Proxy, why)
	r.Remedy = "the proxy itself is down or not answering: retrying; if it persists, check the proxy address (" + r.ProxySource + ")"
	r.Evidence = append(r.Evidence, fmt.Sprintf("probe: %s %s via proxy %s: %s", method, r.Target, r.Proxy, why))
}

// netReason renders, in a few words, why a request to the proxy got no
// answer, from failure's reading of the error (failure.FromError).
func netReason(err error, timeout time.Duration) string {
	f := failure.FromError(err)
	switch {
	case f.Code == failure.CodeTimeout:
		return "no answer within " + timeout.String()
	case f.Code == failure.CodeUnexpectedEOF:
		return "the proxy closed the connection without answering"
	case !f.Recognised():
		return err.Error()
	}
	return f.Reason
}
