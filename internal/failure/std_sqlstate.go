package failure

import (
	"strconv"
	"strings"
)

// SQLSTATE classes (SQL standard; PostgreSQL prints them, MySQL's clients
// map their errors to them), in every client's shape: psql's and
// pg_dump's "ERROR: ... SQLSTATE 42501" and "(SQLSTATE 40001)" (pgx,
// pq), PDO's "SQLSTATE[40001]", node-postgres's code: '28P01', Npgsql's
// "PostgresException (0x80004005): 40001:", mysql's "ERROR 1045 (28000)",
// mysqldump's "Got error: 2002:"; and the words PostgreSQL's and MySQL's
// clients print without a code ("password authentication failed", "the
// database system is starting up", "deadlock detected", "permission denied
// for table", "aborting because of server version mismatch", "Access
// denied for user").
//
//   - 08 (connection exception), 40 (transaction rollback: deadlock,
//     serialization failure), 57P01-57P03 (the server shutting down or
//     starting up), and MySQL's client connection errors 2002, 2003,
//     2006, 2013: transient.
//   - 28 (invalid authorization) and 42501 (insufficient privilege):
//     policy.
//   - 42 (syntax error, undefined or duplicate object), 22 (data
//     exception), 23 (integrity constraint) and a client/server version
//     mismatch: structural.

// The SQL codes.
const (
	// CodeSQLConnection: SQLSTATE class 08, or a MySQL client connection
	// error (2002, 2003, 2006, 2013): the connection failed.
	CodeSQLConnection Code = "sqlstate-08"
	// CodeSQLRollback: SQLSTATE class 40 (deadlock, serialization failure).
	CodeSQLRollback Code = "sqlstate-40"
	// CodeSQLStartingUp: SQLSTATE 57P01-57P03: the server is shutting down
	// or starting up.
	CodeSQLStartingUp Code = "sqlstate-57p03"
	// CodeSQLAuth: SQLSTATE class 28 (invalid authorization).
	CodeSQLAuth Code = "sqlstate-28"
	// CodeSQLPrivilege: SQLSTATE 42501 (insufficient privilege).
	CodeSQLPrivilege Code = "sqlstate-42501"
	// CodeSQLSyntax: SQLSTATE class 42 but 42501 (syntax error, undefined
	// or duplicate object).
	CodeSQLSyntax Code = "sqlstate-42"
	// CodeSQLData: SQLSTATE class 22 (data exception).
	CodeSQLData Code = "sqlstate-22"
	// CodeSQLIntegrity: SQLSTATE class 23 (integrity constraint violation).
	CodeSQLIntegrity Code = "sqlstate-23"
	// CodeSQLVersion: the client is older than the server (pg_dump's
	// "aborting because of server version mismatch").
	CodeSQLVersion Code = "sql-version-mismatch"
	// CodeSQLSocketMissing: the client found no socket file at its path
	// (ENOENT: MySQL's 2002 "(2)", libpq's "No such file or directory"):
	// no server listens there.
	CodeSQLSocketMissing Code = "sql-socket-missing"
	// CodeSQLDumpCut: a dump lost its connection in the middle of a table
	// (mysqldump's 2013 "during query when dumping table T at row: N"):
	// the server's limit on a long result (net_write_timeout,
	// max_allowed_packet) cuts it at the same table every run.
	CodeSQLDumpCut Code = "sql-dump-cut"
	// CodeSQLResources: SQLSTATE 53300 and 53200: too many connections, out
	// of memory.
	CodeSQLResources Code = "sqlstate-53"
	// CodeSQLLockNotAvailable: SQLSTATE 55P03: a lock was not granted in
	// time (NOWAIT, lock_timeout).
	CodeSQLLockNotAvailable Code = "sqlstate-55p03"
	// CodeSQLNoDatabase: SQLSTATE 3D000: the database does not exist.
	CodeSQLNoDatabase Code = "sqlstate-3d000"
	// CodeSQLReadOnly: SQLSTATE 25006: a write in a read-only transaction
	// (a replica, default_transaction_read_only).
	CodeSQLReadOnly Code = "sqlstate-25006"
)

