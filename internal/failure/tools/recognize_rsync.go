package tools

import (
	"fmt"
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
)

// rsync's failures, read from its documented exit values (rsync(1), EXIT
// VALUES) wherever they appear: the closing line "rsync error: <what>
// (code N) at main.c(1338) [sender=3.2.7]" (and "rsync warning: ... (code
// 24)"), and the exit status itself when the program is rsync. The lines
// before the code say more and outrank it: an ssh refusal or a timeout,
// rsync's per-file errors ("...: Permission denied (13)", read by their
// errno), an rsync daemon's "@ERROR: ..." answer.
//
//	 1, 2, 3, 4, 25, 126, 127  structural: usage, protocol mismatch (a remote
//	                           shell that prints, another rsync), file
//	                           selection, an unsupported option, the
//	                           --max-delete limit, no rsync on the remote side
//	 5                         the daemon refused: by its @ERROR words (max
//	                           connections: transient; auth failed: policy;
//	                           unknown module, chroot/chdir failed: structural)
//	10, 30, 35                 transient: socket I/O, I/O timeout, daemon
//	                           connection timeout
//	12                         the protocol stream broke: transient when the
//	                           transfer was under way (64 KiB or more
//	                           received), unknown when the remote rsync never
//	                           spoke (an incompatible or missing rsync, a
//	                           shell that prints, a missing directory are
//	                           the common causes, and the lines before say
//	                           which)
//	23                         a partial transfer: the class of the errors
//	                           before it (their errno), unknown when none is
//	                           read
//	24                         source files vanished during the copy:
//	                           transient, a second pass copies the source as
//	                           it now is
//	11, 13-22, 124, 125, 255   unknown: file I/O, internal errors, a signal,
//	                           the remote shell's own failure (ssh's lines
//	                           before it decide)

// rsync's codes.
const (
	// CodeRsyncPartial: exit 23, some files or attributes were not transferred.
	CodeRsyncPartial failure.Code = "rsync-partial-transfer"
	// CodeRsyncVanished: exit 24, source files vanished before they could be transferred.
	CodeRsyncVanished failure.Code = "rsync-vanished-files"
	// CodeRsyncStream: exit 10 or 12, the socket or the protocol stream broke.
	CodeRsyncStream failure.Code = "rsync-stream-broken"
	// CodeRsyncTimeout: exit 30 or 35, no data (or no daemon) within --timeout/--contimeout.
	CodeRsyncTimeout failure.Code = "rsync-timeout"
	// CodeRsyncDaemon: exit 5, the rsync daemon refused the session (@ERROR).
	CodeRsyncDaemon failure.Code = "rsync-daemon-refused"
	// CodeRsyncSetup: exit 1-4, 25, 126, 127, the command, the options or the remote rsync must change.
	CodeRsyncSetup failure.Code = "rsync-setup"
	// CodeRsyncFileError: an rsync error on one file, read by its errno.
	CodeRsyncFileError failure.Code = "rsync-file-error"
	// CodeRsyncFailed: another rsync exit value (file I/O, a signal, the remote shell).
	CodeRsyncFailed failure.Code = "rsync-failed"
)

// rsyncMinProgress is how much data rsync must have received before a
// broken stream (exit 12) counts as a connection lost mid-transfer.
const rsyncMinProgress = 64 << 10

var (
	reRsyncCode     = failure.LazyRE(`rsync (error|warning): (.*?)\s*\(code (\d{1,3})\)`)
	reRsyncReceived = failure.LazyRE(`connection unexpectedly closed \((\d+) bytes received so far\)`)
	reRsyncDaemon   = failure.LazyRE(`@ERROR:\s*(.*)`)
	// reRsyncErrno: rsync's rsyserr shape, "...: strerror (errno)".
	reRsyncErrno = failure.LazyRE(`: ([A-Z][a-z][A-Za-z /-]*) \((\d{1,3})\)\s*$`)
)

// rsyncErrnos are the errnos rsync's per-file errors carry, with their
// class: the file's permission is policy, a target that cannot hold the
// file is structural, a broken connection is transient.
var rsyncErrnos = map[int]struct {
	text  string
	class failure.Class
}{
	1:   {"Operation not permitted", failure.Policy},
	2:   {"No such file or directory", failure.Structural},
	5:   {"Input/output error", failure.Unknown},
	13:  {"Permission denied", failure.Policy},
	22:  {"Invalid argument", failure.Structural},
	28:  {"No space left on device", failure.Structural},
	30:  {"Read-only file system", failure.Structural},
	32:  {"Broken pipe", failure.Transient},
	36:  {"File name too long", failure.Structural},
	38:  {"Function not implemented", failure.Structural},
	95:  {"Operation not supported", failure.Structural},
	104: {"Connection reset by peer", failure.Transient},
	110: {"Connection timed out", failure.Transient},
	122: {"Disk quota exceeded", failure.Structural},
}

