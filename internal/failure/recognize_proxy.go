package failure

import (
	"net/http"
	"strconv"
	"strings"
)

// A forward proxy's own answer to CONNECT (or to an absolute-form request for a
// plain-http target) says whether the proxy let the target through, refused it
// (policy), or could not reach it (transient). Each proxy words this in its own
// dialect; ReadProxyAnswer knows Squid, tinyproxy, sandbox gateways, RFC 9209
// Proxy-Status and corporate reason phrases, and falls back to the bare status.

// ProxyAnswer is a forward proxy's answer to one request.
type ProxyAnswer struct {
	// Method is CONNECT, or the method of an absolute-form request (HEAD); "" means CONNECT.
	Method string
	// Status is the answer's status code.
	Status int
	// Reason is the reason phrase as sent ("Filtered", "URLBlocked"); "" when not known.
	Reason string
	// Header holds the answer's headers (may be nil).
	Header http.Header
	// Body is the start of the answer's body; the caller bounds it (64 KiB).
	Body []byte
}

// ProxyVerdict is what a proxy's answer means for egress.
type ProxyVerdict int

// The verdicts; the zero value is ProxyUnclear.
const (
	// ProxyUnclear: the answer says nothing recognisable about the target.
	ProxyUnclear ProxyVerdict = iota
	// ProxyAllowed: the tunnel was opened, or the request was forwarded.
	ProxyAllowed
	// ProxyDenied: the proxy's rules refuse the target (policy).
	ProxyDenied
	// ProxyAuthRequired: the proxy wants (other) credentials (policy).
	ProxyAuthRequired
	// ProxyUpstreamFailed: the proxy could not reach or read the target (transient).
	ProxyUpstreamFailed
	// ProxyRejected: the proxy refused the request's form or size (structural).
	ProxyRejected
)

var proxyVerdictNames = [...]string{
	ProxyUnclear:        "unclear",
	ProxyAllowed:        "allowed",
	ProxyDenied:         "denied",
	ProxyAuthRequired:   "auth-required",
	ProxyUpstreamFailed: "upstream-failed",
	ProxyRejected:       "rejected",
}

// class returns the failure class and code of a refusal read as v.
func (v ProxyVerdict) class() (Class, Code) {
	switch v {
	case ProxyDenied:
		return Policy, CodeProxyDenied
	case ProxyAuthRequired:
		return Policy, CodeProxyAuth
	case ProxyUpstreamFailed:
		return Transient, CodeProxyUpstream
	case ProxyRejected:
		return Structural, CodeProxyRejected
	}
	return Unknown, CodeProxyUnclear
}

// String returns the verdict's lower-case name.
func (v ProxyVerdict) String() string {
	if v < 0 || int(v) >= len(proxyVerdictNames) {
		return "verdict(" + strconv.Itoa(int(v)) + ")"
	}
	return proxyVerdictNames[v]
}

// Dialect names used in ProxyReading.
const (
	DialectSquid       = "Squid"
	DialectTinyproxy   = "tinyproxy"
	DialectGateway     = "sandbox gateway"
	DialectProxyStatus = "Proxy-Status"
	DialectCorporate   = "corporate proxy"
	DialectBare        = "bare status"
	// DialectSandbox is an agent sandbox's proxy: srt's or Codex's
	// "x-proxy-error: blocked-by-*" and their own bodies.
	DialectSandbox = "agent sandbox"
)

// ProxyReading is ReadProxyAnswer's verdict on one answer.
type ProxyReading struct {
	// Verdict is what the answer means.
	Verdict ProxyVerdict
	// Dialect names whose wording decided it (DialectSquid, ...); DialectBare when only the status spoke.
	Dialect string
	// Code is the dialect's own word for it: "ERR_ACCESS_DENIED", "Filtered",
	// "host_not_allowed", "destination_ip_prohibited", "URLBlocked"; "" for a bare status.
	Code string
	// Bare is true when a denial rests on a bare 403/407 and nothing else.
	Bare bool
	// Failure classifies a refusal: class, reason, remedy, evidence; nil when allowed.
	Failure *Failure
}

