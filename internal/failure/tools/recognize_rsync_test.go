package tools

import (
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

// TestRsyncExitValues reads rsync's documented exit values from its closing
// line, from the exit status when the program is rsync, and with the lines
// before the code that say more.
func TestRsyncExitValues(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "23 with a permission error before it", tool: failure.ToolAuto, exit: 23,
			text:  "rsync: [receiver] failed to set permissions on \"/srv/www/.\": Operation not permitted (1)\nrsync error: some files/attrs were not transferred (see previous errors) (code 23) at main.c(1338) [sender=3.2.7]\n",
			class: failure.Policy, code: CodeRsyncFileError, reason: "Operation not permitted (errno 1)", remedy: "--no-perms"},
		{name: "23 with a read-only target among the files", tool: failure.ToolAuto, exit: 23,
			text: "rsync: [generator] chgrp \"/mnt/usb/x\" failed: Invalid argument (22)\nrsync: [receiver] mkstemp \"/mnt/ro/.x.AbC\" failed: Read-only file system (30)\nrsync error: some files/attrs were not transferred (see previous errors) (code 23) at main.c(1338) [sender=3.2.7]\n",
			// the read-only target is the errno standard's kind, which outranks rsync's summary of its files
			class: failure.Structural, code: failure.CodeErrnoReadOnly, reason: "EROFS"},
		{name: "an errno text that does not match its number is not read", tool: failure.ToolAuto, exit: 23,
			text:  "rsync: [receiver] odd failure: Permission denied (28)\nrsync error: some files/attrs were not transferred (see previous errors) (code 23) at main.c(1338) [sender=3.2.7]\n",
			class: failure.Structural, code: CodeRsyncPartial},
		{name: "23 alone is structural: the same files fail again", tool: failure.ToolAuto, exit: 23,
			text:  "rsync error: some files/attrs were not transferred (see previous errors) (code 23) at main.c(1338) [sender=3.2.7]\n",
			class: failure.Structural, code: CodeRsyncPartial, reason: "rsync exit 23"},
		{name: "24 vanished files", tool: failure.ToolAuto, exit: 24,
			text:  "file has vanished: \"/var/cache/app/tmp123\"\nrsync warning: some files vanished before they could be transferred (code 24) at main.c(1338) [sender=3.2.7]\n",
			class: failure.Transient, code: CodeRsyncVanished, remedy: "exclude the churning paths"},
		{name: "30 timeout", tool: failure.ToolAuto, exit: 30,
			text:  "[sender] io timeout after 60 seconds -- exiting\nrsync error: timeout in data send/receive (code 30) at io.c(201) [sender=3.2.7]\n",
			class: failure.Transient, code: CodeRsyncTimeout},
		{name: "12 after the transfer got going", tool: failure.ToolAuto, exit: 12,
			text:  "rsync: connection unexpectedly closed (12776503928 bytes received so far) [receiver]\nrsync error: error in rsync protocol data stream (code 12) at io.c(226) [receiver=3.1.1]\n",
			class: failure.Transient, code: CodeRsyncStream},
		{name: "12 before anything arrived", tool: failure.ToolAuto, exit: 12,
			text:  "rsync: connection unexpectedly closed (0 bytes received so far) [sender]\nrsync error: error in rsync protocol data stream (code 12) at io.c(228) [sender=3.2.3]\n",
			class: failure.Unknown, code: CodeRsyncStream, remedy: "rsync runs on the remote side"},
		{name: "12 after an ssh timeout: the ssh line decides", tool: failure.ToolAuto, exit: 12,
			text:  "ssh: connect to host 198.51.100.2 port 22: Connection timed out\nrsync: connection unexpectedly closed (0 bytes received so far) [sender]\nrsync error: error in rsync protocol data stream (code 12) at io.c(235) [sender=3.1.2]\n",
			class: failure.Transient, code: failure.CodeTimeout},
		{name: "255 after host key verification", tool: failure.ToolAuto, exit: 255,
			text:  "Host key verification failed.\nrsync: connection unexpectedly closed (0 bytes received so far) [sender]\nrsync error: unexplained error (code 255) at io.c(231) [sender=3.2.7]\n",
			class: failure.Structural, code: failure.CodeSSHHostKey, remedy: "known_hosts"},
		{name: "5 daemon at its connection limit", tool: failure.ToolAuto, exit: 5,
			text:  "@ERROR: max connections (100) reached -- try again later\nrsync error: error starting client-server protocol (code 5) at main.c(1675) [sender=3.1.3]\n",
			class: failure.Transient, code: CodeRsyncDaemon},
		{name: "5 daemon auth failed", tool: failure.ToolAuto, exit: 5,
			text:  "@ERROR: auth failed on module backups\nrsync error: error starting client-server protocol (code 5) at main.c(1863) [Receiver=3.2.7]\n",
			class: failure.Policy, code: CodeRsyncDaemon, remedy: "--password-file"},
		{name: "5 unknown module", tool: failure.ToolAuto, exit: 5,
			text:  "@ERROR: Unknown module 'mirror'\nrsync error: error starting client-server protocol (code 5) at main.c(1863) [Receiver=3.2.7]\n",
			class: failure.Structural, code: CodeRsyncDaemon},
		{name: "2 a shell that prints", tool: failure.ToolAuto, exit: 2,
			text:  "protocol version mismatch -- is your shell clean?\n(see the rsync man page for an explanation)\nrsync error: protocol incompatibility (code 2) at compat.c(622) [sender=3.2.7]\n",
			class: failure.Structural, code: CodeRsyncSetup, remedy: "silent"},
		{name: "exit status alone when the program is rsync", tool: failure.ToolRsync, exit: 30, text: "\n",
			class: failure.Transient, code: CodeRsyncTimeout, reason: "rsync exit 30"},
		{name: "exit 127 alone: no rsync on the other side", tool: failure.ToolRsync, exit: 127, text: "",
			class: failure.Structural, code: CodeRsyncSetup, remedy: "--rsync-path"},
		{name: "the exit status of another program is not rsync's", tool: failure.ToolAuto, exit: 30, text: "something odd happened\n",
			class: failure.Unknown, code: failure.CodeUnknown},
	})
}

// TestRsyncErrnoNeedsRsync: the "strerror (errno)" shape is rsync's only in
// a text rsync printed: a mailer's "Connection timed out (110)" is not an
// rsync file error.
func TestRsyncErrnoNeedsRsync(t *testing.T) {
	f := failure.Classify(failure.Input{Text: "SMTP ERROR: Failed to connect to server: Connection timed out (110)", ExitCode: 1})
	if f.Code == CodeRsyncFileError {
		t.Errorf("got %s %s (%s), want no rsync code", f.Class, f.Code, f.Reason)
	}
}
