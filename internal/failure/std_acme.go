package failure

import (
	"strings"
	"time"
)

// ACME problem types (RFC 8555, urn:ietf:params:acme:error:*, and the
// older urn:acme:error:*), in every renewer's shape: the problem JSON,
// certbot's "urn:...:unauthorized :: The client lacks ..." and "Error:
// rateLimited :: ...", lego's "acme: Error 400 - urn:...:badNonce - ...",
// acme.sh's detail alone ("Verify error:DNS problem: NXDOMAIN looking up A
// for x"), and the CA's stable detail words where a client prints no type
// ("JWS has an invalid anti-replay nonce", "CAA record for x prevents
// issuance", "too many certificates already issued").
//
//   - badNonce, serverInternal: transient (a fresh nonce, the CA's own
//     failure).
//   - rateLimited: a wait, judged as quotaVerdict judges one: the reset the
//     CA names ("Retry after 2024-01-27T03:00:00Z") within the run's max
//     elapsed is a rate limit to wait for (transient, with the wait);
//     otherwise the CA's limits count per hours or per week: policy.
//   - unauthorized, incorrectResponse, connection, tls, dns, caa,
//     rejectedIdentifier: the validation failed: structural, with the
//     challenge and the domain named.
//   - malformed, badCSR, badSignatureAlgorithm, unsupportedIdentifier,
//     badRevocationReason, alreadyRevoked, orderNotReady: structural.
//   - accountDoesNotExist, externalAccountRequired, userActionRequired,
//     unsupportedContact, invalidContact: policy (the account must change).

// The ACME codes.
const (
	// CodeACMEBadNonce: the CA refused a stale nonce (badNonce).
	CodeACMEBadNonce Code = "acme-bad-nonce"
	// CodeACMEServer: the CA failed on its side (serverInternal).
	CodeACMEServer Code = "acme-server-internal"
	// CodeACMERateLimited: a CA rate limit (rateLimited): transient when
	// its reset falls within the run, policy otherwise.
	CodeACMERateLimited Code = "acme-rate-limited"
	// CodeACMEChallenge: the challenge did not validate (unauthorized,
	// incorrectResponse, connection, tls).
	CodeACMEChallenge Code = "acme-challenge-failed"
	// CodeACMEDNS: the CA's DNS lookup failed (dns: NXDOMAIN, no TXT).
	CodeACMEDNS Code = "acme-dns"
	// CodeACMECAA: a CAA record forbids this CA (caa).
	CodeACMECAA Code = "acme-caa"
	// CodeACMERejected: the CA will not issue for the identifier or the
	// request as sent (rejectedIdentifier, malformed, badCSR, ...).
	CodeACMERejected Code = "acme-rejected"
	// CodeACMEAccount: the ACME account must change (accountDoesNotExist,
	// externalAccountRequired, userActionRequired).
	CodeACMEAccount Code = "acme-account"
)

const (
	remedyACMENonce     = "the CA refused a stale nonce (badNonce): retrying with a fresh one, as RFC 8555 says; if every attempt fails, update the ACME client"
	remedyACMEServer    = "the CA failed on its side (serverInternal): retrying after a backoff; if it lasts, check the CA's status page"
	remedyACMEChallenge = "the CA could not validate the challenge: make the challenge answerable (http-01: serve /.well-known/acme-challenge/ on port 80 for every name, no redirect to a login; dns-01: the TXT record; tls-alpn-01: port 443), check the firewall and the names' A/AAAA records; retrying unchanged fails the same way and counts against the CA's failed-validation limit"
	remedyACMEDNS       = "the CA's DNS lookup failed: create the record it looked up (A/AAAA for http-01, the _acme-challenge TXT for dns-01) or fix the DNS hook, and wait for it to propagate; retrying unchanged fails the same way"
	remedyACMECAA       = "a CAA record forbids this CA: add an issue (or issuewild) record naming it to the domain's CAA, or remove the wrong one; retrying cannot succeed"
	remedyACMERejected  = "the CA refuses the request or the identifier as sent: fix the names, the CSR or the client (see the detail); resending it unchanged fails the same way"
	remedyACMEAccount   = "the ACME account must change (it does not exist, needs external account binding, or terms to accept): fix the account configuration; retrying cannot succeed"
	remedyACMERate      = "a CA rate limit is spent for longer than the run (certificates per domain per week, duplicate certificates, failed validations): wait for the reset, use the staging CA while testing, or reuse the certificate; retrying now cannot succeed"
)

