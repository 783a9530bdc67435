package egress

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/proxytest"
)

func TestProbeSquid(t *testing.T) {
	t.Parallel()
	up, down := upstream(t), closedPort(t)
	for _, tc := range []struct {
		name     string
		target   string
		verdict  Verdict
		reason   string
		evidence string
	}{
		{name: "denied host", target: "dev.to", verdict: Denied,
			reason:   "dev.to:443 is not on the egress allowlist of proxy " + squid.Addr + " (Squid ERR_ACCESS_DENIED)",
			evidence: "X-Squid-Error: ERR_ACCESS_DENIED 0"},
		{name: "allowed host", target: "up.allowed.test:" + up, verdict: Allowed, reason: "proxy " + squid.Addr + " lets up.allowed.test:" + up + " through (HTTP 200 Connection established)"},
		{name: "allowed host, upstream down", target: "down.allowed.test:" + down, verdict: UpstreamUnreachable,
			reason: "down.allowed.test:" + down + " is unreachable behind proxy " + squid.Addr + " (Squid ERR_CONNECT_FAIL)", evidence: "X-Squid-Error: ERR_CONNECT_FAIL 111"},
		{name: "plain http denied, absolute-form HEAD", target: "http://denied.test/", verdict: Denied,
			reason: "denied.test:80 is not on the egress allowlist of proxy " + squid.Addr + " (Squid ERR_ACCESS_DENIED)", evidence: "probe: HEAD denied.test:80 via proxy"},
		// the upstream answers 418 (Squid's phrase for it varies by version)
		{name: "plain http allowed, the upstream's own status", target: "http://up.allowed.test:" + up + "/", verdict: Allowed,
			reason: "proxy " + squid.Addr + " lets up.allowed.test:" + up + " through (HTTP 418 ", evidence: "probe: HEAD up.allowed.test:" + up + " via proxy " + squid.Addr + ": HTTP 418 "},
		{name: "plain http, upstream down", target: "http://down.allowed.test:" + down + "/", verdict: UpstreamUnreachable,
			reason: "down.allowed.test:" + down + " is unreachable behind proxy " + squid.Addr + " (Squid ERR_CONNECT_FAIL)", evidence: "X-Squid-Error: ERR_CONNECT_FAIL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.reason == "" {
				t.Fatal("a case without an expected reason checks nothing")
			}
			p := newProber(t, Options{Env: []string{"HTTPS_PROXY=" + squid.URL, "HTTP_PROXY=" + squid.URL}})
			r := p.Probe(context.Background(), mustTarget(t, tc.target))
			if r.Verdict != tc.verdict || !strings.Contains(r.Reason, tc.reason) {
				t.Fatalf("verdict %s reason %q, want %s containing %q\n%+v", r.Verdict, r.Reason, tc.verdict, tc.reason, r)
			}
			if tc.evidence != "" && !hasLine(r.Evidence, tc.evidence) {
				t.Errorf("evidence %q lacks %q", r.Evidence, tc.evidence)
			}
			// Squid names its answers: no status endpoint, no canary
			if r.Requests != 1 || p.sent.Load() != 1 {
				t.Errorf("requests %d (sent %d), want 1", r.Requests, p.sent.Load())
			}
			if r.Proxy != squid.Addr || r.ProxySource == "" {
				t.Errorf("proxy %q source %q", r.Proxy, r.ProxySource)
			}
		})
	}
}

func TestProbeDeniedRemedy(t *testing.T) {
	t.Parallel()
	p := newProber(t, Options{Env: []string{"HTTPS_PROXY=" + squid.URL}})
	f := p.Probe(context.Background(), mustTarget(t, "dev.to")).Failure()
	want := "dev.to:443 is not on the egress allowlist of proxy " + squid.Addr + " (Squid ERR_ACCESS_DENIED). Waiting will not change this: add dev.to to the allowlist, or run where it is allowed."
	if f == nil || f.Class != failure.Policy || f.Reason+". "+f.Remedy != want {
		t.Fatalf("failure %+v\nwant %q", f, want)
	}
}