// Label renders the reading for a reason in parentheses, e.g.
// "Squid ERR_ACCESS_DENIED", "tinyproxy 403 Filtered", "bare 403 to CONNECT".
func (r ProxyReading) Label(a ProxyAnswer) string {
	method := a.Method
	if method == "" {
		method = http.MethodConnect
	}
	switch {
	case r.Dialect == DialectBare || r.Dialect == "":
		return "bare " + strconv.Itoa(a.Status) + " to " + method
	case r.Dialect == DialectTinyproxy || r.Dialect == DialectCorporate:
		return r.Dialect + " " + strconv.Itoa(a.Status) + " " + Clip(r.Code)
	case r.Dialect == DialectGateway:
		return "x-deny-reason: " + Clip(r.Code)
	case r.Dialect == DialectSandbox:
		return sandboxName(a.Body) + "x-proxy-error: " + Clip(r.Code)
	case r.Dialect == DialectProxyStatus:
		return "Proxy-Status error=" + Clip(r.Code)
	}
	return r.Dialect + " " + Clip(r.Code)
}

const (
	remedyAllowlist = "add the host to the proxy's egress allowlist, or run where it is allowed"
	remedyUpstream  = "the proxy could not reach the target: retrying (it is an outage behind the proxy, not a refusal)"
)

// proxyStatusDenials are RFC 9209 error types that mean the proxy refused.
var proxyStatusErrors = map[string]ProxyVerdict{
	"destination_ip_prohibited":          ProxyDenied,
	"http_request_denied":                ProxyDenied,
	"dns_timeout":                        ProxyUpstreamFailed,
	"dns_error":                          ProxyUpstreamFailed,
	"destination_not_found":              ProxyUpstreamFailed,
	"destination_unavailable":            ProxyUpstreamFailed,
	"destination_ip_unroutable":          ProxyUpstreamFailed,
	"connection_refused":                 ProxyUpstreamFailed,
	"connection_terminated":              ProxyUpstreamFailed,
	"connection_timeout":                 ProxyUpstreamFailed,
	"connection_read_timeout":            ProxyUpstreamFailed,
	"connection_write_timeout":           ProxyUpstreamFailed,
	"connection_limit_reached":           ProxyUpstreamFailed,
	"http_response_incomplete":           ProxyUpstreamFailed,
	"http_response_timeout":              ProxyUpstreamFailed,
	"http_request_error":                 ProxyRejected,
	"http_response_header_section_size":  ProxyRejected,
	"http_response_header_size":          ProxyRejected,
	"http_response_body_size":            ProxyRejected,
	"http_response_trailer_section_size": ProxyRejected,
	"http_response_trailer_size":         ProxyRejected,
	"tls_certificate_error":              ProxyUnclear, // TLS inspection or a bad upstream certificate: environment
	"tls_protocol_error":                 ProxyUnclear,
	"tls_alert_received":                 ProxyUnclear,
	"proxy_configuration_error":          ProxyUnclear,
	"proxy_loop_detected":                ProxyUnclear,
	"proxy_internal_error":               ProxyUpstreamFailed,
}