// acmeType is what one problem type means.
type acmeType struct {
	class  Class
	code   Code
	what   string
	remedy string
}

// acmeTypes is the table of the problem types.
var acmeTypes = map[string]acmeType{
	"badNonce":                {Transient, CodeACMEBadNonce, "the CA refused a stale nonce (badNonce)", remedyACMENonce},
	"serverInternal":          {Transient, CodeACMEServer, "the CA failed internally (serverInternal)", remedyACMEServer},
	"unauthorized":            {Structural, CodeACMEChallenge, "validation failed (unauthorized)", remedyACMEChallenge},
	"incorrectResponse":       {Structural, CodeACMEChallenge, "validation failed (incorrectResponse)", remedyACMEChallenge},
	"connection":              {Structural, CodeACMEChallenge, "the CA could not connect to validate (connection)", remedyACMEChallenge},
	"tls":                     {Structural, CodeACMEChallenge, "TLS validation failed (tls)", remedyACMEChallenge},
	"dns":                     {Structural, CodeACMEDNS, "the CA's DNS lookup failed (dns)", remedyACMEDNS},
	"caa":                     {Structural, CodeACMECAA, "a CAA record forbids issuance (caa)", remedyACMECAA},
	"rejectedIdentifier":      {Structural, CodeACMERejected, "the CA will not issue for the identifier (rejectedIdentifier)", remedyACMERejected},
	"unsupportedIdentifier":   {Structural, CodeACMERejected, "the identifier is not supported (unsupportedIdentifier)", remedyACMERejected},
	"malformed":               {Structural, CodeACMERejected, "the CA rejected the request (malformed)", remedyACMERejected},
	"badCSR":                  {Structural, CodeACMERejected, "the CA rejected the CSR (badCSR)", remedyACMERejected},
	"badSignatureAlgorithm":   {Structural, CodeACMERejected, "the CA rejected the signature algorithm (badSignatureAlgorithm)", remedyACMERejected},
	"badRevocationReason":     {Structural, CodeACMERejected, "the CA rejected the revocation reason (badRevocationReason)", remedyACMERejected},
	"alreadyRevoked":          {Structural, CodeACMERejected, "the certificate is already revoked (alreadyRevoked)", remedyACMERejected},
	"orderNotReady":           {Structural, CodeACMERejected, "the order is not ready to finalize (orderNotReady)", remedyACMERejected},
	"accountDoesNotExist":     {Policy, CodeACMEAccount, "the ACME account does not exist (accountDoesNotExist)", remedyACMEAccount},
	"externalAccountRequired": {Policy, CodeACMEAccount, "the CA requires external account binding (externalAccountRequired)", remedyACMEAccount},
	"userActionRequired":      {Policy, CodeACMEAccount, "the CA requires action on the account (userActionRequired)", remedyACMEAccount},
	"invalidContact":          {Policy, CodeACMEAccount, "the CA rejected the account's contact (invalidContact)", remedyACMEAccount},
	"unsupportedContact":      {Policy, CodeACMEAccount, "the CA rejected the account's contact (unsupportedContact)", remedyACMEAccount},
}

