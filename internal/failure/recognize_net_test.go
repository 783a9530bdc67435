package failure

import "testing"

// Network failures worded the same way by other clients.
func TestNetOtherClients(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "apt resolve", tool: ToolAuto, exit: 100, text: "Err:1 http://archive.ubuntu.com/ubuntu jammy InRelease\n  Temporary failure resolving 'archive.ubuntu.com'\n", class: Transient, code: "dns-failure", reason: "could not resolve host archive.ubuntu.com"},
		{name: "apt proxy 403", tool: ToolAuto, exit: 100, text: "E: Failed to fetch https://download.docker.com/linux/ubuntu/dists/jammy/InRelease  Received HTTP code 403 from proxy after CONNECT\n", class: Policy, code: "proxy-denied"},
		{name: "npm reset", tool: ToolAuto, exit: 1, text: "npm ERR! code ECONNRESET\nnpm ERR! network aborted\n", class: Transient, code: "connection-reset"},
		{name: "npm dns", tool: ToolAuto, exit: 1, text: "npm ERR! request to https://registry.npmjs.org/react failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org\n", class: Transient, code: "dns-failure"},
		{name: "npm timeout", tool: ToolAuto, exit: 1, text: "npm ERR! code ETIMEDOUT\nnpm ERR! errno ETIMEDOUT\n", class: Transient, code: "timeout"},
		{name: "pip read timeout", tool: ToolAuto, exit: 1, text: "pip._vendor.urllib3.exceptions.ReadTimeoutError: HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Read timed out.\n", class: Transient, code: "timeout"},
		{name: "pip cert", tool: ToolAuto, exit: 1, text: "Could not fetch URL https://pypi.org/simple/pip/: There was a problem confirming the ssl certificate: HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded with url: /simple/pip/ (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1129)')))\n", class: Unknown, code: "tls-certificate", remedy: "environment must change"},
		{name: "wget timeout", tool: ToolAuto, exit: 4, text: "Connecting to example.com (example.com)|93.184.216.34|:443... failed: Connection timed out.\n", class: Transient, code: "timeout"},
		{name: "wget refused", tool: ToolAuto, exit: 4, text: "Connecting to 127.0.0.1:9000... failed: Connection refused.\n", class: Transient, code: "connection-refused", reason: "connection refused"},
		{name: "unreachable", tool: ToolAuto, exit: 1, text: "ssh: connect to host 10.1.2.3 port 22: No route to host\n", class: Transient, code: "network-unreachable", reason: "no route to host"},
		{name: "docker pull rate limit", tool: ToolAuto, exit: 1, text: "Error response from daemon: toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit\n", class: Policy, code: CodeRateLimitWindow, reason: "rate limit"},
		{name: "windows forcibly closed", tool: ToolAuto, exit: 1, text: "System.Net.WebException: Unable to read data from the transport connection: An existing connection was forcibly closed by the remote host.\n", class: Transient, code: "connection-reset"},
		{name: "windows actively refused", tool: ToolAuto, exit: 1, text: "No connection could be made because the target machine actively refused it. 127.0.0.1:5432\n", class: Transient, code: "connection-refused"},
		{name: "gateway time-out page", tool: ToolAuto, exit: 1, text: "<html><head><title>504 Gateway Time-out</title></head>\n", class: Transient, code: "timeout"},
		{name: "echoed timeout flag is not a timeout", tool: ToolAuto, exit: 2, text: "+ curl --connect-timeout 10 --max-time 60 https://x.example\nusage: weird\n", class: Unknown, code: "unknown"},
		{name: "ca-certificates package is not a cert problem", tool: ToolAuto, exit: 1, text: "Setting up ca-certificates (20230311) ...\nE: Unable to locate package nonexistent-pkg\n", class: Structural, code: "package-not-found", reason: "no such package"},
		{name: "proxy CONNECT aborted", tool: ToolAuto, exit: 56, text: "curl: (56) Proxy CONNECT aborted\n", class: Unknown, code: "proxy-connect-aborted", reason: "proxy CONNECT aborted"},
	})
}
