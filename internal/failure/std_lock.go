package failure

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Locks held by someone else. Package managers (apt, dpkg, yum, dnf,
// pacman), backup repositories (restic, borg), infrastructure state
// (terraform, OpenTofu, pulumi) and git refuse to run while another holds
// their lock. What decides is the same for all of them, and the message
// says it in its own words; it is read as a kind, not per tool:
//
//   - the holder is alive: the message says so ("It is held by process
//     1234 (unattended-upgr)", "another copy is running as pid 2990",
//     "State : Sleeping", "Waiting for process with pid 1234 to finish"),
//     or the lock is a kernel lock that dies with its holder (apt's and
//     dpkg's fcntl locks: "Resource temporarily unavailable", flock's
//     "timeout while waiting to get lock", duplicity's, certbot's "Another
//     instance of Certbot is already running"), or the tool
//     already removes dead holders' locks itself and only timed out waiting
//     (borg's "(timeout)"): transient, lock-held, wait within the run;
//   - the lock's age is shown ("(165h32m5s ago)", "Created: 2022-09-26
//     23:16:15 +0000 UTC", "created by u@h (pid 42) at 2025-09-23T13:21:31Z",
//     "locked 3 days ago", yum's "- 00:10 ago"): older than staleLockAge (or
//     than the run's --max-elapsed, when that is longer) it is stale,
//     structural (lock-stale); younger, it is held (transient);
//   - the holder is dead ("process 1234 is not running", "no such
//     process", "the lock is stale", "State : Zombie"): structural,
//     lock-stale;
//   - a lock file whose holder and age the message does not show (git's
//     index.lock "File exists", pacman's db.lck, a state lock without its
//     Lock Info): unknown, lock-holder-unknown: only someone who looks can
//     tell a running process from a crashed one.
//
// The remedy names the tool's own unlock command where the message or its
// documentation gives one (restic unlock, borg break-lock, terraform
// force-unlock ID, pulumi cancel, removing git's index.lock or pacman's
// db.lck), always after checking that no process holds the lock; for apt
// and dpkg it never suggests deleting the lock files (their locks are
// released when the holder exits): it says to wait (DPkg::Lock::Timeout).

// The lock codes.
const (
	// CodeLockHeld: a live process holds the lock, or it is fresh: wait.
	CodeLockHeld Code = "lock-held"
	// CodeLockStale: the lock is older than a run or its holder is dead.
	CodeLockStale Code = "lock-stale"
	// CodeLockUnknown: a lock whose holder and age the message does not show.
	CodeLockUnknown Code = "lock-holder-unknown"
)

// staleLockAge is the age past which a lock is stale: no run of the tools
// that take these locks (an install, a backup, an apply) is expected to hold
// one for longer; the run's --max-elapsed replaces it when it is longer.
const staleLockAge = time.Hour

// lockLookAhead bounds the lines read after a lock's first line for its
// holder and age (restic's two lines, terraform's Lock Info block).
const lockLookAhead = 14

var (
	reLockOpen = LazyRE(`repository is already locked|rror acquiring the state lock|rror locking state|stack is currently locked|Could not get lock \S+|Unable to acquire the dpkg frontend lock|Unable to lock the administration directory|Unable to lock directory|Existing lock /var/run/yum\.pid|currently holding the yum lock|yum lockfile is held by another process|Waiting for process with pid \d+ to finish|Failed to create/acquire the lock \S+ \(timeout\)|Unable to create '[^']*\.lock': File exists|unable to lock database|could not lock database|\b(?:is|was) (?:already )?locked by (?:PID|pid|process) \d+|frontend lock (?:was|is) locked by another process|status database is locked by another process|Another duplicity instance is already running|timeout while waiting to get lock|lock (?:is )?(?:already )?held by (?:PID|pid|process) \d+|Another instance of Certbot is already running`)
	// reLockAgeDur: Go's duration before "ago" (restic: "(3m2.5s ago)").
	reLockAgeDur = LazyRE(`\(((?:\d+h)?(?:\d+m)?(?:[\d.]+(?:s|ms|µs|ns))?) ago\)`)
	// reLockAgeWords: "locked 3 days ago", "created 12 minutes ago".
	reLockAgeWords = LazyRE(`(?i)\b(\d+)\s*(second|sec|minute|min|hour|day|week|month)s?\s+ago\b`)
	// reLockAgeClock: yum's "Started: Fri Dec  4 12:53:48 2020 - 00:10 ago".
	reLockAgeClock = LazyRE(`- (?:(\d+) day\(s\) )?(\d+):(\d\d)(?::(\d\d))? ago`)
	// reLockCreated: a creation time (terraform's Lock Info, pulumi, restic).
	reLockCreated = LazyRE(`(?i)(?:\bcreated:|created at|created by \S+ (?:\(pid \d+\) )?at)\s*(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?(?: [+-]\d{4}(?: [A-Z]{3,4})?)?)`)
	reLockAlive   = LazyRE(`It is held by process (\d+)(?: \(([^)]+)\))?|another copy is running as pid (\d+)|State\s*:\s*(?:Running|Sleeping|Disk Sleep)|Waiting for process with pid (\d+)|yum lockfile is held by another process|Resource temporarily unavailable|currently holding the yum lock|locked by another process|is already running`)
	reLockDead    = LazyRE(`(?i)\block (?:file )?(?:is|was|looks|seems) stale|stale lock (?:file )?(?:found|detected|exists)|process \d+ (?:is not running|does not exist|no longer exists)|no such process|State\s*:\s*Zombie|holder (?:is )?(?:dead|gone)`)
	reLockPID     = LazyRE(`(?i)\b(?:PID|pid|process)\s+(\d+)`)
	reLockHost    = LazyRE(`by PID \d+ on (\S+) by|Who:\s+(\S+)|created by (\S+) \(pid|running on (\S+)`)
	reLockTFID    = LazyRE(`\bID:\s+(\S+)`)
	reLockPath    = LazyRE(`(?:Could not get lock|acquire the lock|Unable to create) '?([^'\s]+?)'?(?:[.:]?\s|\.?$)`)
)

// lockFacts is what a lock failure's lines say about its holder.
type lockFacts struct {
	tool        string // restic, terraform, pulumi, apt, yum, dnf, borg, git, pacman, or ""
	age         time.Duration
	ageKnown    bool
	alive, dead bool
	holder      string // "PID 123 (unattended-upgr) on host"
	ageLine     string // the line that gave the age, as evidence
	lockID      string // terraform's lock ID
	path        string
}

// lockTool names the tool whose wording opened the lock failure.
func lockTool(open string) string {
	switch {
	case strings.Contains(open, "repository is already locked"):
		return "restic"
	case strings.Contains(open, "state lock"), strings.Contains(open, "locking state"):
		return "terraform"
	case strings.Contains(open, "stack is currently locked"):
		return "pulumi"
	case strings.Contains(open, "Could not get lock"), strings.Contains(open, "dpkg frontend lock"), strings.Contains(open, "frontend lock"), strings.Contains(open, "status database"), strings.Contains(open, "administration directory"), strings.Contains(open, "Unable to lock directory"):
		return "apt"
	case strings.Contains(open, "yum"):
		return "yum"
	case strings.Contains(open, "Waiting for process with pid"):
		return "dnf"
	case strings.Contains(open, "Failed to create/acquire the lock"):
		return "borg"
	case strings.Contains(open, "lock database"):
		return "pacman"
	case strings.Contains(open, "duplicity"):
		return "duplicity"
	case strings.Contains(open, "Certbot"):
		return "certbot"
	case strings.Contains(open, "to get lock"):
		return "flock"
	case strings.Contains(open, ".lock': File exists"):
		return "git"
	}
	return ""
}

// readLock gathers the lock's facts from its lines.
func readLock(c *ScanCtx, open string, lines []string) lockFacts {
	f := lockFacts{tool: lockTool(open)}
	var pid, name, host string
	for _, l := range lines {
		if !f.ageKnown {
			if d, ok := lockAge(c, l); ok {
				f.age, f.ageKnown, f.ageLine = d, true, l
			}
		}
		if reLockDead.MatchString(l) {
			f.dead = true
		}
		if m := reLockAlive.FindStringSubmatch(l); m != nil {
			f.alive = true
			if m[2] != "" {
				name = m[2]
			}
		}
		if m := reLockPID.FindStringSubmatch(l); m != nil && pid == "" {
			pid = m[1]
		}
		if m := reLockHost.FindStringSubmatch(l); m != nil && host == "" {
			host = m[1] + m[2] + m[3] + m[4]
		}
		if m := reLockTFID.FindStringSubmatch(l); m != nil && f.lockID == "" {
			f.lockID = m[1]
		}
		if m := reLockPath.FindStringSubmatch(l); m != nil && f.path == "" {
			f.path = strings.TrimRight(m[1], ".,")
		}
	}
	if pid != "" {
		f.holder = "PID " + pid
		if name != "" {
			f.holder += " (" + name + ")"
		}
	}
	if host != "" {
		f.holder = strings.TrimSpace(f.holder + " on " + host)
	}
	return f
}

// lockAge reads a lock's age from a line, in any of the shapes above.
func lockAge(c *ScanCtx, l string) (time.Duration, bool) {
	if m := reLockAgeDur.FindStringSubmatch(l); m != nil && m[1] != "" {
		if d, err := time.ParseDuration(m[1]); err == nil {
			return d, true
		}
	}
	if m := reLockAgeClock.FindStringSubmatch(l); m != nil {
		a, b, s := Atoi(m[2]), Atoi(m[3]), Atoi(m[4])
		d := time.Duration(a)*time.Minute + time.Duration(b)*time.Second // mm:ss
		if s >= 0 {
			d = time.Duration(a)*time.Hour + time.Duration(b)*time.Minute + time.Duration(s)*time.Second
		}
		if days := Atoi(m[1]); days > 0 {
			d += time.Duration(days) * 24 * time.Hour
		}
		return d, true
	}
	if m := reLockAgeWords.FindStringSubmatch(l); m != nil {
		n := Atoi(m[1])
		unit := map[string]time.Duration{"second": time.Second, "sec": time.Second, "minute": time.Minute, "min": time.Minute, "hour": time.Hour,
			"day": 24 * time.Hour, "week": 7 * 24 * time.Hour, "month": 30 * 24 * time.Hour}[strings.ToLower(m[2])]
		if n >= 0 && unit > 0 {
			return time.Duration(n) * unit, true
		}
	}
	if m := reLockCreated.FindStringSubmatch(l); m != nil {
		if t, ok := parseLockTime(m[1]); ok {
			now := c.run.now
			if now.IsZero() {
				now = time.Now()
			}
			return max(now.Sub(t), 0), true
		}
	}
	return 0, false
}

// parseLockTime parses the creation times tools print; a time without a
// zone is read as UTC.
func parseLockTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999 -0700 MST", "2006-01-02 15:04:05.999999999 -0700", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// lockUnlock is the tool's own way out of a stale lock, from the message
// or the tool's documentation.
func lockUnlock(f lockFacts) string {
	switch f.tool {
	case "restic":
		return "restic unlock (it removes only stale locks; --remove-all for the rest)"
	case "terraform":
		id := "LOCK_ID"
		if f.lockID != "" && f.lockID != "UUID" {
			id = f.lockID
		}
		return "terraform force-unlock " + Clip(id) + " (tofu force-unlock for OpenTofu)"
	case "pulumi":
		return "pulumi cancel (the service backend), or delete the lock file the message names (a self-managed backend)"
	case "borg":
		return "borg break-lock REPOSITORY"
	case "git":
		p := "the index.lock file"
		if f.path != "" {
			p = Clip(f.path)
		}
		return "rm " + p
	case "pacman":
		return "rm /var/lib/pacman/db.lck"
	}
	return "the tool's own unlock command"
}

// lockHit decides a lock failure from its facts.
func lockHit(c *ScanCtx, f lockFacts) Hit {
	who := ""
	if f.holder != "" {
		who = " by " + Clip(f.holder)
	}
	limit := max(staleLockAge, c.waitLimit())
	h := Hit{Rank: RankRefusal - 1}
	if f.ageLine != "" {
		h.Extra = []string{EvidenceLineAt(f.ageLine, 0)}
	}
	unlock := lockUnlock(f)
	switch {
	case f.dead || f.ageKnown && f.age > limit:
		why := "its holder is gone"
		if !f.dead {
			why = fmt.Sprintf("taken %s ago, longer than any run holds it (%s)", humanAge(f.age), humanAge(limit))
		}
		h.Class, h.Code = Structural, CodeLockStale
		h.Reason = fmt.Sprintf("a stale lock%s: %s", who, why)
		h.Remedy = "the lock outlived its holder (a killed or crashed run): check that no process of the tool still uses it (the host and PID the message names), then remove it with " + unlock + "; retrying cannot succeed"
		if f.tool == "apt" || f.tool == "yum" || f.tool == "dnf" {
			h.Remedy = "the process holding the package manager's lock is dead or hung: find it (the PID the message names) and let it finish or stop it; do not delete the lock files by hand (the package database may be half-written: run dpkg --configure -a or yum-complete-transaction after); retrying cannot succeed"
		}
	case f.alive || f.ageKnown || f.tool == "apt" || f.tool == "yum" || f.tool == "dnf" || f.tool == "borg" || f.tool == "duplicity" || f.tool == "flock":
		h.Class, h.Code = Transient, CodeLockHeld
		why := "held by a running process"
		if f.ageKnown && !f.alive {
			why = fmt.Sprintf("taken %s ago", humanAge(f.age))
		}
		h.Reason = fmt.Sprintf("the lock is held%s: %s", who, why)
		switch f.tool {
		case "apt":
			h.Remedy = "another package manager run holds dpkg's lock (at boot, usually the system's own updater, unattended-upgrades or packagekitd): waiting and retrying; apt-get -o DPkg::Lock::Timeout=600 waits by itself, and CI images should disable unattended-upgrades; never delete dpkg's lock files: the lock is released when its holder exits"
		case "yum", "dnf":
			h.Remedy = "another yum or dnf run holds the package database: waiting and retrying; never delete its lock file while that process runs"
		case "borg":
			h.Remedy = "another borg holds the repository (borg removes the locks of dead processes on the same host itself): waiting and retrying; --lock-wait N makes borg wait longer; " + unlock + " only when no borg uses the repository"
		default:
			h.Remedy = "another run holds the lock: waiting and retrying within the run; if it outlives the run, check the holder and use " + unlock
		}
	default:
		h.Class, h.Code = Unknown, CodeLockUnknown
		h.Reason = "a lock is in the way" + who + ", and the message shows neither its age nor whether its holder runs"
		h.Remedy = "check whether a process of the tool still runs (the same job running twice, an editor, a crashed earlier run): wait for it, or, once none runs, remove the lock with " + unlock
	}
	return h
}

// humanAge renders a lock's age.
func humanAge(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return strconv.Itoa(int(d/(24*time.Hour))) + " days"
	case d >= 2*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " hours"
	case d >= 2*time.Minute:
		return strconv.Itoa(int(d/time.Minute)) + " minutes"
	}
	return d.Round(time.Second).String()
}

var lockMatchers = []Matcher{
	{
		Gates: []string{"repository is already locked", "rror acquiring the state lock", "rror locking state", "stack is currently locked", "Could not get lock ",
			"Unable to acquire the dpkg frontend lock", "Unable to lock the administration directory", "Unable to lock directory", "Existing lock /var/run/yum.pid",
			"currently holding the yum lock", "yum lockfile is held by another process", "Waiting for process with pid", "Failed to create/acquire the lock",
			".lock': File exists", "lock database", "locked by another process", "Another duplicity instance", "Another instance of Certbot", "waiting to get lock", "locked by PID", "locked by pid", "locked by process", "held by PID", "held by pid", "held by process"},
		RE: reLockOpen,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			if notAFailureLine(line) && !strings.Contains(line, "Could not get lock") {
				return Hit{}, false
			}
			lines := append([]string{line}, FollowingLines(c.Text, min(c.LineEnd, len(c.Text)), lockLookAhead)...)
			return lockHit(c, readLock(c, m[0], lines)), true
		},
	},
}

func init() { opsMatchers = append(opsMatchers, lockMatchers) }