var (
	// reACMEType: the problem type, as a URN or as certbot's
	// "Error: rateLimited :: ...".
	reACMEType = LazyRE(`urn:(?:ietf:params:)?acme:error:([A-Za-z]+)|(?:^|\s)(?:Error|error): ([a-z][A-Za-z]+) :: `)
	// reACMEWords: the CA's stable detail words, for a client that prints
	// the detail without the type; the group that matched names the type.
	reACMEWords = LazyRE(`(?i)(invalid anti-replay nonce)|(CAA record for \S+ prevents issuance|While processing CAA)|(DNS problem: (?:NXDOMAIN|SERVFAIL|query timed out|no valid (?:A|AAAA|TXT) records?)|NXDOMAIN looking up (?:A|AAAA|TXT|CAA) for)|(too many (?:certificates|new orders|failed authorizations|registrations|pending authorizations|requests)[^\n]{0,40}?(?:already issued|recently|of a given type|for this account)?)|(The server experienced an internal error)|(Invalid response from https?://\S+/\.well-known/acme-challenge/|The key authorization file from the server did not match|Incorrect validation certificate for)|(Timeout during connect \(likely firewall problem\)|Fetching https?://\S+/\.well-known/acme-challenge/\S*: (?:Timeout|Connection refused|Error getting validation data))`)
	// reACMEDomain: the domain a failure names.
	reACMEDomain    = LazyRE(`(?i)(?:for domain|Failed authorization procedure\.|identifier|CAA record for|looking up (?:A|AAAA|TXT|CAA) for|Validation for|Challenge did not pass for|Invalid response from https?://|Fetching https?://|[Ii]ssued for(?: exact set of domains)?:?|Verifying:|Could not obtain certificates for)\s*\[?['"]?\*?\.?((?:_?[a-z0-9][a-z0-9_-]*\.)+[a-z]{2,})`)
	reACMEDomainPre = LazyRE(`(?:^|\]\s*\[|\s)\[?([a-z0-9][a-z0-9.-]*\.[a-z]{2,})\]?:?\s*(?:Verify error|\(?(?:http|dns|tls-alpn|tls-sni)-01\)?)`)
	// reACMEChallenge: the challenge type a failure names.
	reACMEChallenge = LazyRE(`\b(http-01|dns-01|tls-alpn-01|tls-sni-01)\b|(/\.well-known/acme-challenge/)|(_acme-challenge\.)`)
	// reACMERetryAfter: the reset a rate limit names.
	reACMERetryAfter = LazyRE(`(?i)retry after (\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d| UTC)?)`)
)

// acmeWordTypes maps reACMEWords' groups to the problem type they name.
var acmeWordTypes = []string{"badNonce", "caa", "dns", "rateLimited", "serverInternal", "unauthorized", "connection"}

// acmeContext returns the line and a few lines after it, where the problem
// JSON's detail and status follow its type.
func (c *ScanCtx) acmeContext(line string) string { return c.quotaContext(line) }

// acmeNames returns " for DOMAIN (CHALLENGE)" from the context, or "".
func acmeNames(ctx string) string {
	domain := ""
	if m := reACMEDomain.FindStringSubmatch(ctx); m != nil {
		domain = m[1]
	} else if m := reACMEDomainPre.FindStringSubmatch(ctx); m != nil {
		domain = m[1]
	}
	chall := ""
	if m := reACMEChallenge.FindStringSubmatch(ctx); m != nil {
		switch {
		case m[1] != "":
			chall = m[1]
		case m[2] != "":
			chall = "http-01"
		default:
			chall = "dns-01"
		}
	}
	s := ""
	if domain != "" {
		s += " for " + Clip(domain)
	}
	if chall != "" {
		s += " (" + chall + " challenge)"
	}
	return s
}

// acmeHit is the verdict on problem type name, read on line.
func acmeHit(c *ScanCtx, line, name string, rank int) (Hit, bool) {
	ctx := c.acmeContext(line)
	if name == "rateLimited" {
		return acmeRateHit(c, line, ctx, rank), true
	}
	t, ok := acmeTypes[name]
	if !ok {
		return Hit{}, false
	}
	h := Hit{Class: t.class, Code: t.code, Rank: rank, Reason: "ACME: " + t.what, Remedy: t.remedy}
	if t.class != Transient {
		h.Reason += acmeNames(ctx)
	}
	return h, true
}

