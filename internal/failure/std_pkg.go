package failure

import "strings"

// Package installs inside jobs, in apt's, dnf's and yum's, apk's, pacman's
// and pip's words, read as kinds:
//
//   - a mirror caught mid-sync ("Hash Sum mismatch", "File has unexpected
//     size", "Mirror sync in progress?"), or a 404 on a package file
//     (.deb) right after the index was fetched in the same run: transient,
//     mirror-sync;
//   - a 404 on a package file with no index fetched in the run ("Unable to
//     fetch some archives, maybe run apt-get update"): the machine's
//     package lists are older than the mirror (a runner image's), and the
//     same install fails until apt-get update runs: structural,
//     package-index-stale;
//   - a signing key missing, expired or wrong (NO_PUBKEY, EXPKEYSIG, "The
//     following signatures couldn't be verified", "is not signed", dnf's
//     "GPG check FAILED" and "Public key for ... is not installed", apk's
//     "UNTRUSTED signature", pacman's "unknown trust"): structural,
//     signing-key-missing;
//   - an index not valid yet or expired ("Release file for ... is not
//     valid yet (invalid for another 6h)", "is expired"): the clock or
//     the mirror is wrong: structural, index-not-valid;
//   - a package or version the index does not have (pip's "No matching
//     distribution found", apt's "Unable to locate package", apk's
//     "unable to select packages", dnf's "No match for argument"):
//     structural, package-not-found, unless the same text shows the
//     index could not be reached (pip's retries: then the network decides);
//   - pip's hash check ("THESE PACKAGES DO NOT MATCH THE HASHES"):
//     structural, package-hash-mismatch (the pins or the cache must change);
//   - a lock held by the system's own updater (unattended-upgr,
//     packagekitd) is a lock held by a live process: transient (std_lock.go).

// The package-install codes.
const (
	// CodeMirrorSync: a package mirror caught mid-sync.
	CodeMirrorSync Code = "mirror-sync"
	// CodePackageIndexStale: the machine's package lists are older than the mirror.
	CodePackageIndexStale Code = "package-index-stale"
	// CodeSigningKeyMissing: the key a repository or package is signed with is missing, expired or wrong.
	CodeSigningKeyMissing Code = "signing-key-missing"
	// CodeIndexNotValid: a repository index not valid yet or expired (the clock or the mirror).
	CodeIndexNotValid Code = "index-not-valid"
	// CodePackageNotFound: the index has no such package or version.
	CodePackageNotFound Code = "package-not-found"
	// CodePackageHashMismatch: a downloaded package does not match its pinned hash.
	CodePackageHashMismatch Code = "package-hash-mismatch"
	// CodePackageConflict: the requested packages' dependencies cannot be satisfied together.
	CodePackageConflict Code = "package-dependency-conflict"
	// CodePackageRepoMissing: a configured repository is gone (an end-of-life release, a wrong suite).
	CodePackageRepoMissing Code = "package-repo-missing"
	// CodePackageDBInterrupted: an earlier dpkg run was interrupted; the package database must be repaired.
	CodePackageDBInterrupted Code = "package-database-interrupted"
)

// rankPackage is the rank of the package-install rows: above the bare HTTP
// status a line also quotes ("404  Not Found"), below refusals.
const rankPackage = RankStatus + 3

var (
	// reIndexFetched: apt fetched an index in this run ("Hit:1 ... InRelease",
	// "Get:5 ... focal/main amd64 Packages [1,344 kB]").
	reIndexFetched = LazyRE(`(?m)^\s*(?:#\d+ [\d.]+ )?(?:Hit|Get|Ign):\d+ \S+ \S+(?: \S+)* (?:InRelease|Release|Packages|Sources|Translation-\w+)\b`)
	// rePipUnreachable: pip could not reach the index before saying nothing matches.
	rePipUnreachable = LazyRE(`Retrying \(Retry\(|NewConnectionError|ReadTimeoutError|ConnectTimeoutError|Could not fetch URL|ProxyError|SSLError|Max retries exceeded`)
)

const remedyRepoMissing = "the repository has no index for this release (an end-of-life release moved to an archive such as old-releases.ubuntu.com or vault.centos.org, a wrong suite name, a vendor repository that dropped it): fix or remove the source; retrying cannot succeed"

const remedyIndexStale = "the machine's package lists are older than the mirror (a runner image's): run apt-get update before apt-get install (in the same step); retrying the install alone fails the same way"

