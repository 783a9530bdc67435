package tools

import (
	"net/url"
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
)

// npm's failures. npm reports an error as a block of prefixed lines: "npm
// ERR! " up to npm 8, "npm error " from npm 9 (and "NN error " in its debug
// log). The block names the error code ("code E403", "code EOTP") and, for a
// registry answer, a status line written by npm-registry-fetch: "403 403
// Forbidden - PUT https://registry.npmjs.org/pkg - You cannot publish over
// the previously published versions: 3.4.0.". The code and the status line
// are read together with the lines around them, because npm's codes mean
// more than their statuses: a 404 on a publish is npm's way of saying "no
// access", a 402 on a publish means a scoped package went out restricted, a
// 403 may be a version that already exists. Registry phrases that other
// clients of the npm registry relay too (lerna, changesets, yarn) are read
// without the prefix. pnpm's own registry errors (ERR_PNPM_FETCH_NNN, a
// frozen lockfile out of date) are read here as well: pnpm talks to the same
// registry and its publish runs npm's.

// npm's codes.
const (
	// CodeNPMPublishConflict: the version is already on the registry.
	CodeNPMPublishConflict failure.Code = "npm-publish-conflict"
	// CodeNPMOTPRequired: the registry wants a one-time password (2FA).
	CodeNPMOTPRequired failure.Code = "npm-otp-required"
	// CodeNPMUnauthorized: the registry rejected the credentials (E401).
	CodeNPMUnauthorized failure.Code = "npm-unauthorized"
	// CodeNPMForbidden: the credentials may not do this (E403).
	CodeNPMForbidden failure.Code = "npm-forbidden"
	// CodeNPMPublishNoAccess: a 404 on a publish, npm's "no access".
	CodeNPMPublishNoAccess failure.Code = "npm-publish-no-access"
	// CodeNPMNotFound: the package or version is not in the registry (404 on a lookup).
	CodeNPMNotFound failure.Code = "npm-not-found"
	// CodeNPMNoMatchingVersion: no version satisfies the range (ETARGET).
	CodeNPMNoMatchingVersion failure.Code = "npm-no-matching-version"
	// CodeNPMRestrictedScope: a scoped package published with restricted access (E402).
	CodeNPMRestrictedScope failure.Code = "npm-scoped-package-restricted"
	// CodeNPMProvenance: the registry rejected the provenance statement (E422).
	CodeNPMProvenance failure.Code = "npm-provenance-rejected"
	// CodeNPMPackumentConflict: the registry was still saving a previous publish (E409).
	CodeNPMPackumentConflict failure.Code = "npm-packument-conflict"
	// CodeNPMDependencyConflict: the dependency tree cannot be resolved (ERESOLVE).
	CodeNPMDependencyConflict failure.Code = "npm-dependency-conflict"
	// CodeNPMLockfile: the lockfile is missing or out of date for a clean install.
	CodeNPMLockfile failure.Code = "npm-lockfile-out-of-sync"
	// CodeNPMUsage: npm was called wrongly, or package.json is not JSON.
	CodeNPMUsage failure.Code = "npm-usage"
	// CodeNPMIntegrity: a tarball's checksum is not the one the lockfile records.
	CodeNPMIntegrity failure.Code = "npm-integrity-mismatch"
)

const (
	remedyNPMOTP      = "the token needs 2FA automation or a granular token: EOTP cannot be answered in CI (publish with an automation or granular access token that bypasses 2FA, or with trusted publishing)"
	remedyNPMNeedAuth = "give npm a token for the registry: NODE_AUTH_TOKEN with setup-node's registry-url, or //registry.npmjs.org/:_authToken=${NPM_TOKEN} in .npmrc (check the secret reaches the job)"
	remedyNPM401      = "the registry rejected the token: it is missing, expired or revoked; replace NPM_TOKEN (or the .npmrc _authToken) and check that it is sent to this registry"
	remedyNPM5xx      = "the registry failed: retrying; after a 5xx on a publish, check whether the version landed before publishing again"
	remedyNPMNet      = "a network blip on the way to the registry: retrying; if it persists, check connectivity and npm's proxy settings"
)

