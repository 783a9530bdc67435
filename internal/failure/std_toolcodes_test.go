package failure

import "testing"

// TestStdSocketMissing: a database client that finds no socket file at its
// path (ENOENT, MySQL's "(2)") is told the server is not there: structural;
// a socket that exists but refuses (111) keeps the connection exception's
// transient reading.
func TestStdSocketMissing(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "mysqldump 2002 through a socket (2)", tool: ToolAuto, text: "mysqldump: Got error: 2002: Can't connect to local MySQL server through socket '/var/lib/mysql/mysql.sock' (2) when trying to connect", class: Structural, code: CodeSQLSocketMissing, reason: "/var/lib/mysql/mysql.sock"},
		{name: "mysql client 2002 with the errno's words", tool: ToolAuto, text: `ERROR 2002 (HY000): Can't connect to local server through socket '/run/mysqld/mysqld.sock' (2 "No such file or directory")`, class: Structural, code: CodeSQLSocketMissing},
		{name: "PDO 2002 No such file or directory", tool: ToolAuto, text: "SQLSTATE[HY000] [2002] No such file or directory (SQL: select * from jobs)", class: Structural, code: CodeSQLSocketMissing},
		{name: "pg_dump: no socket file", tool: ToolAuto, text: "pg_dump: error: connection to server on socket \"/var/run/postgresql/.s.PGSQL.5432\" failed: No such file or directory\n\tIs the server running locally and accepting connections on that socket?", class: Structural, code: CodeSQLSocketMissing, reason: ".s.PGSQL.5432"},
		{name: "psql's older shape over three lines", tool: ToolAuto, text: "psql: could not connect to server: No such file or directory\n\tIs the server running locally and accepting\n\tconnections on Unix domain socket \"/tmp/.s.PGSQL.5432\"?", class: Structural, code: CodeSQLSocketMissing},
		{name: "a socket that refuses (111) is transient", tool: ToolAuto, text: "mysqldump: Got error: 2002: Can't connect to local MySQL server through socket '/var/run/mysqld/mysqld.sock' (111) when trying to connect", class: Transient, code: CodeSQLConnection},
		{name: "a connect in progress (115) is transient", tool: ToolAuto, text: "ERROR 2002 (HY000): Can't connect to MySQL server on 'db' (115)", class: Transient, code: CodeSQLConnection},
		{name: "psql refused on a socket is transient", tool: ToolAuto, text: "psql: error: connection to server on socket \"/var/run/postgresql/.s.PGSQL.5432\" failed: Connection refused\n\tIs the server running locally and accepting connections on that socket?", class: Transient, code: CodeRefused},
		{name: "a (2) that is not the socket's errno", tool: ToolAuto, text: "ERROR 2003 (HY000): Can't connect to MySQL server on 'db:3306' (2)", class: Transient, code: CodeSQLConnection},
	})
}

// TestStdPrismaCodes: Prisma's documented error codes (P1xxx common, P2xxx
// query engine, P3xxx migrate) read as kinds, in its CLI's and its
// client's shapes.
func TestStdPrismaCodes(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "P1001 can't reach the server", tool: ToolAuto, text: "Error: P1001: Can't reach database server at `db`:`5432`\n\nPlease make sure your database server is running at `db`:`5432`.", class: Transient, code: CodePrismaConnection, reason: "P1001"},
		{name: "P1002 alone", tool: ToolAuto, text: "Error: P1002\n\nThe database server at `db`:`3306` was reached but timed out.", class: Transient, code: CodePrismaConnection},
		{name: "P1000 authentication failed", tool: ToolAuto, text: "Error: P1000: Authentication failed against database server at `localhost`, the provided database credentials for `app` are not valid.", class: Policy, code: CodePrismaAccess},
		{name: "P1003 database does not exist", tool: ToolAuto, text: "Error: P1003: Database `shop` does not exist on the database server at `localhost:5432`.", class: Structural, code: CodePrismaSchema},
		{name: "P3009 failed migrations", tool: ToolAuto, text: "Error: P3009\n\nmigrate found failed migrations in the target database, new migrations will not be applied.", class: Structural, code: CodePrismaSchema, reason: "P3009"},
		{name: "P3014 shadow database needs a privilege", tool: ToolAuto, text: "Error: P3014\n\nPrisma Migrate could not create the shadow database. Please make sure the database user has permission to create databases.", class: Policy, code: CodePrismaAccess},
		{name: "client code P2024 pool timeout", tool: ToolAuto, text: "PrismaClientKnownRequestError: \nInvalid `prisma.job.findMany()` invocation:\n\nTimed out fetching a new connection from the connection pool.\n  code: 'P2024',", class: Transient, code: CodePrismaConnection},
		{name: "client code P2002 unique constraint", tool: ToolAuto, text: "PrismaClientKnownRequestError: \nUnique constraint failed on the fields: (`email`)\n  code: 'P2002',", class: Structural, code: CodePrismaSchema},
		{name: "a P-number that is no Prisma code", tool: ToolAuto, text: "Error: part P1001 of the order is out of stock", class: Unknown, code: CodeUnknown},
	})
}