// rsyncCode is the meaning of one of rsync's exit values.
func rsyncCode(code int) (failure.Class, failure.Code, string, string) {
	const setup = "the command or the remote side must change (see the lines before the code); retrying cannot succeed"
	switch code {
	case 1:
		return failure.Structural, CodeRsyncSetup, "syntax or usage error", "fix the rsync command line; " + setup
	case 2:
		return failure.Structural, CodeRsyncSetup, "protocol incompatibility", "the remote shell prints text before rsync starts (a .bashrc that echoes), or the remote rsync is missing or too old: make the non-interactive shell silent, install rsync there; retrying cannot succeed"
	case 3:
		return failure.Structural, CodeRsyncSetup, "errors selecting input/output files, dirs", "a source or destination path does not exist or is not a directory: fix the paths; retrying cannot succeed"
	case 4:
		return failure.Structural, CodeRsyncSetup, "requested action not supported", "an option the other side's rsync does not support: drop it or upgrade that rsync; retrying cannot succeed"
	case 5:
		return failure.Unknown, CodeRsyncDaemon, "error starting client-server protocol", "the rsync daemon refused the session: its @ERROR line says why (module, auth, connections)"
	case 10:
		return failure.Transient, CodeRsyncStream, "error in socket I/O", "the connection broke: retrying; if it persists, check the network and the remote host"
	case 12:
		return failure.Unknown, CodeRsyncStream, "error in rsync protocol data stream", "the other side stopped talking before the transfer got going: check that rsync runs on the remote side (installed, on PATH, a silent shell, an existing directory); the lines before the code say more"
	case 23:
		return failure.Structural, CodeRsyncPartial, "partial transfer due to error", "some files or attributes were not transferred, and the same files fail again until their cause changes: the errors before the code name it (permissions, a target that cannot hold owners or links, no space, a file in the way); retrying cannot succeed"
	case 24:
		return failure.Transient, CodeRsyncVanished, "partial transfer due to vanished source files", "files were deleted while rsync copied (temporary or cache files): a second pass copies the source as it now is; if it keeps happening, exclude the churning paths, or treat exit 24 as success (--retry-on-exit 24 retries it deliberately)"
	case 25:
		return failure.Structural, CodeRsyncSetup, "the --max-delete limit stopped deletions", "more deletions than --max-delete allows: check why so much vanished from the source before raising the limit; retrying cannot succeed"
	case 30:
		return failure.Transient, CodeRsyncTimeout, "timeout in data send/receive", "no data within --timeout: retrying; raise --timeout for a slow link or a large file list"
	case 35:
		return failure.Transient, CodeRsyncTimeout, "timeout waiting for daemon connection", "the daemon did not answer within --contimeout: retrying"
	case 126, 127:
		return failure.Structural, CodeRsyncSetup, "remote command could not be run or not found", "rsync is not installed (or not on PATH) on the remote side: install it or pass --rsync-path; retrying cannot succeed"
	}
	return failure.Unknown, CodeRsyncFailed, "", "read the lines before rsync's code: they say what failed"
}

// rsyncCodeHit is the verdict of rsync's exit value, with what rsync
// printed about it (desc) when known.
func rsyncCodeHit(code int, desc string) failure.Hit {
	class, c, meaning, remedy := rsyncCode(code)
	if meaning == "" {
		meaning = desc
	}
	if meaning == "" {
		meaning = "error"
	}
	return failure.Hit{Class: class, Code: c, Reason: fmt.Sprintf("rsync exit %d: %s", code, failure.Clip(meaning)), Remedy: remedy}
}

