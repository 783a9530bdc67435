package failure

import (
	"strings"
	"testing"
)

func TestFromLiveProbes(t *testing.T) {
	f := New(Transient, CodeRefused, "connection refused", "", "dial tcp: connection refused")
	f.Trace.Network = true
	target := func(o LiveOutcome) LiveProbe { return LiveProbe{Host: "api.example.com:443", Outcome: o} }
	canaryOK := LiveProbe{Host: "github.com:443", Outcome: LiveConnected}
	canaryBad := LiveProbe{Host: "github.com:443", Outcome: LiveTimeout}
	sandbox := []string{"COPILOT_AGENT_FIREWALL_ENABLED=true"}
	proxy := []string{"HTTPS_PROXY=http://10.0.0.1:3128"}
	for _, tc := range []struct {
		name      string
		target    LiveProbe
		canary    LiveProbe
		hasCanary bool
		env       []string
		class     Class
		code      Code
		reason    string
	}{
		{"target fine now", target(LiveConnected), LiveProbe{}, false, sandbox, Transient, CodeRefused, "reaches api.example.com:443 again"},
		{"refused behind a sandbox", target(LiveRefused), canaryOK, true, sandbox, Policy, CodeEgressBlocked, "it is refused while the canary github.com:443"},
		{"unresolvable behind a proxy", target(LiveUnresolvable), canaryOK, true, proxy, Policy, CodeEgressBlocked, "a proxy in the environment (HTTPS_PROXY)"},
		{"sinkholed, no variables", target(LiveSinkholed), canaryOK, true, nil, Policy, CodeEgressBlocked, "a sinkholed name"},
		{"refused, no allowlisting environment", target(LiveRefused), canaryOK, true, nil, Transient, CodeRefused, "connection refused"},
		{"both failing", target(LiveRefused), canaryBad, true, sandbox, Transient, CodeRefused, "the network is down"},
		{"no canary", target(LiveRefused), LiveProbe{}, false, sandbox, Transient, CodeRefused, "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FromLiveProbes(f, tc.target, tc.canary, tc.hasCanary, tc.env)
			if got.Class != tc.class || got.Code != tc.code || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("got %s %s %q", got.Class, got.Code, got.Reason)
			}
			if got.Trace.Live == nil || got.Trace.Live.Target.Outcome != tc.target.Outcome {
				t.Errorf("trace %+v", got.Trace.Live)
			}
			if !strings.Contains(strings.Join(got.Evidence, "\n"), "live probe of the target api.example.com:443 (direct): "+string(tc.target.Outcome)) {
				t.Errorf("evidence %q", got.Evidence)
			}
			if tc.code == CodeEgressBlocked && !strings.Contains(got.Remedy, "add api.example.com to the egress allowlist") {
				t.Errorf("remedy %q", got.Remedy)
			}
		})
	}
	if NetworkLevel(New(Policy, CodeProxyDenied, "", "")) {
		t.Error("a policy failure is network-level")
	}
	if !NetworkLevel(f) {
		t.Error("a refusal is not network-level")
	}
}