const (
	remedySQLConnection = "the database connection failed (a restart, a failover, the server not yet listening): retrying after a backoff; if it lasts, check the host, port or socket path and that the server runs"
	remedySQLRollback   = "the transaction was rolled back by a deadlock or a serialization failure: running it again is the documented remedy"
	remedySQLStarting   = "the database server is starting up or shutting down: retrying once it accepts connections"
	remedySQLAuth       = "the database refuses the login: set the right user and password (PGPASSWORD/.pgpass, MYSQL_PWD, the connection URL) in the job's secrets, or fix pg_hba.conf/the user's host; retrying cannot succeed"
	remedySQLPrivilege  = "the database user lacks the privilege: GRANT it (SELECT/LOCK on the tables a dump reads, PROCESS for mysqldump's tablespaces) or use a role that has it; retrying cannot succeed"
	remedySQLSyntax     = "the statement or the schema is wrong (a syntax error, an undefined or duplicate object): fix the migration or the query; running it unchanged fails the same way"
	remedySQLData       = "the data does not fit (a data exception or a violated constraint): fix the data or the migration; running it unchanged fails the same way"
	remedySQLSocket     = "no database server listens at that socket path (the file does not exist): the client looks where this server does not put its socket, or no server runs on this host; connect over TCP (127.0.0.1 and a port) or pass the server's socket path (--socket, host=/run/postgresql), and check that the server runs; retrying the same path does not create it"
	remedySQLResources  = "the server has no connection slot (max_connections) or memory left: retrying after a backoff; if it lasts, close idle connections or put a pooler in front"
	remedySQLLock       = "another transaction holds the lock the statement needs (NOWAIT, lock_timeout): retrying after it commits"
	remedySQLNoDB       = "the database named in the connection does not exist on that server: fix the database name (PGDATABASE, the URL's path) or create it; retrying cannot succeed"
	remedySQLReadOnly   = "the server refuses writes (a read-only replica, a standby after a failover, default_transaction_read_only): point the job at the primary; retrying the same server fails the same way"
	remedySQLVersion    = "the client is older than the server: install the client of the server's major version (postgresql-client-NN) or put it first on PATH; retrying cannot succeed"
)

// sqlClass returns the verdict on a SQLSTATE; ok is false for a class the
// layer does not judge.
func sqlClass(state string) (Class, Code, string, string, bool) {
	state = strings.ToUpper(state)
	if len(state) != 5 {
		return 0, "", "", "", false
	}
	switch {
	case strings.HasPrefix(state, "08"):
		return Transient, CodeSQLConnection, "a connection exception", remedySQLConnection, true
	case strings.HasPrefix(state, "40"):
		return Transient, CodeSQLRollback, "the transaction was rolled back (deadlock or serialization failure)", remedySQLRollback, true
	case state == "57P01" || state == "57P02" || state == "57P03":
		return Transient, CodeSQLStartingUp, "the server is shutting down or starting up", remedySQLStarting, true
	case state == "53300" || state == "53200":
		return Transient, CodeSQLResources, "the server is out of connections or memory", remedySQLResources, true
	case state == "55P03":
		return Transient, CodeSQLLockNotAvailable, "a lock was not available in time", remedySQLLock, true
	case state == "3D000":
		return Structural, CodeSQLNoDatabase, "no such database", remedySQLNoDB, true
	case state == "25006":
		return Structural, CodeSQLReadOnly, "a write in a read-only transaction", remedySQLReadOnly, true
	case strings.HasPrefix(state, "28"):
		return Policy, CodeSQLAuth, "the login was refused (invalid authorization)", remedySQLAuth, true
	case state == "42501":
		return Policy, CodeSQLPrivilege, "insufficient privilege", remedySQLPrivilege, true
	case strings.HasPrefix(state, "42"):
		return Structural, CodeSQLSyntax, "a syntax error or an undefined or duplicate object", remedySQLSyntax, true
	case strings.HasPrefix(state, "22"):
		return Structural, CodeSQLData, "a data exception", remedySQLData, true
	case strings.HasPrefix(state, "23"):
		return Structural, CodeSQLIntegrity, "an integrity constraint was violated", remedySQLData, true
	}
	return 0, "", "", "", false
}

// mysqlStates maps MySQL's error numbers to the SQLSTATE they mean here:
// the client's connection errors (whose own SQLSTATE is HY000) to 08.
var mysqlStates = map[int]string{
	2002: "08001", 2003: "08001", 2005: "08001", 2006: "08S01", 2013: "08S01", 1040: "08004",
	1045: "28000", 1698: "28000", 1044: "42501", 1142: "42501", 1143: "42501", 1227: "42501",
	1064: "42000", 1049: "42000", 1146: "42S02", 1054: "42S22", 1050: "42S01", 1213: "40001", 1205: "40001",
}

