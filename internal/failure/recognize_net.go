package failure

import (
	"strings"
)

// Network and TLS failures worded the same by every client (curl, git through
// libcurl, ssh, Go, apt): name resolution, connects, timeouts, resets, TLS
// receive errors, certificate and negotiation problems, proxy CONNECT answers.

const (
	remedyRetryNet = "a network blip: retrying; if it persists, check connectivity to the host"
	// RemedyEnvCert is the remedy of a failure only a change of the
	// environment (a CA certificate, the host name, the clock) fixes.
	RemedyEnvCert    = "environment must change: install the missing CA certificate (ca-certificates, SSL_CERT_FILE, git http.sslCAInfo) or fix the host name or clock; retrying will not help"
	remedyEnvTLS     = "environment must change: client and server share no TLS version or cipher, or the port does not speak TLS (check the URL scheme and proxy settings); retrying will not help"
	remedyRefused    = "nothing accepted the connection (a restart, a deploy, a blip): retrying; if it persists, check the host, port and proxy settings, or a firewall that rejects them"
	remedyProxy403   = "the proxy denies the tunnel: add the host to the proxy's egress allowlist (or exclude it with NO_PROXY)"
	remedyProxy407   = "the proxy wants credentials: set them in the proxy URL (https_proxy=http://user:pass@proxy:port)"
	remedyProxy5xx   = "the proxy could not reach the upstream: retrying (a 5xx that never clears is proxy configuration)"
	remedyProxyOther = "the proxy refused the tunnel: check the proxy settings"
)

var (
	reDNS        = LazyRE(`(?i)resolve (?:host(?:name)?|proxy)|(?:could ?n[o']t|unable to|failed to|cannot) resolve|failure resolving|name resolution|name or service not known|no such host|nodename nor servname|server misbehaving|getaddrinfo|no address associated with hostname`)
	reDNSName    = LazyRE(`(?i)resolve (host(?:name)?|proxy)?[: ]*'?([^\s:'",;()]+)|resolving '([^\s:']+)|lookup ([^\s:]+)`)
	reRefused    = LazyRE(`(?i)connection refused|actively refused|ECONNREFUSED`)
	reConnectTo  = LazyRE(`(?i)(?:failed to connect to|connect to host) (\S+) port (\d+)|dial tcp (\[[^\]]*\]:\d+|[^\s:]+:\d+)`)
	reConnect    = LazyRE(`(?i)failed to connect to|could ?n[o']t connect to server|connect to host \S+ port \d+`)
	reTimeout    = LazyRE(`(?i)timed out|i/o timeout|handshake timeout|deadline exceeded|Client\.Timeout exceeded|gateway time-?out|request time-?out|timeout (?:was |has been )?(?:reached|exceeded|expired)|(?:connection|read|operation|connect) timeout|did not properly respond after a period of time|ETIMEDOUT`)
	reReset      = LazyRE(`(?i)connection (?:was )?reset|reset by peer|ECONNRESET|forcibly closed by the remote host|connection (?:was )?aborted|ECONNABORTED|broken pipe|EPIPE|send failure|recv failure|failure when receiving data from the peer|failed sending data to the peer|connection closed by (?:remote host|foreign host|\S+ port \d+)|closed by remote host|use of closed network connection|server closed idle connection|transport connection broken`)
	reUnreach    = LazyRE(`(?i)network is unreachable|no route to host|host is unreachable|EHOSTUNREACH|ENETUNREACH|network is down`)
	reTLSRecv    = LazyRE(`(?i)GnuTLS (?:recv|send) error|SSL_read|SSL_write|unexpected eof while reading|closed abruptly|non-properly terminated|SSL_ERROR_SYSCALL|failed to receive handshake|TLS connect error|SSL connect error|failed to read data from server|bad record mac|Error in the (?:pull|push) function`)
	reHTTP2      = LazyRE(`(?i)HTTP/2 stream \d+ was not closed cleanly|not closed cleanly|HTTP2 framing layer|GOAWAY|stream error: stream ID|received from peer`)
	reEmptyReply = LazyRE(`(?i)empty reply from server`)
	rePartial    = LazyRE(`(?i)transfer closed with .*remaining|end of response with \d+ bytes missing|partial file|outstanding read data remaining`)
	reCert       = LazyRE(`(?i)x509:|certificate (?:problem|verif|has expired|is not (?:yet )?valid|not trusted|signed by|chain|revoked|subject|rejected|required|unknown)|(?:ssl|server|peer|self[- ]signed|untrusted|invalid|expired|bad|client) certificate|failed to verify certificate|unable to get (?:local )?issuer|self[- ]signed|SEC_E_(?:UNTRUSTED_ROOT|CERT\w*|WRONG_PRINCIPAL)|CRYPT_E_\w+|CERT_TRUST_\w+|alert unknown ca|verify locations`)
	reTLSNeg     = LazyRE(`(?i)wrong version number|handshake failure|alert protocol version|unsupported protocol|no protocols available|no (?:shared )?cipher|inappropriate fallback|packet length too long|record layer failure`)
	reProxyCode  = LazyRE(`Received HTTP code (\d{3}) from proxy after CONNECT|CONNECT tunnel failed, response (\d{3})`)
	reHostKey    = LazyRE(`(?i)host key verification failed|remote host identification has changed`)
)

