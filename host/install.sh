#!/usr/bin/env bash
# host/install.sh: puts retrywise on the runner for the host action
# (host/action.yml). Two commands, one step each:
#
#   install.sh fetch   the release binary for this OS/arch: from the runner's
#                      tool cache when it is there, else downloaded from the
#                      release assets and verified against SHA256SUMS (a
#                      mismatch is refused, never built around), then cached.
#                      Writes bin=PATH to $GITHUB_OUTPUT, or build=true when no
#                      release matches: no version stamped (@main, a branch,
#                      a SHA), no such release (404), or no asset for this
#                      OS/arch.
#   install.sh build   builds from the action's source with the runner's Go
#                      (set up by the step before) and writes bin=PATH.
#
# Its environment:
#   RETRYWISE_VERSION        the release, stamped into host/action.yml by
#                            scripts/release-action (1.2.3); empty on main
#   RETRYWISE_DOWNLOAD_BASE  where releases are: BASE/vVERSION/ASSET; default
#                            $GITHUB_SERVER_URL/$GITHUB_ACTION_REPOSITORY/releases/download;
#                            a mirror of the release assets, verified against
#                            its SHA256SUMS as the default is
#   RETRYWISE_BINARY         under act only (ACT=true): an absolute path to a
#                            retrywise binary inside the job's container, used
#                            as it is (no download, no build, no setup-go). On
#                            a runner it is ignored with a warning: an earlier
#                            step could have replaced that file with one that
#                            reads the token.
#   RETRYWISE_SOURCE         the action's source (the folder with go.mod);
#                            default the folder above this script
#   RUNNER_TOOL_CACHE        the cache (default $HOME/.cache/retrywise-tools)
#   RUNNER_TEMP              where a build goes (default /tmp)
#   RETRYWISE_OS, RETRYWISE_ARCH  override uname (tests)
set -euo pipefail

say() { echo "retrywise/host: $*" >&2; }
fail() {
	echo "::error title=retrywise/host install::$*"
	exit 1
}
output() { if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "$1" >>"$GITHUB_OUTPUT"; else echo "$1"; fi; }

here=$(cd "$(dirname "$0")" && pwd)
source_dir=${RETRYWISE_SOURCE:-$here/..}
version=${RETRYWISE_VERSION:-}
version=${version#v}

os=${RETRYWISE_OS:-$(uname -s)}
case "$os" in
Linux | linux) os=linux ;;
Darwin | darwin) os=darwin ;;
*) fail "retrywise/host runs on Linux and macOS runners only, not $os" ;;
esac
arch=${RETRYWISE_ARCH:-$(uname -m)}
case "$arch" in
x86_64 | amd64 | X64) arch=amd64 ;;
aarch64 | arm64 | ARM64) arch=arm64 ;;
esac

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

# local_binary: under act, RETRYWISE_BINARY names the binary to use; it
# returns 1 when there is none to use (none named, or not under act).
local_binary() {
	local bin=${RETRYWISE_BINARY:-}
	[ -n "$bin" ] || return 1
	if [ "${ACT:-}" != true ]; then
		echo "::warning title=retrywise/host install::RETRYWISE_BINARY is ignored outside act (ACT=true): on a runner an earlier step could replace that file with one that reads the token; installing the release instead"
		return 1
	fi
	case "$bin" in
	/*) ;;
	*) fail "RETRYWISE_BINARY=$bin: under act it must be an absolute path inside the job's container" ;;
	esac
	[ -f "$bin" ] && [ -x "$bin" ] || fail "RETRYWISE_BINARY=$bin is not an executable file in the job's container (under act: a path the container sees, e.g. one mounted with --container-options \"-v DIR:DIR:ro\")"
	say "under act: RETRYWISE_BINARY=$bin, used as it is (no download, no build)"
	output "bin=$bin"
}

fetch() {
	local_binary && return
	if [ -z "$version" ]; then
		say "no release version stamped into host/action.yml (a branch or a commit, not a release tag): building from the action's source"
		output build=true
		return
	fi
	local cache=${RUNNER_TOOL_CACHE:-$HOME/.cache/retrywise-tools}/retrywise/$version
	local bin=$cache/$arch/retrywise
	if [ -x "$bin" ] && [ -f "$cache/$arch.complete" ]; then
		say "retrywise $version ($os/$arch) from the tool cache: $bin"
		output "bin=$bin"
		return
	fi
	local base=${RETRYWISE_DOWNLOAD_BASE:-${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_ACTION_REPOSITORY:-retrywise/retrywise}/releases/download}
	base=${base%/}
	local tag=v$version asset=retrywise-v$version-$os-$arch
	tmp=$(mktemp -d "${RUNNER_TEMP:-/tmp}/retrywise-install.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	local status
	status=$(curl -sS -L --retry 3 --retry-connrefused --max-time 120 -o "$tmp/SHA256SUMS" -w '%{http_code}' "$base/$tag/SHA256SUMS") ||
		fail "cannot download $base/$tag/SHA256SUMS (curl exit $?)"
	case "$status" in
	200) ;;
	404)
		say "no release $tag at $base (404 for SHA256SUMS): building from the action's source"
		output build=true
		return
		;;
	*) fail "downloading $base/$tag/SHA256SUMS: HTTP $status" ;;
	esac
	local want
	want=$(awk -v a="$asset" '$2 == a || $2 == "*" a { print $1; exit }' "$tmp/SHA256SUMS")
	if [ -z "$want" ]; then
		say "release $tag has no $asset (no build for $os/$arch): building from the action's source"
		output build=true
		return
	fi
	status=$(curl -sS -L --retry 3 --retry-connrefused --max-time 300 -o "$tmp/$asset" -w '%{http_code}' "$base/$tag/$asset") ||
		fail "cannot download $base/$tag/$asset (curl exit $?)"
	[ "$status" = 200 ] || fail "downloading $base/$tag/$asset: HTTP $status"
	local got
	got=$(sha256 "$tmp/$asset")
	if [ "$got" != "$want" ]; then
		fail "checksum mismatch for $asset of release $tag: SHA256SUMS says $want, the download is $got; refusing to run it (a corrupted or tampered download; retry the run, and report it if it persists)"
	fi
	mkdir -p "$cache/$arch"
	install -m 0755 "$tmp/$asset" "$bin"
	touch "$cache/$arch.complete"
	say "retrywise $version ($os/$arch) downloaded from $base/$tag, sha256 $got verified, cached at $bin"
	output "bin=$bin"
}

build() {
	command -v go >/dev/null 2>&1 || fail "no release binary matches, and there is no go on PATH to build retrywise from the action's source"
	[ -f "$source_dir/go.mod" ] || fail "no go.mod in $source_dir: cannot build retrywise from the action's source"
	local out=${RUNNER_TEMP:-/tmp}/retrywise-host
	mkdir -p "$out"
	say "building retrywise from $source_dir with $(go env GOVERSION)"
	(cd "$source_dir" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags '-s -w' -o "$out/retrywise" ./cmd/retrywise)
	output "bin=$out/retrywise"
}

case "${1:-}" in
fetch) fetch ;;
build) build ;;
*)
	echo "usage: host/install.sh fetch|build" >&2
	exit 64
	;;
esac