var (
	// reSQLState: a SQLSTATE in its clients' shapes; the first non-empty
	// group is the state.
	reSQLState = LazyRE(`\bSQLSTATE[\[ :=]*\s*([0-9A-Z]{5})\b|\bsqlstate[ =:]+([0-9A-Za-z]{5})\b|\bcode:? ['"]([0-9A-Z]{2}[0-9A-Z]{3})['"]|PostgresException \(0x[0-9A-Fa-f]+\): ([0-9A-Z]{5}):|\bERROR:\s+([0-9A-Z]{5}):|\bSQL State\s*:\s*([0-9A-Z]{5})\b`)
	// reMySQLErr: mysql's "ERROR 1045 (28000)", mysqldump's "Got error:
	// 2002:", PDO's "SQLSTATE[HY000] [2002]".
	reMySQLErr = LazyRE(`\bERROR (\d{4}) \(([0-9A-Z]{5})\)|Got error: (\d{4}):|SQLSTATE\[[0-9A-Z]{5}\] \[(\d{4})\]|\[Errno (\d{4})\]`)
	// reSQLWords: the words the clients print without a code; the group
	// that matched names the state (sqlWordStates).
	reSQLWords = LazyRE(`(?i)(password authentication failed for user|fe_sendauth: no password supplied|no pg_hba\.conf entry for|role "[^"]+" does not exist|Access denied for user ')|(the database system is (?:starting up|shutting down|in recovery mode|not yet accepting connections))|(deadlock detected|could not serialize access|Deadlock found when trying to get lock|(?-i:SerializationFailure|Serialization failure: 1213)|Lock wait timeout exceeded)|(permission denied for (?:table|relation|schema|database|sequence|function|view)|must be owner of|Access denied; you need \(at least one of\) (?:the )?\S+ privilege|SELECT command denied to user|InsufficientPrivilege)|((?:relation|column|function|type|schema|table) "[^"]+"(?: of relation "[^"]+")? (?:does not exist|already exists)|syntax error at or near|You have an error in your SQL syntax|UndefinedTable|DuplicateTable)|(invalid input syntax for|value too long for type|division by zero|out of range for type)|(violates (?:unique|foreign key|not-null|check|exclusion) constraint|contains null values|Duplicate entry '[^']*' for key)|(aborting because of server version mismatch|server version: [\d.]+[^;\n]*; pg_dump(?:all)? version)|(Can't connect to (?:local )?MySQL server|MySQL server has gone away|Lost connection to MySQL server)|(sorry, too many clients already|remaining connection slots are reserved)|(could not obtain lock on (?:relation|row))|(database "[^"]+" does not exist)|(cannot execute \w+(?: \w+)? in a read-only transaction)`)
)

// sqlWordStates are the states reSQLWords' groups stand for ("" is the
// version mismatch).
var sqlWordStates = []string{"28000", "57P03", "40001", "42501", "42000", "22000", "23000", "", "08001", "53300", "55P03", "3D000", "25006"}

// sqlHit is the verdict on a state read on line; what says where it was
// read ("SQLSTATE 42501", "MySQL error 1045", the words).
func sqlHit(state, what string, rank int) (Hit, bool) {
	if state == "" {
		return Hit{Class: Structural, Code: CodeSQLVersion, Rank: rank, Reason: "the database client is older than the server (" + Clip(what) + ")", Remedy: remedySQLVersion}, true
	}
	class, code, meaning, remedy, ok := sqlClass(state)
	if !ok {
		return Hit{}, false
	}
	return Hit{Class: class, Code: code, Rank: rank, Reason: "the database answered " + meaning + " (" + Clip(what) + ")", Remedy: remedy}, true
}

