package failure

// More standards a cron job's tools print, read by kind with the codes the
// layer already has:
//
//   - the object stores' error codes (S3 and its clones as aws, rclone,
//     s3cmd, restic and the SDKs print them; Azure Storage's ServiceCode;
//     GCS's reasons through the HTTP status): a request signed at a time
//     too far from the server's (RequestTimeTooSkewed, an expired SigV4
//     signature) is structural, the machine's clock must change; S3's
//     RequestTimeout and Azure's OperationTimedOut are timeouts and
//     ServerBusy a throttle (transient); Azure's ContainerNotFound and
//     BlobNotFound are absent, as S3's NoSuchBucket; its
//     AuthorizationPermissionMismatch is a missing permission (policy);
//   - Redis's error prefixes (the RESP error kinds redis-cli and every
//     client print): WRONGPASS and NOAUTH are the login's (policy), NOPERM
//     the ACL's (policy); LOADING, BUSY, TRYAGAIN, CLUSTERDOWN and
//     MASTERDOWN pass (transient); READONLY (a write sent to a replica)
//     and MISCONF (the server cannot persist) are structural;
//   - the DynDNS2 update protocol's return codes (ddclient, inadyn, any
//     dyndns2 client): badauth (policy), abuse (policy: blocked), nohost,
//     notfqdn, numhost and badagent (structural: the request must change),
//     911 and dnserr (the provider's side: transient);
//   - the shell's "command not found" (exit status 127, POSIX): the
//     program is not installed or not on the job's PATH (structural).

