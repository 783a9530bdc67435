package failure

import (
	"strconv"
	"strings"
)

// Code is the stable, machine-readable kind of a failure, a short kebab-case
// name such as git-non-fast-forward or proxy-denied. It plays the role of
// actionlint's rule kinds: the reason is prose for people and may change
// between releases, the code is part of the contract (classify --json, the
// JSON report) and is what callers and tests switch on. Catalog lists them.
type Code string

// String returns the code itself.
func (c Code) String() string { return string(c) }

// The codes. A recognised failure never carries CodeUnknown.
const (
	// CodeUnknown: no recogniser claimed the failure.
	CodeUnknown Code = "unknown"
	// CodeNoOutput: there was nothing to classify (no output, no status).
	CodeNoOutput Code = "no-output"

	// Network and TLS, worded alike by every client.
	CodeDNS              Code = "dns-failure"
	CodeRefused          Code = "connection-refused"
	CodeConnectFailed    Code = "connect-failed"
	CodeTimeout          Code = "timeout"
	CodeReset            Code = "connection-reset"
	CodeUnreachable      Code = "network-unreachable"
	CodeTLSBroken        Code = "tls-connection-broken"
	CodeHTTP2Closed      Code = "http2-stream-closed"
	CodeEmptyReply       Code = "empty-reply"
	CodeTransferCut      Code = "transfer-incomplete"
	CodeTransferStalled  Code = "transfer-stalled"
	CodeUnexpectedEOF    Code = "unexpected-eof"
	CodeTLSCertificate   Code = "tls-certificate"
	CodeTLSNegotiation   Code = "tls-negotiation"
	CodePlainHTTP        Code = "http-to-https-server"
	CodeSSHHostKey       Code = "ssh-host-key"
	CodeCancelled        Code = "cancelled"
	CodeProxyDenied      Code = "proxy-denied"
	CodeProxyAuth        Code = "proxy-auth-required"
	CodeProxyUpstream    Code = "proxy-upstream-failed"
	CodeProxyUnreachable Code = "proxy-unreachable"
	CodeProxyFailing     Code = "proxy-failing"
	CodeProxyRejected    Code = "proxy-rejected"
	CodeProxyCannotFwd   Code = "proxy-cannot-forward"
	CodeProxyTLS         Code = "proxy-tls-failed"
	CodeProxyAborted     Code = "proxy-connect-aborted"
	CodeProxyConnect     Code = "proxy-connect-failed"
	CodeProxyUnclear     Code = "proxy-unclear"

	// HTTP answers beyond the bare status (http-NNN, see HTTPCode).
	CodeRateLimited    Code = "rate-limited"
	CodeQuotaExhausted Code = "quota-exhausted"
	// CodeRateLimitWindow: a rate limit whose reset (or window) is further
	// away than the step's whole max elapsed: policy, waiting within the
	// run cannot pass it.
	CodeRateLimitWindow  Code = "rate-limit-window"
	CodeBadCredentials   Code = "bad-credentials"
	CodeNotAccessible    Code = "resource-not-accessible"
	CodeInsufficientPerm Code = "insufficient-permission"
	CodeSAML             Code = "saml-sso-required"
	CodeGraphQLForbidden Code = "graphql-forbidden"
	CodeGraphQLNotFound  Code = "graphql-not-found"
	CodeNotErrorStatus   Code = "http-not-an-error"
	CodeUnexpectedStatus Code = "http-unexpected-status"
	CodeTooManyRedirects Code = "http-too-many-redirects"
	CodeRequestTimeout   Code = "http-timeout"
	CodeInvalidRequest   Code = "http-invalid-request"
	CodeRedirectScheme   Code = "http-redirect-unsupported-scheme"
	CodeFieldMissing     Code = "field-missing"
	CodeFieldNotJSON     Code = "field-not-json"
	CodeFieldTooLarge    Code = "field-body-too-large"
	// CodeBodyTooLarge: an expected answer's body is over --max-body.
	CodeBodyTooLarge    Code = "http-body-too-large"
	CodeFieldExprFailed Code = "field-expr-failed"
	CodeFieldSeveral    Code = "field-several-results"
	CodeOutputWrite     Code = "output-write-failed"
	CodeBreakerOpen     Code = "breaker-open"
	CodeGitHubRateLimit Code = "github-rate-limit"
	CodeGitHubSecondary Code = "github-secondary-rate-limit"
	CodeGitHubQuotaLow  Code = "github-quota-low"
	CodeGitHubNoBucket  Code = "github-bucket-missing"

	// git: transport, refusals and rejections.
	CodeGitAccess         Code = "git-access-failed"
	CodeGitNonFastForward Code = "git-non-fast-forward"
	CodeGitFetchFirst     Code = "git-fetch-first"
	CodeGitStaleInfo      Code = "git-stale-info"
	CodeGitRefExists      Code = "git-ref-exists"
	CodeGitNeedsForce     Code = "git-needs-force"
	CodeGitProtected      Code = "git-protected-branch"
	CodeGitRules          Code = "git-repository-rules"
	CodeGitShallow        Code = "git-shallow-update"
	CodeGitCheckedOut     Code = "git-branch-checked-out"
	CodeGitWorkflow       Code = "git-workflow-permission"
	CodeGitHookDeclined   Code = "git-hook-declined"
	CodeGitRefDenied      Code = "git-ref-permission-denied"
	CodeGitRemoteRejected Code = "git-remote-rejected"
	CodeGitRejected       Code = "git-push-rejected"
	CodeGitAtomic         Code = "git-atomic-push-failed"
	CodeGitLargeFile      Code = "git-large-file"
	CodeGitPrivateEmail   Code = "git-private-email"
	CodeGitSecret         Code = "git-secret-detected"
	CodeGitGitHubRule     Code = "git-github-rule"
	CodeGitNotRemote      Code = "git-not-a-remote"
	CodeGitNotRepo        Code = "git-not-a-repository"
	CodeGitNoLocalRef     Code = "git-no-local-ref"
	CodeGitDubiousOwner   Code = "git-dubious-ownership"
	CodeGitRemoteRefGone  Code = "git-remote-ref-missing"
	CodeGitPermission     Code = "git-permission-denied"
	CodeGitAuthFailed     Code = "git-auth-failed"
	CodeGitNoCredentials  Code = "git-no-credentials"
	CodeGitPasswordAuth   Code = "git-password-auth-rejected"
	CodeGitRepoNotFound   Code = "git-repository-not-found"
	CodeGitSSHKey         Code = "git-ssh-key-rejected"
	CodeGitNotAllowed     Code = "git-not-allowed"
	CodeGitRateLimited    Code = "git-rate-limited"
	CodeGitServerError    Code = "git-server-error"
	CodeGitDropped        Code = "git-connection-dropped"
	CodeGitStatusUnknown  Code = "git-status-unreported"
	CodeGitNoUpstream     Code = "git-no-upstream"
	CodeGitDetached       Code = "git-detached-head"
	CodeGitUpstreamName   Code = "git-upstream-mismatch"
	CodeGitRebaseConflict Code = "git-rebase-conflict"
	CodeGitRebaseFailed   Code = "git-rebase-failed"
	CodeGitCommandFailed  Code = "git-command-failed"
	CodeExecTimeout       Code = "exec-timeout"
	CodeExecSignal        Code = "exec-killed-by-signal"
	CodeExecCannotStart   Code = "exec-cannot-start"
	// CodeModuleMissing: the runtime found no module the program imports
	// (Python's ModuleNotFoundError, Node's "Cannot find module", Ruby's
	// LoadError).
	CodeModuleMissing Code = "runtime-module-missing"
	// CodeConfigEntryMissing: the tool's configuration holds no remote,
	// section or profile of the name given (rclone's "didn't find section in
	// config file", the AWS CLI's "The config profile (x) could not be
	// found").
	CodeConfigEntryMissing Code = "config-entry-missing"
	// CodeMigrationInvalid: a schema migration tool refuses the applied
	// history (Flyway's "Validate failed", a checksum mismatch, Liquibase's
	// ValidationFailedException).
	CodeMigrationInvalid Code = "migration-validation-failed"
	// CodeGPGKeyMissing: gpg has no usable key ("No secret key", "No public
	// key", "Unusable public key").
	CodeGPGKeyMissing Code = "gpg-key-missing"
	// CodeGPGPassphrase: gpg refused the passphrase ("Bad passphrase").
	CodeGPGPassphrase       Code = "gpg-bad-passphrase"
	CodeExecNotRun          Code = "exec-did-not-run"
	CodeExecOutputMalformed Code = "exec-output-malformed"
	CodeExecOutputTooLarge  Code = "exec-output-too-large"
	// CodeExecStdoutTooLarge: an attempt's stdout outgrew the --stdout final spool.
	CodeExecStdoutTooLarge Code = "exec-stdout-too-large"
	CodeRuleRetryOn        Code = "rule-retry-on"
	CodeRuleStopOn         Code = "rule-stop-on"
	CodeRuleRetryOnExit    Code = "rule-retry-on-exit"
	CodeRuleStopOnExit     Code = "rule-stop-on-exit"
	CodeMaxElapsed         Code = "max-elapsed"
	// CodeRuleMatchTooSlow: matching the team rules (--rules) against a
	// failure took over MaxRulesMatchTime.
	CodeRuleMatchTooSlow Code = "rule-match-too-slow"
)

// HTTPCode returns the code of an HTTP status answer, "http-NNN".
func HTTPCode(status int) Code { return Code("http-" + strconv.Itoa(status)) }

// CurlCode returns the code of a curl exit status with no better
// recognised message, "curl-N".
func CurlCode(exit int) Code { return Code("curl-" + strconv.Itoa(exit)) }

// HTTPStatus returns the status of an http-NNN code, or 0.
func (c Code) HTTPStatus() int {
	s, ok := strings.CutPrefix(string(c), "http-")
	if !ok || len(s) != 3 {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}