var sqlMatchers = []Matcher{
	sqlSocketMatcher,
	sqlDumpCutMatcher,
	{
		Gates: []string{"SQLSTATE", "sqlstate", "SQL State", "code: '", `code: "`, `code: '`, "code '", "PostgresException (", "ERROR:  ", "ERROR: "},
		RE:    reSQLState,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			for _, g := range m[1:] {
				if g != "" {
					return sqlHit(g, "SQLSTATE "+strings.ToUpper(g), rankStdCode)
				}
			}
			return Hit{}, false
		},
	},
	{
		Gates: []string{"ERROR ", "Got error: ", "] [", "[Errno "},
		RE:    reMySQLErr,
		Build: func(_ *ScanCtx, line string, m []string) (Hit, bool) {
			n := Atoi(m[1] + m[3] + m[4] + m[5])
			state, ok := mysqlStates[n]
			if !ok {
				if m[2] == "" || m[2] == "HY000" {
					return Hit{}, false
				}
				state = m[2]
			}
			if m[5] != "" && !strings.Contains(line, "MySQL") && !strings.Contains(line, "mysql") {
				return Hit{}, false // a Python errno of four digits: MySQL's only with its words
			}
			return sqlHit(state, "MySQL error "+strconv.Itoa(n), rankStdCode)
		},
	},
	{
		Gates: gateVariants([]string{"assword authentication failed", "e_sendauth: no password", "o pg_hba.conf entry", "does not exist", "ccess denied for user '", "atabase system is", "eadlock detected", "ould not serialize access", "eadlock found", "erializationFailure", "erialization failure: 1213", "ock wait timeout exceeded", "ermission denied for ", "ust be owner of", "ccess denied; you need", "ommand denied to user", "nsufficientPrivilege", "lready exists", "yntax error at or near", "rror in your SQL syntax", "ndefinedTable", "uplicateTable", "nvalid input syntax for", "alue too long for type", "ivision by zero", "ut of range for type", "iolates ", "ontains null values", "uplicate entry '", "erver version mismatch", "; pg_dump version", "; pg_dumpall version", "an't connect to local MySQL server", "an't connect to MySQL server", "ySQL server has gone away", "ost connection to MySQL server", "oo many clients already", "onnection slots are reserved", "ould not obtain lock on", "n a read-only transaction"}),
		RE:    reSQLWords,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			for i, g := range m[1:] {
				if g != "" {
					rank := rankStdWords
					if i == 0 {
						rank = rankStdTarget // the server's own login refusal, above git's "authentication failed"
					}
					return sqlHit(sqlWordStates[i], g, rank)
				}
			}
			return Hit{}, false
		},
	},
}

// reSQLSocketMissing: a client that found no socket file at its path:
// MySQL's "through socket '/x' (2)" and '(2 "No such file or directory")',
// PDO's "[2002] No such file or directory", libpq's "connection to server
// on socket "/x" failed: No such file or directory" and its older shape,
// whose "No such file or directory" is on the line before the socket's.
var reSQLSocketMissing = LazyRE(`through socket '([^']+)' \(2(?:\)| ")|connection to server on socket "([^"]+)" failed: No such file or directory|connections on Unix domain socket "([^"]+)"|(SQLSTATE\[HY000\] \[2002\] No such file or directory)`)

// sqlSocketMatcher reads a missing socket file. The socket's own errno says
// more than the connection error's number (2002 is transient when the socket
// refuses): it ranks above it.
var sqlSocketMatcher = Matcher{
	Gates: []string{"through socket '", "connection to server on socket", "connections on Unix domain socket", "[2002] No such file"},
	RE:    reSQLSocketMissing,
	Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
		path := m[1] + m[2] + m[3]
		if m[3] != "" && !strings.Contains(c.around(line), "could not connect to server: No such file or directory") {
			return Hit{}, false // refused or another errno: the connection exception's
		}
		what := "the socket " + path
		if path == "" {
			what = "MySQL error 2002: No such file or directory"
		}
		return Hit{Class: Structural, Code: CodeSQLSocketMissing, Rank: rankStdCode + 1, Reason: "the database client found no server socket (" + Clip(what) + ")", Remedy: remedySQLSocket}, true
	},
}

// reSQLDumpCut: mysqldump's 2013 in the middle of a table, with the table
// and the row it reached.
var reSQLDumpCut = LazyRE(`Lost connection to MySQL server during query when dumping table (\S+) at row: ?(\d+)`)

// sqlDumpCutMatcher reads a dump cut in the middle of a table. The MySQL
// manual names its causes: a result longer than the server's
// net_write_timeout (or the client's net_read_timeout) or a row larger than
// max_allowed_packet; both cut the same table on every run, so it ranks
// above the connection exception its number (2013) stands for.
var sqlDumpCutMatcher = Matcher{
	Gates: []string{"when dumping table"},
	RE:    reSQLDumpCut,
	Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
		return Hit{Class: Structural, Code: CodeSQLDumpCut, Rank: rankStdCode + 1,
			Reason: "the dump lost its connection in the middle of table " + Clip(m[1]) + " at row " + m[2] + " (MySQL 2013 during query)",
			Remedy: "a long table outlasts the server's limits: raise net_write_timeout and net_read_timeout (and max_allowed_packet for large rows) on the server or in mysqldump's options, or dump with --single-transaction --quick; rerunning unchanged cuts at the same table"}, true
	},
}
