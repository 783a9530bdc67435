package failure

import "testing"

// The object stores' error codes (S3 and its clones, GCS, Azure Storage),
// Redis's error prefixes, the DynDNS2 update protocol's return codes, the
// shell's "command not found" and the package managers' kinds not read
// before: each read by kind, in several tools' shapes.

func TestStdObjectStoreCodes(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "aws cli clock skew", tool: ToolAuto, exit: 1, text: "fatal error: An error occurred (RequestTimeTooSkewed) when calling the PutObject operation: The difference between the request time and the current time is too large.",
			class: Structural, code: CodeValidation, reason: "clock", remedy: "NTP"},
		{name: "rclone clock skew beside its 403", tool: ToolAuto, exit: 1, text: "2024/01/01 02:00:00 ERROR : db.sql.gz: Failed to copy: RequestTimeTooSkewed: The difference between the request time and the current time is too large.\n\tstatus code: 403, request id: 1A2B, host id: xyz",
			class: Structural, code: CodeValidation, reason: "clock"},
		{name: "s3cmd clock skew", tool: ToolAuto, exit: 77, text: "ERROR: S3 error: 403 (RequestTimeTooSkewed): The difference between the request time and the current time is too large.",
			class: Structural, code: CodeValidation},
		{name: "SigV4 expired signature", tool: ToolAuto, exit: 1, text: "An error occurred (InvalidSignatureException) when calling the PutItem operation: Signature expired: 20240101T010000Z is now earlier than 20240101T011000Z (20240101T012500Z - 15 min.)",
			class: Structural, code: CodeValidation, reason: "clock"},
		{name: "S3 RequestTimeout is a timeout", tool: ToolAuto, exit: 1, text: "upload failed: ./db.tar to s3://backups/db.tar An error occurred (RequestTimeout) when calling the UploadPart operation: Your socket connection to the server was not read from or written to within the timeout period. Idle connections will be closed.",
			class: Transient, code: CodeTimeout},
		{name: "Azure ServerBusy", tool: ToolAuto, exit: 1, text: "===== RESPONSE ERROR (ServiceCode=ServerBusy) =====\nDescription=503 The server is busy., Details: (none)",
			class: Transient, code: CodeThrottled},
		{name: "Azure OperationTimedOut", tool: ToolAuto, exit: 1, text: "===== RESPONSE ERROR (ServiceCode=OperationTimedOut) =====\nDescription=500 Operation could not be completed within the specified time., Details: (none)",
			class: Transient, code: CodeTimeout},
		{name: "Azure ContainerNotFound", tool: ToolAuto, exit: 1, text: "===== RESPONSE ERROR (ServiceCode=ContainerNotFound) =====\nDescription=The specified container does not exist.",
			class: Absent, code: CodeNotFound},
		{name: "Azure BlobNotFound in an SDK's words", tool: ToolAuto, exit: 1, text: "azure.core.exceptions.ResourceNotFoundError: The specified blob does not exist.\nErrorCode:BlobNotFound",
			class: Absent, code: CodeNotFound},
		{name: "Azure AuthorizationPermissionMismatch", tool: ToolAuto, exit: 1, text: "RESPONSE 403: 403 This request is not authorized to perform this operation using this permission.\nERROR CODE: AuthorizationPermissionMismatch",
			class: Policy, code: CodePermissionDenied},
		{name: "the words 'request time' alone are not skew", tool: ToolAuto, exit: 1, text: "error: request time exceeded the job's budget\n",
			class: Unknown, code: CodeUnknown},
	})
}

func TestStdRedisErrors(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "redis-cli WRONGPASS", tool: ToolAuto, exit: 1, text: "AUTH failed: WRONGPASS invalid username-password pair or user is disabled.", class: Policy, code: CodeAuthRejected},
		{name: "redis-cli NOAUTH", tool: ToolAuto, exit: 1, text: "(error) NOAUTH Authentication required.", class: Policy, code: CodeAuthRejected},
		{name: "ioredis NOPERM", tool: ToolAuto, exit: 1, text: "ReplyError: NOPERM this user has no permissions to run the 'bgsave' command", class: Policy, code: CodePermissionDenied},
		{name: "LOADING is transient", tool: ToolAuto, exit: 1, text: "(error) LOADING Redis is loading the dataset in memory", class: Transient, code: CodeServiceUnavailable},
		{name: "BUSY script is transient", tool: ToolAuto, exit: 1, text: "redis.exceptions.BusyLoadingError: BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.", class: Transient, code: CodeServiceUnavailable},
		{name: "CLUSTERDOWN is transient", tool: ToolAuto, exit: 1, text: "(error) CLUSTERDOWN The cluster is down", class: Transient, code: CodeServiceUnavailable},
		{name: "READONLY replica is structural", tool: ToolAuto, exit: 1, text: "(error) READONLY You can't write against a read only replica.", class: Structural, code: CodeValidation, remedy: "primary"},
		{name: "MISCONF persistence is structural", tool: ToolAuto, exit: 1, text: "(error) MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled.", class: Structural, code: CodeValidation},
		{name: "an upper-case word in a log is not Redis's", tool: ToolAuto, exit: 1, text: "LOADING config from /etc/app.yml\nerror: boom", class: Unknown, code: CodeUnknown},
	})
}

