package failure

import (
	"fmt"
	"strings"
)

// curl reports "curl: (N) message" and exits with N. The message decides when
// a recogniser knows it (a 403 from a proxy, a certificate problem inside a
// 35); otherwise the exit code does.

var reCurlLine = lazyRE(`curl: \((\d{1,3})\)[ \t]*(.*)`)

var curlMatchers = []matcher{
	{
		gates: []string{"curl: ("},
		re:    reCurlLine,
		frame: true,
		cut:   true,
		build: func(c *scanCtx, _ string, m []string) (hit, bool) {
			code := atoi(m[1])
			if h, ok := c.phrase(m[2]); ok && h.rank >= rankTransport {
				h.reason = fmt.Sprintf("curl %d, %s", code, h.reason)
				return h, true
			}
			h := curlCodeHit(code, strings.TrimSpace(m[2]))
			h.rank = rankCurlCode
			return h, true
		},
	},
}

// curlExitHit classifies curl's exit status alone (curl -s prints nothing).
func curlExitHit(code, pos int) hit {
	h := curlCodeHit(code, "")
	h.rank, h.synthetic, h.pos, h.line = rankExitCode, true, pos, ExitEvidence(code)
	return h
}

// curlCodeHit classifies a curl exit code; msg only improves the reason.
func curlCodeHit(code int, msg string) hit {
	class, desc, remedy := curlCode(code)
	if desc == "" {
		desc = "error"
		if msg != "" {
			desc = clip(msg)
		}
	}
	return hit{class: class, code: CurlCode(code), tr: curlTrace(code), reason: fmt.Sprintf("curl %d, %s", code, desc), remedy: remedy}
}

// curlTrace says what a curl exit code alone tells about the way to the
// server: resolving (5, 6) and connecting (7) fail before anything is sent;
// timeouts, TLS connects, empty replies, send and receive failures are
// network failures after the request may have left.
func curlTrace(code int) traceBits {
	switch code {
	case 5:
		return trNet | trNotSent | trProxy
	case 6, 7:
		return trNet | trNotSent
	case 16, 18, 28, 35, 52, 55, 56, 92, 95, 96:
		return trNet
	case 97:
		return trNet | trProxy
	}
	return 0
}

// curlCode maps curl's exit codes (libcurl-errors(3)) to classes.
func curlCode(code int) (Class, string, string) {
	const fixCmd = "the command line must change: fix the URL or options"
	switch code {
	case 1:
		return Structural, "unsupported protocol", fixCmd + " (check the URL scheme)"
	case 2:
		return Structural, "failed to initialise", fixCmd
	case 3:
		return Structural, "URL malformed", fixCmd
	case 5:
		return Transient, "could not resolve proxy", "DNS lookup of the proxy failed: retrying; if it persists, check the proxy host name"
	case 6:
		return Transient, "could not resolve host", "DNS lookup failed: retrying; if it persists, check the host name and the resolver"
	case 7:
		return Transient, "failed to connect", remedyRetryNet
	case 16:
		return Transient, "HTTP/2 framing error", remedyRetryNet
	case 18:
		return Transient, "partial file (transfer cut short)", remedyRetryNet
	case 22:
		return Unknown, "HTTP error (status not shown)", "run curl with --show-error (-S) so the status can be classified"
	case 23:
		return Unknown, "write error", "curl could not write the output: check disk space and the output path"
	case 26:
		return Structural, "read error on local data", fixCmd + " (the file to upload cannot be read)"
	case 27:
		return Unknown, "out of memory", "the machine ran out of memory"
	case 28:
		return Transient, "operation timed out", "the network or the server was too slow: retrying (raise --max-time if it keeps happening)"
	case 35:
		return Transient, "SSL connect error", remedyRetryNet
	case 37:
		return Structural, "cannot read file", fixCmd
	case 43:
		return Structural, "bad function argument", fixCmd
	case 47:
		return Structural, "too many redirects", "the URL redirects in a loop or too often: fix the URL (or raise --max-redirs)"
	case 51, 60, 77, 83, 91:
		return Unknown, "TLS certificate problem", remedyEnvCert
	case 52:
		return Transient, "empty reply from server", remedyRetryNet
	case 53, 54, 58, 59, 64, 66, 98:
		return Unknown, "TLS setup error", remedyEnvTLS
	case 55:
		return Transient, "send failure", remedyRetryNet
	case 56:
		return Transient, "receive failure", remedyRetryNet
	case 63:
		return Structural, "maximum file size exceeded", "the file is larger than --max-filesize allows: raise the limit or fetch something smaller"
	case 67:
		return Policy, "login denied", "the server refused the login: fix the credentials"
	case 78:
		return Absent, "remote file not found", "the remote file does not exist: fix the path, or treat it as not found"
	case 90:
		return Unknown, "pinned public key mismatch", "environment must change: the server's key does not match --pinnedpubkey"
	case 92:
		return Transient, "HTTP/2 stream error", remedyRetryNet
	case 95, 96:
		return Transient, "HTTP/3 or QUIC error", remedyRetryNet
	case 97:
		return Unknown, "proxy handshake error", remedyProxyOther
	}
	return Unknown, "", "read curl's message; add --retry-on or --stop-on if this failure recurs"
}