func TestProbeTinyproxy(t *testing.T) {
	t.Parallel()
	up, down := upstream(t), closedPort(t)
	for _, tc := range []struct {
		target  string
		verdict Verdict
		reason  string
	}{
		{target: "denied.test", verdict: Denied, reason: "denied.test:443 is not on the egress allowlist of proxy " + tiny.Addr + " (tinyproxy 403 Filtered)"},
		{target: "localhost:" + down, verdict: UpstreamUnreachable, reason: "localhost:" + down + " is unreachable behind proxy " + tiny.Addr + " (tinyproxy 500 Unable to connect)"},
		{target: "localhost:" + up, verdict: Allowed, reason: "proxy " + tiny.Addr + " lets localhost:" + up + " through (HTTP 200 Connection established)"},
		{target: "http://denied.test/", verdict: Denied, reason: "denied.test:80 is not on the egress allowlist of proxy " + tiny.Addr + " (tinyproxy 403 Filtered)"},
		// the upstream's own answer, relayed by tinyproxy
		{target: "http://localhost:" + up + "/", verdict: Allowed, reason: "proxy " + tiny.Addr + " lets localhost:" + up + " through (HTTP 418 "},
	} {
		t.Run(tc.target, func(t *testing.T) {
			t.Parallel()
			if tc.reason == "" {
				t.Fatal("a case without an expected reason checks nothing")
			}
			// curl's rules: localhost goes through the proxy too
			p := newProber(t, Options{Env: []string{"https_proxy=" + tiny.URL, "http_proxy=" + tiny.URL}})
			r := p.ProbeAs(context.Background(), ClientCurl, mustTarget(t, tc.target))
			if r.Verdict != tc.verdict || !strings.Contains(r.Reason, tc.reason) {
				t.Fatalf("verdict %s reason %q, want %s containing %q\n%+v", r.Verdict, r.Reason, tc.verdict, tc.reason, r)
			}
		})
	}
}

func TestProbeDirectWithNoProxy(t *testing.T) {
	t.Parallel()
	p := newProber(t, Options{Env: []string{"HTTPS_PROXY=" + squid.URL, "NO_PROXY=.allowed.test,dev.to"}})
	for _, target := range []string{"dev.to", "up.allowed.test:1", "localhost:1"} {
		r := p.Probe(context.Background(), mustTarget(t, target))
		if r.Verdict != Direct || r.Proxy != "" || r.Failure() != nil {
			t.Errorf("%s: %+v, want direct", target, r)
		}
	}
	if n := p.sent.Load(); n != 0 {
		t.Errorf("sent %d requests for direct targets", n)
	}
}

func TestProbeProxyDown(t *testing.T) {
	t.Parallel()
	addr, err := proxytest.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	p := newProber(t, Options{Env: []string{"HTTPS_PROXY=http://" + addr}})
	for i := range 2 {
		r := p.Probe(context.Background(), mustTarget(t, "dev.to"))
		if r.Verdict != ProxyUnreachable || r.Verdict.Class() != failure.Transient || !strings.Contains(r.Reason, "proxy "+addr+" is unreachable: connection refused") {
			t.Fatalf("probe %d: %+v", i, r)
		}
		if r.Cached {
			t.Error("an unanswered probe was cached")
		}
	}
	if p.sent.Load() != 2 {
		t.Errorf("sent %d, want 2 (no cache for an unreachable proxy)", p.sent.Load())
	}
}

