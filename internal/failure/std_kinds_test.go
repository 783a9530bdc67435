package failure

import "testing"

// TestGoSSHAuthKind reads golang.org/x/crypto/ssh's refusal of every
// method offered ("unable to authenticate, attempted methods [...], no
// supported methods remain") as OpenSSH's "Permission denied (publickey)":
// policy, in the shapes drone-scp, appleboy's ssh actions, terraform's
// provisioners and packer print it, a "timeout" word around it included.
func TestGoSSHAuthKind(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "drone-scp password", tool: ToolAuto, exit: 1,
			text:  "error copy file to dest: ***, error message: ssh: handshake failed: ssh: unable to authenticate, attempted methods [none password], no supported methods remain\n",
			class: Policy, code: CodeSSHAuthDenied, reason: "unable to authenticate", remedy: "authorized_keys"},
		{name: "ssh-action key", tool: ToolAuto, exit: 1,
			text:  "2024/01/02 10:00:00 ssh: handshake failed: ssh: unable to authenticate, attempted methods [none publickey], no supported methods remain\n",
			class: Policy, code: CodeSSHAuthDenied},
		{name: "terraform provisioner timeout wording", tool: ToolAuto, exit: 1,
			text:  "Error: timeout - last error: SSH authentication failed (deploy@203.0.113.7:22): ssh: handshake failed: ssh: unable to authenticate, attempted methods [none publickey], no supported methods remain\n",
			class: Policy, code: CodeSSHAuthDenied},
		{name: "packer handshake", tool: ToolAuto, exit: 1,
			text:  "==> amazon-ebs: Error waiting for SSH: Packer experienced an authentication error when trying to connect via SSH. ssh: handshake failed: ssh: unable to authenticate, attempted methods [none publickey], no supported methods remain\n",
			class: Policy, code: CodeSSHAuthDenied},
	})
}

// TestSMTPCodeCommaKind reads a reply code set off by "code: NNN," (PEAR
// Mail's "Invalid response code received from server (code: 535,
// response: ...)") as any other bare reply on a mail line.
func TestSMTPCodeCommaKind(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "pear mail 535", tool: ToolAuto, exit: 1,
			text:  "authentication failure [SMTP: Invalid response code received from server (code: 535, response: Denied)]\n",
			class: Policy, code: CodeSMTPAuth, reason: "535"},
		{name: "pear mail 421", tool: ToolAuto, exit: 1,
			text:  "Failed to connect to mail.example.org:25 [SMTP: Invalid response code received from server (code: 421, response: Too many connections, try later)]\n",
			class: Transient, code: CodeSMTPTransient},
		{name: "pear mail 550 recipient", tool: ToolAuto, exit: 1,
			text:  "Failed to add recipient: nobody@example.org [SMTP: Invalid response code received from server (code: 550, response: No such user here)]\n",
			class: Structural, code: CodeSMTPAddress},
	})
}

// TestMySQLDumpLostMidTableKind reads mysqldump's 2013 cut in the middle of
// a table ("Lost connection to MySQL server during query when dumping table
// T at row: N") as the server's limit on a long result (net_write_timeout,
// max_allowed_packet), structural, while the same 2013 at connect time
// stays a connection exception.
func TestMySQLDumpLostMidTableKind(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "mysqldump mid table", tool: ToolAuto, exit: 3,
			text:  "mysqldump: [Warning] Using a password on the command line interface can be insecure.\nmysqldump: Error 2013: Lost connection to MySQL server during query when dumping table `auditlog` at row: 1636212\n",
			class: Structural, code: CodeSQLDumpCut, remedy: "net_write_timeout"},
		{name: "borgmatic wrapped", tool: ToolAuto, exit: 1,
			text:  "backup | mysqldump: Error 2013: Lost connection to MySQL server during query when dumping table `blob_2015` at row: 685145\nbackup | Command 'mysqldump --databases app' returned non-zero exit status 3.\n",
			class: Structural, code: CodeSQLDumpCut},
		{name: "at connect stays transient", tool: ToolAuto, exit: 2,
			text:  "mysqldump: Got error: 2013: Lost connection to MySQL server at 'reading initial communication packet', system error: 0 when trying to connect\n",
			class: Transient, code: CodeSQLConnection},
	})
}