var netMatchers = []Matcher{
	{
		Gates: []string{"esolve host", "esolve proxy", "ould not resolve", "ouldn't resolve", "nable to resolve", "ailed to resolve", "annot resolve", "ailure resolving", "name resolution", "ame or service not known", "o such host", "nodename nor servname", "server misbehaving", "getaddrinfo", "o address associated with hostname"},
		RE:    reDNS,
		Build: func(_ *ScanCtx, line string, _ []string) (Hit, bool) {
			if notDNS(line) {
				return Hit{}, false
			}
			what, name := "host", ""
			if m := reDNSName.FindStringSubmatch(line); m != nil {
				if m[3]+m[4] != "" {
					name = m[3] + m[4]
				} else {
					name = m[2]
					if strings.EqualFold(m[1], "proxy") {
						what = "proxy"
					}
				}
			}
			if notAHostName(name) {
				return Hit{Class: Structural, Code: CodeHostNameInvalid, Rank: RankTransport + 1, Reason: "the name looked up is not a host name (" + Clip(name) + ")",
					Remedy: "the command looked up a URL scheme word or an unexpanded variable or template as a host: fix how the URL is built (the variable, the quoting, the secret); retrying cannot succeed"}, true
			}
			reason := "could not resolve " + what
			if name != "" {
				reason += " " + Clip(name)
			}
			tr := TrNet | TrNotSent
			if what == "proxy" {
				tr |= trProxy
			}
			return Hit{Class: Transient, Code: CodeDNS, Trace: tr, Rank: RankTransport, Reason: reason,
				Remedy: "DNS lookup failed: retrying; if it persists, check the host name and the resolver"}, true
		},
	},
	{
		Gates: []string{"onnection refused", "actively refused", "ECONNREFUSED"},
		RE:    reRefused,
		Build: func(_ *ScanCtx, line string, _ []string) (Hit, bool) {
			reason := "connection refused"
			if t := connectTarget(line); t != "" {
				reason += " by " + t
			}
			return Hit{Class: Transient, Code: CodeRefused, Trace: TrNet | TrNotSent, Rank: RankTransport, Reason: reason, Remedy: remedyRefused}, true
		},
	},
	{
		Gates: []string{"imed out", "timeout", "Timeout", "ime-out", "deadline exceeded", "did not properly respond", "ETIMEDOUT"},
		RE:    reTimeout,
		Build: func(_ *ScanCtx, line string, _ []string) (Hit, bool) {
			reason, tr := "operation timed out", TrNet
			l := strings.ToLower(line)
			switch {
			case strings.Contains(l, "handshake"):
				reason = "TLS handshake timeout"
			case strings.Contains(l, "resolv"):
				reason, tr = "name resolution timed out", TrNet|TrNotSent
			case strings.Contains(l, "gateway time"):
				reason = "gateway timeout"
			case strings.Contains(l, "failed to connect"), strings.Contains(l, "connect to"), strings.Contains(l, "dial tcp"):
				reason, tr = "connection timed out", TrNet|TrNotSent
			case strings.Contains(l, "connect"):
				reason = "connection timed out"
			}
			return Hit{Class: Transient, Code: CodeTimeout, Trace: tr, Rank: RankTransport, Reason: reason,
				Remedy: "the network or the server was too slow: retrying (raise the timeout if it keeps happening)"}, true
		},
	},
	{
		Gates: []string{"eset", "RESET", "forcibly closed", "borted", "ABORTED", "roken pipe", "EPIPE", "end failure", "ecv failure", "eceiving data from the peer", "ending data to the peer", "losed by", "closed network connection", "closed idle connection", "connection broken"},
		RE:    reReset,
		Build: func(_ *ScanCtx, line string, m []string) (Hit, bool) {
			reason := "connection reset"
			l := strings.ToLower(m[0])
			switch {
			case strings.Contains(l, "closed"):
				reason = "connection closed by the server"
			case strings.Contains(l, "abort"):
				reason = "connection aborted"
			case strings.Contains(l, "pipe") || strings.Contains(l, "send") || strings.Contains(l, "sending"):
				reason = "send failure (broken pipe)"
			case strings.Contains(l, "recv") || strings.Contains(l, "receiving"):
				if !strings.Contains(strings.ToLower(line), "reset") {
					reason = "receive failure"
				}
			}
			return Hit{Class: Transient, Code: CodeReset, Trace: TrNet, Rank: RankTransport, Reason: reason, Remedy: remedyRetryNet}, true
		},
	},
	{
		Gates: []string{"nreachable", "NREACH", "o route to host", "etwork is down"},
		RE:    reUnreach,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			return Hit{Class: Transient, Code: CodeUnreachable, Trace: TrNet | TrNotSent, Rank: RankTransport, Reason: strings.ToLower(m[0]), Remedy: remedyRetryNet}, true
		},
	},
	{
		Gates: []string{"GnuTLS", "SSL_read", "SSL_write", "nexpected eof", "losed abruptly", "non-properly terminated", "SSL_ERROR_SYSCALL", "failed to receive handshake", "TLS connect error", "SSL connect error", "failed to read data from server", "bad record mac", "rror in the pull function", "rror in the push function"},
		RE:    reTLSRecv,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Transient, Code: CodeTLSBroken, Trace: TrNet, Rank: RankTransport, Reason: "TLS connection broken (receive error or abrupt close)", Remedy: remedyRetryNet}, true
		},
	},
	{
		Gates: []string{"not closed cleanly", "HTTP2 framing", "GOAWAY", "stream error", "received from peer"},
		RE:    reHTTP2,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Transient, Code: CodeHTTP2Closed, Trace: TrNet, Rank: RankTransport, Reason: "HTTP/2 stream or connection closed by the server", Remedy: remedyRetryNet}, true
		},
	},
	{
		Gates: []string{"mpty reply"},
		RE:    reEmptyReply,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Transient, Code: CodeEmptyReply, Trace: TrNet, Rank: RankTransport, Reason: "empty reply from server", Remedy: remedyRetryNet}, true
		},
	},
	{
		Gates: []string{"transfer closed", "bytes missing", "artial file", "outstanding read data"},
		RE:    rePartial,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Transient, Code: CodeTransferCut, Trace: TrNet, Rank: RankTransport, Reason: "transfer cut short", Remedy: remedyRetryNet}, true
		},
	},
	{
		Gates: []string{"x509:", "ertificate", "issuer", "elf signed", "elf-signed", "SEC_E_", "CRYPT_E_", "CERT_TRUST_", "unknown ca", "verify locations"},
		RE:    reCert,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Unknown, Code: CodeTLSCertificate, Rank: rankConfig, Reason: "TLS certificate problem", Remedy: RemedyEnvCert}, true
		},
	},
	{
		Gates: []string{"wrong version number", "handshake failure", "protocol version", "nsupported protocol", "o protocols available", "cipher", "inappropriate fallback", "packet length too long", "record layer failure"},
		RE:    reTLSNeg,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Unknown, Code: CodeTLSNegotiation, Rank: rankConfig, Reason: "TLS negotiation failed", Remedy: remedyEnvTLS}, true
		},
	},
	{
		Gates: []string{"from proxy after CONNECT", "CONNECT tunnel failed"},
		RE:    reProxyCode,
		Build: func(c *ScanCtx, _ string, m []string) (Hit, bool) {
			code := Atoi(m[1])
			if code < 0 {
				code = Atoi(m[2])
			}
			c.Facts.connectStatus = code
			return proxyConnectHit(code), true
		},
	},
	{
		Gates: []string{"Proxy CONNECT aborted"},
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Unknown, Code: CodeProxyAborted, Trace: TrNet | trProxy, Rank: rankConfig, Reason: "proxy CONNECT aborted",
				Remedy: "the proxy closed the tunnel: check the proxy settings and its authentication (http.proxy, https_proxy); a dropped connection looks the same, so re-run by hand if the proxy is fine"}, true
		},
	},
	{
		Gates: []string{"ost key verification failed", "IDENTIFICATION HAS CHANGED", "identification has changed"},
		RE:    reHostKey,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Structural, Code: CodeSSHHostKey, Rank: rankConfig, Reason: "SSH host key not trusted", Remedy: remedySSHHostKey}, true
		},
	},
	// generic connect failures last: a timeout or refusal on the same line says more
	{
		Gates: []string{"ailed to connect", "onnect to server", "connect to host"},
		RE:    reConnect,
		Build: func(_ *ScanCtx, line string, _ []string) (Hit, bool) {
			reason := "could not connect"
			if t := connectTarget(line); t != "" {
				reason += " to " + t
			}
			return Hit{Class: Transient, Code: CodeConnectFailed, Trace: TrNet | TrNotSent, Rank: RankTransport, Reason: reason, Remedy: remedyRetryNet}, true
		},
	},
}

