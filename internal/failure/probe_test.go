package failure

import (
	"slices"
	"testing"
	"time"
)

func TestFromProbe(t *testing.T) {
	client := func(c Class) *Failure {
		f := New(c, CodeProxyConnect, "curl 56, proxy refused CONNECT", "check the proxy", "curl: (56) CONNECT tunnel failed, response 403")
		f.RetryAfter = 0
		if c == Transient {
			f.Code, f.RetryAfter = CodeTimeout, 30*time.Second
		}
		f.Trace = Trace{Network: true, NotSent: true, URL: "https://dev.to/", AuthRefused: c == Policy}
		return f
	}
	probe := func(v ProbeVerdict, code Code) Probe {
		return Probe{Verdict: v, Code: code, Reason: "the probe's reason", Remedy: "the probe's remedy", Evidence: []string{"probe: CONNECT dev.to:443", "X-Squid-Error: ERR_ACCESS_DENIED 0"}}
	}
	tests := []struct {
		name      string
		f         *Failure
		p         Probe
		class     Class
		code      Code
		reason    string
		wait      time.Duration
		sameAsIn  bool
		proxyMark bool
	}{
		{"a denial is policy, whatever the client said", client(Transient), probe(ProbeDenied, ""), Policy, CodeProxyDenied, "the probe's reason", 0, false, true},
		{"a denial that wants credentials keeps the answer's code", client(Unknown), probe(ProbeDenied, CodeProxyAuth), Policy, CodeProxyAuth, "the probe's reason", 0, false, true},
		{"a proxy failing for everyone is transient", client(Policy), probe(ProbeProxyFailing, CodeProxyDenied), Transient, CodeProxyFailing, "the probe's reason", 0, false, true},
		{"an outage behind the proxy keeps a transient failure transient", client(Transient), probe(ProbeUpstreamUnreachable, ""), Transient, CodeProxyUpstream, "the probe's reason", 30 * time.Second, false, true},
		{"an outage turns an unknown failure transient", client(Unknown), probe(ProbeProxyUnreachable, ""), Transient, CodeProxyUnreachable, "the probe's reason", 0, false, true},
		{"an outage does not overrule a final answer", client(Policy), probe(ProbeProxyUnreachable, ""), Policy, CodeProxyConnect, "curl 56, proxy refused CONNECT", 0, false, true},
		{"allowed keeps the class, adds the evidence", client(Transient), probe(ProbeAllowed, ""), Transient, CodeTimeout, "curl 56, proxy refused CONNECT", 30 * time.Second, false, false},
		{"direct is the failure itself", client(Transient), probe(ProbeDirect, ""), Transient, CodeTimeout, "curl 56, proxy refused CONNECT", 30 * time.Second, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FromProbe(tt.f, tt.p)
			if (got == tt.f) != tt.sameAsIn {
				t.Fatalf("FromProbe returned the input: %v, want %v", got == tt.f, tt.sameAsIn)
			}
			if got.Class != tt.class || got.Code != tt.code || got.Reason != tt.reason || got.RetryAfter != tt.wait {
				t.Errorf("got %s %s %q wait %v; want %s %s %q wait %v", got.Class, got.Code, got.Reason, got.RetryAfter, tt.class, tt.code, tt.reason, tt.wait)
			}
			if err := invariants(got); err != nil {
				t.Error(err)
			}
			if tt.sameAsIn {
				return
			}
			want := []string{"curl: (56) CONNECT tunnel failed, response 403", "probe: CONNECT dev.to:443", "X-Squid-Error: ERR_ACCESS_DENIED 0"}
			if !slices.Equal(got.Evidence, want) {
				t.Errorf("evidence %q, want the client's line, then the probe's: %q", got.Evidence, want)
			}
			if got.Trace.Proxy != tt.proxyMark || got.Trace.URL != "https://dev.to/" {
				t.Errorf("trace %+v: want proxy %v and the URL kept", got.Trace, tt.proxyMark)
			}
			if got.Class == Policy && tt.p.Verdict == ProbeDenied && got.Trace.AuthRefused {
				t.Error("a proxy's denial is not a refusal of the server's credentials")
			}
			if got.Err != tt.f {
				t.Error("the client's failure is not kept as the cause")
			}
		})
	}
}

// TestProbeVerdicts pins what each verdict means for a failure: its class
// and code (what `retrywise probe` exits with) and the one-word summary.
func TestProbeVerdicts(t *testing.T) {
	tests := []struct {
		v       ProbeVerdict
		class   Class
		code    Code
		summary string
		failure bool
	}{
		{ProbeUnclear, Unknown, CodeProxyUnclear, "unclear", true},
		{ProbeAllowed, Unknown, "", "allowed", false},
		{ProbeDenied, Policy, CodeProxyDenied, "denied", true},
		{ProbeUpstreamUnreachable, Transient, CodeProxyUpstream, "unreachable", true},
		{ProbeProxyUnreachable, Transient, CodeProxyUnreachable, "unreachable", true},
		{ProbeProxyFailing, Transient, CodeProxyFailing, "unreachable", true},
		{ProbeRejected, Structural, CodeProxyRejected, "unclear", true},
		{ProbeDirect, Unknown, "", "direct", false},
	}
	for _, tt := range tests {
		p := Probe{Verdict: tt.v, Reason: "r", Remedy: "m"}
		f := p.Failure()
		switch {
		case tt.v.Class() != tt.class || p.FailureCode() != tt.code || tt.v.Summary() != tt.summary:
			t.Errorf("%s: class %s code %q summary %s; want %s %q %s", tt.v, tt.v.Class(), p.FailureCode(), tt.v.Summary(), tt.class, tt.code, tt.summary)
		case (f != nil) != tt.failure:
			t.Errorf("%s: Failure() = %v, want a failure: %v", tt.v, f, tt.failure)
		case f != nil && (f.Class != tt.class || f.Code != tt.code):
			t.Errorf("%s: Failure() = %s %s", tt.v, f.Class, f.Code)
		}
	}
}
