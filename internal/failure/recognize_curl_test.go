package failure

import "testing"

func TestCurl(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "6 resolve", tool: ToolCurl, exit: 6, text: "curl: (6) Could not resolve host: api.example.com\n", class: Transient, code: "dns-failure", reason: "curl 6, could not resolve host api.example.com"},
		{name: "5 proxy resolve", tool: ToolCurl, exit: 5, text: "curl: (5) Could not resolve proxy: proxy.corp.example\n", class: Transient, code: "dns-failure", reason: "curl 5, could not resolve proxy proxy.corp.example"},
		{name: "7 couldn't connect", tool: ToolCurl, exit: 7, text: "curl: (7) Failed to connect to 10.0.0.5 port 8443 after 129 ms: Couldn't connect to server\n", class: Transient, code: "connect-failed", reason: "curl 7, could not connect to 10.0.0.5:8443"},
		{name: "7 refused", tool: ToolCurl, exit: 7, text: "curl: (7) Failed to connect to localhost port 8080: Connection refused\n", class: Transient, code: "connection-refused", reason: "curl 7, connection refused by localhost:8080", remedy: "retrying"},
		{name: "28 operation", tool: ToolCurl, exit: 28, text: "curl: (28) Operation timed out after 30001 milliseconds with 0 bytes received\n", class: Transient, code: "timeout", reason: "curl 28, operation timed out"},
		{name: "28 connect", tool: ToolCurl, exit: 28, text: "curl: (28) Connection timed out after 10001 milliseconds\n", class: Transient, code: "timeout", reason: "curl 28, connection timed out"},
		{name: "28 resolve", tool: ToolCurl, exit: 28, text: "curl: (28) Resolving timed out after 5000 milliseconds\n", class: Transient, code: "timeout", reason: "curl 28, name resolution timed out"},
		{name: "35 reset", tool: ToolCurl, exit: 35, text: "curl: (35) OpenSSL SSL_connect: Connection reset by peer in connection to example.com:443 \n", class: Transient, code: "connection-reset", reason: "curl 35, connection reset"},
		{name: "35 syscall", tool: ToolCurl, exit: 35, text: "curl: (35) OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to github.com:443 \n", class: Transient, code: "tls-connection-broken"},
		{name: "35 plain", tool: ToolCurl, exit: 35, text: "curl: (35) SSL connect error\n", class: Transient, code: "tls-connection-broken"},
		{name: "35 wrong version", tool: ToolCurl, exit: 35, text: "curl: (35) error:0A00010B:SSL routines::wrong version number\n", class: Unknown, code: "tls-negotiation", reason: "TLS negotiation failed", remedy: "environment must change"},
		{name: "35 handshake alert", tool: ToolCurl, exit: 35, text: "curl: (35) OpenSSL/3.0.2: error:0A000410:SSL routines::sslv3 alert handshake failure\n", class: Unknown, code: "tls-negotiation"},
		{name: "35 untrusted root", tool: ToolCurl, exit: 35, text: "curl: (35) schannel: next InitializeSecurityContext failed: SEC_E_UNTRUSTED_ROOT (0x80090325) - The certificate chain was issued by an authority that is not trusted.\n", class: Unknown, code: "tls-certificate", reason: "certificate"},
		{name: "52 empty reply", tool: ToolCurl, exit: 52, text: "curl: (52) Empty reply from server\n", class: Transient, code: "empty-reply", reason: "curl 52, empty reply from server"},
		{name: "55 send", tool: ToolCurl, exit: 55, text: "curl: (55) Failed sending data to the peer\n", class: Transient, code: "connection-reset"},
		{name: "56 eof", tool: ToolCurl, exit: 56, text: "curl: (56) OpenSSL SSL_read: error:0A000126:SSL routines::unexpected eof while reading, errno 0\n", class: Transient, code: "tls-connection-broken"},
		{name: "56 reset over SSL", tool: ToolCurl, exit: 56, text: "curl: (56) OpenSSL SSL_read: Connection reset by peer, errno 104\n", class: Transient, code: "connection-reset"},
		{name: "56 tunnel 403 (curl >= 7.87)", tool: ToolCurl, exit: 56, text: "curl: (56) CONNECT tunnel failed, response 403\n", class: Policy, code: "proxy-denied", reason: "proxy refused CONNECT with HTTP 403", remedy: "allowlist"},
		{name: "56 proxy 407", tool: ToolCurl, exit: 56, text: "curl: (56) Received HTTP code 407 from proxy after CONNECT\n", class: Policy, code: "proxy-auth-required"},
		{name: "56 tunnel 502", tool: ToolCurl, exit: 56, text: "curl: (56) CONNECT tunnel failed, response 502\n", class: Transient, code: "proxy-upstream-failed"},
		{name: "56 tunnel 504", tool: ToolCurl, exit: 56, text: "curl: (56) Received HTTP code 504 from proxy after CONNECT\n", class: Transient, code: "proxy-upstream-failed"},
		{name: "18 partial", tool: ToolCurl, exit: 18, text: "curl: (18) transfer closed with 3469 bytes remaining to read\n", class: Transient, code: "transfer-incomplete"},
		{name: "18 new wording", tool: ToolCurl, exit: 18, text: "curl: (18) end of response with 12 bytes missing\n", class: Transient, code: "transfer-incomplete"},
		{name: "92 http2", tool: ToolCurl, exit: 92, text: "curl: (92) HTTP/2 stream 1 was not closed cleanly: INTERNAL_ERROR (err 2)\n", class: Transient, code: "http2-stream-closed"},
		{name: "22 404 old wording", tool: ToolCurl, exit: 22, text: "curl: (22) The requested URL returned error: 404 Not Found\n", class: Absent, code: "http-404", reason: "curl 22, HTTP 404 Not Found"},
		{name: "22 403", tool: ToolCurl, exit: 22, text: "curl: (22) The requested URL returned error: 403\n", class: Policy, code: "http-403"},
		{name: "22 503", tool: ToolCurl, exit: 22, text: "curl: (22) The requested URL returned error: 503\n", class: Transient, code: "http-503"},
		{name: "22 400 from curl is the server's verdict", tool: ToolCurl, exit: 22, text: "curl: (22) The requested URL returned error: 400\n", class: Structural, code: "http-400"},
		{name: "22 404 on a POST", tool: ToolCurl, exit: 22, text: "> POST /v1/items HTTP/1.1\n> Host: api.example.com\ncurl: (22) The requested URL returned error: 404\n", class: Structural, code: "http-404"},
		{name: "60 issuer", tool: ToolCurl, exit: 60, text: "curl: (60) SSL certificate problem: unable to get local issuer certificate\nMore details here: https://curl.se/docs/sslcerts.html\n", class: Unknown, code: "tls-certificate", remedy: "environment must change"},
		{name: "60 subject", tool: ToolCurl, exit: 60, text: "curl: (60) SSL: no alternative certificate subject name matches target host name 'api.internal'\n", class: Unknown, code: "tls-certificate"},
		{name: "77 CA file", tool: ToolCurl, exit: 77, text: "curl: (77) error setting certificate verify locations:  CAfile: /etc/ssl/certs/ca-certificates.crt CApath: none\n", class: Unknown, code: "tls-certificate"},
		{name: "3 malformed", tool: ToolCurl, exit: 3, text: "curl: (3) URL using bad/illegal format or missing URL\n", class: Structural, code: "curl-3", reason: "curl 3, URL malformed"},
		{name: "1 protocol", tool: ToolCurl, exit: 1, text: "curl: (1) Protocol \"htps\" not supported\n", class: Structural, code: "curl-1"},
		{name: "2 init", tool: ToolCurl, exit: 2, text: "curl: (2) Failed initialization\n", class: Structural, code: "curl-2"},
		{name: "47 redirects", tool: ToolCurl, exit: 47, text: "curl: (47) Maximum (50) redirects followed\n", class: Structural, code: "curl-47", reason: "curl 47, too many redirects"},
		{name: "67 login", tool: ToolCurl, exit: 67, text: "curl: (67) Access denied: 530\n", class: Policy, code: "curl-67"},
		{name: "unknown code", tool: ToolCurl, exit: 99, text: "curl: (99) something odd\n", class: Unknown, code: "curl-99", reason: "curl 99, something odd"},
		{name: "exit only 28", tool: ToolCurl, exit: 28, text: "", class: Transient, code: "curl-28", reason: "curl 28, operation timed out", evidence: []string{"exit code 28"}},
		{name: "exit only 6 after a silent meter", tool: ToolCurl, exit: 6, text: "  % Total    % Received % Xferd  Average Speed   Time\n", class: Transient, code: "curl-6"},
		{name: "exit only 22", tool: ToolCurl, exit: 22, text: "", class: Unknown, code: "curl-22", remedy: "--show-error"},
		{name: "exit only 60", tool: ToolCurl, exit: 60, text: "", class: Unknown, code: "curl-60"},
		{name: "verbose proxy refusal, silent", tool: ToolCurl, exit: 56, text: "* Establish HTTP proxy tunnel to example.org:443\n< HTTP/1.1 403 Forbidden\n* Received HTTP code 403 from proxy after CONNECT\n", class: Policy, code: "proxy-denied"},
		{name: "verbose Squid header", tool: ToolCurl, exit: 56, text: "< HTTP/1.1 503 Service Unavailable\n< X-Squid-Error: ERR_DNS_FAIL 0\ncurl: (56) CONNECT tunnel failed, response 503\n", class: Transient, code: "proxy-upstream-failed"},
		{name: "curl in a script (auto)", tool: ToolAuto, exit: 1, text: "+ curl -fsSL https://get.example.sh\ncurl: (28) Failed to connect to get.example.sh port 443 after 75003 ms: Timeout was reached\n", class: Transient, code: "timeout", reason: "curl 28"},
	})
}

func TestCurlCodesAreTotal(t *testing.T) {
	for code := 0; code < 120; code++ {
		f := FromText(ToolCurl, "", code)
		if err := textInvariants(f, "", code); err != nil {
			t.Errorf("exit %d: %v", code, err)
		}
	}
}
