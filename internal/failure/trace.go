package failure

import (
	"strings"

	"github.com/retrywise/retrywise/internal/redact"
)

// Trace is the one answer to "what kind of failure was this at the transport
// level": it is read once, with the class, by the recogniser that classified
// the failure (tool output, a Go error, an HTTP answer), and carried on it.
// Steps (may a POST be sent again?) and diagnoses (should the proxy be
// asked?) read it instead of reading the text again.
type Trace struct {
	// Network is true when the failure arose on the way to the server rather
	// than as the server's answer: name resolution, connect, a timeout, a
	// reset or stall, a TLS connection broken mid-way, a proxy's answer to
	// CONNECT. An HTTP status reported by the client (a gateway's 502
	// included) is an answer, not a network failure; certificate and TLS
	// negotiation failures are configuration, not network: asking the proxy
	// cannot change them.
	Network bool `json:"network,omitempty"`
	// Proxy is true when a proxy was on the path of a network failure: its
	// answer to CONNECT, or a proxy that could not be resolved or reached.
	Proxy bool `json:"proxy,omitempty"`
	// NotSent is true when the evidence proves the request never reached the
	// server (the name did not resolve, nothing accepted the connection, the
	// proxy refused the tunnel), so even an unsafe request may be sent again.
	// False means it may have been sent.
	NotSent bool `json:"not_sent,omitempty"`
	// AuthRefused is true when the server refused the credentials it was
	// given (401/403, "Authentication failed", "Permission to X denied to
	// Y"): a freshly minted token may be accepted a few seconds later. A
	// proxy's refusal, or no credentials at all, is not AuthRefused.
	AuthRefused bool `json:"auth_refused,omitempty"`
	// Client is the client whose output told of the failure (git or curl,
	// detected when not given), whose proxy rules applied; "" for anything
	// else, Go's own requests included.
	Client Tool `json:"client,omitempty"`
	// URL is where the failed request went, without credentials: git's
	// "unable to access 'URL'", the URL of a Go error, or the step's own
	// target; "" when not known.
	URL string `json:"url,omitempty"`
	// ConnectStatus is the status of a proxy's answer to CONNECT ("CONNECT
	// tunnel failed, response 403", Go's bare "Forbidden"); 0 when none.
	ConnectStatus int `json:"connect_status,omitempty"`
	// Tunnel is the host:port a verbose curl tunnelled to ("Establish HTTP
	// proxy tunnel to h:p"); "" when none.
	Tunnel string `json:"tunnel,omitempty"`
	// Status is an HTTP status the client reported for its request ("The
	// requested URL returned error: 403") or the answer's status; 0 when
	// none. For a plain-http target sent through a proxy it may be the
	// proxy's own answer.
	Status int `json:"status,omitempty"`
	// Live are the live probes gathered before the first retry of a
	// network-level failure (FromLiveProbes); nil when none were.
	Live *LiveTrace `json:"live,omitempty"`
}

// LiveTrace is the live evidence of a failure: the target's probe and the
// canary's (Canary.Host "" when there was none).
type LiveTrace struct {
	Target LiveProbe `json:"target"`
	Canary LiveProbe `json:"canary,omitzero"`
}

// TraceBits are what one recognised line says about the way to the server.
type TraceBits uint8

const (
	// TrNet: the line tells of a failure on the way to the server.
	TrNet TraceBits = 1 << iota
	// trProxy: the line names a proxy on that way.
	trProxy
	// TrNotSent: the line proves the request never reached the server.
	TrNotSent
)

// facts are the values a scan collects for the trace, last one wins.
type facts struct {
	URL           string
	tunnel        string
	Status        int
	connectStatus int
}

// traceOf derives the trace of a text classification from its decisive hit
// and the facts the scan collected.
func traceOf(hits []Hit, best Hit, fa facts) Trace {
	t := Trace{URL: redact.URL(fa.URL), Tunnel: fa.tunnel, Status: fa.Status, ConnectStatus: fa.connectStatus}
	t.Network = best.Trace&TrNet != 0 || fa.connectStatus != 0
	if !t.Network {
		t.ConnectStatus = 0
	}
	t.NotSent = t.Network && best.Trace&TrNotSent != 0
	noCreds := false
	for _, h := range hits {
		if t.Network && h.Trace&(TrNet|trProxy) == TrNet|trProxy {
			t.Proxy = true
		}
		switch h.Code {
		case CodeGitNoCredentials, CodeDockerNoCredentials, CodeNPMNeedAuth, CodeGeminiAuthMissing, CodeAiderAPIKeyMissing:
			// nothing was given to refuse
			noCreds = true
		}
	}
	t.Proxy = t.Proxy || (t.Network && best.Trace&trProxy != 0) || fa.connectStatus != 0
	// a spent quota is not a refusal of the credentials
	t.AuthRefused = best.Class == Policy && best.Trace&trProxy == 0 && !t.Proxy && !noCreds && best.Code != CodeQuotaExhausted
	return t
}

// mentionsProxy reports whether a line names a proxy or its CONNECT.
func mentionsProxy(line string) bool {
	return strings.Contains(line, "CONNECT") || strings.Contains(strings.ToLower(line), "proxy")
}
