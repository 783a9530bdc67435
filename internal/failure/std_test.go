package failure

import (
	"testing"
	"time"
)

// The standards layer, one table per standard: the code and the words, in
// several tools' shapes, read the same way whatever the tool.

func TestStdSMTP(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "smtplib 535 5.7.8", tool: ToolAuto, text: "smtplib.SMTPAuthenticationError: (535, b'5.7.8 Username and Password not accepted. Learn more at\\n5.7.8  https://support.google.com/mail/?p=BadCredentials x - gsmtp')", class: Policy, code: CodeSMTPAuth, reason: "535 5.7.8"},
		{name: "smtplib 530 without an enhanced code", tool: ToolAuto, text: "smtplib.SMTPSenderRefused: (530, b'Authentication required', 'ci@example.org')", class: Policy, code: CodeSMTPAuth},
		{name: "smtplib 4yz is transient", tool: ToolAuto, text: "smtplib.SMTPDataError: (451, b'4.7.1 Greylisting in action, please come back later')", class: Transient, code: CodeSMTPTransient},
		{name: "nodemailer responseCode 535", tool: ToolAuto, text: "Error: Invalid login: 535 Authentication credentials invalid\n  code: 'EAUTH',\n  responseCode: 535,\n  command: 'AUTH PLAIN'", class: Policy, code: CodeSMTPAuth},
		{name: "nodemailer responseCode 550 about a mailbox", tool: ToolAuto, text: "Error: Can't send mail - all recipients were rejected\n  code: 'EENVELOPE',\n  response: '550 No such user here',\n  responseCode: 550,\n  command: 'RCPT TO'", class: Structural, code: CodeSMTPAddress},
		{name: "nodemailer responseCode 421 is transient", tool: ToolAuto, text: "  code: 'EENVELOPE',\n  responseCode: 421,\n  command: 'MAIL FROM'", class: Transient, code: CodeSMTPTransient},
		{name: "a 5.7.1 relay refusal beats its 'Service unavailable' words", tool: ToolAuto, text: "Error: Can't send mail - all recipients were rejected: 550 5.7.1 Service unavailable; client [203.0.113.9] blocked using zen.spamhaus.org", class: Policy, code: CodeSMTPPolicy},
		{name: "5.1.1 user unknown", tool: ToolAuto, text: "Message failed: 550 5.1.1 <nobody@example.org>: Recipient address rejected: User unknown in virtual mailbox table", class: Structural, code: CodeSMTPAddress},
		{name: "5.5.x syntax is structural", tool: ToolAuto, text: "SMTP error: 555 5.5.2 Syntax error. - gsmtp", class: Structural, code: CodeSMTPRejected},
		{name: "a bare 5yz with access denied words", tool: ToolAuto, text: "550 5.4.1 Recipient address rejected: Access denied. AS(201806281)", class: Policy, code: CodeSMTPPolicy},
		{name: "postfix deferred with 4yz", tool: ToolAuto, text: "postfix/smtp[4682]: 4JfcC62: to=<a@example.org>, relay=mx.example.org[192.0.2.1]:25, delay=2, dsn=4.7.0, status=deferred (host mx.example.org[192.0.2.1] said: 421 4.7.0 Try again later (in reply to end of DATA command))", class: Transient, code: CodeSMTPTransient},
		{name: "postfix bounced with 5yz", tool: ToolAuto, text: "postfix/smtp[4682]: 4JfcC62: to=<a@example.org>, relay=mx.example.org[192.0.2.1]:25, dsn=5.1.1, status=bounced (host mx.example.org[192.0.2.1] said: 550 5.1.1 <a@example.org>: Recipient address rejected: User unknown (in reply to RCPT TO command))", class: Structural, code: CodeSMTPAddress},
		{name: "msmtp server message", tool: ToolAuto, text: "msmtp: recipient address root not accepted by the server\nmsmtp: server message: 501 <root>: recipient address must contain a domain\nmsmtp: could not send mail (account default from /etc/msmtprc)", class: Structural, code: CodeSMTPAddress},
		{name: "sendmail 554 5.7.1 relay access denied", tool: ToolAuto, text: "sendmail: 554 5.7.1 <x@example.org>: Relay access denied", class: Policy, code: CodeSMTPPolicy},
		{name: "a 550 in a byte count is not SMTP", tool: ToolAuto, text: "Downloaded 550 bytes\nerror: checksum does not match", class: Unknown, code: CodeUnknown},
		{name: "a 550 without mail's words is not SMTP", tool: ToolAuto, text: "fatal: 550 files changed\n", class: Unknown, code: CodeUnknown},
		{name: "a mail server's port is not a reply", tool: ToolAuto, text: "Failed to connect to SMTP host smtp.office365.com, port 587 (Connection timed out)", class: Transient, code: CodeTimeout},
		{name: "a port after a colon is not a reply", tool: ToolAuto, text: "smtp: dial tcp smtp.example.org:465 failed: i/o timeout", class: Transient, code: CodeTimeout},
		{name: "a 250 reply is not a failure", tool: ToolAuto, text: "Message sent: 250 2.0.0 Ok: queued as 1430081058\nError: timed out waiting for the webhook", class: Transient, code: CodeTimeout},
	})
}