var (
	// the code line of an error block: "npm ERR! code E403", "npm error code EOTP", "12 error code E401"
	reNPMCode = failure.LazyRE(`(?:(?:\bnpm ERR!|\bnpm error) code ([A-Z][A-Z0-9_]{2,})|(?:(?:^|[\s>])\d+ error code |\blerna ERR! )(E[A-Z0-9_]{2,}))\b`)
	// npm-registry-fetch's status line: "403 403 Forbidden - PUT https://host/pkg - message"
	reNPMFetch = failure.LazyRE(`\b([45]\d\d) (?:[45]\d\d )?[A-Z][A-Za-z' -]*? - (GET|HEAD|PUT|POST|PATCH|DELETE) (https?://\S+)(?: - (.*))?`)
	// older status lines: "npm ERR! 404 Not found : @s/p", "npm ERR! 429 Too Many Requests: pkg@1"
	reNPMStatus = failure.LazyRE(`(?:\bnpm ERR!|\bnpm error) ([45]\d\d) (?:[45]\d\d )?(\S.*)`)
	// npm 3's "404 Registry returned 404 for GET on https://..."
	reNPMReturned = failure.LazyRE(`Registry returned ([45]\d\d) for (GET|HEAD|PUT|POST|PATCH|DELETE) on (\S+)`)
	// npm ≤ 6: "npm ERR! publish Failed PUT 403"
	reNPMFailed = failure.LazyRE(`publish Failed (GET|PUT|POST|PATCH|DELETE) ([45]\d\d)`)
	// the version a publish conflict names
	reNPMVersion = failure.LazyRE(`(?i)(?:previously published versions?:?|modify version) v?([0-9][0-9A-Za-z.+-]*[0-9A-Za-z])`)
	// the waiting time of a republish or publish cap: "until 24 hours have passed"
	reNPMWait = failure.LazyRE(`(?i)until (\d+ (?:hours?|days?|minutes?))|in the last (\d+ (?:hours?|days?)|day|hour)|try again in (\d+ (?:hours?|days?|minutes?))`)
	// registry phrases worth reading wherever they are relayed
	reNPMPhrase = failure.LazyRE(`cannot publish over|Cannot publish over|Attempting to modify version|cannot be republished until|requires a one-time password|requires you to be logged in|auth and email required for publishing|must sign up for private packages|need a paid account to perform this action|Failed to save packument|verifying sigstore provenance bundle|not have permission to publish|Two-factor authentication or granular access token|Invalid npm token|Unable to authenticate, |Incorrect or missing password`)
	// pnpm: "ERR_PNPM_FETCH_404  GET https://registry.npmjs.org/x: Not Found - 404"
	rePNPMFetch = failure.LazyRE(`ERR_PNPM_FETCH_([45]\d\d)\b\s*(?:(GET|HEAD|PUT|POST|PATCH|DELETE) (\S+?):? )?(.*)`)
	rePNPMCode  = failure.LazyRE(`ERR_PNPM_([A-Z0-9_]+)`)
)

var npmFamily = failure.Family{
	Tool:  failure.ToolNPM,
	Names: []string{"npm", "npx", "pnpm", "pnpx", "npm.cmd", "npx.cmd", "pnpm.cmd"},
	// two marks only: --tool auto scans the whole text for each of them
	// (pnpm's ERR_PNPM_ lines are recognised whatever the tool)
	Marks:    []string{"npm ERR! code ", "npm error code "},
	Matchers: npmMatchers,
}

var npmMatchers = []failure.Matcher{
	{
		// the code line decides, read with the lines of its block
		// (gates start with byte pairs that are rare in logs: every place a
		// gate's first two bytes appear costs a comparison)
		Gates: []string{"ERR! code ", "npm error code ", "code E", "ERR! E"},
		RE:    reNPMCode,
		Build: func(c *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
			var e npmErr
			e.readBlock(c, line)
			e.code = m[1] + m[2]
			return npmVerdict(c, e)
		},
	},
	{
		// a status line with no code line above it (npm ≤ 6, or relayed by lerna, changesets)
		Gates: []string{"- GET http", "- HEAD http", "- PUT http", "- POST http", "- PATCH http", "- DELETE http",
			"npm ERR! 4", "npm ERR! 5", "npm error 4", "npm error 5", "egistry returned ", "publish Failed "},
		Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			var e npmErr
			if !e.parseStatus(line) || npmCodeAbove(c, line) {
				return failure.Hit{}, false // not a status line, or its code line reads it
			}
			if !strings.Contains(line, "npm") && !strings.Contains(line, "%2f") && !strings.Contains(line, "%2F") && c.Tool != failure.ToolNPM {
				return failure.Hit{}, false // the same format from a client of another registry
			}
			e.readBlock(c, line)
			if e.codeBelow {
				return failure.Hit{}, false
			}
			e.code = "E" + itoa3(e.status)
			return npmVerdict(c, e)
		},
	},
	{
		// registry phrases with no npm block around them (old npm, yarn, lerna)
		Gates: []string{"annot publish over", "Attempting to modify version", "annot be republished until", "-time password",
			"logged in", "auth and email required for publishing", "must sign up", "paid account",
			"packument", "verifying sigstore provenance", "not have permission to publish", "Two-factor authentication or granular", "Invalid npm token",
			"Unable to authenticate, ", "Incorrect or missing password"},
		RE: reNPMPhrase,
		Build: func(c *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
			if npmCodeAbove(c, line) {
				return failure.Hit{}, false
			}
			var e npmErr
			e.parseStatus(line)
			e.readBlock(c, line)
			e.code = npmPhraseCode(strings.ToLower(m[0]))
			return npmVerdict(c, e)
		},
	},
	{
		Gates: []string{"ERR_PNPM_"},
		RE:    rePNPMCode,
		Build: pnpmHit,
	},
}