var pkgRows = []phraseRow{
	{gates: []string{"Hash Sum mismatch", "File has unexpected size", "Mirror sync in progress"},
		re: `Hash Sum mismatch|File has unexpected size \(\d+ != \d+\)|Mirror sync in progress\?`, class: Transient, code: CodeMirrorSync, rank: rankPackage, reason: "a package mirror caught mid-sync",
		remedy: "the mirror (or a cache or proxy in between) serves files from two syncs: retrying after a backoff; if it lasts, switch mirrors or clear the apt cache (rm -rf /var/lib/apt/lists/*)"},
	{gates: []string{"NO_PUBKEY", "EXPKEYSIG", "KEYEXPIRED", "signatures couldn't be verified", "signatures were invalid", "is not signed", "GPG check FAILED", "is not installed. Failing package", "UNTRUSTED signature", "unknown trust", "invalid or corrupted package (PGP signature)"},
		re:    `NO_PUBKEY \w+|EXPKEYSIG \w+|KEYEXPIRED \d*|The following signatures couldn't be verified|The following signatures were invalid|repository '[^']+' is not signed|Package \S+ is not signed|GPG check FAILED|Public key for \S+ is not installed|UNTRUSTED signature|signature from "[^"]*" is unknown trust|invalid or corrupted package \(PGP signature\)`,
		class: Structural, code: CodeSigningKeyMissing, rank: rankPackage, reason: "the repository's signing key is missing, expired or wrong",
		remedy: "install the repository's current signing key (apt: the key file under /etc/apt/keyrings named by signed-by=; dnf: rpm --import the repo's gpgkey URL; apk: the alpine-keys package or /etc/apk/keys; pacman: pacman-key --populate), from the vendor's setup instructions; never disable signature checks; retrying cannot succeed"},
	{gates: []string{"is not valid yet", "is expired (invalid since"},
		re: `Release file for \S+ is not valid yet(?: \(invalid for another [^)]*\))?|is not valid yet \(invalid for another [^)]*\)|Release file for \S+ is expired \(invalid since [^)]*\)|is expired \(invalid since [^)]*\)`, class: Structural, code: CodeIndexNotValid, rank: rankPackage,
		reason: "the repository index is not valid at this machine's time",
		remedy: "the machine's clock is wrong (behind for \"not valid yet\", ahead or the mirror stale for \"expired\"): fix the clock (NTP; restart Docker Desktop's VM), or use a mirror that is current; Acquire::Check-Valid-Until=false is for snapshot archives only; retrying cannot succeed"},
	{gates: []string{"DO NOT MATCH THE HASHES", "don't match the hashes", "DON'T MATCH THE HASHES"},
		re: `(?i)(?:THESE PACKAGES DO NOT MATCH|don't match) THE HASHES`, class: Structural, code: CodePackageHashMismatch, rank: rankPackage, reason: "a downloaded package does not match its pinned hash",
		remedy: "the pinned hashes and the index disagree: regenerate the hashes (pip-compile --generate-hashes, poetry lock) after an upgrade, or clear a broken pip cache (pip cache purge) or proxy; retrying unchanged fails the same way"},
	{gates: []string{"Unable to locate package", "unable to select packages", "No match for argument", "Unable to find a match", "target not found", "has no installation candidate", "' was not found", "Could not find a valid gem"},
		re: `E: Unable to locate package \S+|ERROR: unable to select packages|No match for argument: \S+|Unable to find a match: \S+|error: target not found: \S+|Package '[^']+' has no installation candidate|Version '[^']+' for '[^']+' was not found|Could not find a valid gem '[^']+'`, class: Structural, code: CodePackageNotFound, rank: rankPackage - 1,
		reason: "the package index has no such package",
		remedy: "fix the package name, enable the repository that has it, or refresh the index first (apt-get update, apk update); retrying unchanged fails the same way"},
	{gates: []string{"ResolutionImpossible", "conflicting dependencies", "held broken packages", "nothing provides", "could not be resolved to an installable set of packages"},
		re: `ResolutionImpossible|have conflicting dependencies|you have held broken packages|nothing provides \S+ needed by \S+|Your requirements could not be resolved to an installable set of packages`, class: Structural, code: CodePackageConflict, rank: rankPackage - 1,
		reason: "the requested packages' dependencies cannot be satisfied together",
		remedy: "loosen or align the conflicting pins (the lines before name them), or add the repository that provides the missing dependency; retrying unchanged fails the same way"},
	{gates: []string{"have a Release file", "has a Release file", "No URLs in mirrorlist"},
		re: `(?:does not|does no longer|no longer) ha(?:ve|s) a Release file|No URLs in mirrorlist`, class: Structural, code: CodePackageRepoMissing, rank: rankPackage,
		reason: "a configured package repository is gone",
		remedy: remedyRepoMissing},
	{gates: []string{"dpkg was interrupted"},
		re: `dpkg was interrupted, you must manually run '[^']+'`, class: Structural, code: CodePackageDBInterrupted, rank: rankPackage,
		reason: "an earlier dpkg run was interrupted",
		remedy: "repair the package database first: dpkg --configure -a (then apt-get -f install); retrying the install alone fails the same way"},
}