func TestStdACME(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "RFC 8555 badNonce JSON", tool: ToolAuto, text: "{\n  \"type\": \"urn:ietf:params:acme:error:badNonce\",\n  \"detail\": \"JWS has an invalid anti-replay nonce\",\n  \"status\": 400\n}", class: Transient, code: CodeACMEBadNonce},
		{name: "lego's old-style badNonce", tool: ToolAuto, text: "\tacme: Error 400 - urn:acme:error:badNonce - JWS has invalid anti-replay nonce 2ZbD", class: Transient, code: CodeACMEBadNonce},
		{name: "badNonce words without a type", tool: ToolAuto, text: "(AcmeProtocolException): JWS has an invalid anti-replay nonce: \"0102O2\"", class: Transient, code: CodeACMEBadNonce},
		{name: "certbot serverInternal", tool: ToolAuto, text: "Attempting to renew cert (x) from /etc/letsencrypt/renewal/x.conf produced an unexpected error: urn:ietf:params:acme:error:serverInternal :: The server experienced an internal error :: Problem getting authorization. Skipping.", class: Transient, code: CodeACMEServer},
		{name: "certbot unauthorized names the domain and challenge", tool: ToolAuto, text: "Failed authorization procedure. example.org (http-01): urn:ietf:params:acme:error:unauthorized :: The client lacks sufficient authorization :: Invalid response from http://example.org/.well-known/acme-challenge/abc: 404", class: Structural, code: CodeACMEChallenge, reason: "for example.org (http-01 challenge)"},
		{name: "incorrectResponse", tool: ToolAuto, text: "acme: error: 403 :: urn:ietf:params:acme:error:incorrectResponse :: 192.0.2.1: Invalid response from http://www.example.org/.well-known/acme-challenge/x: 404", class: Structural, code: CodeACMEChallenge, reason: "www.example.org"},
		{name: "connection: firewall", tool: ToolAuto, text: "  Domain: example.org\n  Type:   connection\n  Detail: 192.0.2.1: Fetching http://example.org/.well-known/acme-challenge/x: Timeout during connect (likely firewall problem)", class: Structural, code: CodeACMEChallenge},
		{name: "acme.sh dns detail alone", tool: ToolAuto, text: "[Sun Mar 15 07:05:57 UTC 2020] example.org:Verify error:DNS problem: NXDOMAIN looking up TXT for _acme-challenge.example.org - check that a DNS record exists for this domain", class: Structural, code: CodeACMEDNS, reason: "_acme-challenge.example.org (dns-01 challenge)"},
		{name: "caa type in JSON", tool: ToolAuto, text: "LastError = {\"type\":\"urn:ietf:params:acme:error:caa\",\"detail\":\"CAA record for example.org prevents issuance\",\"status\":403}", class: Structural, code: CodeACMECAA, reason: "example.org"},
		{name: "rejectedIdentifier", tool: ToolAuto, text: "Error creating new order :: urn:ietf:params:acme:error:rejectedIdentifier :: Cannot issue for \"example.local\": Domain name does not end with a valid public suffix (TLD)", class: Structural, code: CodeACMERejected},
		{name: "externalAccountRequired", tool: ToolAuto, text: "acme: error: 400 :: POST :: https://acme.zerossl.com/v2/DV90/newAccount :: urn:ietf:params:acme:error:externalAccountRequired :: The server requires external account binding", class: Policy, code: CodeACMEAccount},
		{name: "rateLimited per week is policy", tool: ToolAuto, text: "Error: urn:ietf:params:acme:error:rateLimited :: There were too many requests of a given type :: Error creating new order :: too many certificates already issued for exact set of domains: example.org: see https://letsencrypt.org/docs/rate-limits/", class: Policy, code: CodeACMERateLimited},
		{name: "certbot's old rateLimited shape", tool: ToolAuto, text: "Error: rateLimited :: There were too many requests of a given type :: Error creating new cert :: Too many certificates already issued for: example.org", class: Policy, code: CodeACMERateLimited},
		{name: "a short stated wait is a rate limit", tool: ToolAuto, text: "{\"type\": \"urn:ietf:params:acme:error:rateLimited\", \"detail\": \"too many failed authorizations recently: retry in 5 minutes\", \"status\": 429}", class: Transient, code: CodeACMERateLimited, retryAfter: 5 * time.Minute},
		{name: "too many requests alone is any throttle's", tool: ToolAuto, text: "Error: too many requests", class: Transient, code: CodeThrottled},
	})
}

