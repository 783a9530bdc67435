package failure

import (
	"net/http"
	"strings"
	"testing"
)

func TestReadProxyAnswer(t *testing.T) {
	squid := func(code string) http.Header {
		return http.Header{"Server": {"squid/5.7"}, "X-Squid-Error": {code}, "Via": {"1.1 proxytest (squid/5.7)"}}
	}
	tiny := http.Header{"Server": {"tinyproxy/1.11.1"}, "Content-Type": {"text/html"}}
	for _, tc := range []struct {
		name    string
		a       ProxyAnswer
		verdict ProxyVerdict
		class   Class
		dialect string
		code    string
		bare    bool
		label   string
	}{
		// answers measured on Squid 5.7
		{name: "Squid denied", a: ProxyAnswer{Status: 403, Reason: "Forbidden", Header: squid("ERR_ACCESS_DENIED 0")}, verdict: ProxyDenied, class: Policy, dialect: DialectSquid, code: "ERR_ACCESS_DENIED", label: "Squid ERR_ACCESS_DENIED"},
		{name: "Squid refused upstream", a: ProxyAnswer{Status: 503, Reason: "Service Unavailable", Header: squid("ERR_CONNECT_FAIL 111")}, verdict: ProxyUpstreamFailed, class: Transient, code: "ERR_CONNECT_FAIL", dialect: DialectSquid},
		{name: "Squid DNS failure on CONNECT", a: ProxyAnswer{Status: 500, Reason: "Internal Server Error", Header: squid("ERR_CANNOT_FORWARD 0")}, verdict: ProxyUpstreamFailed, class: Transient, code: "ERR_CANNOT_FORWARD", dialect: DialectSquid},
		{name: "Squid DNS failure on GET", a: ProxyAnswer{Method: "HEAD", Status: 502, Reason: "Bad Gateway", Header: squid("ERR_READ_ERROR 0")}, verdict: ProxyUpstreamFailed, class: Transient, code: "ERR_READ_ERROR", dialect: DialectSquid},
		{name: "Squid DNS fail", a: ProxyAnswer{Status: 503, Header: squid("ERR_DNS_FAIL 0")}, verdict: ProxyUpstreamFailed, class: Transient, dialect: DialectSquid},
		{name: "Squid read timeout", a: ProxyAnswer{Status: 504, Header: squid("ERR_READ_TIMEOUT 0")}, verdict: ProxyUpstreamFailed, class: Transient, dialect: DialectSquid},
		{name: "Squid size limit", a: ProxyAnswer{Status: 413, Header: squid("ERR_TOO_BIG 0")}, verdict: ProxyRejected, class: Structural, dialect: DialectSquid},
		{name: "Squid wants credentials", a: ProxyAnswer{Status: 407, Header: squid("ERR_CACHE_ACCESS_DENIED 0")}, verdict: ProxyAuthRequired, class: Policy, dialect: DialectSquid},
		{name: "Squid denied, lower-case key", a: ProxyAnswer{Status: 403, Header: http.Header{"x-squid-error": {"ERR_ACCESS_DENIED 0"}}}, verdict: ProxyDenied, class: Policy, dialect: DialectSquid},
		// answers measured on tinyproxy 1.11.1
		{name: "tinyproxy filtered", a: ProxyAnswer{Status: 403, Reason: "Filtered", Header: tiny, Body: []byte("<p>The request you made has been filtered</p>")}, verdict: ProxyDenied, class: Policy, dialect: DialectTinyproxy, code: "Filtered", label: "tinyproxy 403 Filtered"},
		{name: "tinyproxy access violation", a: ProxyAnswer{Status: 403, Reason: "Access violation", Header: tiny}, verdict: ProxyDenied, class: Policy, dialect: DialectTinyproxy, code: "Access violation"},
		{name: "tinyproxy upstream down", a: ProxyAnswer{Status: 500, Reason: "Unable to connect", Header: tiny, Body: []byte("<p>Tinyproxy was unable to connect to the remote web server.</p>")}, verdict: ProxyUpstreamFailed, class: Transient, dialect: DialectTinyproxy},
		{name: "tinyproxy page without headers", a: ProxyAnswer{Status: 403, Body: []byte("<p>The request you made has been filtered</p>")}, verdict: ProxyDenied, class: Policy, dialect: DialectTinyproxy},
		// sandbox gateways
		{name: "gateway x-deny-reason", a: ProxyAnswer{Status: 403, Header: http.Header{"X-Deny-Reason": {"host_not_allowed"}}}, verdict: ProxyDenied, class: Policy, dialect: DialectGateway, code: "host_not_allowed", label: "x-deny-reason: host_not_allowed"},
		{name: "Proxy-Status denial", a: ProxyAnswer{Status: 403, Header: http.Header{"Proxy-Status": {`egress; error=destination_ip_prohibited; details="not on the list, sorry"`}}}, verdict: ProxyDenied, class: Policy, dialect: DialectProxyStatus, code: "destination_ip_prohibited", label: "Proxy-Status error=destination_ip_prohibited"},
		{name: "Proxy-Status request denied, second member", a: ProxyAnswer{Status: 403, Header: http.Header{"Proxy-Status": {`cdn, "corp; proxy"; error="http_request_denied"`}}}, verdict: ProxyDenied, class: Policy, code: "http_request_denied"},
		{name: "Proxy-Status DNS error", a: ProxyAnswer{Status: 502, Header: http.Header{"Proxy-Status": {`gw; error=dns_error; rcode=NXDOMAIN`}}}, verdict: ProxyUpstreamFailed, class: Transient, code: "dns_error"},
		{name: "Proxy-Status TLS inspection certificate", a: ProxyAnswer{Status: 502, Header: http.Header{"Proxy-Status": {`gw; error=tls_certificate_error`}}}, verdict: ProxyUnclear, class: Unknown},
		{name: "Proxy-Status without error is ignored", a: ProxyAnswer{Status: 503, Header: http.Header{"Proxy-Status": {`gw; received-status=503`}}}, verdict: ProxyUpstreamFailed, class: Transient, dialect: DialectBare},
		// agent sandboxes' proxies, their exact CONNECT denials (srt's http-proxy.ts, Codex's responses.rs)
		{name: "srt CONNECT denial", a: ProxyAnswer{Status: 403, Reason: "Forbidden", Header: http.Header{"Content-Type": {"text/plain"}, "X-Proxy-Error": {"blocked-by-allowlist"}}, Body: []byte("Connection blocked by network allowlist")}, verdict: ProxyDenied, class: Policy, dialect: DialectSandbox, code: "blocked-by-allowlist", label: "srt x-proxy-error: blocked-by-allowlist"},
		{name: "Codex CONNECT denial", a: ProxyAnswer{Status: 403, Reason: "Forbidden", Header: http.Header{"x-proxy-error": {"blocked-by-allowlist"}}, Body: []byte(`CODEX_NETWORK_POLICY_DECISION {"decision":"deny","reason":"not_allowed","source":"baseline_policy","protocol":"https_connect","host":"blocked.example","port":443}` + "\nCodex blocked this request: domain not in allowlist (this is not a denylist block).\n")}, verdict: ProxyDenied, class: Policy, dialect: DialectSandbox, code: "blocked-by-allowlist", label: "Codex x-proxy-error: blocked-by-allowlist"},
		{name: "Codex denylist", a: ProxyAnswer{Status: 403, Header: http.Header{"X-Proxy-Error": {"blocked-by-denylist"}}}, verdict: ProxyDenied, class: Policy, dialect: DialectSandbox, code: "blocked-by-denylist"},
		{name: "srt body without the header", a: ProxyAnswer{Status: 403, Body: []byte("Connection blocked by network allowlist")}, verdict: ProxyDenied, class: Policy, dialect: DialectSandbox},
		// corporate reason phrases
		{name: "URLBlocked", a: ProxyAnswer{Status: 403, Reason: "URLBlocked"}, verdict: ProxyDenied, class: Policy, dialect: DialectCorporate, code: "URLBlocked", label: "corporate proxy 403 URLBlocked"},
		{name: "Websense tunnel forbidden", a: ProxyAnswer{Status: 403, Reason: "Tunnel or SSL Forbidden", Header: http.Header{"Via": {"1.1 WCG1"}}}, verdict: ProxyDenied, class: Policy, dialect: DialectCorporate, code: "Tunnel or SSL Forbidden"},
		// any proxy
		{name: "bare 403", a: ProxyAnswer{Status: 403, Reason: "Forbidden"}, verdict: ProxyDenied, class: Policy, dialect: DialectBare, bare: true, label: "bare 403 to CONNECT"},
		{name: "bare 403 without phrase", a: ProxyAnswer{Status: 403}, verdict: ProxyDenied, class: Policy, bare: true},
		{name: "bare 407", a: ProxyAnswer{Status: 407, Reason: "Proxy Authentication Required"}, verdict: ProxyAuthRequired, class: Policy, bare: true},
		{name: "bare 502", a: ProxyAnswer{Status: 502}, verdict: ProxyUpstreamFailed, class: Transient},
		{name: "CONNECT 200", a: ProxyAnswer{Status: 200, Reason: "Connection established"}, verdict: ProxyAllowed},
		{name: "absolute-form answer forwarded", a: ProxyAnswer{Method: "HEAD", Status: 403, Header: http.Header{"Via": {"1.1 proxytest (squid/5.7)"}}}, verdict: ProxyAllowed},
		{name: "absolute-form 404 forwarded", a: ProxyAnswer{Method: "HEAD", Status: 404, Header: http.Header{"Via": {"1.1 tinyproxy (tinyproxy/1.11.1)"}}}, verdict: ProxyAllowed},
		{name: "absolute-form bare 403 from the proxy", a: ProxyAnswer{Method: "HEAD", Status: 403}, verdict: ProxyDenied, class: Policy, bare: true, label: "bare 403 to HEAD"},
		{name: "odd status", a: ProxyAnswer{Status: 418}, verdict: ProxyUnclear, class: Unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ReadProxyAnswer(tc.a)
			if r.Verdict != tc.verdict || r.Bare != tc.bare {
				t.Fatalf("verdict %s bare %v, want %s bare %v (%+v)", r.Verdict, r.Bare, tc.verdict, tc.bare, r)
			}
			if tc.dialect != "" && r.Dialect != tc.dialect {
				t.Errorf("dialect %q, want %q", r.Dialect, tc.dialect)
			}
			if tc.code != "" && r.Code != tc.code {
				t.Errorf("code %q, want %q", r.Code, tc.code)
			}
			if tc.label != "" && r.Label(tc.a) != tc.label {
				t.Errorf("label %q, want %q", r.Label(tc.a), tc.label)
			}
			if tc.verdict == ProxyAllowed {
				if r.Failure != nil {
					t.Errorf("allowed answer has a failure: %v", r.Failure)
				}
				return
			}
			if tc.dialect == DialectSandbox {
				want := "allowedDomains"
				if strings.Contains(string(tc.a.Body), "CODEX") {
					want = "allowed_domains"
				}
				if r.Failure == nil || r.Failure.Code != CodeSandboxDenied || !strings.Contains(r.Failure.Remedy, want) {
					t.Errorf("sandbox denial: %+v, want %s naming %s", r.Failure, CodeSandboxDenied, want)
				}
			}
			if r.Failure == nil || r.Failure.Class != tc.class {
				t.Fatalf("failure %v, want class %s", r.Failure, tc.class)
			}
			if len(r.Failure.Evidence) == 0 || !strings.HasPrefix(r.Failure.Evidence[0], "HTTP ") || r.Failure.Remedy == "" {
				t.Errorf("evidence %q remedy %q: want the status first and a remedy", r.Failure.Evidence, r.Failure.Remedy)
			}
		})
	}
}

