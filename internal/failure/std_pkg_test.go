package failure

import "testing"

// TestPackageInstallKinds reads package installs in apt's, dnf's and yum's,
// apk's, pacman's and pip's words.
func TestPackageInstallKinds(t *testing.T) {
	runTextCases(t, []textCase{
		// a mirror mid-sync
		{name: "apt: hash sum mismatch", tool: ToolAuto, exit: 100,
			text:  "Get:5 http://archive.ubuntu.com/ubuntu jammy-updates/main amd64 Packages [1,344 kB]\nErr:5 http://archive.ubuntu.com/ubuntu jammy-updates/main amd64 Packages\n  Hash Sum mismatch\n  Hashes of expected file:\n",
			class: Transient, code: CodeMirrorSync},
		{name: "apt: file has unexpected size", tool: ToolAuto, exit: 100,
			text:  "E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/main/binary-amd64/Packages.xz  File has unexpected size (8786364 != 8786188). Mirror sync in progress? [IP: 151.101.2.132 80]\n",
			class: Transient, code: CodeMirrorSync},
		{name: "apt: a .deb 404 right after the index was fetched", tool: ToolAuto, exit: 100,
			text:  "Hit:1 http://azure.archive.ubuntu.com/ubuntu jammy InRelease\nGet:2 http://azure.archive.ubuntu.com/ubuntu jammy-updates InRelease [119 kB]\nReading package lists...\nE: Failed to fetch http://azure.archive.ubuntu.com/ubuntu/pool/main/c/curl/libcurl4_7.81.0-1ubuntu1.15_amd64.deb  404  Not Found [IP: 52.252.75.106 80]\nE: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?\n",
			class: Transient, code: CodeMirrorSync},
		{name: "apt: a .deb 404 with stale lists", tool: ToolAuto, exit: 100,
			text:  "E: Failed to fetch http://azure.archive.ubuntu.com/ubuntu/pool/main/c/curl/libcurl4_7.81.0-1ubuntu1.14_amd64.deb  404  Not Found [IP: 52.252.75.106 80]\nE: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?\n",
			class: Structural, code: CodePackageIndexStale, remedy: "apt-get update"},
		// signing keys
		{name: "apt: NO_PUBKEY", tool: ToolAuto, exit: 100,
			text:  "W: GPG error: https://cli.github.com/packages stable InRelease: The following signatures couldn't be verified because the public key is not available: NO_PUBKEY 23F3D4EA75716059\nE: The repository 'https://cli.github.com/packages stable InRelease' is not signed.\n",
			class: Structural, code: CodeSigningKeyMissing},
		{name: "apt: expired key", tool: ToolAuto, exit: 100,
			text:  "W: GPG error: http://repo.example.com stable InRelease: The following signatures were invalid: EXPKEYSIG 1234ABCD Example Repo\n",
			class: Structural, code: CodeSigningKeyMissing},
		{name: "dnf: GPG check failed", tool: ToolAuto, exit: 1,
			text:  "Public key for glow-2.0.0-1.x86_64.rpm is not installed. Failing package is: glow-2.0.0-1.x86_64\nError: GPG check FAILED\n",
			class: Structural, code: CodeSigningKeyMissing, remedy: "rpm --import"},
		{name: "apk: untrusted signature", tool: ToolAuto, exit: 1,
			text:  "fetch https://dl-cdn.alpinelinux.org/alpine/edge/main/x86_64/APKINDEX.tar.gz\nERROR: https://dl-cdn.alpinelinux.org/alpine/edge/main: UNTRUSTED signature\n",
			class: Structural, code: CodeSigningKeyMissing},
		{name: "pacman: unknown trust", tool: ToolAuto, exit: 1,
			text:  "error: gcc: signature from \"Someone <x@example.org>\" is unknown trust\n:: File /var/cache/pacman/pkg/gcc.pkg.tar.zst is corrupted (invalid or corrupted package (PGP signature)).\n",
			class: Structural, code: CodeSigningKeyMissing},
		// an index too old or too new
		{name: "apt: Release not valid yet", tool: ToolAuto, exit: 100,
			text:  "E: Release file for http://archive.ubuntu.com/ubuntu/dists/jammy/InRelease is not valid yet (invalid for another 7h 39min 41s). Updates for this repository will not be applied.\n",
			class: Structural, code: CodeIndexNotValid, remedy: "clock"},
		{name: "apt: Release expired", tool: ToolAuto, exit: 100,
			text:  "E: Release file for http://snapshot.debian.org/archive/debian/20230101T000000Z/dists/bookworm/InRelease is expired (invalid since 1y 2d 3h). Updates for this repository will not be applied.\n",
			class: Structural, code: CodeIndexNotValid},
		// the system's updater holding the lock (std_lock.go)
		{name: "apt: lock held by packagekitd", tool: ToolAuto, exit: 100,
			text:  "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 912 (packagekitd)\nE: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?\n",
			class: Transient, code: CodeLockHeld, reason: "packagekitd"},
		// missing packages and versions
		{name: "pip: no matching distribution", tool: ToolAuto, exit: 1,
			text:  "ERROR: Could not find a version that satisfies the requirement clip==1.0 (from versions: 0.0.1, 0.1.0, 0.2.0)\nERROR: No matching distribution found for clip==1.0\n",
			class: Structural, code: CodePackageNotFound, reason: "clip==1.0"},
		{name: "pip: nothing matches because the index was unreachable", tool: ToolAuto, exit: 1,
			text:  "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by 'ReadTimeoutError(\"HTTPSConnectionPool(host='pypi.org', port=443): Read timed out. (read timeout=15)\")': /simple/flask/\nERROR: Could not find a version that satisfies the requirement flask (from versions: none)\nERROR: No matching distribution found for flask\n",
			class: Transient, code: CodeTimeout},
		{name: "apt: unable to locate package", tool: ToolAuto, exit: 100,
			text:  "Reading package lists...\nE: Unable to locate package libfoo-dev\n",
			class: Structural, code: CodePackageNotFound},
		{name: "apk: unable to select packages", tool: ToolAuto, exit: 1,
			text:  "ERROR: unable to select packages:\n  libfoo (no such package):\n    required by: world[libfoo]\n",
			class: Structural, code: CodePackageNotFound},
		{name: "dnf: no match for argument", tool: ToolAuto, exit: 1,
			text:  "No match for argument: libfoo-devel\nError: Unable to find a match: libfoo-devel\n",
			class: Structural, code: CodePackageNotFound},
		// pip's own checks and the network
		{name: "pip: hashes do not match", tool: ToolAuto, exit: 1,
			text:  "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the package versions, please update the hashes.\n    unknown package:\n        Expected sha256 c736\n             Got        baed\n",
			class: Structural, code: CodePackageHashMismatch},
		{name: "pip: 503 from the index", tool: ToolAuto, exit: 1,
			text:  "ERROR: HTTP error 503 while getting https://files.pythonhosted.org/packages/x/requests-2.31.0-py3-none-any.whl\n",
			class: Transient, code: HTTPCode(503)},
		{name: "pip: read timeout", tool: ToolAuto, exit: 2,
			text:  "pip._vendor.urllib3.exceptions.ReadTimeoutError: HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Read timed out.\n",
			class: Transient, code: CodeTimeout},
	})
}
