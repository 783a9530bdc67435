package failure

import (
	"strconv"
	"strings"
)

// Tools' own numbered error formats, read as the kinds their documentation
// gives each code family, whatever program runs the tool:
//
//   - Prisma's error codes (its error reference: P1xxx common, P2xxx the
//     query engine, P3xxx migrate, P4xxx introspection), in the CLI's
//     "Error: P1001: ..." and the client's "code: 'P2024'": the server
//     out of reach, a timeout, a pool timeout, a write conflict (P1001,
//     P1002, P1008, P1017, P2024, P2034) are transient; a refused login
//     or access (P1000, P1010, and P3014's missing privilege to create
//     the shadow database) is policy; the rest (a database that does not
//     exist, a schema or migration error, a constraint) is structural;
//   - pgBackRest's error codes (its error.yaml), in "ERROR: [055]: ...",
//     "aborted with exception [072]" and by name ("[FileMissingError]"):
//     host-connect, db-connect, lock-acquire (its locks die with their
//     holder) and service (documented as retryable) are transient; access
//     is policy; the configuration, option, path, file-missing, version,
//     mismatch and repository codes are structural. Codes that say only
//     that a file could not be read or written keep the words around them.

// The tool code families' codes.
const (
	// CodePrismaConnection: Prisma P1001, P1002, P1008, P1017, P2024,
	// P2034: the server out of reach, a timeout, a write conflict.
	CodePrismaConnection Code = "prisma-connection"
	// CodePrismaAccess: Prisma P1000, P1010, P3014: the login or a
	// privilege is refused.
	CodePrismaAccess Code = "prisma-access"
	// CodePrismaSchema: Prisma's other P1xxx-P4xxx codes: the database,
	// the schema or a migration must change.
	CodePrismaSchema Code = "prisma-schema"
	// CodePgBackRestTransient: pgBackRest [049] host-connect, [050]
	// lock-acquire, [056] db-connect, [101] service.
	CodePgBackRestTransient Code = "pgbackrest-transient"
	// CodePgBackRestAccess: pgBackRest [105] access.
	CodePgBackRestAccess Code = "pgbackrest-access"
	// CodePgBackRestSetup: pgBackRest's configuration, option, path,
	// missing-file, version, mismatch and repository codes.
	CodePgBackRestSetup Code = "pgbackrest-setup"
)

const (
	remedyPrismaConnection = "Prisma could not reach or keep the database (not listening yet, a timeout, a full pool, a write conflict): retrying after a backoff; if it lasts, check DATABASE_URL's host and port and that the server runs"
	remedyPrismaAccess     = "the database refuses Prisma's user (credentials, or a privilege such as CREATE DATABASE for the shadow database): fix DATABASE_URL's credentials or grant the privilege; retrying cannot succeed"
	remedyPrismaSchema     = "the database, the schema or a migration must change (see the code in Prisma's error reference; a failed migration needs `prisma migrate resolve`): running it unchanged fails the same way"
	remedyPgBRTransient    = "pgBackRest could not reach a host or the database, another pgBackRest holds the lock, or the storage service failed: retrying after a backoff"
	remedyPgBRAccess       = "the repository storage refuses pgBackRest's credentials or access: fix the repo's key, role or permissions; retrying cannot succeed"
	remedyPgBRSetup        = "pgBackRest's configuration, stanza or repository must change (the code's name says which: a missing file or path, an invalid option, a mismatch, the command on the wrong host); create the stanza or fix pgbackrest.conf; retrying cannot succeed"
)

// prismaClass is the class and code of a Prisma error code; ok is false
// for a family the layer does not judge (P5xxx, P6xxx: the hosted
// services').
func prismaClass(n int) (Class, Code, bool) {
	switch n {
	case 1001, 1002, 1008, 1017, 2024, 2034:
		return Transient, CodePrismaConnection, true
	case 1000, 1010, 3014:
		return Policy, CodePrismaAccess, true
	}
	if n >= 1000 && n < 5000 {
		return Structural, CodePrismaSchema, true
	}
	return 0, "", false
}

// pgbrCode is one pgBackRest error code: its number, its name and the
// verdict on it.
type pgbrCode struct {
	name  string
	class Class
}