// TestTraceOfClientOutput reads what a client's output says about the way to
// the server: the trace the egress diagnosis reads.
func TestTraceOfClientOutput(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tool    Tool
		text    string
		exit    int
		network bool
		status  int
		url     string
		tunnel  string
		http    int
	}{
		{name: "curl -f on a plain-http 403", tool: ToolCurl, text: "curl: (22) The requested URL returned error: 403\n", exit: 22, http: 403},
		{name: "curl new wording", tool: ToolCurl, text: "curl: (56) CONNECT tunnel failed, response 403\n", exit: 56, network: true, status: 403},
		{name: "curl old wording", tool: ToolAuto, text: "curl: (56) Received HTTP code 403 from proxy after CONNECT", exit: 56, network: true, status: 403},
		{name: "curl verbose tunnel", tool: ToolCurl, text: "* Establish HTTP proxy tunnel to dev.to:443\n> CONNECT dev.to:443 HTTP/1.1\n< HTTP/1.1 403 Forbidden\ncurl: (56) CONNECT tunnel failed, response 403\n", exit: 56, network: true, status: 403, tunnel: "dev.to:443"},
		{name: "curl silent, exit code only", tool: ToolCurl, text: "", exit: 7, network: true},
		{name: "curl refused", tool: ToolAuto, text: "curl: (7) Failed to connect to 127.0.0.1 port 9: Connection refused", exit: 7, network: true},
		{name: "curl 22 is not network", tool: ToolCurl, text: "curl: (22) The requested URL returned error: 404", exit: 22, http: 404},
		{name: "git through a proxy", tool: ToolAuto, text: "fatal: unable to access 'https://denied.test/r.git/': CONNECT tunnel failed, response 403\n", exit: 128, network: true, status: 403, url: "https://denied.test/r.git/"},
		{name: "git proxy 503", tool: ToolGit, text: "fatal: unable to access 'https://down.allowed.test:1/r.git/': Received HTTP code 503 from proxy after CONNECT\n", exit: 128, network: true, status: 503, url: "https://down.allowed.test:1/r.git/"},
		{name: "git connect timeout", tool: ToolGit, text: "fatal: unable to access 'https://github.com/o/r/': Failed to connect to github.com port 443 after 130000 ms: Connection timed out", exit: 128, network: true, url: "https://github.com/o/r/"},
		{name: "git aborted CONNECT", tool: ToolGit, text: "fatal: unable to access 'https://github.com/o/r/': Proxy CONNECT aborted", exit: 128, network: true, url: "https://github.com/o/r/"},
		{name: "certificate problem is not network", tool: ToolGit, text: "fatal: unable to access 'https://github.com/o/r/': SSL certificate problem: self-signed certificate in certificate chain", exit: 128, url: "https://github.com/o/r/"},
		{name: "Go bare phrase of a refused CONNECT", tool: ToolAuto, text: `Get "https://dev.to/api": Forbidden`, exit: 1, network: true, status: 403, url: "https://dev.to/api"},
		{name: "Go proxy down", tool: ToolAuto, text: `Get "https://dev.to/api": proxyconnect tcp: dial tcp 127.0.0.1:9: connect: connection refused`, exit: 1, network: true, url: "https://dev.to/api"},
		{name: "Go 404 body is not network", tool: ToolAuto, text: `Get "https://dev.to/api": unexpected status Not Found`, exit: 1, url: "https://dev.to/api"},
		{name: "non-fast-forward is not network", tool: ToolGit, text: " ! [rejected]        main -> main (non-fast-forward)\nerror: failed to push some refs to 'https://github.com/o/r'", exit: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := FromText(tc.tool, tc.text, tc.exit).Trace
			if tr.Network != tc.network || tr.ConnectStatus != tc.status || tr.URL != tc.url || tr.Tunnel != tc.tunnel || tr.Status != tc.http {
				t.Fatalf("trace %+v, want network %v status %d url %q tunnel %q http %d", tr, tc.network, tc.status, tc.url, tc.tunnel, tc.http)
			}
		})
	}
}
