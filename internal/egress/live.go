package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

// Live evidence before the first retry of a network-level failure (a
// reset, refusal, DNS failure or timeout): the target and a canary are
// connected to again through the step's own egress path, at most
// LiveProbes probes within LiveBudget, and failure.FromLiveProbes reads
// the outcomes. Nothing else is probed: only the step's own target and the
// canary (--egress-canary, else a host this run has reached).

// The budget of live evidence per failure.
const (
	LiveProbes = 2
	LiveBudget = 2 * time.Second
)

// sinkholes are addresses a blocked name resolves to: the unspecified
// address (DNS filters) and harden-runner's.
var sinkholes = map[string]bool{"0.0.0.0": true, "::": true, "54.185.253.63": true}

// liveProbe connects once to t: through proxy with a CONNECT, or directly
// (resolving the name first: a sinkhole address is not dialled).
func (p *Prober) liveProbe(ctx context.Context, proxy *Proxy, t Target) failure.LiveProbe {
	start := time.Now()
	lp := failure.LiveProbe{Host: t.Addr()}
	defer func() { lp.Elapsed = time.Since(start) }()
	if proxy != nil {
		lp.Via = proxy.Addr
		a, err := p.ask(ctx, proxy, t, http.MethodConnect)
		switch {
		case err != nil:
			lp.Outcome, lp.Detail = outcomeOf(ctx, err)
			if lp.Outcome == failure.LiveRefused {
				// the proxy itself refused the connection: not the target's answer
				lp.Outcome, lp.Detail = failure.LiveFailed, "the proxy is unreachable: "+lp.Detail
			}
		case a.Status >= 200 && a.Status <= 299:
			lp.Outcome = failure.LiveConnected
		case a.Status == 403 || a.Status == 451 || a.Status == 407:
			lp.Outcome, lp.Detail = failure.LiveRefused, fmt.Sprintf("the proxy answered %d", a.Status)
		default:
			lp.Outcome, lp.Detail = failure.LiveFailed, fmt.Sprintf("the proxy answered %d", a.Status)
		}
		return lp
	}
	p.sent.Add(1)
	host := t.Host
	if net.ParseIP(host) == nil {
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			if ctx.Err() != nil {
				lp.Outcome, lp.Detail = failure.LiveTimeout, "the name did not resolve in time"
			} else {
				lp.Outcome, lp.Detail = failure.LiveUnresolvable, "the name does not resolve"
			}
			return lp
		}
		for _, a := range addrs {
			if sinkholes[a.IP.String()] {
				lp.Outcome, lp.Detail = failure.LiveSinkholed, "the name resolves to "+a.IP.String()
				return lp
			}
		}
		host = addrs[0].IP.String()
	} else if sinkholes[host] {
		lp.Outcome, lp.Detail = failure.LiveSinkholed, "a sinkhole address"
		return lp
	}
	conn, err := p.opts.Dial(ctx, "tcp", net.JoinHostPort(host, t.Port))
	if err != nil {
		lp.Outcome, lp.Detail = outcomeOf(ctx, err)
		return lp
	}
	conn.Close()
	lp.Outcome = failure.LiveConnected
	return lp
}

// outcomeOf reads a connection's error.
func outcomeOf(ctx context.Context, err error) (failure.LiveOutcome, string) {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return failure.LiveRefused, "connection refused"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE):
		return failure.LiveReset, "connection reset"
	case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return failure.LiveTimeout, "no answer within the budget"
	}
	f := failure.FromError(err)
	switch f.Code {
	case failure.CodeUnexpectedEOF, failure.CodeEmptyReply, failure.CodeReset:
		return failure.LiveReset, "closed without an answer"
	case failure.CodeDNS:
		return failure.LiveUnresolvable, "the name does not resolve"
	}
	return failure.LiveFailed, err.Error()
}

// canaryFor is the canary of a live check: --egress-canary, else a host
// this run has reached (other than the target); ok false when none.
func (p *Prober) canaryFor(target Target) (Target, bool) {
	if p.canary != nil {
		return *p.canary, true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.reached) - 1; i >= 0; i-- {
		if p.reached[i].Addr() != target.Addr() {
			return p.reached[i], true
		}
	}
	return Target{}, false
}

// NoteReached records a host the run has reached, a canary for later live
// checks (the last few are kept).
func (p *Prober) NoteReached(t Target) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.reached {
		if r == t {
			return
		}
	}
	p.reached = append(p.reached, t)
	if len(p.reached) > 8 {
		p.reached = p.reached[1:]
	}
}

// LiveStats are the probes and time live checks cost in this run.
type LiveStats struct {
	// Checks is the number of failures checked; Probes the probes sent.
	Checks, Probes int
	// Elapsed is the time they took in all.
	Elapsed time.Duration
}

// LiveStats returns what live checks have cost so far.
func (p *Prober) LiveStats() LiveStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live
}

// liveEvidence gathers the live evidence of a network-level failure f
// (out is f after the proxy probe r, which may already tell the target's
// outcome) and folds it in with failure.FromLiveProbes.
func (p *Prober) liveEvidence(ctx context.Context, d *Discovery, client Client, target Target, r *Result, f, out *failure.Failure, env []string) *failure.Failure {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, LiveBudget)
	defer cancel()
	probes := 0
	var tp failure.LiveProbe
	known := false
	switch {
	case r != nil && r.Verdict == Allowed:
		tp, known = failure.LiveProbe{Host: target.Addr(), Via: r.Proxy, Outcome: failure.LiveConnected, Elapsed: r.Elapsed}, true
	case r != nil && r.Verdict == ProxyUnreachable && r.netErr != nil:
		o, detail := outcomeOf(ctx, r.netErr)
		if o == failure.LiveRefused {
			o, detail = failure.LiveFailed, "the proxy is unreachable: "+detail
		}
		tp, known = failure.LiveProbe{Host: target.Addr(), Via: r.Proxy, Outcome: o, Detail: detail, Elapsed: r.Elapsed}, true
	}
	if tp.Outcome == failure.LiveConnected {
		p.NoteReached(target)
		p.addLive(0, time.Since(start))
		return failure.FromLiveProbes(out, tp, failure.LiveProbe{}, false, env)
	}
	canary, hasCanary := p.canaryFor(target)
	var cp failure.LiveProbe
	var wg sync.WaitGroup
	if !known {
		probes++
		wg.Add(1)
		go func() {
			defer wg.Done()
			proxy, _ := d.ProxyFor(ctx, client, target)
			tp = p.liveProbe(ctx, proxy, target)
		}()
	}
	if hasCanary {
		probes++
		wg.Add(1)
		go func() {
			defer wg.Done()
			proxy, _ := d.ProxyFor(ctx, client, canary)
			cp = p.liveProbe(ctx, proxy, canary)
		}()
	}
	wg.Wait()
	if tp.Outcome == failure.LiveConnected {
		p.NoteReached(target)
	}
	p.addLive(probes, time.Since(start))
	if tp.Outcome == "" {
		return out
	}
	base := out
	if known {
		base = f // the proxy probe's reading of a reset is what the live check decides
		if !hasCanary || cp.Outcome != failure.LiveConnected {
			base = out
		}
	}
	return failure.FromLiveProbes(base, tp, cp, hasCanary, env)
}

func (p *Prober) addLive(probes int, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.live.Checks++
	p.live.Probes += probes
	p.live.Elapsed += d
}