// npmErr is what an npm error block says.
type npmErr struct {
	code   string // E403, EOTP, ECONNRESET ...
	status int    // the registry's status, 0 when the block shows none
	method string // the request's method, "" when not shown
	url    string // the request's URL
	pkg    string // the package, from the URL or the message
	msg    string // the registry's message after the status line's URL
	detail string // the block's other lines, lower-cased
	lines  []string
	extra  []string // evidence: the block's status and first message lines
	// codeBelow: a code line follows within the block (npm ≤ 5 prints
	// "publish Failed PUT 403" above "code E403"); that line decides
	codeBelow bool
}

// readBlock reads the error block around a line into e: the status line
// (one of the lines after it, up to the next code line, unless e has one),
// the message lines after it, and a "publish Failed PUT 403" or "Publishing
// to" line above it.
func (e *npmErr) readBlock(c *failure.ScanCtx, line string) {
	var b strings.Builder
	b.WriteString(strings.ToLower(line)) // lerna's "lerna ERR! E409 Failed to save packument"
	b.WriteByte('\n')
	e.lines = append(e.lines, line)
	for _, l := range failure.FollowingLines(c.Text, min(c.LineEnd, len(c.Text)), 10) {
		if reNPMCode.MatchString(l) {
			e.codeBelow = true
			break
		}
		if e.status == 0 && e.parseStatus(l) || len(e.extra) == 0 && npmMessage(l) {
			if len(e.extra) < 2 {
				e.extra = append(e.extra, failure.EvidenceLineAt(l, 0))
			}
		}
		e.lines = append(e.lines, l)
		b.WriteString(strings.ToLower(l))
		b.WriteByte('\n')
	}
	e.detail = b.String()
	for _, l := range precedingLines(c.Text, c.LineEnd-len(line), 12) {
		if m := reNPMFailed.FindStringSubmatch(l); m != nil && e.method == "" {
			e.method = m[1]
			if e.status == 0 {
				e.status = failure.Atoi(m[2])
			}
		}
		if e.method == "" && (strings.Contains(l, "Publishing to ") || strings.Contains(l, "npm notice publish")) {
			e.method = "PUT"
		}
	}
	if e.status != 0 {
		c.Facts.Status = e.status
	}
	if e.url != "" {
		c.Facts.URL = e.url
	}
}

// parseStatus reads a status line into e; it reports whether l was one.
func (e *npmErr) parseStatus(l string) bool {
	if !strings.Contains(l, " - ") && !strings.Contains(l, "npm ERR! ") && !strings.Contains(l, "npm error ") &&
		!strings.Contains(l, "Registry returned ") && !strings.Contains(l, "publish Failed ") {
		return false
	}
	if m := reNPMFetch.FindStringSubmatch(l); m != nil {
		e.status, e.method, e.url, e.msg = failure.Atoi(m[1]), m[2], m[3], strings.TrimSpace(m[4])
		e.pkg = npmPackageOf(e.url)
		return true
	}
	if m := reNPMReturned.FindStringSubmatch(l); m != nil {
		e.status, e.method, e.url = failure.Atoi(m[1]), m[2], m[3]
		e.pkg = npmPackageOf(e.url)
		return true
	}
	if m := reNPMFailed.FindStringSubmatch(l); m != nil {
		e.method, e.status = m[1], failure.Atoi(m[2])
		return true
	}
	if m := reNPMStatus.FindStringSubmatch(l); m != nil {
		code := failure.Atoi(m[1])
		if !failure.PhraseStatus(code, m[2]) && !strings.HasPrefix(strings.ToLower(m[2]), "not found") {
			return false // "npm ERR! 404 You should bug the author ...", "npm ERR! 403 In most cases ..."
		}
		e.status = code
		if _, rest, ok := strings.Cut(m[2], ":"); ok {
			e.msg = strings.TrimSpace(rest)
			if f := strings.Fields(e.msg); len(f) > 0 {
				e.pkg = f[0]
			}
		}
		return true
	}
	return false
}

