package failure

import (
	"errors"
	"strings"
	"sync"
)

// A diagnosis that runs after a failure (the egress probe asks the proxy
// whether the host is allowed) needs to know where the failed request went
// and whether it failed on the way there. A step attaches that as an
// *Endpoint in the failure's error chain; the diagnosis reads it with
// EndpointOf, so its signature stays func(ctx, *Failure) *Failure.

// Endpoint is where a failed request went and how it failed on the way.
type Endpoint struct {
	// URL is the address the request went to with any credentials removed, so
	// it is safe to print and to probe; "" when not known.
	URL string
	// Traits say how the failure arose: on the network, through a proxy, or
	// as the server's refusal of the credentials.
	Traits
	// Err is the error the endpoint wraps: the failure's previous Err.
	Err error
}

// Error returns "request to URL" and the wrapped error, if any.
func (e *Endpoint) Error() string {
	s := "request to " + e.URL
	if e.URL == "" {
		s = "request"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the wrapped error.
func (e *Endpoint) Unwrap() error { return e.Err }

// WithEndpoint records e in f's error chain (e wraps f.Err) and returns f.
func WithEndpoint(f *Failure, e *Endpoint) *Failure {
	if f == nil || e == nil {
		return f
	}
	if old, ok := EndpointOf(f); ok && old == e {
		return f
	}
	e.Err = f.Err
	f.Err = e
	return f
}

// EndpointOf returns the endpoint recorded in f's error chain, if any.
func EndpointOf(f *Failure) (*Endpoint, bool) {
	if f == nil {
		return nil, false
	}
	var e *Endpoint
	if errors.As(f.Err, &e) && e != nil {
		return e, true
	}
	return nil, false
}

// Traits are facts about a failure text beyond its class.
type Traits struct {
	// Network is true when the failure arose on the way to the server (name
	// resolution, connect, TLS, a reset or stall, a proxy's answer, a
	// gateway's 5xx) rather than as the server's answer to the request.
	Network bool
	// Proxy is true when the text names a proxy: its answer to CONNECT, or a
	// proxy that could not be resolved or reached.
	Proxy bool
	// Auth is true when the server refused the credentials it was given
	// (401/403, "Authentication failed", "Permission to X denied to Y"): a
	// freshly minted token may be accepted a few seconds later. A proxy's
	// refusal, or no credentials at all, is not Auth.
	Auth bool
}

// netOnly are the network recognisers alone; netKeys, their gates, are built
// on first use (only after a failure).
var (
	netOnly = concatMatchers(netMatchers, lowSpeedMatchers)
	netKeys = sync.OnceValue(func() *keyIndex { return newKeyIndex(collectGates(netOnly)) })
)

// TraitsOf reads the traits of a failure text (a tool's output).
func TraitsOf(text string) Traits {
	var t Traits
	if strings.TrimSpace(text) == "" {
		return t
	}
	full := (&scanCtx{text: text, tool: ToolGit, ms: allMatchers, keys: gateKeys()}).scan()
	best, ok := bestHit(full)
	if !ok {
		return t
	}
	net := (&scanCtx{text: text, tool: ToolGit, ms: netOnly, keys: netKeys()}).scan()
	netBest, netOK := bestHit(net)
	for _, h := range net {
		l := strings.ToLower(h.line)
		if strings.Contains(l, "proxy") || strings.Contains(h.line, "CONNECT") {
			t.Proxy = true
		}
	}
	t.Network = best.class == Transient || (netOK && netBest.rank >= best.rank)
	t.Proxy = t.Proxy && t.Network
	if best.class == Policy && !t.Proxy && !noCredentials(text) {
		t.Auth = true
	}
	return t
}

// bestHit returns the hit resolve would pick.
func bestHit(hits []hit) (hit, bool) {
	if len(hits) == 0 {
		return hit{}, false
	}
	best := 0
	for i := range hits {
		if better(hits[i], hits[best]) {
			best = i
		}
	}
	return hits[best], true
}

// noCredentials reports whether git had no credentials to send at all (it
// could not prompt for them): waiting for a token to propagate cannot help.
func noCredentials(text string) bool {
	return reCouldRead.MatchString(text)
}
