package tools

import (
	"net/http"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

func TestDockerRecognisers(t *testing.T) {
	runTextCases(t, []textCase{
		// the registry's DENIED / UNAUTHORIZED
		{name: "hub denied push", tool: failure.ToolAuto, text: "The push refers to repository [docker.io/acme/web]\n5f70bf18a086: Preparing\ndenied: requested access to the resource is denied",
			class: failure.Policy, code: CodeDockerDenied, reason: "denied the push", remedy: "docker login", evidence: []string{"denied: requested access"}},
		{name: "ggcr upper-case DENIED", tool: failure.ToolAuto, text: "Error: POST https://index.docker.io/v2/acme/web/blobs/uploads/: DENIED: requested access to the resource is denied",
			class: failure.Policy, code: CodeDockerDenied},
		{name: "ecr token expired", tool: failure.ToolDocker, text: "denied: Your authorization token has expired. Reauthenticate and try again.",
			class: failure.Policy, code: CodeDockerTokenExpired, remedy: "log in again"},
		{name: "harbor storage quota", tool: failure.ToolAuto, text: "denied: adding 11.6 MiB of storage resource, which when updated to current usage of 9.9 GiB will exceed the configured upper limit of 10.0 GiB.",
			class: failure.Policy, code: failure.CodeQuotaExhausted, reason: "quota"},
		{name: "unauthorized wrong password", tool: failure.ToolAuto, text: "Error response from daemon: Get \"https://registry-1.docker.io/v2/\": unauthorized: incorrect username or password",
			class: failure.Policy, code: CodeDockerUnauthorized, reason: "username or password"},
		{name: "podman errors list", tool: failure.ToolAuto, text: "Error: error pushing image \"docker.io/nheidloff/database-operator:v1.0.106\": writing blob: initiating layer upload to /v2/nheidloff/database-operator/blobs/uploads/ in registry-1.docker.io: errors:\ndenied: requested access to the resource is denied\nunauthorized: authentication required",
			class: failure.Policy, code: CodeDockerDenied},
		{name: "pull access denied", tool: failure.ToolAuto, text: "docker: Error response from daemon: pull access denied for test, repository does not exist or may require 'docker login': denied: requested access to the resource is denied.",
			class: failure.Policy, code: CodeDockerPullDenied, reason: "pull access denied for test"},
		{name: "buildkit pull access denied", tool: failure.ToolAuto, text: "ERROR: failed to solve: acme/base:1: failed to resolve source metadata for docker.io/acme/base:1: pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed",
			class: failure.Policy, code: CodeDockerPullDenied},
		{name: "ghcr write_package", tool: failure.ToolAuto, text: "#15 ERROR: denied: permission_denied: write_package\n------\n > pushing ghcr.io/snowfork/snowbridge-relay:relayer-1.0.1 with docker:\n------\nERROR: denied: permission_denied: write_package",
			class: failure.Policy, code: CodeDockerGHCRWrite, remedy: "packages: write"},
		{name: "ghcr create org package", tool: failure.ToolAuto, text: "denied: installation not allowed to Create organization package",
			class: failure.Policy, code: CodeDockerGHCRWrite},
		{name: "ecr no basic auth", tool: failure.ToolAuto, text: "no basic auth credentials", class: failure.Policy, code: failure.CodeDockerNoCredentials},
		{name: "login without tty", tool: failure.ToolAuto, text: "Error: Cannot perform an interactive login from a non TTY device", exit: 1, class: failure.Policy, code: failure.CodeDockerNoCredentials, remedy: "secrets"},
		{name: "daemon socket permission", tool: failure.ToolAuto, text: "permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: Get \"http://%2Fvar%2Frun%2Fdocker.sock/v1.47/images/x/json\": dial unix /var/run/docker.sock: connect: permission denied",
			class: failure.Policy, code: CodeDockerDaemonPerm},
		{name: "daemon down", tool: failure.ToolAuto, text: "Cannot connect to the Docker daemon at tcp://docker:2375. Is the docker daemon running?", class: failure.Unknown, code: CodeDockerDaemonDown},

		// rate limits
		{name: "hub pull rate limit: its 6h window outlasts the run", tool: failure.ToolAuto, text: "Error response from daemon: toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit",
			class: failure.Policy, code: failure.CodeRateLimitWindow, reason: "window is 6h", remedy: "docker login"},
		{name: "ghcr retry-after", tool: failure.ToolAuto, text: "POST https://ghcr.io/v2/chainguard-images/git/blobs/uploads/: TOOMANYREQUESTS: retry-after: 10.305464ms, allowed: 2000/minute",
			class: failure.Transient, code: failure.CodeRateLimited, reason: "retry after", retryAfter: 10305464 * time.Nanosecond},
		{name: "pull quota for a period", tool: failure.ToolAuto, text: "toomanyrequests: You have reached your pull rate limit of 100 pulls per 6 hours.",
			class: failure.Policy, code: failure.CodeQuotaExhausted},

		// absence
		{name: "manifest unknown", tool: failure.ToolAuto, text: "latest: Pulling from dagu-org/dagu\nmanifest unknown", class: failure.Absent, code: CodeDockerManifestUnknown},
		{name: "ggcr MANIFEST_UNKNOWN", tool: failure.ToolAuto, text: "Error: GET https://gcr.io/v2/acme/app/manifests/v9: MANIFEST_UNKNOWN: Failed to fetch \"v9\" from request \"/v2/acme/app/manifests/v9\".",
			class: failure.Absent, code: CodeDockerManifestUnknown},
		{name: "old daemon manifest not found", tool: failure.ToolAuto, text: "Error response from daemon: manifest for aaronngray/bpi-build:default not found",
			class: failure.Absent, code: CodeDockerManifestUnknown, reason: "aaronngray/bpi-build:default"},
		{name: "buildkit base image not found", tool: failure.ToolAuto, text: "ERROR: failed to solve: nod:18: failed to resolve source metadata for docker.io/library/nod:18: docker.io/library/nod:18: not found",
			class: failure.Absent, code: CodeDockerImageNotFound, reason: "docker.io/library/nod:18"},
		{name: "containerd reference not found", tool: failure.ToolAuto, text: "failed to pull and unpack image: failed to resolve reference \"docker.io/library/nginx:1.99\": docker.io/library/nginx:1.99: not found",
			class: failure.Absent, code: CodeDockerImageNotFound},
		{name: "ecr repository on pull", tool: failure.ToolAuto, text: "Error response from daemon: repository 123456789012.dkr.ecr.us-east-1.amazonaws.com/foo not found: name unknown: The repository with name 'foo' does not exist in the registry with id '123456789012'",
			class: failure.Absent, code: CodeDockerNameUnknown},
		{name: "ecr repository on push", tool: failure.ToolAuto, text: "The push refers to repository [123456789012.dkr.ecr.us-east-1.amazonaws.com/foo]\nname unknown: The repository with name 'foo' does not exist in the registry with id '123456789012'",
			class: failure.Structural, code: CodeDockerNameUnknown, remedy: "create-repository"},

		// upload sessions and blobs
		{name: "blob upload unknown", tool: failure.ToolAuto, text: "93c72c92e15f: Retrying in 2 seconds\nblob upload unknown", class: failure.Transient, code: CodeDockerBlobUpload},
		{name: "unknown blob on push", tool: failure.ToolAuto, text: "11:43:59 1d0d249d60a5: Pushed\n11:43:59 unknown blob\n11:43:59 Build step 'Execute shell' marked build as failure",
			class: failure.Transient, code: CodeDockerBlobUnknown},

		// the request must change
		{name: "manifest invalid", tool: failure.ToolAuto, text: "764cf24c4173: Pushed\nerror from registry: manifest invalid", class: failure.Structural, code: CodeDockerManifestInvalid},
		{name: "unsupported media type", tool: failure.ToolAuto, text: "error: failed to push: unexpected status: 415 Unsupported Media Type", class: failure.Structural, code: CodeDockerUnsupported},
		{name: "tag immutable", tool: failure.ToolAuto, text: "tag invalid: The image tag 'latest' already exists in the 'app_service_image' repository and cannot be overwritten because the repository is immutable.",
			class: failure.Structural, code: CodeDockerTagImmutable},
		{name: "invalid reference", tool: failure.ToolAuto, text: "docker: invalid reference format: repository name must be lowercase.", class: failure.Structural, code: CodeDockerBadReference},
		{name: "no local image", tool: failure.ToolAuto, text: "An image does not exist locally with the tag: acme/web", class: failure.Structural, code: CodeDockerNoLocalImage},
		{name: "copy source missing", tool: failure.ToolAuto, text: "ERROR: failed to solve: failed to compute cache key: failed to calculate checksum of ref 96f8e948::nz4ef33a: \"/go.sum\": not found",
			class: failure.Structural, code: CodeDockerBuildContext},
		{name: "dockerfile missing", tool: failure.ToolAuto, text: "failed to solve: failed to read dockerfile: open Dockerfile: no such file or directory", class: failure.Structural, code: CodeDockerBuildContext},
		{name: "413 through nginx", tool: failure.ToolAuto, text: "#21 ERROR: failed to copy: unexpected status: 413 Request Entity Too Large", class: failure.Structural, code: failure.HTTPCode(413)},
		{name: "404 on a buildkit push", tool: failure.ToolAuto, text: "#6 pushing layers\n#6 ERROR: failed commit on ref \"config-sha256:bed2\": unexpected status: 404 Not Found",
			class: failure.Structural, code: failure.HTTPCode(404), reason: "on a push"},
		{name: "404 on a PUT", tool: failure.ToolAuto, text: "failed to copy: unexpected status from PUT request to https://r.example/v2/x/manifests/1: 404 Not Found", class: failure.Structural, code: failure.HTTPCode(404)},
		{name: "containers/image token status", tool: failure.ToolAuto, text: "Error: writing blob: Requesting bearer token: invalid status code from registry 403 (Forbidden)", class: failure.Policy, code: failure.HTTPCode(403)},

		// 5xx: outages retry, a push's 500 is not known to be one
		{name: "push 500", tool: failure.ToolAuto, text: "d46f9f76f72f: Retrying in 1 second\nd46f9f76f72f: Pushed\nreceived unexpected HTTP status: 500 Internal Server Error",
			class: failure.Unknown, code: CodeDockerPushServerError},
		{name: "push 500 on PUT", tool: failure.ToolAuto, text: "Error: Error copying image to the remote destination: Error writing blob: Error initiating layer upload to /v2/local-images/kn-operator/blobs/uploads/ in default-route.example.com: received unexpected HTTP status: 500 Internal Server Error",
			class: failure.Unknown, code: CodeDockerPushServerError},
		{name: "pull 500", tool: failure.ToolAuto, text: "latest: Pulling from library/hello-world\ne6590344b1a5: Retrying in 1 second\nerror pulling image configuration: download failed after attempts=6: received unexpected HTTP status: 500 Internal Server Error",
			class: failure.Transient, code: failure.HTTPCode(500)},
		{name: "push 502", tool: failure.ToolAuto, text: "6b73d082fc93: Pushing [==================================================>]  845.8kB\n6b73d082fc93: Retrying in 1 second\nreceived unexpected HTTP status: 502 Bad Gateway",
			class: failure.Transient, code: failure.HTTPCode(502)},

		// BuildKit's wrappers: the message decides
		{name: "resolve metadata timeout is not dns", tool: failure.ToolAuto, text: "ERROR: failed to solve: DeadlineExceeded: eclipse-temurin:17-jre-noble: failed to resolve source metadata for docker.io/library/eclipse-temurin:17-jre-noble: failed to do request: Head \"https://registry-1.docker.io/v2/library/eclipse-temurin/manifests/17-jre-noble\": dial tcp 1.2.3.4:443: i/o timeout",
			class: failure.Transient, code: failure.CodeTimeout, reason: "cannot resolve image"},
		{name: "resolve metadata 401", tool: failure.ToolAuto, text: "ERROR: failed to solve: node:18: failed to resolve source metadata for docker.io/library/node:18: failed to authorize: failed to fetch anonymous token: unexpected status: 401 Unauthorized",
			class: failure.Policy, code: failure.HTTPCode(401)},
		{name: "resolve metadata unrecognised", tool: failure.ToolAuto, text: "ERROR: failed to solve: failed to resolve source metadata for docker.io/acme/x:1: something odd happened",
			class: failure.Unknown, code: CodeDockerResolve},
		{name: "run step failed", tool: failure.ToolAuto, text: "ERROR: failed to solve: process \"/bin/sh -c make\" did not complete successfully: exit code: 2", class: failure.Unknown, code: CodeDockerBuildStep, reason: "exit code 2"},
		{name: "run step failed on a network blip", tool: failure.ToolAuto, text: "#9 2.118 W: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  Temporary failure resolving 'deb.debian.org'\nERROR: failed to solve: process \"/bin/sh -c apt-get update\" did not complete successfully: exit code: 100",
			class: failure.Transient, code: failure.CodeDNS},

		{name: "podman denied message alone", tool: failure.ToolAuto, text: "Error: initializing source docker://jasonacox/weather41:0.2.2: reading manifest 0.2.2 in docker.io/jasonacox/weather41: requested access to the resource is denied",
			class: failure.Policy, code: CodeDockerDenied, reason: "denied the pull"},
		{name: "ghcr bare denied", tool: failure.ToolAuto, text: "Error response from daemon: Head \"https://ghcr.io/v2/domcyrus/rustnet/manifests/latest\": denied", class: failure.Policy, code: CodeDockerDenied},
		{name: "ghcr bare unauthorized", tool: failure.ToolAuto, text: "docker: Error response from daemon: Head \"https://ghcr.io/v2/tpm2-software/fedora-30/manifests/latest\": unauthorized.", class: failure.Policy, code: CodeDockerUnauthorized},
		{name: "login denied", tool: failure.ToolAuto, text: "Error response from daemon: Get \"https://ghcr.io/v2/\": denied: denied", class: failure.Policy, code: CodeDockerDenied, reason: "refused the login"},
		{name: "insufficient scope on push", tool: failure.ToolAuto, text: "ERROR: failed to solve: failed to push ghcr.io/acme/app:1: server message: insufficient_scope: authorization failed", class: failure.Policy, code: CodeDockerDenied, reason: "insufficient_scope"},
		{name: "no such manifest", tool: failure.ToolAuto, text: "ERROR: no such manifest: docker.io/acme/app:1.2", class: failure.Absent, code: CodeDockerManifestUnknown},
		{name: "credential helper missing", tool: failure.ToolAuto, text: "error getting credentials - err: exec: \"docker-credential-desktop\": executable file not found in $PATH, out: ", class: failure.Policy, code: failure.CodeDockerNoCredentials, remedy: "credsStore"},
		{name: "credential store timed out", tool: failure.ToolAuto, text: "Error saving credentials: error storing credentials - err: exit status 1, out: `Post \"https://hub.docker.com/v2/users/login\": dial tcp 208.101.21.43:443: i/o timeout`", class: failure.Transient, code: failure.CodeTimeout},
		{name: "multi-platform on docker driver", tool: failure.ToolAuto, text: "ERROR: Multi-platform build is not supported for the docker driver.\nSwitch to a different driver, or turn on the containerd image store, and try again.", class: failure.Structural, code: CodeDockerBuilderUnsupported},
		{name: "multiple platforms, older buildx", tool: failure.ToolAuto, text: "Error: buildx failed with: ERROR: multiple platforms feature is currently not supported for docker driver. Please switch to a different driver (eg. \"docker buildx create --use\")", class: failure.Structural, code: CodeDockerBuilderUnsupported},
		{name: "exec format error", tool: failure.ToolAuto, text: " > [base 2/6] RUN apt-get update:\n#0 0.252 exec /bin/sh: exec format error", class: failure.Structural, code: CodeDockerBuilderUnsupported, remedy: "setup-qemu-action"},

		// near misses: not the registry's words
		{name: "permission denied colon: a file's, not the daemon's", tool: failure.ToolAuto, text: "open /home/runner/.docker/config.json: Permission denied: cannot read", class: failure.Policy, code: failure.CodeErrnoAccess},
		{name: "access denied colon", tool: failure.ToolAuto, text: "Error: Access denied: you do not own this project", class: failure.Unknown, code: failure.CodeUnknown},
		// the shell's own "not found" (exit 127), not a registry's: no such command
		{name: "shell command not found", tool: failure.ToolAuto, text: "/bin/sh: 1: make: not found", class: failure.Structural, code: failure.CodeExecCannotStart},
		{name: "schema1 fallback warning", tool: failure.ToolAuto, text: "level=warning msg=\"failed to upload schema2 manifest: manifest invalid: manifest invalid - falling back to schema1\"", class: failure.Unknown, code: failure.CodeUnknown},
		{name: "blob unknown on pull", tool: failure.ToolAuto, text: "1.0: Pulling from acme/app\nerror pulling image configuration: blob unknown: blob unknown to registry", class: failure.Unknown, code: failure.CodeUnknown},
		{name: "cache key that needed a pull", tool: failure.ToolAuto, text: "ERROR: failed to solve: failed to compute cache key: failed to copy: read tcp 172.17.0.2:40044->104.16.99.1:443: read: connection reset by peer",
			class: failure.Transient, code: failure.CodeReset},
		{name: "permission denied at the end: a file's, not the daemon's", tool: failure.ToolAuto, text: "bash: ./gradlew: Permission denied", class: failure.Policy, code: failure.CodeErrnoAccess},
		{name: "a json format error", tool: failure.ToolAuto, text: "config: format error at line 3", class: failure.Unknown, code: failure.CodeUnknown},
		{name: "download unknown is not an upload session", tool: failure.ToolAuto, text: "warning: cannot download unknown artifact 'x'", class: failure.Unknown, code: failure.CodeUnknown},
		{name: "manifest blob unknown on push", tool: failure.ToolAuto, text: "The push refers to repository [r.example/acme/app]\nmanifest blob unknown: blob unknown to registry", class: failure.Unknown, code: failure.CodeUnknown},
		{name: "docker words in prose", tool: failure.ToolAuto, text: "note: the registry may say denied or unauthorized when the token is wrong", class: failure.Unknown, code: failure.CodeUnknown},
	})
}

// A registry's HTTP answer: its error code decides over the bare status.
func TestDockerRegistryAnswers(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, method, body string
		status             int
		header             http.Header
		class              failure.Class
		code               failure.Code
		retryAfter         time.Duration
	}{
		{"denied", "", `{"errors":[{"code":"DENIED","message":"requested access to the resource is denied"}]}`, 403, nil, failure.Policy, CodeDockerDenied, 0},
		{"upload session lost", "PUT", `{"errors":[{"code":"BLOB_UPLOAD_UNKNOWN","message":"blob upload unknown to registry","detail":{}}]}`, 404, nil, failure.Transient, CodeDockerBlobUpload, 0},
		{"manifest unknown", "", `{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown","detail":{"Tag":"v9"}}]}`, 404, nil, failure.Absent, CodeDockerManifestUnknown, 0},
		{"hub 429 with Retry-After", "", `{"errors":[{"code":"TOOMANYREQUESTS","message":"You have reached your pull rate limit."}]}`, 429, http.Header{"Retry-After": {"30"}}, failure.Transient, failure.CodeRateLimited, 30 * time.Second},
		{"manifest invalid", "PUT", `{"errors":[{"code":"MANIFEST_INVALID","message":"manifest invalid","detail":{}}]}`, 400, nil, failure.Structural, CodeDockerManifestInvalid, 0},
		{"push 500", "", "349a7278758f: Pushing [==================================================>] 7.256 GB\nReceived unexpected HTTP status: 500 Internal Server Error", 500, nil, failure.Unknown, CodeDockerPushServerError, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := failure.Classify(failure.Input{Tool: failure.ToolHTTP, Text: tc.body, Status: tc.status, Method: tc.method, Header: tc.header, ExitCode: failure.NoExitCode, Now: now})
			checkFailure(t, f, tc.class, tc.code, "", "", nil)
			if f.RetryAfter != tc.retryAfter {
				t.Errorf("RetryAfter = %v, want %v", f.RetryAfter, tc.retryAfter)
			}
			if err := invariants(f); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestDockerDetection(t *testing.T) {
	for _, p := range []string{"docker", "/usr/bin/podman", "buildah", "skopeo", "nerdctl", "docker-compose"} {
		if got := failure.ToolOf(p); got != failure.ToolDocker {
			t.Errorf("ToolOf(%q) = %q, want docker", p, got)
		}
	}
	for _, text := range []string{
		"Error response from daemon: manifest unknown",
		"ERROR: failed to solve: process \"/bin/sh -c make\" did not complete successfully: exit code: 2",
		"Error: buildx failed with: ERROR: denied",
		"The push refers to repository [docker.io/acme/web]",
	} {
		if got := failure.DetectTool(text, failure.ToolAuto); got != failure.ToolDocker {
			t.Errorf("detectTool(%q) = %q, want docker", text, got)
		}
	}
	if got := failure.DetectTool("npm ERR! code E404", failure.ToolAuto); got == failure.ToolDocker {
		t.Errorf("npm output detected as docker")
	}
}