// npmMessage reports whether a line of an error block says something: more
// than its prefix, and not npm's boilerplate.
func npmMessage(l string) bool {
	for _, p := range []string{"npm ERR! ", "npm error "} {
		if _, rest, ok := strings.Cut(l, p); ok {
			rest = strings.TrimSpace(rest)
			if len(rest) >= 3 && failure.Atoi(rest[:3]) >= 400 && (len(rest) == 3 || rest[3] == ' ') {
				rest = strings.TrimSpace(rest[3:]) // "npm ERR! 404  'x' is not in this registry."
			}
			if rest == "" {
				return false
			}
			for _, b := range []string{"A complete log", "Additional logging", "Please include", "If you need help", "errno ", "syscall ", "path ",
				"System ", "argv ", "command ", "cwd ", "node ", "npm ", "not ok", "Darwin ", "Linux ", "Windows_NT ", "<http",
				"In most cases", "a package version", "on a server", "You should bug", "Note that you can", "tarball, folder", "at "} {
				if strings.HasPrefix(rest, b) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// npmCodeAbove reports whether one of the two lines above line is the code
// line of its block (which reads this line itself).
func npmCodeAbove(c *failure.ScanCtx, line string) bool {
	for _, l := range precedingLines(c.Text, c.LineEnd-len(line), 2) {
		if reNPMCode.MatchString(l) {
			return true
		}
	}
	return false
}

// precedingLines returns up to n non-blank lines of text before offset end,
// nearest first; a line longer than maxWindow ends the walk.
func precedingLines(text string, end, n int) []string {
	end = min(max(end, 0), len(text))
	var out []string
	for len(out) < n && end > 0 {
		for end > 0 && (text[end-1] == '\n' || text[end-1] == '\r') {
			end--
		}
		lo := max(0, end-failure.MaxWindow)
		i := strings.LastIndexAny(text[lo:end], "\r\n")
		if i < 0 && lo > 0 {
			break
		}
		start := lo + i + 1
		if l := text[start:end]; strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
		end = start
	}
	return out
}

// npmPhraseCode is the npm code a registry phrase stands for.
func npmPhraseCode(p string) string {
	switch {
	case strings.Contains(p, "publish over"), strings.Contains(p, "modify version"):
		return "EPUBLISHCONFLICT"
	case strings.Contains(p, "republished"), strings.Contains(p, "permission to publish"), strings.Contains(p, "two-factor"):
		return "E403"
	case strings.Contains(p, "one-time password"):
		return "EOTP"
	case strings.Contains(p, "logged in"), strings.Contains(p, "auth and email"):
		return "ENEEDAUTH"
	case strings.Contains(p, "private packages"), strings.Contains(p, "paid account"):
		return "E402"
	case strings.Contains(p, "packument"):
		return "E409"
	case strings.Contains(p, "invalid npm token"), strings.Contains(p, "unable to authenticate"), strings.Contains(p, "missing password"):
		return "E401"
	default: // provenance
		return "E422"
	}
}

// npmVerdict classifies an npm error block by its code, read with its
// status, method and messages.
func npmVerdict(c *failure.ScanCtx, e npmErr) (failure.Hit, bool) {
	all := strings.ToLower(e.msg) + "\n" + e.detail
	what := failure.Clip(e.pkg)
	if what != "" {
		what = " " + what
	}
	h := failure.Hit{Rank: failure.RankTool, Extra: e.extra}
	set := func(class failure.Class, code failure.Code, reason, remedy string) (failure.Hit, bool) {
		h.Class, h.Code, h.Reason, h.Remedy = class, code, reason, remedy
		return h, true
	}
	net := func(code failure.Code, tr failure.TraceBits, reason string) (failure.Hit, bool) {
		h.Trace = tr
		return set(failure.Transient, code, "npm "+e.code+": "+reason, remedyNPMNet)
	}
	switch e.code {
	case "EPUBLISHCONFLICT":
		return npmConflict(h, e)
	case "EOTP":
		return set(failure.Policy, CodeNPMOTPRequired, "npm EOTP: the registry wants a one-time password (2FA) for this operation", remedyNPMOTP)
	case "ENEEDAUTH":
		return set(failure.Policy, failure.CodeNPMNeedAuth, "npm ENEEDAUTH: npm has no credentials for the registry (not logged in)", remedyNPMNeedAuth)
	case "ETIMEDOUT", "ESOCKETTIMEDOUT", "ERR_SOCKET_TIMEOUT":
		return net(failure.CodeTimeout, failure.TrNet, "the connection to the registry timed out")
	case "ECONNRESET", "ECONNABORTED", "EPIPE":
		return net(failure.CodeReset, failure.TrNet, "the connection to the registry was reset")
	case "EAI_AGAIN", "ENOTFOUND", "EAI_FAIL":
		return net(failure.CodeDNS, failure.TrNet|failure.TrNotSent, "the registry's host name did not resolve")
	case "ECONNREFUSED":
		return net(failure.CodeRefused, failure.TrNet|failure.TrNotSent, "the registry refused the connection")
	case "EHOSTUNREACH", "ENETUNREACH":
		return net(failure.CodeUnreachable, failure.TrNet|failure.TrNotSent, "the registry is unreachable")
	case "SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY", "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
		"CERT_HAS_EXPIRED", "DEPTH_ZERO_SELF_SIGNED_CERT", "ERR_TLS_CERT_ALTNAME_INVALID":
		return set(failure.Unknown, failure.CodeTLSCertificate, "npm "+e.code+": the registry's TLS certificate is not trusted", failure.RemedyEnvCert+" (npm reads cafile / NODE_EXTRA_CA_CERTS)")
	case "ERESOLVE":
		return set(failure.Structural, CodeNPMDependencyConflict, "npm ERESOLVE: the dependency tree cannot be resolved (conflicting peer dependencies)",
			"change the dependencies so that they agree (or install with --legacy-peer-deps); resolving again unchanged gives the same conflict")
	case "ETARGET":
		return set(failure.Absent, CodeNPMNoMatchingVersion, "npm ETARGET: no version of the package matches the requested range",
			"not there: fix the version or range in package.json (or the lockfile), or publish the version first")
	case "ENOLOCK":
		return set(failure.Structural, CodeNPMLockfile, "npm ENOLOCK: the command needs a package-lock.json", "commit a lockfile (npm i --package-lock-only) or use npm install")
	case "EUSAGE":
		if strings.Contains(all, "existing package-lock") {
			return set(failure.Structural, CodeNPMLockfile, "npm EUSAGE: npm ci needs a package-lock.json and there is none",
				"commit a package-lock.json (npm install --package-lock-only), or use npm install")
		}
		if strings.Contains(all, "in sync") || strings.Contains(all, "lockfile") || strings.Contains(all, "lock file") || strings.Contains(all, "package-lock") || strings.Contains(all, "shrinkwrap") {
			return set(failure.Structural, CodeNPMLockfile, "npm EUSAGE: package.json and package-lock.json are not in sync for npm ci",
				"run npm install and commit the updated package-lock.json; npm ci will refuse the same lockfile again")
		}
		return set(failure.Structural, CodeNPMUsage, "npm EUSAGE: npm was called with wrong arguments", "fix the npm command line")
	case "EJSONPARSE":
		return set(failure.Structural, CodeNPMUsage, "npm EJSONPARSE: package.json (or another JSON file) is not valid JSON", "fix the JSON file npm names (a merge conflict marker, a trailing comma)")
	case "EINVALIDTAGNAME", "EINVALIDPACKAGENAME", "EUNSUPPORTEDPROTOCOL", "EINVALIDTYPE":
		return set(failure.Structural, CodeNPMUsage, "npm "+e.code+": npm was given an invalid name, tag or spec", "fix the package name, tag or version spec npm names")
	case "FETCH_ERROR", "ERR_STREAM_PREMATURE_CLOSE":
		if strings.Contains(all, "unexpected end of json") || strings.Contains(all, "premature close") || strings.Contains(all, "aborted") {
			return net(failure.CodeTransferCut, failure.TrNet, "the registry's answer was cut short")
		}
		return failure.Hit{}, false // "Unexpected token < in JSON": a registry or proxy that answers HTML
	case "EINTEGRITY":
		return set(failure.Unknown, CodeNPMIntegrity, "npm EINTEGRITY: a downloaded tarball does not match the checksum in the lockfile",
			"a stale lockfile entry, a corrupted cache or a proxy that rewrites tarballs: run npm cache verify, or regenerate the lockfile entry; retry only after checking")
	}
	status := e.status
	if n := npmStatusCode(e.code); n != 0 {
		status = n
	}
	if status < 400 || status > 599 {
		return failure.Hit{}, false
	}
	publish := e.method != "" && !failure.IsLookup(e.method)
	if e.method == "" {
		publish = !failure.IsLookup(c.LookupMethod())
	}
	method := e.method
	if method == "" {
		method = c.LookupMethod()
	}
	on := ""
	if method != "" {
		on = " on " + method + what
	} else if what != "" {
		on = " for" + what
	}
	msg := ""
	if e.msg != "" && !strings.EqualFold(e.msg, statusText(status)) {
		msg = ": " + failure.Clip(e.msg)
	}
	if status < 500 && npmExists(all) {
		return npmConflict(h, e)
	}
	if status < 500 && status != 408 {
		if q, ok := npmQuota(h, e, all, what); ok {
			return q, true
		}
	}
	switch status {
	case 401:
		if strings.Contains(all, "one-time pass") {
			return set(failure.Policy, CodeNPMOTPRequired, "npm E401: the registry wants a one-time password (2FA) for this operation", remedyNPMOTP)
		}
		return set(failure.Policy, CodeNPMUnauthorized, "npm E401: the registry rejected the credentials"+on+msg, remedyNPM401)
	case 403:
		if strings.Contains(all, "two-factor") || strings.Contains(all, "one-time pass") || strings.Contains(all, "bypass 2fa") {
			return set(failure.Policy, CodeNPMOTPRequired, "npm E403: publishing"+what+" requires two-factor authentication"+msg,
				"the package's 2FA setting refuses this token: EOTP cannot be answered in CI; use a granular access token with bypass 2FA allowed by the package's publishing access setting, or trusted publishing")
		}
		if publish {
			return set(failure.Policy, CodeNPMForbidden, "npm E403: forbidden"+on+msg,
				"the token's user may not publish this package or scope (or the name belongs to someone else): grant it publish rights, use the owner's token, or rename the package")
		}
		return set(failure.Policy, CodeNPMForbidden, "npm E403: forbidden"+on+msg,
			"the registry, or its security policy, denies the package to these credentials: grant access or allow the package in the registry's policy")
	case 402:
		if publish || strings.Contains(all, "private packages") {
			return set(failure.Structural, CodeNPMRestrictedScope, "npm E402 on publish of"+what+": a scoped package publishes as restricted (private) by default",
				"publish it as public: set publishConfig.access=public in package.json or pass --access public (restricted packages need a paid plan)")
		}
		return set(failure.Policy, failure.HTTPCode(402), "npm E402: the registry wants payment"+on, "the account or organisation must change plan (billing)")
	case 404:
		if publish {
			return set(failure.Policy, CodeNPMPublishNoAccess, "npm E404"+on+": npm answers a publish without access to the package or scope as not found",
				"the token cannot publish here: check that the scope or organisation exists, that the token's user may publish to it, and that the token is sent to this registry (.npmrc registry and _authToken)")
		}
		return set(failure.Absent, CodeNPMNotFound, "npm E404: not in the registry"+on,
			"not there: fix the package name or version, or the registry URL (a private package also looks absent to credentials without access)")
	case 409:
		if strings.Contains(all, "packument") {
			return set(failure.Transient, CodeNPMPackumentConflict, "npm E409"+on+": the registry was still saving a previous publish",
				"retrying after a pause; if the retry says the version already exists, the first attempt landed")
		}
		return set(failure.Unknown, failure.HTTPCode(409), "npm E409: conflict"+on+msg,
			"the registry reports a conflict: check whether the version was published after all before publishing again")
	case 422:
		if strings.Contains(all, "tuf metadata") {
			return set(failure.Unknown, CodeNPMProvenance, "npm E422"+on+": the registry could not verify the provenance (its TUF metadata did not refresh)",
				"the registry's sigstore verification failed on its side: re-run the publish once by hand; if it persists, ask npm support")
		}
		if strings.Contains(all, "provenance") || strings.Contains(all, "sigstore") {
			return set(failure.Structural, CodeNPMProvenance, "npm E422"+on+": the registry rejected the provenance"+msg,
				"make package.json repository.url match the repository that builds the package, and publish with provenance from a GitHub-hosted runner; resending unchanged will not help")
		}
		return set(failure.Structural, failure.HTTPCode(422), "npm E422: the registry refused the package"+on+msg, "fix the package (see the message); resending unchanged will not help")
	case 429:
		return set(failure.Transient, failure.HTTPCode(429), "npm E429: rate limited by the registry"+on, failure.RemedyRateLimit)
	}
	vd := failure.StatusVerdict(status, method, failure.ToolNPM)
	if status >= 500 && vd.Class == failure.Transient {
		vd.Remedy = remedyNPM5xx
	}
	return set(vd.Class, vd.Code, "npm E"+itoa3(status)+": "+failure.StatusName(status)+on+msg, vd.Remedy)
}

// npmExists reports whether a registry's refusal says the version is
// already there: npm's own words, GitHub Packages', Verdaccio's, Azure
// Artifacts', Nexus'.
func npmExists(all string) bool {
	for _, p := range []string{"publish over", "previously published", "already present", "already exists", "already contains",
		"does not allow updating assets", "already been published", "is already published"} {
		if strings.Contains(all, p) {
			return true
		}
	}
	return false
}

// npmConflict is the verdict on a publish of a version that is already on
// the registry.
func npmConflict(h failure.Hit, e npmErr) (failure.Hit, bool) {
	all := e.msg + "\n" + strings.Join(e.lines, "\n")
	ver := ""
	if m := reNPMVersion.FindStringSubmatch(all); m != nil {
		ver = failure.Clip(m[1])
	}
	h.Class, h.Code = failure.Structural, CodeNPMPublishConflict
	h.Reason = "npm " + e.code + ": cannot publish over a version already on the registry"
	h.Remedy = "bump the version in package.json (npm version patch): this version is already on the registry; after a retried publish, check whether the first attempt landed"
	if ver != "" {
		h.Reason = "npm " + e.code + ": cannot publish over the previously published version " + ver
		h.Remedy = "bump the version in package.json: " + ver + " is already on the registry (after a retried publish, check whether the first attempt landed)"
	}
	if e.pkg != "" {
		h.Reason += " of " + failure.Clip(e.pkg)
	}
	return h, true
}

// npmQuota recognises the registry's time-bound caps on a 4xx answer: a
// package that cannot be republished until 24 hours have passed, too many
// versions or publishes in a day.
func npmQuota(h failure.Hit, e npmErr, all, what string) (failure.Hit, bool) {
	republish := strings.Contains(all, "cannot be republished")
	capped := strings.Contains(all, "too many versions") || strings.Contains(all, "too many publishes") ||
		strings.Contains(all, "too many packages") || strings.Contains(all, "daily limit") || strings.Contains(all, "daily quota") ||
		strings.Contains(all, "per day")
	if !republish && !capped {
		return failure.Hit{}, false
	}
	wait := ""
	if m := reNPMWait.FindStringSubmatch(all); m != nil {
		wait = failure.Clip(m[1] + m[2] + m[3])
	}
	h.Class, h.Code = failure.Policy, failure.CodeQuotaExhausted
	if republish {
		h.Reason = "npm " + e.code + ":" + what + " cannot be republished until the registry's waiting period after an unpublish has passed"
		h.Remedy = "wait out the registry's republish period, or publish under another name; retrying now will not help"
	} else {
		h.Reason = "npm " + e.code + ": the registry's publish cap" + what + " is spent"
		h.Remedy = "wait for the cap to reset, or publish fewer versions (fewer prereleases, batch the changes); retrying now will not help"
	}
	if wait != "" {
		h.Reason += " (resets after " + wait + ")"
	}
	return h, true
}

// npmStatusCode returns the status of an "Ennn" code, or 0.
func npmStatusCode(code string) int {
	if len(code) != 4 || code[0] != 'E' {
		return 0
	}
	if n := failure.Atoi(code[1:]); n >= 400 && n <= 599 {
		return n
	}
	return 0
}

// npmPackageOf returns the package a registry URL names
// ("https://registry.npmjs.org/@s%2fp" → "@s/p"; a tarball URL's package).
func npmPackageOf(u string) string {
	rest := u
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return ""
	}
	p := strings.TrimRight(rest[i+1:], ".,;")
	if dec, err := url.PathUnescape(p); err == nil {
		p = dec
	}
	if j := strings.Index(p, "/-/"); j >= 0 {
		p = p[:j]
	}
	if j := strings.IndexAny(p, "?#"); j >= 0 {
		p = p[:j]
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	n := len(segs)
	switch {
	case n == 0 || segs[n-1] == "":
		return ""
	case n >= 2 && strings.HasPrefix(segs[n-2], "@"):
		return segs[n-2] + "/" + segs[n-1]
	}
	return segs[n-1]
}

// statusText is the reason phrase of a status.
func statusText(code int) string {
	name := failure.StatusName(code)
	_, t, _ := strings.Cut(name[len("HTTP "):], " ")
	return t
}

func itoa3(n int) string {
	if n < 100 || n > 999 {
		return "???"
	}
	return string([]byte{byte('0' + n/100), byte('0' + n/10%10), byte('0' + n%10)})
}

// pnpmHit classifies pnpm's own registry errors: ERR_PNPM_FETCH_NNN read
// like npm's status lines, a frozen lockfile out of date, no matching
// version.
func pnpmHit(c *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
	code := m[1]
	if strings.Contains(line, "Will retry") || strings.Contains(line, "WARN") {
		return failure.Hit{}, false // pnpm retries it itself; the final error tells
	}
	if strings.HasPrefix(code, "FETCH_") {
		f := rePNPMFetch.FindStringSubmatch(line)
		if f == nil {
			return failure.Hit{}, false
		}
		msg := strings.TrimSpace(f[4])
		if i := strings.LastIndex(msg, " - "); i >= 0 && failure.Atoi(msg[i+3:]) == failure.Atoi(f[1]) {
			msg = msg[:i] // "Not Found - 404"
		}
		e := npmErr{status: failure.Atoi(f[1]), method: f[2], url: f[3], msg: msg}
		e.pkg = npmPackageOf(e.url)
		e.code = "E" + f[1]
		if e.url != "" {
			c.Facts.URL = e.url
		}
		c.Facts.Status = e.status
		h, ok := npmVerdict(c, e)
		h.Reason = strings.Replace(h.Reason, "npm E"+f[1], "pnpm ERR_PNPM_FETCH_"+f[1], 1)
		return h, ok
	}
	h := failure.Hit{Rank: failure.RankTool}
	switch code {
	case "OUTDATED_LOCKFILE", "FROZEN_LOCKFILE_WITH_OUTDATED_LOCKFILE", "LOCKFILE_CONFIG_MISMATCH", "LOCKFILE_MISSING_DEPENDENCY":
		h.Class, h.Code = failure.Structural, CodeNPMLockfile
		h.Reason = "pnpm ERR_PNPM_" + code + ": pnpm-lock.yaml is not up to date with package.json for a frozen install"
		h.Remedy = "run pnpm install and commit the updated pnpm-lock.yaml; a frozen install refuses the same lockfile again"
	case "TARBALL_INTEGRITY":
		h.Class, h.Code = failure.Unknown, CodeNPMIntegrity
		h.Reason = "pnpm ERR_PNPM_TARBALL_INTEGRITY: a downloaded tarball does not match the checksum in the lockfile"
		h.Remedy = "a stale lockfile entry, a corrupted store or a proxy that rewrites tarballs: run pnpm store prune, or regenerate the lockfile entry; retry only after checking"
	case "NO_MATCHING_VERSION":
		h.Class, h.Code = failure.Absent, CodeNPMNoMatchingVersion
		h.Reason = "pnpm ERR_PNPM_NO_MATCHING_VERSION: no version of the package matches the requested range"
		h.Remedy = "not there: fix the version or range in package.json (or the lockfile), or publish the version first"
	case "PEER_DEP_ISSUES":
		h.Class, h.Code = failure.Structural, CodeNPMDependencyConflict
		h.Reason = "pnpm ERR_PNPM_PEER_DEP_ISSUES: unmet or conflicting peer dependencies"
		h.Remedy = "change the dependencies so that they agree (or relax strict-peer-dependencies); resolving again unchanged gives the same conflict"
	default:
		return failure.Hit{}, false
	}
	return h, true
}