// TestStdPgBackRestCodes: pgBackRest's documented error codes
// ("ERROR: [055]", "aborted with exception [072]") and their names
// ("[FileMissingError]") read as kinds.
func TestStdPgBackRestCodes(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "[055] file missing", tool: ToolAuto, text: "ERROR: [055]: unable to load info file '/var/lib/pgbackrest/backup/main/backup.info' or '/var/lib/pgbackrest/backup/main/backup.info.copy':", class: Structural, code: CodePgBackRestSetup, reason: "[055]"},
		{name: "[072] host invalid via the exception line", tool: ToolAuto, text: "INFO: archive-push command end: aborted with exception [072]", class: Structural, code: CodePgBackRestSetup},
		{name: "[FileMissingError] by name", tool: ToolAuto, text: "unable to find a valid repository:\n    repo1: [FileMissingError] unable to load info file '/repo/archive/main/archive.info'", class: Structural, code: CodePgBackRestSetup, reason: "FileMissingError"},
		{name: "[049] host connect is transient", tool: ToolAuto, text: "ERROR: [049]: unable to get address for 'repo-host': [-3] Temporary failure in name resolution", class: Transient, code: CodePgBackRestTransient},
		{name: "[101] a service error may be retried", tool: ToolAuto, text: "ERROR: [101]: S3 request failed with 503: Service Unavailable", class: Transient, code: CodePgBackRestTransient},
		{name: "[105] access", tool: ToolAuto, text: "ERROR: [105]: unable to authenticate with the repository storage", class: Policy, code: CodePgBackRestAccess},
		{name: "[050] lock held by another pgBackRest", tool: ToolAuto, text: "ERROR: [050]: unable to acquire lock on file '/tmp/pgbackrest/main-backup.lock': Resource temporarily unavailable\n       HINT: is another pgBackRest process running?", class: Transient, code: CodePgBackRestTransient},
		{name: "a bracketed number without pgBackRest's shape", tool: ToolAuto, text: "step [055] of 100 failed", class: Unknown, code: CodeUnknown},
	})
}

// TestStdSMTPClientWords: the SMTP clients' own wordings around a reply:
// nodemailer's "Invalid login: NNN" and PHPMailer's "Could not
// authenticate".
func TestStdSMTPClientWords(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "nodemailer 502 not implemented", tool: ToolAuto, text: `Invalid login: 502 Command "AUTH PLAIN xxxx" not implemented`, class: Structural, code: CodeSMTPRejected},
		{name: "nodemailer 535 after Invalid login", tool: ToolAuto, text: "Invalid login: 535 Incorrect authentication data", class: Policy, code: CodeSMTPAuth},
		{name: "PHPMailer could not authenticate", tool: ToolAuto, text: "Mailer Error: SMTP Error: Could not authenticate.", class: Policy, code: CodeSMTPAuth},
		{name: "PHPMailer could not instantiate mail function", tool: ToolAuto, text: "Message could not be sent. Mailer Error: Could not instantiate mail function.", class: Structural, code: CodeSMTPRejected},
	})
}