func TestProbeStallingProxyTimesOut(t *testing.T) {
	t.Parallel()
	st, err := proxytest.NewStall()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := newProber(t, Options{Env: []string{"HTTPS_PROXY=http://" + st.Addr}, Timeout: 50 * time.Millisecond})
	start := time.Now()
	r := p.Probe(context.Background(), mustTarget(t, "dev.to"))
	if r.Verdict != ProxyUnreachable || !strings.Contains(r.Reason, "no answer within 50ms") {
		t.Fatalf("%+v", r)
	}
	if el := time.Since(start); el > 5*time.Second { // safety net: the bound is the timeout
		t.Errorf("probe took %s with a 50ms timeout", el)
	}
}

// TestProbeHonoursCancellation cancels a probe while the stalling proxy holds
// its connection (a one-hour timeout): it must end at once, as cancelled.
func TestProbeHonoursCancellation(t *testing.T) {
	t.Parallel()
	st, err := proxytest.NewStall()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := newProber(t, Options{Env: []string{"HTTPS_PROXY=http://" + st.Addr}, Timeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *Result)
	go func() { done <- p.Probe(ctx, mustTarget(t, "dev.to")) }()
	select {
	case <-st.Accepted(): // the probe is now waiting for an answer that never comes
	case r := <-done:
		t.Fatalf("the probe ended before the proxy accepted it: %+v", r)
	case <-time.After(10 * time.Second):
		t.Fatal("the probe never connected to the proxy")
	}
	cancel()
	select {
	case r := <-done:
		if r.Verdict != ProxyUnreachable || r.Reason != "proxy "+st.Addr+" is unreachable: cancelled" || r.Cached {
			t.Errorf("%+v, want the cancelled probe", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("probe ignored cancellation")
	}
}

func TestProbeCachesPerHost(t *testing.T) {
	t.Parallel()
	p := newProber(t, Options{Env: []string{"HTTPS_PROXY=" + squid.URL}})
	host := fmt.Sprintf("cache-%d.test", time.Now().UnixNano()) // unique in the shared log
	first := p.Probe(context.Background(), mustTarget(t, host))
	second := p.Probe(context.Background(), mustTarget(t, host))
	if first.Cached || !second.Cached || second.Reason != first.Reason || second.Verdict != Denied || second.Requests != 0 {
		t.Fatalf("first %+v\nsecond %+v", first, second)
	}
	if p.sent.Load() != 1 {
		t.Errorf("sent %d, want 1", p.sent.Load())
	}
	if n, err := squid.WaitLog(host, 1, 5*time.Second); err != nil || n != 1 {
		t.Errorf("Squid saw %d requests for %s (%v), want 1", n, host, err)
	}
}

func TestProbeGatewayStatusEndpoint(t *testing.T) {
	t.Parallel()
	const (
		unconfirmed = "dev.to:443 is not on the egress allowlist of proxy GW (bare 403 to CONNECT)"
		confirmed   = unconfirmed + ", confirmed by the proxy's status endpoint"
	)
	for _, tc := range []struct {
		name     string
		opts     proxytest.GatewayOptions
		status   string // Options.StatusURL; "gw" means the gateway's own URL
		timeout  time.Duration
		verdict  Verdict
		reason   string // the whole reason; GW stands for the gateway's address
		evidence string
		requests int
	}{
		{name: "bare 403 confirmed", verdict: Denied, requests: 2, reason: confirmed,
			evidence: "status endpoint: connect_rejected dev.to:443 at 20"},
		// no information from the status endpoint: the denial stands unconfirmed
		{name: "junk", opts: proxytest.GatewayOptions{Status: proxytest.StatusJunk}, verdict: Denied, requests: 2,
			reason: unconfirmed, evidence: "status endpoint: no information (not a JSON object)"},
		{name: "huge body", opts: proxytest.GatewayOptions{Status: proxytest.StatusHuge}, verdict: Denied, requests: 2,
			reason: unconfirmed, evidence: "status endpoint: no information (body over 64 KiB)"},
		{name: "slow", opts: proxytest.GatewayOptions{Status: proxytest.StatusSlow}, timeout: 100 * time.Millisecond, verdict: Denied, requests: 2,
			reason: unconfirmed, evidence: "status endpoint: no information (no answer within 100ms)"},
		{name: "missing", opts: proxytest.GatewayOptions{Status: proxytest.StatusMissing}, verdict: Denied, requests: 2,
			reason: unconfirmed, evidence: "status endpoint: no information (HTTP 404)"},
		{name: "off", status: StatusOff, verdict: Denied, requests: 1, reason: unconfirmed},
		{name: "explicit URL", status: "gw", verdict: Denied, requests: 2, reason: confirmed, evidence: "status endpoint: connect_rejected"},
		{name: "noProxy: client misconfiguration", opts: proxytest.GatewayOptions{NoProxy: []string{"localhost", ".dev.to", "dev.to"}}, verdict: Denied, requests: 2,
			reason: confirmed + "; the proxy says dev.to should not go through it at all (client misconfiguration)", evidence: "dev.to is in the proxy's noProxy list"},
		{name: "x-deny-reason needs no status", opts: proxytest.GatewayOptions{DenyHeader: http.Header{"X-Deny-Reason": {"host_not_allowed"}}}, verdict: Denied, requests: 1,
			reason: "dev.to:443 is not on the egress allowlist of proxy GW (x-deny-reason: host_not_allowed)"},
		{name: "Proxy-Status denial", opts: proxytest.GatewayOptions{DenyHeader: http.Header{"Proxy-Status": {"gw; error=destination_ip_prohibited"}}}, verdict: Denied, requests: 1,
			reason: "dev.to:443 is not on the egress allowlist of proxy GW (Proxy-Status error=destination_ip_prohibited)"},
		{name: "bare 407", opts: proxytest.GatewayOptions{DenyStatus: 407}, verdict: Denied, requests: 2,
			reason: "proxy GW refuses dev.to:443 without valid proxy credentials (bare 407 to CONNECT), confirmed by the proxy's status endpoint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gw := proxytest.NewGateway(tc.opts)
			defer gw.Close()
			status := tc.status
			if status == "gw" {
				status = gw.URL + proxytest.StatusPath
			}
			p := newProber(t, Options{Env: []string{"HTTPS_PROXY=" + gw.URL}, StatusURL: status, Timeout: tc.timeout})
			r := p.Probe(context.Background(), mustTarget(t, "dev.to"))
			reason := strings.ReplaceAll(tc.reason, "GW", gw.Addr)
			if r.Verdict != tc.verdict || r.Reason != reason {
				t.Fatalf("verdict %s reason %q, want %s %q\n%q", r.Verdict, r.Reason, tc.verdict, reason, r.Evidence)
			}
			if tc.evidence != "" && !hasLine(r.Evidence, tc.evidence) {
				t.Errorf("evidence %q lacks %q", r.Evidence, tc.evidence)
			}
			if r.Requests != tc.requests || int(p.sent.Load()) != tc.requests {
				t.Errorf("requests %d (sent %d), want %d", r.Requests, p.sent.Load(), tc.requests)
			}
			if gw.Connects() != 1 {
				t.Errorf("gateway saw %d CONNECTs, want 1", gw.Connects())
			}
			if strings.Contains(tc.name, "misconfiguration") && (!r.Misconfigured || !strings.Contains(r.Remedy, "NO_PROXY")) {
				t.Errorf("misconfigured %v remedy %q", r.Misconfigured, r.Remedy)
			}
		})
	}
}

func TestProbeCanary(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	for _, tc := range []struct {
		name    string
		tunnels map[string]string
		verdict Verdict
		reason  string
	}{
		{name: "canary refused the same way: failing for everyone", verdict: ProxyFailing, reason: "answers the canary canary.test:443 the same way (bare 403 to CONNECT): it is failing for everyone, not denying dev.to:443"},
		{name: "canary allowed: the denial stands", tunnels: map[string]string{"canary.test:443": "127.0.0.1:" + up}, verdict: Denied, reason: "the canary canary.test:443 is allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gw := proxytest.NewGateway(proxytest.GatewayOptions{Tunnels: tc.tunnels})
			defer gw.Close()
			p := newProber(t, Options{Env: []string{"HTTPS_PROXY=" + gw.URL}, Canary: "canary.test:443"})
			r := p.Probe(context.Background(), mustTarget(t, "dev.to"))
			if r.Verdict != tc.verdict || !strings.Contains(r.Reason, tc.reason) {
				t.Fatalf("verdict %s reason %q, want %s containing %q", r.Verdict, r.Reason, tc.verdict, tc.reason)
			}
			if r.Requests != 3 || gw.Connects() != 2 || gw.StatusRequests() != 1 {
				t.Errorf("requests %d, CONNECTs %d, status GETs %d; want 3, 2, 1", r.Requests, gw.Connects(), gw.StatusRequests())
			}
			if !hasLine(r.Evidence, "canary: CONNECT canary.test:443") {
				t.Errorf("evidence %q", r.Evidence)
			}
		})
	}
	// the canary is only asked about bare answers: Squid's named denial stands alone
	p := newProber(t, Options{Env: []string{"HTTPS_PROXY=" + squid.URL}, Canary: "up.allowed.test:" + up})
	if r := p.Probe(context.Background(), mustTarget(t, "dev.to")); r.Verdict != Denied || r.Requests != 1 {
		t.Errorf("%+v", r)
	}
}

func TestProbeMasksProxyCredentials(t *testing.T) {
	t.Parallel()
	gw := proxytest.NewGateway(proxytest.GatewayOptions{})
	defer gw.Close()
	proxyURL := strings.Replace(gw.URL, "http://", "http://probe-user:s3cretPW@", 1)
	p := newProber(t, Options{Env: []string{"HTTPS_PROXY=" + proxyURL}})
	r := p.Probe(context.Background(), mustTarget(t, "dev.to"))
	b, _ := json.Marshal(r)
	f := r.Failure()
	all := string(b) + f.Error() + f.Remedy + strings.Join(f.Evidence, "\n")
	if r.Verdict != Denied || strings.Contains(all, "s3cretPW") || strings.Contains(all, "probe-user") {
		t.Fatalf("credentials leaked or wrong verdict:\n%s", all)
	}
	if !strings.Contains(r.Reason, gw.Addr) {
		t.Errorf("reason %q does not name the proxy", r.Reason)
	}
}

func TestNewValidatesOptions(t *testing.T) {
	for _, o := range []Options{{Canary: "https://x.test/"}, {Canary: "x.test:0"}, {StatusURL: "ftp://x"}, {StatusURL: "not a url"}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
	for _, o := range []Options{{}, {StatusURL: "off"}, {StatusURL: "OFF"}, {Canary: "example.org:443", StatusURL: "http://127.0.0.1:1/s"}} {
		if _, err := New(o); err != nil {
			t.Errorf("New(%+v): %v", o, err)
		}
	}
}

func TestProbeSocksProxyIsUnclear(t *testing.T) {
	t.Parallel()
	p := newProber(t, Options{Env: []string{"https_proxy=socks5://127.0.0.1:1080"}})
	r := p.ProbeAs(context.Background(), ClientCurl, mustTarget(t, "dev.to"))
	if r.Verdict != Unclear || !strings.Contains(r.Reason, "unsupported proxy scheme") || p.sent.Load() != 0 {
		t.Fatalf("%+v", r)
	}
	r = p.ProbeVia(context.Background(), &Proxy{URL: &url.URL{Scheme: "socks5", Host: "127.0.0.1:1080"}, Addr: "127.0.0.1:1080"}, mustTarget(t, "dev.to"))
	if r.Verdict != Unclear || !strings.Contains(r.Reason, "only http and https proxies are probed") {
		t.Fatalf("%+v", r)
	}
}