// ReadProxyAnswer classifies a proxy's answer. It reads, in order: a success
// status, Squid's X-Squid-Error, RFC 9209 Proxy-Status, a gateway's
// x-deny-reason, tinyproxy's reason phrases and pages, a forwarded answer (Via
// on an absolute-form request), a corporate reason phrase on a 403, and the
// bare status. It never returns a nil Failure for a refusal.
func ReadProxyAnswer(a ProxyAnswer) ProxyReading {
	method := strings.ToUpper(strings.TrimSpace(a.Method))
	if method == "" {
		method = http.MethodConnect
	}
	connect := method == http.MethodConnect
	st := "HTTP " + strconv.Itoa(a.Status)
	if a.Reason != "" {
		st += " " + Clip(a.Reason)
	} else if t := http.StatusText(a.Status); t != "" {
		st += " " + t
	}
	mk := func(v ProxyVerdict, dialect, word string, bare bool, reason, remedy string, ev ...string) ProxyReading {
		r := ProxyReading{Verdict: v, Dialect: dialect, Code: word, Bare: bare}
		if v == ProxyAllowed {
			return r
		}
		c, code := v.class()
		r.Failure = New(c, code, reason, remedy, append([]string{st}, ev...)...)
		r.Failure.Trace = Trace{Network: connect, Proxy: true, NotSent: connect, ConnectStatus: a.Status}
		if !connect {
			r.Failure.Trace = Trace{Proxy: true, Status: a.Status}
		}
		return r
	}

	if a.Status >= 200 && a.Status < 300 {
		return ProxyReading{Verdict: ProxyAllowed, Dialect: dialectOf(a)}
	}

	if v := headerGet(a.Header, "X-Squid-Error"); v != "" {
		code, _, _ := strings.Cut(strings.TrimSpace(v), " ")
		ev := headerEvidence("X-Squid-Error", v)
		if code == "ERR_CANNOT_FORWARD" {
			// Squid 5.7 answers a target it cannot resolve with 500 ERR_CANNOT_FORWARD on CONNECT.
			return mk(ProxyUpstreamFailed, DialectSquid, code, false,
				"Squid ERR_CANNOT_FORWARD: the proxy could not forward to the target (Squid reports an unresolvable target this way)", remedyUpstream, ev)
		}
		if vd, ok := squidVerdict(code); ok {
			pv := ProxyUnclear
			switch vd.Class {
			case Policy:
				pv = ProxyDenied
				if code == "ERR_CACHE_ACCESS_DENIED" {
					pv = ProxyAuthRequired
				}
			case Transient:
				pv = ProxyUpstreamFailed
			case Structural:
				pv = ProxyRejected
			}
			return mk(pv, DialectSquid, code, false, "Squid "+code+": "+vd.Reason, vd.Remedy, ev)
		}
	}

	if v := headerGet(a.Header, "Proxy-Status"); v != "" {
		if errType, ok := proxyStatusError(v); ok {
			ev := headerEvidence("Proxy-Status", v)
			pv, known := proxyStatusErrors[errType]
			switch {
			case !known:
				return mk(ProxyUnclear, DialectProxyStatus, errType, false, "the proxy reported error "+Clip(errType), "read the proxy's Proxy-Status details", ev)
			case pv == ProxyDenied:
				return mk(pv, DialectProxyStatus, errType, false, "the proxy denies the target ("+Clip(errType)+")", remedyAllowlist, ev)
			case pv == ProxyUpstreamFailed:
				return mk(pv, DialectProxyStatus, errType, false, "the proxy could not reach the target ("+Clip(errType)+")", remedyUpstream, ev)
			case pv == ProxyRejected:
				return mk(pv, DialectProxyStatus, errType, false, "the proxy rejected the request ("+Clip(errType)+")", "the request must change: see the proxy's details", ev)
			default:
				return mk(pv, DialectProxyStatus, errType, false, "the proxy reported "+Clip(errType), remedyEnvTLS, ev)
			}
		}
	}

	if v, ok := sandboxRefusal(a); ok {
		// srt's or Codex's proxy: the refusal names the setting that changes it
		x := proxyErrorHit(string(boundedBody(a.Body)), v, runOpts{})
		r := ProxyReading{Verdict: ProxyDenied, Dialect: DialectSandbox, Code: v}
		var ev []string
		if h := headerGet(a.Header, "X-Proxy-Error"); h != "" {
			ev = append(ev, headerEvidence("X-Proxy-Error", h))
		}
		if b := bodyEvidence(string(boundedBody(a.Body))); len(b) > 0 {
			ev = append(ev, b[0])
		}
		r.Failure = New(Policy, CodeSandboxDenied, x.Reason, x.Remedy, append([]string{st}, ev...)...)
		r.Failure.Trace = Trace{Network: connect, Proxy: true, NotSent: connect, ConnectStatus: a.Status}
		if !connect {
			r.Failure.Trace = Trace{Proxy: true, Status: a.Status}
		}
		return r
	}

	if v := headerGet(a.Header, "X-Deny-Reason"); v != "" && (a.Status == 403 || a.Status == 407 || a.Status == 451) {
		return mk(ProxyDenied, DialectGateway, strings.TrimSpace(v), false, "the egress gateway denies the target: "+Clip(v), remedyAllowlist, headerEvidence("x-deny-reason", v))
	}

	if isTinyproxy(a) {
		switch {
		case a.Status == 403:
			code := a.Reason
			if code == "" {
				code = "Filtered"
			}
			return mk(ProxyDenied, DialectTinyproxy, code, false, "tinyproxy "+Clip(code)+": the proxy's filter or ACL refuses the target", remedyAllowlist)
		case a.Status == 407 || a.Status == 401:
			return mk(ProxyAuthRequired, DialectTinyproxy, a.Reason, false, "tinyproxy wants credentials", remedyProxy407)
		case a.Status >= 500:
			return mk(ProxyUpstreamFailed, DialectTinyproxy, a.Reason, false, "tinyproxy "+Clip(a.Reason)+": the proxy could not reach the target", remedyUpstream)
		}
	}

	if !connect && headerGet(a.Header, "Via") != "" {
		// The proxy forwarded the request: this status is the target's, not the proxy's.
		return ProxyReading{Verdict: ProxyAllowed, Dialect: dialectOf(a)}
	}

	phrase := strings.TrimSpace(a.Reason)
	standard := phrase == "" || strings.EqualFold(phrase, http.StatusText(a.Status))
	switch a.Status {
	case 403, 451:
		if !standard {
			return mk(ProxyDenied, DialectCorporate, phrase, false, "the proxy refuses the target: "+Clip(phrase), remedyAllowlist)
		}
		return mk(ProxyDenied, DialectBare, "", true, "the proxy answered a bare "+strconv.Itoa(a.Status)+" to "+method, remedyAllowlist)
	case 407:
		return mk(ProxyAuthRequired, DialectBare, phrase, standard, "the proxy requires authentication", remedyProxy407)
	case 500, 502, 503, 504:
		return mk(ProxyUpstreamFailed, DialectBare, "", false, "the proxy answered "+strconv.Itoa(a.Status)+": it could not reach the target", remedyProxy5xx)
	}
	return mk(ProxyUnclear, DialectBare, phrase, false, "the proxy answered "+st, remedyProxyOther)
}

