package failure

import "strings"

// errno names (POSIX) and their strerror texts, in any tool's wording
// ("ENOSPC: no space left on device, write", "No space left on device
// (28)", "errno=28", "[Errno 122] Quota exceeded", "Read-only file
// system", "open /x: permission denied", "[Errno 13] Permission denied:
// '/x'").
//
//   - ECONNREFUSED, ETIMEDOUT, ECONNRESET, EHOSTUNREACH, ENETUNREACH (and
//     "Connection refused", "Connection timed out", "Connection reset by
//     peer", "No route to host", "Network is unreachable"): transient,
//     read by the network recognisers (recognize_net.go) with their codes
//     (connection-refused, timeout, ...), so that live evidence runs
//     before a retry as for any network failure.
//   - ENOSPC, EDQUOT, EROFS: structural: the target must change (free
//     space, a larger quota, a writable mount); a retry writes to the same
//     full or read-only place.
//   - EACCES and EPERM on a file: policy: the user may not write or read
//     that path.

// The errno codes.
const (
	// CodeErrnoNoSpace: ENOSPC, no space left on the device.
	CodeErrnoNoSpace Code = "errno-enospc"
	// CodeErrnoQuota: EDQUOT, the disk quota is exceeded.
	CodeErrnoQuota Code = "errno-edquot"
	// CodeErrnoReadOnly: EROFS, a read-only file system.
	CodeErrnoReadOnly Code = "errno-erofs"
	// CodeErrnoAccess: EACCES or EPERM on a file.
	CodeErrnoAccess Code = "errno-eacces"
)

const (
	remedyErrnoNoSpace  = "the target filesystem is full (ENOSPC): free space (old backups, caches, logs) or write elsewhere; a retry writes to the same full disk"
	remedyErrnoQuota    = "the disk quota is exceeded (EDQUOT): free space within the quota or raise it; a retry writes to the same quota"
	remedyErrnoReadOnly = "the filesystem is read-only (EROFS: mounted read-only, or remounted so after errors): write elsewhere, or fix and remount it read-write (after fsck); retrying cannot succeed"
	remedyErrnoAccess   = "the job's user may not use this path (EACCES/EPERM): fix the file's or directory's owner or mode, or run as a user who may; retrying cannot succeed"
)

var (
	reErrnoNoSpace  = LazyRE(`ENOSPC|(?i:no space left on device)|errno[= ]28\b|\[Errno 28\]`)
	reErrnoQuota    = LazyRE(`EDQUOT|(?i:disk quota exceeded)|errno[= ]122\b|\[Errno 122\]`)
	reErrnoReadOnly = LazyRE(`EROFS|(?i:read-only file ?system)|\[Errno 30\]`)
	// reErrnoAccess: permission denied on a path, in the shapes tools print
	// it; the first non-empty group is the path.
	reErrnoAccess = LazyRE(`(?:EACCES|EPERM): (?:permission denied|operation not permitted), \w+ '([^']+)'|\[Errno (?:13|1)\] (?:Permission denied|Operation not permitted): '([^']+)'|could not (?:open|create|write|read) (?:output |input )?(?:file|directory) "([^"]+)": Permission denied|(?:^|[\s:])((?:/|\./|~/|[A-Za-z]:\\)[^\s:'"]*): Permission denied|cannot (?:create|open|remove|write|access|stat|touch|overwrite)[^'‘"]*['‘"]([^'’"]+)['’"]: (?:Permission denied|Operation not permitted)|(?:open|mkdir|write|create|remove|unlink|chmod|chown|rename|stat|lstat) ((?:/|\./)[^\s:]+): (?:permission denied|operation not permitted)|failed to open stream: (Permission denied)`)
)

// errnoTarget is one of the target's errnos: ENOSPC, EDQUOT, EROFS.
type errnoTarget struct {
	gates  []string
	re     *LazyRegexp
	code   Code
	name   string
	remedy string
}

var errnoTargets = []errnoTarget{
	{[]string{"ENOSPC", "o space left on device", "O SPACE LEFT ON DEVICE", "errno=28", "errno 28", "[Errno 28]"}, reErrnoNoSpace, CodeErrnoNoSpace, "ENOSPC", remedyErrnoNoSpace},
	{[]string{"EDQUOT", "isk quota exceeded", "errno=122", "errno 122", "[Errno 122]"}, reErrnoQuota, CodeErrnoQuota, "EDQUOT", remedyErrnoQuota},
	{[]string{"EROFS", "ead-only file system", "ead-only filesystem", "EAD-ONLY FILE SYSTEM", "[Errno 30]"}, reErrnoReadOnly, CodeErrnoReadOnly, "EROFS", remedyErrnoReadOnly},
}

func errnoTargetMatchers() []Matcher {
	out := make([]Matcher, len(errnoTargets))
	for i := range errnoTargets {
		t := errnoTargets[i]
		out[i] = Matcher{Gates: t.gates, RE: t.re, Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			if c.Tool == ToolActions || notAFailureLine(line) || onRunnerDisk(line) {
				return Hit{}, false // the runner's own disk: the actions family says so
			}
			rank := rankStdTarget
			if t.code == CodeErrnoQuota {
				rank = RankAPICode + 1 // a disk quota, not an API's quota
			}
			return Hit{Class: Structural, Code: t.code, Rank: rank, Reason: "the target cannot be written (" + t.name + ": \"" + Clip(m[0]) + "\")", Remedy: t.remedy}, true
		}}
	}
	return out
}

var errnoMatchers = append(errnoTargetMatchers(), Matcher{
	Gates: []string{"ermission denied", "ERMISSION DENIED", "peration not permitted"},
	RE:    reErrnoAccess,
	Build: func(_ *ScanCtx, line string, m []string) (Hit, bool) {
		if strings.Contains(line, "(publickey") || strings.Contains(line, "docker.sock") || strings.Contains(line, "connect") && strings.Contains(line, "not permitted") {
			return Hit{}, false // ssh's key, Docker's socket, a refused connect(): not a file's mode
		}
		path := ""
		for _, g := range m[1:] {
			if g != "" {
				path = g
				break
			}
		}
		return Hit{Class: Policy, Code: CodeErrnoAccess, Rank: rankStdWords, Reason: "permission denied on a file (EACCES: " + Clip(path) + ")", Remedy: remedyErrnoAccess}, true
	},
})

// onRunnerDisk reports whether a line names a path on a GitHub Actions
// runner's own disk (its workspace, temp or tool cache): the runner's disk
// is the actions family's to judge.
func onRunnerDisk(line string) bool {
	for _, p := range []string{"/home/runner/", "/runner/_work/", "/runner/work/", `\_work\`, "hostedtoolcache"} {
		if strings.Contains(line, p) {
			return true
		}
	}
	return false
}