// rsyncDaemonHit reads an rsync daemon's @ERROR answer.
func rsyncDaemonHit(msg string) failure.Hit {
	h := failure.Hit{Code: CodeRsyncDaemon, Rank: failure.RankRefusal, Reason: "the rsync daemon refused: " + failure.Clip(msg)}
	l := strings.ToLower(msg)
	switch {
	case strings.Contains(l, "max connections"), strings.Contains(l, "try again later"):
		h.Class, h.Remedy = failure.Transient, "the daemon is at its connection limit: retrying after a backoff"
	case strings.Contains(l, "auth failed"), strings.Contains(l, "access denied"), strings.Contains(l, "password"):
		h.Class, h.Remedy = failure.Policy, "the daemon refuses these credentials or this host: fix the user and --password-file (or RSYNC_PASSWORD), or the module's auth users and hosts allow; retrying cannot succeed"
	default: // unknown module, chroot failed, chdir failed, ...
		h.Class, h.Remedy = failure.Structural, "the daemon's module cannot be used as asked (unknown module, chroot or chdir failed): fix the module name or the daemon's rsyncd.conf; retrying cannot succeed"
	}
	return h
}

var rsyncFamily = failure.Family{
	Tool:  failure.ToolRsync,
	Names: []string{"rsync"},
	Marks: []string{"rsync error: ", "rsync warning: "},
	Matchers: []failure.Matcher{
		{
			Gates: []string{"rsync error: ", "rsync warning: "},
			RE:    reRsyncCode,
			Build: func(c *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
				code := failure.Atoi(m[3])
				h := rsyncCodeHit(code, m[2])
				h.Rank = failure.RankCurlCode
				if code == 12 {
					// the stream broke mid-transfer: a lost connection
					for _, r := range reRsyncReceived.FindAllStringSubmatch(c.Text, 8) {
						if n := failure.Atoi(r[1]); n >= rsyncMinProgress || len(r[1]) > 9 {
							h.Class, h.Trace = failure.Transient, failure.TrNet
							h.Remedy = "the connection broke in the middle of the transfer: retrying (rsync --partial keeps what arrived)"
							break
						}
					}
				}
				if h.Class == failure.Transient && code != 24 {
					h.Trace = failure.TrNet
				}
				return h, true
			},
		},
		{
			// the remote side printed before rsync's greeting: whatever the
			// quoted text says is that side's log, not this failure
			Gates: []string{"rather than greeting"},
			RE:    failure.LazyRE(`server sent "(.*)" rather than greeting`),
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Structural, Code: CodeRsyncSetup, Rank: failure.RankRefusal + 1,
					Reason: "the rsync server printed text instead of its greeting (\"" + failure.Clip(m[1]) + "\")",
					Remedy: "something on the server's side writes to rsync's stream (a daemon logging to stdout, a shell that prints): send the log elsewhere or make the shell silent; retrying cannot succeed"}, true
			},
		},
		{
			Gates: []string{"@ERROR:"},
			RE:    reRsyncDaemon,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				return rsyncDaemonHit(strings.TrimSpace(m[1])), true
			},
		},
		{
			Gates: []string{"Operation not permitted (", "No such file or directory (", "Input/output error (", "Permission denied (", "Invalid argument (",
				"No space left on device (", "Read-only file system (", "Broken pipe (", "File name too long (", "Function not implemented (",
				"Operation not supported (", "Connection reset by peer (", "Connection timed out (", "Disk quota exceeded ("},
			RE: reRsyncErrno,
			Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				if !strings.Contains(c.Text, "rsync") {
					return failure.Hit{}, false // another program's "(110)": PHPMailer's "Connection timed out (110)"
				}
				n := failure.Atoi(m[2])
				e, ok := rsyncErrnos[n]
				if !ok || e.text != m[1] {
					return failure.Hit{}, false
				}
				h := failure.Hit{Class: e.class, Code: CodeRsyncFileError, Rank: failure.RankStatus - 2, // above the generic phrases ("invalid argument")
					Reason: fmt.Sprintf("rsync: %s (errno %d)", e.text, n)}
				switch e.class {
				case failure.Policy:
					h.Remedy = "the user may not write, own or change these files: give it the permission, or stop asking for what it may not set (--no-perms --no-owner --no-group, or -rlt instead of -a); retrying cannot succeed"
				case failure.Structural:
					h.Remedy = "the target cannot take these files as asked (a missing path, no space, a file system without owners, groups or links): change the target or the options; retrying cannot succeed"
				case failure.Transient:
					h.Remedy, h.Trace = "the connection broke: retrying", failure.TrNet
				default:
					h.Remedy = "an I/O error on the disk or network file system: check it before retrying"
				}
				return h, true
			},
		},
	},
	Exit: func(code int) (failure.Hit, bool) {
		return rsyncCodeHit(code, ""), true
	},
}