// dialectOf names the proxy software from Server/Via, or "" when unknown.
func dialectOf(a ProxyAnswer) string {
	s := strings.ToLower(headerGet(a.Header, "Server") + " " + headerGet(a.Header, "Via") + " " + headerGet(a.Header, "Proxy-Agent"))
	switch {
	case strings.Contains(s, "squid"):
		return DialectSquid
	case strings.Contains(s, "tinyproxy"):
		return DialectTinyproxy
	}
	return ""
}

// isTinyproxy reports whether an answer is tinyproxy's own error page.
func isTinyproxy(a ProxyAnswer) bool {
	if dialectOf(a) == DialectTinyproxy {
		return true
	}
	switch a.Reason {
	case "Filtered", "Access violation", "Unable to connect":
		return true
	}
	b := a.Body
	if len(b) > 8<<10 {
		b = b[:8<<10]
	}
	body := string(b)
	return strings.Contains(body, "The request you made has been filtered") || strings.Contains(body, "Tinyproxy was unable to connect")
}

// proxyStatusError returns the error parameter of the first member of an RFC
// 9209 Proxy-Status field value that has one.
func proxyStatusError(v string) (string, bool) {
	for _, member := range splitOutsideQuotes(v, ',') {
		params := splitOutsideQuotes(member, ';')
		for _, p := range params[1:] {
			k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "error") {
				val = strings.Trim(strings.TrimSpace(val), `"`)
				if val != "" {
					return strings.ToLower(val), true
				}
			}
		}
	}
	return "", false
}

// splitOutsideQuotes splits s at sep, ignoring separators inside double quotes.
func splitOutsideQuotes(s string, sep byte) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == sep && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// OddConnectSuccess is a proxy's 2xx answer to CONNECT other than 200, which
// net/http refuses as it refuses a denial: unknown, with desc naming it.
func OddConnectSuccess(desc string) *Failure {
	f := New(Unknown, CodeProxyConnect, desc, "the proxy answered CONNECT with an unusual success status", desc)
	f.Trace = Trace{Network: true, Proxy: true, NotSent: true}
	return f
}

// sandboxRefusal reports whether a is an agent sandbox's refusal (srt's or
// Codex's proxy): its x-proxy-error: blocked-by-* header, or, on a 403, its
// own body; value is the header's word ("blocked-by-allowlist").
func sandboxRefusal(a ProxyAnswer) (string, bool) {
	if v := strings.ToLower(strings.TrimSpace(headerGet(a.Header, "X-Proxy-Error"))); strings.HasPrefix(v, "blocked-by-") {
		return v, true
	}
	if a.Status != 403 {
		return "", false
	}
	b := string(boundedBody(a.Body))
	if strings.Contains(b, "Connection blocked by network allowlist") || strings.Contains(b, "CODEX_NETWORK_POLICY_DECISION") || strings.Contains(b, "Codex blocked this request") {
		return "blocked-by-allowlist", true
	}
	return "", false
}

// sandboxName names the sandbox a refusal's body comes from ("srt ",
// "Codex "), or "".
func sandboxName(body []byte) string {
	b := string(boundedBody(body))
	switch {
	case strings.Contains(b, "CODEX_NETWORK_POLICY_DECISION") || strings.Contains(b, "Codex blocked"):
		return "Codex "
	case strings.Contains(b, "network allowlist"):
		return "srt "
	}
	return ""
}

// boundedBody is the start of a proxy's body that is read for its words (8 KiB).
func boundedBody(b []byte) []byte {
	if len(b) > 8<<10 {
		return b[:8<<10]
	}
	return b
}