var pkgMatchers = []Matcher{
	{
		// a repository's own index is 404: the release is gone from it
		// (end of life) or never was there (a wrong suite)
		Gates: []string{"Err:", "Failed to fetch"},
		RE:    LazyRE(`^\s*Err:\d+ \S+ \S+ (?:In)?Release\s*$|Failed to fetch \S+/dists/\S+/(?:In)?Release\s+404\s+Not Found`),
		Build: func(c *ScanCtx, _ string, m []string) (Hit, bool) {
			if strings.HasPrefix(strings.TrimSpace(m[0]), "Err:") {
				next := FollowingLines(c.Text, min(c.LineEnd, len(c.Text)), 1)
				if len(next) == 0 || !strings.HasPrefix(strings.TrimSpace(next[0]), "404") {
					return Hit{}, false
				}
			}
			return Hit{Class: Structural, Code: CodePackageRepoMissing, Rank: rankPackage + 1, Reason: "a package repository has no index for this release (404 on its Release file)",
				Remedy: remedyRepoMissing}, true
		},
	},
	{
		// the same for an rpm repository: a 404 on its own repomd.xml
		// (dnf, yum, zypper)
		Gates: []string{"repomd.xml"},
		RE:    LazyRE(`Status code: 404 for \S+/repodata/repomd\.xml|/repodata/repomd\.xml: \[Errno 14\] HTTPS? Error 404`),
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Structural, Code: CodePackageRepoMissing, Rank: rankPackage + 1, Reason: "a package repository has no metadata for this release (404 on its repomd.xml)",
				Remedy: remedyRepoMissing}, true
		},
	},
	{
		// a package file (.deb) the index lists is not on the mirror
		Gates: []string{".deb  404", ".deb 404", "404  Not Found", "Unable to fetch some archives"},
		RE:    LazyRE(`Failed to fetch \S+\.deb\s+404\s+Not Found|^\s*404\s+Not Found(?: \[IP: [^\]]*\])?\s*$|Unable to fetch some archives`),
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			if strings.HasPrefix(strings.TrimSpace(m[0]), "404") && !strings.Contains(c.Text, ".deb") {
				return Hit{}, false // apt's "Err:N ... amd64 pkg" then "404  Not Found": only for a package file
			}
			if reIndexFetched.MatchString(c.Text) {
				return Hit{Class: Transient, Code: CodeMirrorSync, Rank: rankPackage + 1, Reason: "a package file the index just fetched lists is not on the mirror (a mirror mid-sync)",
					Remedy: "the mirror is between two syncs: retrying after a backoff (apt-get update and the install in the same step)"}, true
			}
			return Hit{Class: Structural, Code: CodePackageIndexStale, Rank: rankPackage + 1, Reason: "a package file is gone from the mirror: the machine's package lists are out of date", Remedy: remedyIndexStale}, true
		},
	},
	{
		// pip: nothing matches the requirement, unless the index was unreachable
		Gates: []string{"No matching distribution found for", "Could not find a version that satisfies the requirement"},
		RE:    LazyRE(`No matching distribution found for (\S+)|Could not find a version that satisfies the requirement (\S+)`),
		Build: func(c *ScanCtx, _ string, m []string) (Hit, bool) {
			if rePipUnreachable.MatchString(c.Text) {
				return Hit{}, false // the network lines decide
			}
			return Hit{Class: Structural, Code: CodePackageNotFound, Rank: rankPackage, Reason: "the index has no distribution for " + Clip(m[1]+m[2]),
				Remedy: "no release of that name and version fits (a pin that was yanked or never published, a Python version or platform it has no wheel for, a private package on the wrong index): fix the requirement, the Python version or --index-url; retrying cannot succeed"}, true
		},
	},
}

func init() { opsMatchers = append(opsMatchers, phraseMatchers(pkgRows), pkgMatchers) }