// TestShellExitStatus: the shell's own exit statuses (POSIX) when nothing
// in the text is read: 127, the command was not found; 126, found but not
// executable. Any reading of the text ranks above them.
func TestShellExitStatus(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "127 with no words", tool: ToolAuto, text: "backup.sh finished", exit: 127, class: Structural, code: CodeExecCannotStart, reason: "exit 127"},
		{name: "env's No such file with 127", tool: ToolAuto, text: "env: 'node': No such file or directory", exit: 127, class: Structural, code: CodeExecCannotStart},
		{name: "126 not executable", tool: ToolAuto, text: "", exit: 126, class: Structural, code: CodeExecCannotStart, reason: "exit 126"},
		{name: "a text's reading wins over 127", tool: ToolAuto, text: "curl: (7) Failed to connect to example.org port 443 after 3 ms: Connection refused", exit: 127, class: Transient, code: CodeRefused},
		{name: "another exit stays unknown", tool: ToolAuto, text: "backup.sh finished", exit: 3, class: Unknown, code: CodeUnknown},
	})
}

// TestRuntimeModuleMissing: a runtime that finds no module the program
// imports (a cron job run by another interpreter, outside its virtualenv,
// without node_modules) fails the same way on every run: structural.
func TestRuntimeModuleMissing(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "Python ModuleNotFoundError", tool: ToolAuto, text: "Traceback (most recent call last):\n  File \"/opt/jobs/sync.py\", line 3, in <module>\n    import boto3\nModuleNotFoundError: No module named 'boto3'", exit: 1, class: Structural, code: CodeModuleMissing, reason: "boto3"},
		{name: "Python 2 ImportError", tool: ToolAuto, text: "ImportError: No module named requests", exit: 1, class: Structural, code: CodeModuleMissing},
		{name: "Node Cannot find module", tool: ToolAuto, text: "node:internal/modules/cjs/loader:1080\n  throw err;\n  ^\n\nError: Cannot find module '/app/dist/cron.js'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1077:15)", exit: 1, class: Structural, code: CodeModuleMissing},
		{name: "Ruby LoadError", tool: ToolAuto, text: "/usr/lib/ruby/3.0.0/rubygems/core_ext/kernel_require.rb:85:in `require': cannot load such file -- aws-sdk-s3 (LoadError)", exit: 1, class: Structural, code: CodeModuleMissing},
		{name: "a module named in prose is not read", tool: ToolAuto, text: "warning: the module named requests is deprecated\nerror: upload failed", exit: 1, class: Unknown, code: CodeUnknown},
	})
}

// TestOpsKindsRound2: kinds the cron-run tools print in their own words,
// read by what the words say whatever the tool.
func TestOpsKindsRound2(t *testing.T) {
	runTextCases(t, []textCase{
		// a 404 on the repository's own metadata (dnf, yum, zypper: repomd.xml) is apt's 404 on a Release file
		{name: "dnf 404 on repomd.xml", tool: ToolAuto, text: "Errors during downloading metadata for repository 'epel':\n  - Status code: 404 for https://mirror.example.org/epel/9/x86_64/repodata/repomd.xml (IP: 192.0.2.1)\nError: Failed to download metadata for repo 'epel': Cannot download repomd.xml: Cannot download repodata/repomd.xml: All mirrors were tried", exit: 1, class: Structural, code: CodePackageRepoMissing},
		{name: "yum's older shape", tool: ToolAuto, text: "https://repo.example.org/el7/x86_64/repodata/repomd.xml: [Errno 14] HTTPS Error 404 - Not Found\nTrying other mirror.", exit: 1, class: Structural, code: CodePackageRepoMissing},
		{name: "a repomd.xml that timed out stays transient", tool: ToolAuto, text: "Curl error (28): Timeout was reached for https://mirror.example.org/repodata/repomd.xml [Operation timed out after 30000 milliseconds with 0 out of 0 bytes received]", exit: 1, class: Transient, code: CodeTimeout},
		// kubectl with no kubeconfig talks to its built-in default
		{name: "kubectl's default server refused: no kubeconfig", tool: ToolAuto, text: "The connection to the server localhost:8080 was refused - did you specify the right host or port?", exit: 1, class: Structural, code: CodeKubeNoConfig},
		{name: "a configured API server refused is transient", tool: ToolAuto, text: "The connection to the server 10.0.0.1:6443 was refused - did you specify the right host or port?", exit: 1, class: Transient, code: CodeRefused},
		// gpg in backup and secret tools
		{name: "gpg no secret key", tool: ToolAuto, text: "gpg: encrypted with rsa4096 key, ID 0x1234ABCD\ngpg: decryption failed: No secret key", exit: 2, class: Structural, code: CodeGPGKeyMissing},
		{name: "gpg no public key to encrypt to", tool: ToolAuto, text: "gpg: backup@example.org: skipped: No public key\ngpg: [stdin]: encryption failed: No public key", exit: 2, class: Structural, code: CodeGPGKeyMissing},
		{name: "gpg unusable (expired) public key", tool: ToolAuto, text: "gpg: 0xDEADBEEF: skipped: Unusable public key\ngpg: [stdin]: encryption failed: Unusable public key", exit: 2, class: Structural, code: CodeGPGKeyMissing},
		{name: "gpg bad passphrase", tool: ToolAuto, text: "gpg: public key decryption failed: Bad passphrase\ngpg: decryption failed: No secret key", exit: 2, class: Policy, code: CodeGPGPassphrase},
		// certbot's lock dies with its holder (fcntl)
		{name: "another certbot runs", tool: ToolAuto, text: "Another instance of Certbot is already running.", exit: 1, class: Transient, code: CodeLockHeld},
	})
}