func TestStdDynDNSReturnCodes(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "ddclient badauth", tool: ToolAuto, exit: 1, text: "FAILED:   updating home.example.org: badauth: Bad authorization (username or password)", class: Policy, code: CodeAuthRejected},
		{name: "ddclient nohost", tool: ToolAuto, exit: 1, text: "FAILED:   updating home.example.org: nohost: The hostname specified does not exist in this user account", class: Structural, code: CodeValidation},
		{name: "ddclient abuse", tool: ToolAuto, exit: 1, text: "FAILED:   updating home.example.org: abuse: The hostname specified is blocked for update abuse", class: Policy, code: CodePermissionDenied},
		{name: "ddclient 911", tool: ToolAuto, exit: 1, text: "FAILED:   updating home.example.org: 911: There is a problem or scheduled maintenance on our side", class: Transient, code: CodeServiceUnavailable},
		{name: "inadyn's server response", tool: ToolAuto, exit: 1, text: "inadyn[812]: Error response from DDNS server, ignoring ...\ninadyn[812]: DDNS server response: badauth", class: Policy, code: CodeAuthRejected},
		{name: "a bare word 'abuse' is not a return code", tool: ToolAuto, exit: 1, text: "note: see the abuse policy\nerror: boom", class: Unknown, code: CodeUnknown},
	})
}

func TestStdShellAndPackageKinds(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "bash command not found", tool: ToolAuto, exit: 127, text: "/usr/local/bin/backup.sh: line 12: restic: command not found", class: Structural, code: CodeExecCannotStart, reason: "restic"},
		{name: "dash not found", tool: ToolAuto, exit: 127, text: "sh: 1: pg_dumpp: not found", class: Structural, code: CodeExecCannotStart, reason: "pg_dumpp"},
		{name: "an archive command's exit 127 in postgres' log", tool: ToolAuto, exit: 1, text: "LOG:  archive command failed with exit code 127\nDETAIL:  The failed archive command was: wal-g wal-push pg_wal/000000010000000000000004", class: Structural, code: CodeExecCannotStart},
		{name: "a 404 page's 'not found' is not the shell's", tool: ToolAuto, exit: 22, text: "curl: (22) The requested URL returned error: 404 Not Found", class: Absent, code: "http-404"},
		{name: "composer cannot resolve", tool: ToolAuto, exit: 2, text: "Loading composer repositories with package information\nYour requirements could not be resolved to an installable set of packages.\n\n  Problem 1\n    - Root composer.json requires foo/bar ^9, found foo/bar[1.0] but it does not match the constraint.", class: Structural, code: CodePackageConflict},
		{name: "gem not found", tool: ToolAuto, exit: 2, text: "ERROR:  Could not find a valid gem 'no-such-gem' (>= 0) in any repository", class: Structural, code: CodePackageNotFound},
		{name: "MySQL 1049 unknown database", tool: ToolAuto, exit: 2, text: "mysqldump: Got error: 1049: Unknown database 'prod' when selecting the database", class: Structural, code: CodeSQLSyntax},
	})
}

// TestStdSMTPDeferredByACheck: a 4yz deferral whose text names a check the
// sender must pass (reverse DNS, a blocklist, the sender's reputation)
// defers for as long as that is so: policy, not a wait within the run.
// Greylisting and a busy server stay transient.
func TestStdSMTPDeferredByACheck(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "421 for missing reverse DNS", tool: ToolAuto, exit: 1, text: "postfix/smtp[812]: 3F2A1: to=<a@example.net>, relay=mx.example.net[192.0.2.5]:25, dsn=4.7.1, status=deferred (host mx.example.net[192.0.2.5] said: 421 4.7.1 Client host rejected: cannot find your reverse hostname, [198.51.100.7] (in reply to RCPT TO command))",
			class: Policy, code: CodeSMTPPolicy, remedy: "reverse"},
		{name: "450 listed at a DNSBL", tool: ToolAuto, exit: 1, text: "smtplib.SMTPRecipientsRefused: {'a@example.net': (450, b'4.7.1 Service unavailable; Client host [198.51.100.7] blocked using bl.spamcop.net')}",
			class: Policy, code: CodeSMTPPolicy},
		{name: "greylisting stays transient", tool: ToolAuto, exit: 1, text: "smtplib.SMTPDataError: (451, b'4.7.1 Greylisting in action, please come back later')",
			class: Transient, code: CodeSMTPTransient},
		{name: "a busy server stays transient", tool: ToolAuto, exit: 1, text: "msmtp: server message: 421 4.3.2 Service not available, closing transmission channel",
			class: Transient, code: CodeSMTPTransient},
	})
}