// TestStdACMERateLimitReset: the reset the CA names decides, against the
// injected clock: within the run's max elapsed it is waited for.
func TestStdACMERateLimitReset(t *testing.T) {
	text := "{\n  \"type\": \"urn:ietf:params:acme:error:rateLimited\",\n  \"detail\": \"Error creating new order :: too many new orders recently. Retry after 2024-01-27T03:00:00Z: see https://letsencrypt.org/docs/rate-limits/\",\n  \"status\": 429\n}"
	reset := time.Date(2024, 1, 27, 3, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		now   time.Time
		class Class
		after time.Duration
	}{
		{"resets within the run", reset.Add(-4 * time.Minute), Transient, 4 * time.Minute},
		{"resets after the run", reset.Add(-5 * time.Hour), Policy, 0},
		{"a reset already past says nothing: policy", reset.Add(time.Hour), Policy, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Classify(Input{Text: text, ExitCode: 1, Now: tc.now, MaxElapsed: 15 * time.Minute})
			if f.Class != tc.class || f.Code != CodeACMERateLimited || f.RetryAfter != tc.after {
				t.Errorf("got %s %s retry-after %s (%s), want %s %s", f.Class, f.Code, f.RetryAfter, f.Reason, tc.class, tc.after)
			}
		})
	}
}

