package failure

import (
	"strings"
	"testing"
	"time"
)

// TestLockKinds reads locks held by someone else in several tools' words:
// a live holder or a fresh lock is transient, an old lock or a dead holder
// structural, a lock file that shows neither unknown.
func TestLockKinds(t *testing.T) {
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name       string
		text       string
		maxElapsed time.Duration
		class      Class
		code       Code
		reason     string // substring
		remedy     string // substring
		notRemedy  string // must not appear in the remedy
	}{
		{name: "apt: held by the system's updater", text: "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 2448 (unattended-upgr)\nE: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?\n",
			class: Transient, code: CodeLockHeld, reason: "PID 2448 (unattended-upgr)", remedy: "DPkg::Lock::Timeout", notRemedy: "rm "},
		{name: "apt: older wording, a kernel lock", text: "E: Could not get lock /var/lib/dpkg/lock - open (11: Resource temporarily unavailable)\nE: Unable to lock the administration directory (/var/lib/dpkg/), is another process using it?\n",
			class: Transient, code: CodeLockHeld, notRemedy: "rm "},
		{name: "dpkg: frontend lock locked by another process", text: "dpkg: error: dpkg frontend lock was locked by another process with pid 10357\nNote: removing the lock file is always wrong, and can end up damaging the\nlocked area and the entire system. See <https://wiki.debian.org/Teams/Dpkg/FAQ>.\n",
			class: Transient, code: CodeLockHeld, reason: "PID 10357", notRemedy: "rm "},
		{name: "duplicity: another instance running", text: "Another duplicity instance is already running with this archive directory\n",
			class: Transient, code: CodeLockHeld},
		{name: "flock: timed out waiting", text: "flock: timeout while waiting to get lock\n",
			class: Transient, code: CodeLockHeld},
		{name: "yum: a live holder", text: "Existing lock /var/run/yum.pid: another copy is running as pid 2990.\nAnother app is currently holding the yum lock; waiting for it to exit...\n  The other application is: yum\n    Started: Fri Dec  4 12:53:48 2020 - 00:10 ago\n    State  : Sleeping, pid: 2990\n",
			class: Transient, code: CodeLockHeld, reason: "PID 2990"},
		{name: "yum: a zombie holder", text: "Another app is currently holding the yum lock; waiting for it to exit...\n  The other application is: yum\n    Started: Fri Dec  4 12:53:48 2020 - 00:10 ago\n    State  : Zombie, pid: 2990\n",
			class: Structural, code: CodeLockStale, reason: "holder is gone"},
		{name: "dnf: waiting for a pid", text: "Waiting for process with pid 4321 to finish.\n",
			class: Transient, code: CodeLockHeld, reason: "PID 4321"},
		{name: "restic: a fresh lock", text: "unable to create lock in backend: repository is already locked by PID 9454 on 975f84afb80e by root (UID 0, GID 0)\nlock was created at 2025-03-10 11:59:48 (12.480720222s ago)\nstorage ID 05b36c59\nthe `unlock` command can be used to remove stale locks\n",
			class: Transient, code: CodeLockHeld, reason: "PID 9454 on 975f84afb80e"},
		{name: "restic: a week-old lock", text: "Fatal: unable to create lock in backend: repository is already locked by PID 38397 on vla01 by root (UID 0, GID 0)\nlock was created at 2025-03-03 10:30:46 (165h32m5.88133994s ago)\nstorage ID 8ba25ed5\n",
			class: Structural, code: CodeLockStale, reason: "6 days", remedy: "restic unlock"},
		{name: "restic: 40 minutes is fresh for a short run", text: "Fatal: unable to create lock in backend: repository is already locked by PID 7 on h by root (UID 0, GID 0)\nlock was created at 2025-03-10 11:20:00 (40m0s ago)\n",
			class: Transient, code: CodeLockHeld},
		{name: "restic: 2 hours is stale for a 15-minute run", text: "Fatal: unable to create lock in backend: repository is already locked by PID 7 on h by root (UID 0, GID 0)\nlock was created at 2025-03-10 10:00:00 (2h0m0s ago)\n",
			class: Structural, code: CodeLockStale},
		{name: "restic: 2 hours is not stale for a 6-hour run", text: "Fatal: unable to create lock in backend: repository is already locked by PID 7 on h by root (UID 0, GID 0)\nlock was created at 2025-03-10 10:00:00 (2h0m0s ago)\n",
			maxElapsed: 6 * time.Hour, class: Transient, code: CodeLockHeld},
		{name: "terraform: Lock Info created yesterday", text: "│ Error: Error acquiring the state lock\n│ \n│ Error message: ConditionalCheckFailedException: The conditional request\n│ failed\n│ Lock Info:\n│   ID:        f9763602-b03f-e35c-da30-4083cdbb99ae\n│   Path:      bucket/terraform.tfstate\n│   Operation: OperationTypeApply\n│   Who:       runner@ci-42\n│   Version:   1.7.0\n│   Created:   2025-03-09 00:10:27.424064363 +0000 UTC\n│   Info:      \n",
			class: Structural, code: CodeLockStale, reason: "runner@ci-42", remedy: "terraform force-unlock f9763602-b03f-e35c-da30-4083cdbb99ae"},
		{name: "terraform: Lock Info created a minute ago", text: "Error: Error acquiring the state lock\n\nError message: the state is already locked by another terraform client\nLock Info:\n  ID:        3d20d141\n  Who:       rp@pod\n  Created:   2025-03-10 11:59:00.004096153 +0000 UTC\n",
			class: Transient, code: CodeLockHeld},
		{name: "pulumi: created by, at an RFC 3339 time", text: "error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.\n  s3://state/.pulumi/locks/org/p/dev/ec3a.json: created by root@ip-10-0-42-235 (pid 478) at 2025-03-10T11:50:00Z\n",
			class: Transient, code: CodeLockHeld, reason: "root@ip-10-0-42-235"},
		{name: "pulumi: a lock from last week", text: "error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.\n  file:///home/u/.pulumi/locks/p/c032.json: created by u@laptop (pid 193152) at 2025-03-02T15:35:30+10:00\n",
			class: Structural, code: CodeLockStale, remedy: "pulumi cancel"},
		{name: "borg: timed out waiting", text: "Failed to create/acquire the lock /backups/repo/lock.exclusive (timeout).\nterminating with error status, rc 2\n",
			class: Transient, code: CodeLockHeld, remedy: "--lock-wait"},
		{name: "a generic wording with a dead holder", text: "error: database is locked by PID 4242, but process 4242 is not running\n",
			class: Structural, code: CodeLockStale},
		{name: "a generic wording with an age in words", text: "error: the repository is locked by process 77 (locked 3 days ago)\n",
			class: Structural, code: CodeLockStale, reason: "3 days"},
		{name: "git: index.lock shows no holder", text: "fatal: Unable to create '/work/repo/.git/index.lock': File exists.\n\nAnother git process seems to be running in this repository, e.g.\nan editor opened by 'git commit'.\n",
			class: Unknown, code: CodeLockUnknown, remedy: "rm /work/repo/.git/index.lock"},
		{name: "pacman: db.lck shows no holder", text: "error: failed to init transaction (unable to lock database)\nerror: could not lock database: File exists\n  if you're sure a package manager is not already\n  running, you can remove /var/lib/pacman/db.lck\n",
			class: Unknown, code: CodeLockUnknown, remedy: "db.lck"},
		{name: "restic's hint about stale locks does not make a lock stale", text: "unable to create lock in backend: repository is already locked by PID 1 on h by root (UID 0, GID 0)\nlock was created at 2025-03-10 11:59:00 (1m0s ago)\nthe `unlock` command can be used to remove stale locks\n",
			class: Transient, code: CodeLockHeld},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := Classify(Input{Tool: ToolAuto, Text: tc.text, ExitCode: 1, Now: now, MaxElapsed: tc.maxElapsed})
			if f.Class != tc.class || f.Code != tc.code {
				t.Fatalf("got %s %s (%s), want %s %s", f.Class, f.Code, f.Reason, tc.class, tc.code)
			}
			if !strings.Contains(f.Reason, tc.reason) {
				t.Errorf("reason %q does not contain %q", f.Reason, tc.reason)
			}
			if !strings.Contains(f.Remedy, tc.remedy) {
				t.Errorf("remedy %q does not contain %q", f.Remedy, tc.remedy)
			}
			if tc.notRemedy != "" && strings.Contains(f.Remedy, tc.notRemedy) {
				t.Errorf("remedy %q suggests %q", f.Remedy, tc.notRemedy)
			}
			if err := invariants(f); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestLockAgeFromProcessClock measures a lock's stated creation time against
// the run's clock an exec attempt hands over, not the wall clock.
func TestLockAgeFromProcessClock(t *testing.T) {
	text := "Error: Error acquiring the state lock\nLock Info:\n  ID:        abc-123\n  Who:       ci@runner\n  Created:   2025-03-10 12:00:00 +0000 UTC\n"
	created := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		now  time.Time
		code Code
	}{
		{created.Add(2 * time.Minute), CodeLockHeld},
		{created.Add(49 * time.Hour), CodeLockStale},
	} {
		f := FromProcess(Process{Name: "terraform", Text: text, ExitCode: 1, Now: tc.now})
		if f.Code != tc.code {
			t.Errorf("at %s: got %s (%s), want %s", tc.now, f.Code, f.Reason, tc.code)
		}
	}
}