// TestSQLStateRound2: PostgreSQL's words for SQLSTATE 53300 (too many
// connections), 55P03 (lock not available), 3D000 (no such database) and
// 25006 (a write in a read-only transaction), and the codes themselves.
func TestSQLStateRound2(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "too many clients", tool: ToolAuto, text: "psql: error: connection to server at \"db\" (10.0.0.2), port 5432 failed: FATAL:  sorry, too many clients already", exit: 2, class: Transient, code: CodeSQLResources},
		{name: "slots reserved", tool: ToolAuto, text: "pg_dump: error: connection to server at \"db\", port 5432 failed: FATAL:  remaining connection slots are reserved for non-replication superuser connections", exit: 1, class: Transient, code: CodeSQLResources},
		{name: "53300 by code", tool: ToolAuto, text: "pq: sorry, too many clients already (SQLSTATE 53300)", exit: 1, class: Transient, code: CodeSQLResources},
		{name: "lock not available", tool: ToolAuto, text: "ERROR:  could not obtain lock on relation \"jobs\"", exit: 1, class: Transient, code: CodeSQLLockNotAvailable},
		{name: "55P03 by code", tool: ToolAuto, text: "ERROR: canceling statement due to lock timeout (SQLSTATE 55P03)", exit: 1, class: Transient, code: CodeSQLLockNotAvailable},
		{name: "no such database", tool: ToolAuto, text: "pg_dump: error: connection to server on socket \"/var/run/postgresql/.s.PGSQL.5432\" failed: FATAL:  database \"shop\" does not exist", exit: 1, class: Structural, code: CodeSQLNoDatabase},
		{name: "3D000 by code", tool: ToolAuto, text: "error: database \"shop\" does not exist\n  code: '3D000',", exit: 1, class: Structural, code: CodeSQLNoDatabase},
		{name: "read-only transaction", tool: ToolAuto, text: "ERROR:  cannot execute INSERT in a read-only transaction", exit: 1, class: Structural, code: CodeSQLReadOnly},
	})
}

// TestCredentialWords: a tool's words for a wrong password or passphrase,
// whatever the tool (restic, borg, a vault, an archive): policy.
func TestCredentialWords(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "restic wrong password", tool: ToolAuto, text: "Fatal: wrong password or no key found", exit: 1, class: Policy, code: CodeAuthRejected},
		{name: "borg incorrect passphrase", tool: ToolAuto, text: "passphrase supplied in BORG_PASSPHRASE, by BORG_PASSCOMMAND or via BORG_PASSPHRASE_FD is incorrect.", exit: 2, class: Policy, code: CodeAuthRejected},
		{name: "incorrect password", tool: ToolAuto, text: "ERROR: Incorrect password for archive backup.7z", exit: 2, class: Policy, code: CodeAuthRejected},
		{name: "a password policy hint is not a refusal", tool: ToolAuto, text: "hint: use a password manager\nerror: upload failed", exit: 1, class: Unknown, code: CodeUnknown},
	})
}