func TestStdSQLSTATE(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "psql's password authentication failed", tool: ToolAuto, text: "psql: error: connection to server at \"db\" (10.0.0.2), port 5432 failed: FATAL:  password authentication failed for user \"app\"", class: Policy, code: CodeSQLAuth},
		{name: "node-postgres code 28P01", tool: ToolAuto, text: "error: password authentication failed for user \"postgres\"\n  severity: 'FATAL',\n  code: '28P01',", class: Policy, code: CodeSQLAuth},
		{name: "pg_dump 42501 in verbose form", tool: ToolAuto, text: "pg_dump: error: query failed: ERROR:  42501: permission denied for table users", class: Policy, code: CodeSQLPrivilege},
		{name: "pg_dump permission denied words", tool: ToolAuto, text: "pg_dump: error: query failed: ERROR:  permission denied for table core_store\npg_dump: error: query was: LOCK TABLE public.core_store IN ACCESS SHARE MODE", class: Policy, code: CodeSQLPrivilege},
		{name: "pgx (SQLSTATE 40001)", tool: ToolAuto, text: "migrate: ERROR: could not serialize access due to concurrent update (SQLSTATE 40001)", class: Transient, code: CodeSQLRollback},
		{name: "a JSON serialization failure is not SQL's", tool: ToolAuto, text: "Error: serialization failure: cannot encode value of type func()", class: Unknown, code: CodeUnknown},
		{name: "pq deadlock words", tool: ToolAuto, text: "pq: deadlock detected", class: Transient, code: CodeSQLRollback},
		{name: "PDO SQLSTATE[40001]", tool: ToolAuto, text: "SQLSTATE[40001]: Serialization failure: 1213 Deadlock found when trying to get lock; try restarting transaction", class: Transient, code: CodeSQLRollback},
		{name: "starting up, 57P03", tool: ToolAuto, text: "psql: error: connection to server on socket \"/var/run/postgresql/.s.PGSQL.5432\" failed: FATAL:  the database system is starting up", class: Transient, code: CodeSQLStartingUp},
		{name: "flyway's SQL State 08006 is a connection exception", tool: ToolAuto, text: "ERROR: Unable to obtain connection from database (jdbc:postgresql://db:5432/app) for user 'app': Connection to db:5432 refused.\n------------------------------\nSQL State  : 08001\nError Code : 0\nMessage    : Connection to db:5432 refused.", class: Transient, code: CodeSQLConnection},
		{name: "pgx SQLSTATE 57P03", tool: ToolAuto, text: "failed to connect to `host=db user=app database=app`: server error (FATAL: the database system is shutting down (SQLSTATE 57P03))", class: Transient, code: CodeSQLStartingUp},
		{name: "42P01 relation does not exist", tool: ToolAuto, text: "psql:/migrations/009.sql:4: ERROR:  relation \"user_extensions\" does not exist", class: Structural, code: CodeSQLSyntax},
		{name: "syntax error in a migration (SQLSTATE 42601)", tool: ToolAuto, text: "error: migration failed: syntax error at or near \"TABEL\" (column 8) in line 1: CREATE TABEL x (SQLSTATE 42601)", class: Structural, code: CodeSQLSyntax},
		{name: "22P02 invalid input", tool: ToolAuto, text: "ERROR:  invalid input syntax for type integer: \"abc\"", class: Structural, code: CodeSQLData},
		{name: "23505 unique violation", tool: ToolAuto, text: "ERROR: duplicate key value violates unique constraint \"users_email_key\" (SQLSTATE 23505)", class: Structural, code: CodeSQLIntegrity},
		{name: "pg_dump version mismatch", tool: ToolAuto, text: "pg_dump: error: aborting because of server version mismatch\npg_dump: detail: server version: 16.2; pg_dump version: 15.4", class: Structural, code: CodeSQLVersion},
		{name: "mysql ERROR 1045 (28000)", tool: ToolAuto, text: "ERROR 1045 (28000): Access denied for user 'backup'@'10.0.0.3' (using password: YES)", class: Policy, code: CodeSQLAuth},
		{name: "mysqldump Got error: 1045", tool: ToolAuto, text: "mysqldump: Got error: 1045: \"Access denied for user 'root'@'192.0.2.4' (using password: YES)\" when trying to connect", class: Policy, code: CodeSQLAuth},
		{name: "mysqldump Got error: 2002 on a refusing socket is transient", tool: ToolAuto, text: "mysqldump: Got error: 2002: \"Can't connect to local MySQL server through socket '/run/mysqld/mysqld.sock' (111)\" when trying to connect", class: Transient, code: CodeSQLConnection},
		{name: "mysql ERROR 2003 (HY000) is transient", tool: ToolAuto, text: "ERROR 2003 (HY000): Can't connect to MySQL server on 'db:3306' (111)", class: Transient, code: CodeSQLConnection},
		{name: "MySQL server has gone away (2006)", tool: ToolAuto, text: "mysqldump: Error 2006: MySQL server has gone away when dumping table `logs` at row: 1022", class: Transient, code: CodeSQLConnection},
		{name: "Lost connection (2013) at connect", tool: ToolAuto, text: "mysqldump: Got error: 2013: Lost connection to MySQL server at 'handshake: reading initial communication packet', system error: 104 when trying to connect", class: Transient, code: CodeSQLConnection},
		// mid-table, the server's limit cuts it on every run (TestMySQLDumpLostMidTableKind)
		{name: "Lost connection (2013) mid table", tool: ToolAuto, text: "mysqldump: Error 2013: Lost connection to MySQL server during query when dumping table `t` at row: 8", class: Structural, code: CodeSQLDumpCut},
		{name: "mysql 1064 syntax", tool: ToolAuto, text: "ERROR 1064 (42000) at line 3: You have an error in your SQL syntax; check the manual", class: Structural, code: CodeSQLSyntax},
		{name: "mysqldump PROCESS privilege", tool: ToolAuto, text: "mysqldump: Error: 'Access denied; you need (at least one of) the PROCESS privilege(s) for this operation' when trying to dump tablespaces", class: Policy, code: CodeSQLPrivilege},
	})
}