var storeRows = []phraseRow{
	// the object stores
	{gates: []string{"RequestTimeTooSkewed", "equest time and the current time is too large", "Signature expired:", "RequestExpired"},
		re:    `RequestTimeTooSkewed|(?i:difference between the request time and the current time is too large)|Signature expired: \d{8}T\d{6}Z is now earlier than|\bRequestExpired\b`,
		class: Structural, code: CodeValidation, rank: rankStdCode, reason: "the request was signed at a time too far from the server's clock",
		remedy: "the machine's clock is off (the store allows about 15 minutes): sync it (chrony/NTP, systemd-timesyncd; a VM or container host that slept) and run the job again; a retry signs with the same wrong clock"},
	{gates: []string{"RequestTimeout", "OperationTimedOut", "ocket connection to the server was not read from or written to"},
		re:    `\(RequestTimeout\)|\bRequestTimeout: |ServiceCode=RequestTimeout|<Code>RequestTimeout</Code>|\bOperationTimedOut\b|(?i:socket connection to the server was not read from or written to within the timeout period)`,
		class: Transient, code: CodeTimeout, rank: rankStdCode, reason: "the object store timed out the request",
		remedy: remedyRetryNet},
	{gates: []string{"ServerBusy"},
		re:    `\bServerBusy\b`,
		class: Transient, code: CodeThrottled, rank: rankStdCode, reason: "the object store is busy (throttled)", remedy: remedyThrottled},
	{gates: []string{"ContainerNotFound", "BlobNotFound", "ShareNotFound", "FilesystemNotFound", "PathNotFound"},
		re:    `\b(?:ContainerNotFound|BlobNotFound|ShareNotFound|FilesystemNotFound|PathNotFound)\b`,
		class: Absent, code: CodeNotFound, rank: rankGenericPhrase - 2, reason: "not found", remedy: remedyNotFound},
	{gates: []string{"AuthorizationPermissionMismatch", "AuthorizationFailure", "AuthorizationResourceTypeMismatch", "InsufficientAccountPermissions"},
		re:    `\b(?:AuthorizationPermissionMismatch|AuthorizationFailure|AuthorizationResourceTypeMismatch|InsufficientAccountPermissions)\b`,
		class: Policy, code: CodePermissionDenied, rank: rankStdCode, reason: "the storage account refuses the operation to this identity", remedy: remedyPermission},
	// Redis
	{gates: []string{"WRONGPASS", "NOAUTH"},
		re:    `(?:^|\(error\) |ReplyError: |Error: |ERR |: )(?:WRONGPASS|NOAUTH) [A-Za-z]`,
		class: Policy, code: CodeAuthRejected, rank: rankStdCode, reason: "Redis refused the login", remedy: remedyAuthRejected},
	{gates: []string{"NOPERM"},
		re:    `(?:^|\(error\) |ReplyError: |Error: |: )NOPERM [A-Za-z]`,
		class: Policy, code: CodePermissionDenied, rank: rankStdCode, reason: "Redis's ACL refuses the command", remedy: remedyPermission},
	{gates: []string{"LOADING Redis", "BUSY Redis", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN"},
		re:    `LOADING Redis is loading|BUSY Redis is busy|(?:^|\(error\) |ReplyError: |Error: |: )(?:TRYAGAIN|CLUSTERDOWN|MASTERDOWN) [A-Za-z]`,
		class: Transient, code: CodeServiceUnavailable, rank: rankStdCode, reason: "Redis is loading, busy or failing over", remedy: remedyServer},
	{gates: []string{"READONLY You can't write", "MISCONF Redis"},
		re:    `READONLY You can't write against a read only (?:replica|slave)|MISCONF Redis is configured to save`,
		class: Structural, code: CodeValidation, rank: rankStdCode, reason: "Redis refuses writes here",
		remedy: "a write went to a read-only replica (point the job at the primary) or the server cannot persist its snapshot (its disk or dir: see the server's log); retrying the same write fails the same way"},
	// the DynDNS2 return codes
	{gates: []string{"badauth"},
		re:    `(?:updating [^:\n]+|DDNS server response|server response|ddns[^\n:]*): (?:badauth)\b|DDNS server response: badauth\b`,
		class: Policy, code: CodeAuthRejected, rank: rankStdCode, reason: "the dynamic DNS provider refused the login (badauth)", remedy: remedyAuthRejected},
	{gates: []string{"abuse"},
		re:    `(?:updating [^:\n]+|DDNS server response): abuse\b`,
		class: Policy, code: CodePermissionDenied, rank: rankStdCode, reason: "the dynamic DNS provider blocks the host for update abuse (abuse)",
		remedy: "the provider blocked updates of this name (too many or needless updates): unblock it in the account and update only on a change; retrying cannot succeed"},
	{gates: []string{"nohost", "notfqdn", "numhost", "badagent"},
		re:    `(?:updating [^:\n]+|DDNS server response): (?:nohost|notfqdn|numhost|badagent)\b`,
		class: Structural, code: CodeValidation, rank: rankStdCode, reason: "the dynamic DNS provider rejects the update's host or client",
		remedy: "the host name is not in the account or not fully qualified, or the client is refused: fix the configured name (or the client's version); retrying cannot succeed"},
	{gates: []string{"911", "dnserr"},
		re:    `(?:updating [^:\n]+|DDNS server response): (?:911|dnserr)\b`,
		class: Transient, code: CodeServiceUnavailable, rank: rankStdCode, reason: "the dynamic DNS provider failed on its side", remedy: remedyServer},
	// gpg, as backup and secret tools run it
	{gates: []string{"Bad passphrase", "bad passphrase"},
		re:    `gpg: (?:public key decryption failed|decryption failed|signing failed|\S+: sign\+encrypt failed|\S+: clear-sign failed): [Bb]ad passphrase`,
		class: Policy, code: CodeGPGPassphrase, rank: rankStdWords + 1, reason: "gpg refused the key's passphrase",
		remedy: "the passphrase given to gpg is wrong (PASSPHRASE, --passphrase-file, the agent's cache is empty under cron): set the right one in the job's secrets; retrying cannot succeed"},
	{gates: []string{"No secret key", "No public key", "Unusable public key"},
		re:    `gpg: (?:decryption failed|\[stdin\]: encryption failed|\S+: encryption failed|signing failed|\S+: skipped): (?:No secret key|No public key|Unusable public key)`,
		class: Structural, code: CodeGPGKeyMissing, rank: rankStdWords, reason: "gpg has no usable key for it",
		remedy: "the key is not in the keyring gpg reads (cron and service users have another HOME/GNUPGHOME), or it expired: import the key for the user the job runs as, or renew its expiry; retrying cannot succeed"},
	// a wrong password or passphrase, in any tool's words (restic, borg,
	// an archive, a vault)
	{gates: gateVariants([]string{"rong password", "ncorrect password", "nvalid password", "rong passphrase", "ncorrect passphrase", "nvalid passphrase", "is incorrect"}),
		re:    `(?i)\b(?:wrong|incorrect|invalid) (?:password|passphrase)\b|\bpassphrase (?:supplied|provided|given)\b[^\n]{0,80}\bis incorrect\b`,
		class: Policy, code: CodeAuthRejected, rank: rankStdWords, reason: "the password or passphrase was refused",
		remedy: "the password or passphrase the job gives is wrong (the secret, the *_PASSWORD/*_PASSPHRASE variable, a password file cron cannot read): set the right one; retrying cannot succeed"},
	// the tool's configuration
	{gates: []string{"idn't find section in config", "he config profile ("},
		re:    `didn't find section in config (?:file|name)|The config profile \(([^)]+)\) could not be found`,
		class: Structural, code: CodeConfigEntryMissing, rank: rankStdWords, reason: "the tool's configuration holds no entry of that name",
		remedy: "the remote, section or profile named is not in the configuration the tool read: under cron it is often another user's or another path's config (set --config, RCLONE_CONFIG, AWS_CONFIG_FILE, or HOME), or the name is misspelt; retrying cannot succeed"},
	// schema migrations
	{gates: []string{"Validate failed: ", "igration checksum mismatch", "ValidationFailedException"},
		re:    `\bValidate failed: |Migration checksum mismatch for migration|\bValidationFailedException\b`,
		class: Structural, code: CodeMigrationInvalid, rank: rankStdWords, reason: "the migration tool refuses the applied history",
		remedy: "the migrations on disk do not match those the database applied (an edited, renamed or missing migration): restore the migration, or repair the history table (flyway repair, liquibase clear-checksums) after checking why; retrying cannot succeed"},
	// the runtimes
	{gates: []string{"No module named", "Cannot find module '", "cannot load such file -- "},
		re:    `\b(?:ModuleNotFoundError|ImportError): No module named '?([\w.]+)|\bError: Cannot find module '([^']+)'|cannot load such file -- (\S+) \(LoadError\)`,
		class: Structural, code: CodeModuleMissing, rank: rankStdWords, reason: "the runtime found no such module",
		remedy: "the program imports a module its runtime cannot find: the job runs another interpreter than the one it was installed for, outside its virtualenv or without its node_modules/bundle (cron's environment is not the login shell's); call the venv's interpreter by its full path, install the dependencies where the job runs, or set the environment in the step; retrying cannot succeed"},
	// the shell
	// (and Ubuntu's command-not-found handler, which speaks for it)
	{gates: []string{"command not found", ": not found", "exit code 127", "exit status 127", "exited with code 127", "returned 127", "is currently not installed", "not found, but can be installed with"},
		re:    `(?:^|: )(?:line \d+: )?([\w.+-]+): command not found\b|^(?:/bin/|/usr/bin/)?(?:ba|da|z|k)?sh: (?:\d+: |line \d+: )?([\w.+-]+): not found\s*$|(?:exit code|exit status|exited with code|returned) 127\b|The program '([\w.+-]+)' is currently not installed|Command '([\w.+-]+)' not found, but can be installed with`,
		class: Structural, code: CodeExecCannotStart, rank: rankStdWords, reason: "the shell found no such command",
		remedy: "the program is not installed on the machine the job runs on, or not on cron's short PATH (/usr/bin:/bin): install it, call it by its full path, or set PATH in the crontab or the step's environment; retrying cannot succeed"},
}

func init() { opsMatchers = append(opsMatchers, phraseMatchers(storeRows)) }

// shellExitHit reads the shell's own exit statuses (POSIX, "Exit Status"
// in the Shell Command Language) when no tool family claims the exit code:
// 127, the command was not found; 126, it was found but could not be
// executed. It ranks as an exit code does: any reading of the text wins.
func shellExitHit(code, pos int) (Hit, bool) {
	var reason string
	switch code {
	case 127:
		reason = "exit 127: the shell found no such command"
	case 126:
		reason = "exit 126: the shell found the command but could not execute it"
	default:
		return Hit{}, false
	}
	h := Hit{Class: Structural, Code: CodeExecCannotStart, Reason: reason,
		Remedy: "a command the job runs is not installed, not on cron's short PATH (/usr/bin:/bin), or not executable (chmod +x, a script's #! interpreter missing): install it, call it by its full path, or set PATH in the crontab or the step's environment; retrying cannot succeed"}
	h.Rank, h.synthetic, h.pos, h.line = rankExitCode, true, pos, ExitEvidence(code)
	return h, true
}