// pgbrCodes are the pgBackRest codes the layer judges (error.yaml).
var pgbrCodes = map[int]pgbrCode{
	27: {"ConfigError", Structural}, 29: {"FormatError", Structural}, 30: {"CommandRequiredError", Structural},
	31: {"OptionInvalidError", Structural}, 32: {"OptionInvalidValueError", Structural}, 37: {"OptionRequiredError", Structural},
	38: {"PgRunningError", Structural}, 40: {"PathNotEmptyError", Structural}, 43: {"ParamRequiredError", Structural},
	44: {"ArchiveMismatchError", Structural}, 45: {"ArchiveDuplicateError", Structural}, 46: {"VersionNotSupportedError", Structural},
	48: {"CommandInvalidError", Structural}, 49: {"HostConnectError", Transient}, 50: {"LockAcquireError", Transient},
	51: {"BackupMismatchError", Structural}, 55: {"FileMissingError", Structural}, 56: {"DbConnectError", Transient},
	58: {"DbMismatchError", Structural}, 67: {"FeatureNotSupportedError", Structural}, 68: {"ArchiveCommandInvalidError", Structural},
	72: {"HostInvalidError", Structural}, 73: {"PathMissingError", Structural}, 75: {"BackupSetInvalidError", Structural},
	80: {"DbMissingError", Structural}, 81: {"DbInvalidError", Structural}, 87: {"ArchiveDisabledError", Structural},
	89: {"UserMissingError", Structural}, 101: {"ServiceError", Transient}, 103: {"RepoInvalidError", Structural},
	105: {"AccessError", Policy}, 106: {"ClockError", Structural},
}

// pgbrByName indexes pgbrCodes by name.
var pgbrByName = func() map[string]int {
	m := make(map[string]int, len(pgbrCodes))
	for n, c := range pgbrCodes {
		m[c.name] = n
	}
	return m
}()

var (
	// rePrismaCode: "Error: P1001", "Error code: P1014", "code: 'P2024'",
	// "errorCode":"P1001".
	rePrismaCode = LazyRE(`(?:\bError(?: code)?:\s*|\bcode:\s*['"]|errorCode['"]?:\s*['"])P([1-6]\d{3})\b`)
	// rePgBRCode: "ERROR: [055]:", "aborted with exception [072]",
	// "[FileMissingError]".
	rePgBRCode = LazyRE(`\bERROR: \[(\d{3})\]|aborted with exception \[(\d{3})\]|\[([A-Z][A-Za-z]+Error)\]`)
)

func pgbrHit(n int) (Hit, bool) {
	c, ok := pgbrCodes[n]
	if !ok {
		return Hit{}, false
	}
	h := Hit{Class: c.class, Rank: toolCodeRank(c.class), Reason: "pgBackRest error [" + pad3(n) + "] " + c.name}
	switch c.class {
	case Transient:
		h.Code, h.Remedy = CodePgBackRestTransient, remedyPgBRTransient
	case Policy:
		h.Code, h.Remedy = CodePgBackRestAccess, remedyPgBRAccess
	default:
		h.Code, h.Remedy = CodePgBackRestSetup, remedyPgBRSetup
	}
	return h, true
}

// toolCodeRank is the rank of a tool's own code: a stop it names ranks
// above the refusal words of the generic layer and of git (Prisma's P1000
// says "Authentication failed" too); a retry it names stays a standard
// code's, below any refusal beside it.
func toolCodeRank(c Class) int {
	if c == Transient {
		return rankStdCode
	}
	return rankStdTarget
}

// pad3 writes n with three digits, as pgBackRest prints its codes.
func pad3(n int) string {
	s := strconv.Itoa(n)
	for len(s) < 3 {
		s = "0" + s
	}
	return s
}

var toolCodeMatchers = []Matcher{
	{
		Gates: []string{"Error: P", "Error:P", "Error code: P", "code: 'P", `code: "P`, "errorCode"},
		RE:    rePrismaCode,
		Build: func(_ *ScanCtx, line string, m []string) (Hit, bool) {
			n := Atoi(m[1])
			class, code, ok := prismaClass(n)
			if !ok {
				return Hit{}, false
			}
			h := Hit{Class: class, Code: code, Rank: toolCodeRank(class), Reason: "Prisma error P" + m[1] + " (" + Clip(strings.TrimSpace(line)) + ")"}
			switch code {
			case CodePrismaConnection:
				h.Remedy = remedyPrismaConnection
			case CodePrismaAccess:
				h.Remedy = remedyPrismaAccess
			default:
				h.Remedy = remedyPrismaSchema
			}
			return h, true
		},
	},
	{
		Gates: []string{"ERROR: [", "exception [", "Error]"},
		RE:    rePgBRCode,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			if m[3] != "" {
				n, ok := pgbrByName[m[3]]
				if !ok {
					return Hit{}, false
				}
				return pgbrHit(n)
			}
			return pgbrHit(Atoi(m[1] + m[2]))
		},
	},
}
