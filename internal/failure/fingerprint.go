package failure

import (
	"net/netip"
	"strings"
	"time"
)

// A Fingerprint is what a final failure keeps across runs (hindsight): its
// class, the kind of its code, and the target it failed on by name. Two
// runs' failures with equal fingerprints failed the same way.
type Fingerprint struct {
	// Class is the failure's class.
	Class Class `json:"class"`
	// Kind is the code's kind (CodeKind): a timeout, a reset and a
	// refused connect are one kind, "network".
	Kind string `json:"kind"`
	// Target is the host (or remote) the failure is about, by name, never
	// an IP address; "" when neither the step nor the failure names one.
	Target string `json:"target,omitempty"`
}

// The kinds of codes that one outage produces in turns.
const (
	// KindNetwork is every failure to connect or to keep a connection:
	// DNS, refused, reset, timed out, unreachable, a proxy that cannot be
	// reached, a transfer cut short.
	KindNetwork = "network"
	// KindServer is a server failing on its side: a 5xx, overloaded,
	// unavailable.
	KindServer = "server"
	// KindThrottle is a throttle: a 429, a rate limit, a secondary limit.
	KindThrottle = "throttle"
)

// outageNetworkCodes are the codes of KindNetwork.
var outageNetworkCodes = map[Code]bool{
	CodeDNS: true, CodeRefused: true, CodeConnectFailed: true, CodeTimeout: true, CodeReset: true,
	CodeUnreachable: true, CodeTLSBroken: true, CodeHTTP2Closed: true, CodeEmptyReply: true,
	CodeTransferCut: true, CodeTransferStalled: true, CodeUnexpectedEOF: true,
	CodeProxyUnreachable: true, CodeProxyConnect: true, CodeProxyAborted: true, CodeProxyUpstream: true,
	CodeRequestTimeout: true, CodeMaxElapsed: true, "curl-6": true, "curl-7": true, "curl-28": true,
	"curl-35": true, "curl-52": true, "curl-56": true, "curl-18": true, "curl-5": true,
}

// CodeKind returns the kind of c that hindsight compares: KindNetwork,
// KindServer or KindThrottle for the codes one outage turns between (a
// timeout on one run, a reset on the next), else the code itself.
func CodeKind(c Code) string {
	switch {
	case outageNetworkCodes[c]:
		return KindNetwork
	case c == CodeThrottled || c == CodeRateLimited || c == CodeGitHubSecondary || c == CodeGitHubRateLimit || c == "http-429":
		return KindThrottle
	case c == CodeServiceUnavailable || c == CodeAPIOverloaded || c == CodeAPIServerError || c == CodeProxyFailing:
		return KindServer
	case strings.HasPrefix(string(c), "http-5") && len(c) == len("http-500"):
		return KindServer
	}
	return string(c)
}

// FingerprintOf returns f's fingerprint. targets are the hosts the step
// names (an http step's URL, a push's remote, an exec step's hosts:); the
// first named one is the target. Without one, the first host name f's
// reason or evidence names is; IP addresses never are, since they change
// between runs.
func FingerprintOf(f *Failure, targets []string) Fingerprint {
	fp := Fingerprint{Class: f.Class, Kind: CodeKind(f.Code)}
	for _, t := range targets {
		if h := hostName(t); h != "" {
			fp.Target = h
			return fp
		}
	}
	for _, s := range append([]string{f.Reason}, f.Evidence...) {
		if h := firstHostIn(s); h != "" {
			fp.Target = h
			break
		}
	}
	return fp
}

// hostName returns t lowercased when it is a host name (not an IP
// address, not empty), else "".
func hostName(t string) string {
	t = strings.ToLower(strings.TrimSuffix(strings.Trim(t, "[]"), "."))
	if t == "" || strings.ContainsAny(t, " /") {
		return ""
	}
	if _, err := netip.ParseAddr(t); err == nil {
		return ""
	}
	return t
}

// reHostName is a dotted host name in a text: labels of letters, digits
// and dashes, ending in a label of letters.
var reHostName = LazyRE(`(?i)\b((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9])\b`)

// notHosts are words that read like host names but name files or code.
var notHostSuffixes = []string{".go", ".py", ".js", ".ts", ".json", ".yml", ".yaml", ".txt", ".log", ".sh", ".c", ".h", ".rs", ".rb", ".java", ".md", ".lock", ".toml", ".exe", ".dll", ".so"}

// firstHostIn returns the first host name s names, lowercased, or "".
func firstHostIn(s string) string {
	const scan = 4096 // a reason or an evidence line; a bound all the same
	if len(s) > scan {
		s = s[:scan]
	}
	for _, m := range reHostName.FindAllStringSubmatchIndex(s, 16) {
		h := strings.ToLower(s[m[2]:m[3]])
		file := false
		for _, suf := range notHostSuffixes {
			if strings.HasSuffix(h, suf) {
				file = true
				break
			}
		}
		if file || (m[2] > 0 && (s[m[2]-1] == '/' && m[2] > 1 && s[m[2]-2] != '/')) {
			continue // a path's component, not a host
		}
		return h
	}
	return ""
}

// Persistence says a transient-looking failure has failed the same way in
// every one of the runs before this one (hindsight): waiting has not helped.
type Persistence struct {
	// Runs counts the runs that failed the same way, this one included.
	Runs int `json:"runs"`
	// Since is the first of those runs.
	Since time.Time `json:"since"`
	// Dates are the runs before this one, oldest first.
	Dates []time.Time `json:"dates"`
}