func TestStdErrno(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "node ENOSPC", tool: ToolAuto, text: "Error: ENOSPC: no space left on device, write", class: Structural, code: CodeErrnoNoSpace},
		{name: "rsync's strerror beats the broken pipe after it", tool: ToolAuto, text: "rsync: [receiver] write failed on \"/mnt/backup/x\": No space left on device (28)\nrsync error: error in file IO (code 11) at receiver.c(381) [receiver=3.2.7]\nrsync: [sender] write error: Broken pipe (32)", class: Structural, code: CodeErrnoNoSpace},
		{name: "PHP errno=28", tool: ToolAuto, text: "Backup failed because fwrite(): write of 117 bytes failed with errno=28 No space left on device.", class: Structural, code: CodeErrnoNoSpace},
		{name: "the runner's own disk stays the actions family's", tool: ToolAuto, text: "write /home/runner/work/_temp/x.tar: no space left on device", class: Unknown, code: Code("actions-disk-full")},
		{name: "EDQUOT beats an API quota's words", tool: ToolAuto, text: "ERROR [custom_components.auto_backup] Error during backup. [Errno 122] Quota exceeded", class: Structural, code: CodeErrnoQuota},
		{name: "Disk quota exceeded", tool: ToolAuto, text: "tar: backup.tar: Cannot write: Disk quota exceeded", class: Structural, code: CodeErrnoQuota},
		{name: "EROFS", tool: ToolAuto, text: "dd: failed to open '/backups/sda2-bkp': Read-only file system", class: Structural, code: CodeErrnoReadOnly},
		{name: "Go's read-only file system", tool: ToolAuto, text: "Save(<data/3d0e>) returned error: chmod backup/data/3d/3d0e: read-only file system", class: Structural, code: CodeErrnoReadOnly},
		{name: "Python EACCES on a path", tool: ToolAuto, text: "PermissionError: [Errno 13] Permission denied: '/var/backups/db.sql'", class: Policy, code: CodeErrnoAccess, reason: "/var/backups/db.sql"},
		{name: "node EACCES", tool: ToolAuto, text: "Error: EACCES: permission denied, open '/srv/out/report.json'", class: Policy, code: CodeErrnoAccess},
		{name: "pg_dump output file", tool: ToolAuto, text: "pg_dump: error: could not open output file \"/pgdumps/app.dump\": Permission denied", class: Policy, code: CodeErrnoAccess},
		{name: "coreutils EPERM", tool: ToolAuto, text: "cp: cannot create regular file '/etc/cron.d/job': Operation not permitted", class: Policy, code: CodeErrnoAccess},
		{name: "ssh's Permission denied (publickey) is not a file's", tool: ToolAuto, text: "git@github.com: Permission denied (publickey).", class: Policy, code: CodeSSHAuthDenied},
		{name: "connect EPERM is a network policy, not a file's", tool: ToolAuto, text: "connect to address 192.0.2.7: Operation not permitted", class: Policy, code: CodeEgressBlocked},
		// The network's errnos keep their network codes (live evidence reads them).
		{name: "ECONNREFUSED", tool: ToolAuto, text: "Error: connect ECONNREFUSED 10.0.0.5:5432", class: Transient, code: CodeRefused},
		{name: "Connection refused", tool: ToolAuto, text: "psql: error: connection to server at \"db\" (10.0.0.5), port 5432 failed: Connection refused", class: Transient, code: CodeRefused},
		{name: "ETIMEDOUT", tool: ToolAuto, text: "Error: connect ETIMEDOUT 10.0.0.5:443", class: Transient, code: CodeTimeout},
		{name: "Connection timed out", tool: ToolAuto, text: "ssh: connect to host backup.example.org port 22: Connection timed out", class: Transient, code: CodeTimeout},
		{name: "Connection reset by peer", tool: ToolAuto, text: "read tcp 10.0.0.2:4242->10.0.0.5:443: read: connection reset by peer", class: Transient, code: CodeReset},
		{name: "No route to host", tool: ToolAuto, text: "dial tcp 10.0.0.5:443: connect: no route to host", class: Transient, code: CodeUnreachable},
		{name: "ENETUNREACH", tool: ToolAuto, text: "Error: connect ENETUNREACH 2001:db8::1:443", class: Transient, code: CodeUnreachable},
	})
}