// notDNS reports whether a line's "failed to resolve" is rustc's (an
// unresolved path), a build script's, or BuildKit's or containerd's wrapper
// of an image reference ("failed to resolve source
// metadata for X:", "failed to resolve reference \"X\":"), not a name
// lookup, unless a lookup's own words are on the line too.
func notDNS(line string) bool {
	if strings.Contains(line, "failed to resolve: use of") || ReRustcError.MatchString(line) || strings.Contains(line, "resolve the url: 'file:") {
		return true // rustc's unresolved path, a build script's local URL
	}
	if !strings.Contains(line, "resolve source metadata for") && !strings.Contains(line, "resolve reference \"") {
		return false
	}
	for _, w := range []string{"no such host", "lookup ", "server misbehaving", "name resolution", "Temporary failure in name", "getaddrinfo"} {
		if strings.Contains(line, w) {
			return false
		}
	}
	return true
}

// proxyConnectHit classifies a proxy's answer to CONNECT: 403/407 are the
// proxy's decision, 5xx means the proxy could not reach the upstream.
func proxyConnectHit(code int) Hit {
	h := Hit{Rank: rankConfig, Trace: TrNet | trProxy | TrNotSent, Reason: "proxy refused CONNECT with " + StatusName(code)}
	switch {
	case code == 403 || code == 451:
		h.Class, h.Code, h.Remedy = Policy, CodeProxyDenied, remedyProxy403
	case code == 407 || code == 401:
		h.Class, h.Code, h.Remedy = Policy, CodeProxyAuth, remedyProxy407
	case code == 500 || code == 502 || code == 503 || code == 504:
		h.Class, h.Code, h.Remedy = Transient, CodeProxyUpstream, remedyProxy5xx
		h.Reason = "proxy CONNECT failed upstream with " + StatusName(code)
	default:
		h.Class, h.Code, h.Remedy = Unknown, CodeProxyConnect, remedyProxyOther
	}
	return h
}

// connectTarget returns "host:port" from a connect failure line, or "".
func connectTarget(line string) string {
	m := reConnectTo.FindStringSubmatch(line)
	switch {
	case m == nil:
		return ""
	case m[1] != "":
		return Clip(m[1] + ":" + m[2])
	default:
		return Clip(m[3])
	}
}

// CodeHostNameInvalid: the name looked up cannot be a host: a URL scheme
// word or an unexpanded variable or template.
const CodeHostNameInvalid Code = "host-name-invalid"

// notAHostName reports whether a looked-up name cannot be a host name: a
// URL scheme word ("HTTP", "https") or a name holding a variable's or a
// template's characters ("${HOST}", "{{.Host}}", "%HOST%").
func notAHostName(name string) bool {
	switch strings.ToLower(strings.TrimSuffix(name, ".")) {
	case "http", "https", "ftp", "ftps", "ssh", "git", "file":
		return true
	}
	return name != "" && strings.ContainsAny(name, "${}%<>`\\|^")
}