// TestHostNameNotAHostKind reads a lookup of a name that cannot be a host
// (a URL scheme word, an unexpanded template or variable) as the command's
// mistake, structural, in curl's, git's and Go's wording; a short real name
// stays a DNS failure.
func TestHostNameNotAHostKind(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "curl scheme word", tool: ToolAuto, exit: 6, text: "curl: (6) Could not resolve host: HTTP\n",
			class: Structural, code: CodeHostNameInvalid, reason: "HTTP"},
		{name: "git unexpanded variable", tool: ToolAuto, exit: 128, text: "fatal: unable to access 'https://${GIT_HOST}/org/repo.git/': Could not resolve host: ${GIT_HOST}\n",
			class: Structural, code: CodeHostNameInvalid},
		{name: "go template left in", tool: ToolAuto, exit: 1, text: "Error: Get \"https://{{.Host}}/api\": dial tcp: lookup {{.Host}}: no such host\n",
			class: Structural, code: CodeHostNameInvalid},
		{name: "curl https word", tool: ToolAuto, exit: 6, text: "curl: (6) Could not resolve host: https\n",
			class: Structural, code: CodeHostNameInvalid},
		{name: "a service name stays dns", tool: ToolAuto, exit: 6, text: "curl: (6) Could not resolve host: db\n",
			class: Transient, code: CodeDNS},
	})
}

// TestAskForValidCredentialsKind reads a message that asks the user to
// confirm they supplied valid credentials (Cloudflare's 6003 through
// certbot-dns-cloudflare, and other clients' wordings) as the credentials'
// refusal: policy.
func TestAskForValidCredentialsKind(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "certbot cloudflare 6003", tool: ToolAuto, exit: 1,
			text:  "Error determining zone_id: 6003 Invalid request headers. Please confirm that you have supplied valid Cloudflare API credentials. (Did you copy your entire API token/key?)\n",
			class: Policy, code: CodeAuthRejected},
		{name: "make sure valid api key", tool: ToolAuto, exit: 1,
			text:  "Error: request failed. Please make sure you provided a valid API key.\n",
			class: Policy, code: CodeAuthRejected},
		{name: "check you are using valid credentials", tool: ToolAuto, exit: 1,
			text:  "upload failed: check that you are using valid credentials for this bucket\n",
			class: Policy, code: CodeAuthRejected},
	})
}

// TestCommandNotInstalledHandlerKind reads Ubuntu's command-not-found
// handler ("The program 'x' is currently not installed", "Command 'x' not
// found, but can be installed with:") as the shell's "command not found".
func TestCommandNotInstalledHandlerKind(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "older handler", tool: ToolAuto, exit: 1,
			text:  "ERROR: Unable to perform database backup: Error: Command failed: \"mongodump\" --db app\nThe program 'mongodump' is currently not installed. You can install it by typing:\napt install mongodb-clients\n",
			class: Structural, code: CodeExecCannotStart},
		{name: "newer handler", tool: ToolAuto, exit: 1,
			text:  "Command 'rclone' not found, but can be installed with:\nsudo snap install rclone\n",
			class: Structural, code: CodeExecCannotStart},
	})
}

// TestConfigEntryMissingKind reads a named remote, section or profile the
// tool's configuration does not hold (rclone's "didn't find section in
// config file", the AWS CLI's "The config profile (x) could not be found")
// as structural: the configuration (often another user's under cron) must
// change.
func TestConfigEntryMissingKind(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "rclone section", tool: ToolAuto, exit: 1,
			text:  "2017/07/28 13:50:01 Failed to create file system for \"remote:site\": didn't find section in config file\n",
			class: Structural, code: CodeConfigEntryMissing, remedy: "configuration"},
		{name: "rclone config name", tool: ToolAuto, exit: 1,
			text:  "Failed to create file system for \"od-plex\": didn't find section in config name\n",
			class: Structural, code: CodeConfigEntryMissing},
		{name: "aws profile", tool: ToolAuto, exit: 255,
			text:  "\nThe config profile (backup) could not be found\n",
			class: Structural, code: CodeConfigEntryMissing},
	})
}

// TestMigrationValidationKind reads a schema migration tool's refusal of
// the applied history (Flyway's "Validate failed", a checksum mismatch,
// Liquibase's changesets check sum) as structural: the migrations or the
// database's history must change.
func TestMigrationValidationKind(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "flyway validate", tool: ToolAuto, exit: 1,
			text:  "Caused by: org.flywaydb.core.api.exception.FlywayValidateException: Validate failed: Migrations have failed validation\n",
			class: Structural, code: CodeMigrationInvalid, remedy: "repair"},
		{name: "flyway checksum", tool: ToolAuto, exit: 1,
			text:  "ERROR: Validate failed: Migration checksum mismatch for migration version 3\n-> Applied to database : 1234\n-> Resolved locally    : 5678\n",
			class: Structural, code: CodeMigrationInvalid},
		{name: "liquibase check sum", tool: ToolAuto, exit: 1,
			text:  "liquibase.exception.ValidationFailedException: Validation Failed:\n     1 changesets check sum\n          db/changelog.xml::1::dev was: 8:abc but is now: 8:def\n",
			class: Structural, code: CodeMigrationInvalid},
	})
}