func TestStdKube(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "kubectl Forbidden names who and what", tool: ToolAuto, text: "Error from server (Forbidden): deployments.apps is forbidden: User \"system:serviceaccount:ci:deployer\" cannot list resource \"deployments\" in API group \"apps\" in the namespace \"prod\"", class: Policy, code: CodeKubeForbidden, reason: "system:serviceaccount:ci:deployer cannot list deployments in namespace prod"},
		{name: "helm's RBAC refusal without kubectl's prefix", tool: ToolAuto, text: "Error: INSTALLATION FAILED: roles.rbac.authorization.k8s.io is forbidden: User \"ci\" cannot create resource \"roles\" in API group \"rbac.authorization.k8s.io\" in the namespace \"apps\"", class: Policy, code: CodeKubeForbidden},
		{name: "a Status object's reason", tool: ToolAuto, text: "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"status\": \"Failure\",\n  \"message\": \"Unauthorized\",\n  \"reason\": \"Unauthorized\",\n  \"code\": 401\n}", class: Policy, code: CodeKubeUnauthorized},
		{name: "another JSON's reason is not a Status", tool: ToolAuto, text: "{\"reason\": \"Forbidden\", \"note\": \"an audit record\"}", class: Unknown, code: CodeUnknown},
		{name: "NotFound", tool: ToolAuto, text: "Error from server (NotFound): deployments.apps \"web\" not found", class: Absent, code: CodeKubeNotFound},
		{name: "AlreadyExists", tool: ToolAuto, text: "Error from server (AlreadyExists): error when creating \"ns.yaml\": namespaces \"apps\" already exists", class: Structural, code: CodeKubeExists},
		{name: "helm immutable field", tool: ToolAuto, text: "Error: UPGRADE FAILED: cannot patch \"web\" with kind Deployment: Deployment.apps \"web\" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable", class: Structural, code: CodeKubeInvalid},
		{name: "kubectl Invalid", tool: ToolAuto, text: "The Service \"web\" is invalid: spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive", class: Structural, code: CodeKubeInvalid},
		{name: "Conflict on an update is transient", tool: ToolAuto, text: "Error from server (Conflict): Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again", class: Transient, code: CodeKubeConflict},
		{name: "a controller's conflict words", tool: ToolAuto, text: "reconciliation failed: Operation cannot be fulfilled on helmreleases.helm.toolkit.fluxcd.io \"web\": the object has been modified; please apply your changes to the latest version and try again", class: Transient, code: CodeKubeConflict},
		{name: "a server-side apply conflict is structural", tool: ToolAuto, text: "error: Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using apps/v1: .spec.replicas\nError from server (Conflict): Apply failed with 1 conflicts: conflicts with \"operator\" using apps/v1:", class: Structural, code: CodeKubeApplyConflict},
		{name: "TooManyRequests", tool: ToolAuto, text: "Error from server (TooManyRequests): the server has received too many requests and has asked us to try again later", class: Transient, code: CodeKubeUnavailable},
		{name: "ServiceUnavailable", tool: ToolAuto, text: "Error from server (ServiceUnavailable): the server is currently unable to handle the request", class: Transient, code: CodeKubeUnavailable},
		{name: "an unknown reason falls through", tool: ToolAuto, text: "Error from server (Gone): the resourceVersion is too old", class: Unknown, code: CodeUnknown},
	})
}