// acmeRateHit judges a CA rate limit as a wait: the reset the CA names,
// when it falls within the run, is waited for; otherwise quotaVerdict
// decides (the CA's limits count per hours or per week: policy unless the
// text names a short reset).
func acmeRateHit(c *ScanCtx, line, ctx string, rank int) Hit {
	if m := reACMERetryAfter.FindStringSubmatch(ctx); m != nil {
		if at, ok := parseACMETime(m[1]); ok {
			if wait := at.Sub(c.now()); wait > 0 {
				if wait <= c.waitLimit() {
					return Hit{Class: Transient, Code: CodeACMERateLimited, Rank: rank, RetryAfter: wait,
						Reason: "ACME: a CA rate limit (rateLimited), resets in " + humanWait(wait),
						Remedy: "a CA rate limit resets within the run: waiting for it, then retrying"}
				}
				return Hit{Class: Policy, Code: CodeACMERateLimited, Rank: rank,
					Reason: "ACME: a CA rate limit (rateLimited), resets at " + at.UTC().Format("2006-01-02 15:04 UTC") + ", in " + humanWait(wait) + ", over the run's max elapsed of " + c.waitLimit().String(),
					Remedy: remedyACMERate}
			}
		}
	}
	h := quotaVerdict(c, line, "rateLimited", rank)
	h.Code = CodeACMERateLimited
	if h.Class == Transient {
		h.Reason = "ACME: a CA " + h.Reason
		return h
	}
	h.Class, h.Remedy = Policy, remedyACMERate
	h.Reason = "ACME: a CA rate limit (rateLimited) counted over hours or a week" + acmeNames(ctx)
	return h
}

// parseACMETime parses the reset a CA names (RFC 3339, or "2024-05-13
// 18:00:00 UTC").
func parseACMETime(s string) (time.Time, bool) {
	s = strings.TrimSpace(strings.TrimSuffix(s, " UTC"))
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02 15:04:05", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// reACMECertbotType: certbot's problem block ("The Certificate Authority
// reported these problems:" then "Domain: d", "Type:   unauthorized",
// "Detail: ..."), which names the problem type without its urn.
var reACMECertbotType = LazyRE(`^\s*Type:\s+([a-z][A-Za-z]+)\s*$`)

var acmeMatchers = []Matcher{
	{
		Gates: []string{"Type:"},
		RE:    reACMECertbotType,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			if _, ok := acmeTypes[m[1]]; !ok && m[1] != "rateLimited" {
				return Hit{}, false
			}
			if !c.textHolds("Certificate Authority reported these problems") {
				return Hit{}, false // a "Type:" field of another tool's
			}
			return acmeHit(c, line, m[1], rankStdCode)
		},
	},
	{
		Gates: []string{"acme:error:", "Error: ", "error: "},
		RE:    reACMEType,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			name := m[1] + m[2]
			if m[2] != "" {
				if _, ok := acmeTypes[name]; !ok && name != "rateLimited" {
					return Hit{}, false
				}
			}
			return acmeHit(c, line, name, rankStdCode)
		},
	},
	{
		Gates: gateVariants([]string{"nti-replay nonce", "revents issuance", "hile processing CAA", "NS problem:", "XDOMAIN looking up", "oo many certificates", "oo many new orders", "oo many failed authorizations", "oo many registrations", "oo many pending authorizations", "oo many requests of a given type", "erver experienced an internal error", "nvalid response from http", "he key authorization file", "ncorrect validation certificate", "imeout during connect (likely firewall", "/.well-known/acme-challenge/"}),
		RE:    reACMEWords,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			for i, g := range m[1:] {
				if g != "" {
					if i == 3 && !strings.Contains(strings.ToLower(line), "already issued") && !strings.Contains(strings.ToLower(line), "recently") && !strings.Contains(line, "of a given type") && !c.textHolds("acme", "ACME", "letsencrypt", "certbot", "Let's Encrypt") {
						return Hit{}, false // "too many requests" alone is any throttle's
					}
					return acmeHit(c, line, acmeWordTypes[i], rankStdCode-1)
				}
			}
			return Hit{}, false
		},
	},
}
