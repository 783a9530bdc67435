package tools

import (
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

// docker, BuildKit (docker buildx, docker/build-push-action), containerd and
// the containers/image tools (podman, buildah, skopeo) talking to an OCI
// registry (Docker Hub, ghcr.io, ECR, Quay, Harbor, GitLab...). The
// registry's error codes decide (distribution's errcode: DENIED,
// UNAUTHORIZED, TOOMANYREQUESTS, MANIFEST_UNKNOWN, NAME_UNKNOWN,
// BLOB_UPLOAD_UNKNOWN, BLOB_UNKNOWN, MANIFEST_INVALID, UNSUPPORTED,
// TAG_INVALID), which docker and containerd print in lower case ("denied:
// requested access to the resource is denied") and go-containerregistry in
// upper case ("MANIFEST_UNKNOWN: manifest unknown"). BuildKit's wrappers
// ("ERROR: failed to solve:", "failed to push X:", "failed to resolve source
// metadata for X:") only carry them. Network failures (TLS handshake timeout,
// i/o timeout, resets) are the shared network recognisers'.

// docker's codes.
const (
	// CodeDockerDenied: the registry's DENIED: the credentials may not push or pull this repository.
	CodeDockerDenied failure.Code = "docker-denied"
	// CodeDockerUnauthorized: the registry's UNAUTHORIZED: no or wrong credentials.
	CodeDockerUnauthorized failure.Code = "docker-unauthorized"
	// CodeDockerPullDenied: Docker Hub's "pull access denied ... repository does not exist or may require 'docker login'".
	CodeDockerPullDenied failure.Code = "docker-pull-access-denied"
	// CodeDockerGHCRWrite: ghcr.io refuses the workflow token write access to the package.
	CodeDockerGHCRWrite failure.Code = "docker-ghcr-write-denied"
	// CodeDockerTokenExpired: the registry login (ECR's 12-hour token) has expired.
	CodeDockerTokenExpired failure.Code = "docker-token-expired"
	// CodeDockerDaemonPerm: the user may not use the Docker daemon's socket.
	CodeDockerDaemonPerm failure.Code = "docker-daemon-permission"
	// CodeDockerDaemonDown: the Docker daemon is not reachable (not running, dind not up).
	CodeDockerDaemonDown failure.Code = "docker-daemon-unreachable"
	// CodeDockerManifestUnknown: the registry has no manifest for the tag or digest.
	CodeDockerManifestUnknown failure.Code = "docker-manifest-unknown"
	// CodeDockerImageNotFound: BuildKit or containerd found no such image reference.
	CodeDockerImageNotFound failure.Code = "docker-image-not-found"
	// CodeDockerNameUnknown: the registry has no such repository (ECR does not create it on push).
	CodeDockerNameUnknown failure.Code = "docker-repository-unknown"
	// CodeDockerBlobUpload: the registry lost the layer's upload session.
	CodeDockerBlobUpload failure.Code = "docker-blob-upload-unknown"
	// CodeDockerBlobUnknown: "unknown blob" while pushing: the registry lost track of a layer.
	CodeDockerBlobUnknown failure.Code = "docker-blob-unknown"
	// CodeDockerManifestInvalid: the registry refuses the manifest as pushed.
	CodeDockerManifestInvalid failure.Code = "docker-manifest-invalid"
	// CodeDockerUnsupported: the registry does not support the media type or operation.
	CodeDockerUnsupported failure.Code = "docker-unsupported"
	// CodeDockerTagImmutable: the tag exists in an immutable repository.
	CodeDockerTagImmutable failure.Code = "docker-tag-immutable"
	// CodeDockerBadReference: the image name or tag is malformed.
	CodeDockerBadReference failure.Code = "docker-invalid-reference"
	// CodeDockerNoLocalImage: docker push of a tag that was never built or tagged.
	CodeDockerNoLocalImage failure.Code = "docker-no-local-image"
	// CodeDockerPushServerError: a 500 from the registry while pushing.
	CodeDockerPushServerError failure.Code = "docker-push-server-error"
	// CodeDockerBuildContext: the Dockerfile or a file it COPYs is not in the build context.
	CodeDockerBuildContext failure.Code = "docker-build-context"
	// CodeDockerBuilderUnsupported: the builder cannot build this (several platforms on the docker driver, another CPU's binaries without QEMU).
	CodeDockerBuilderUnsupported failure.Code = "docker-builder-unsupported"
	// CodeDockerBuildStep: a Dockerfile RUN step exited non-zero.
	CodeDockerBuildStep failure.Code = "docker-build-step-failed"
	// CodeDockerResolve: BuildKit could not resolve an image, for a reason not recognised.
	CodeDockerResolve failure.Code = "docker-resolve-failed"
)

const (
	remedyDockerLogin    = "log in to the registry with credentials that may push/pull this repository (docker login, docker/login-action with the right secret), and check the image name and namespace; resending unchanged will not help"
	remedyDockerGHCR     = "grant the workflow token write access: `permissions: packages: write` in the workflow, and in the package's settings add this repository under Manage Actions access (or push with a PAT that has write:packages)"
	remedyDockerRate     = "Docker Hub's pull rate limit: waiting; authenticate the pulls (docker login) or use a mirror/cache so that they do not count against the anonymous per-IP limit"
	remedyDockerNotFound = "the image or tag does not exist in the registry: fix the name or tag, or push it first (a multi-arch manifest needs every per-arch tag pushed)"
	// dockerRankFrame is the rank of a BuildKit wrapper's own verdict: above
	// the shared recognisers' misreading of its words ("failed to resolve"
	// is not DNS), below any decisive evidence elsewhere.
	dockerRankFrame = failure.RankTransport + 1
	// dockerContext bounds how far before a line the push/pull context is read.
	dockerContext = 16 << 10
)

var (
	// the registry's DENIED/UNAUTHORIZED code at the start of a message:
	// "…: denied: msg", "ERROR: denied: msg", a line of its own, or bare at
	// the end of Go's error (`Head "https://ghcr.io/v2/…": denied`); never
	// "Permission denied" or "Access denied:".
	reLabelledField  = failure.LazyRE(`^\s*(?:Type|Status|Reason|Kind):\s+\w+\s*$`)
	reDockerErrcode  = failure.LazyRE(`(?:^|[^\w\s]|\b(?:ERROR|Error|error))\s*(denied|DENIED|unauthorized|UNAUTHORIZED)(?:: (.*)|\.?\s*$)`)
	reDockerPullDeny = failure.LazyRE(`pull access denied(?: for ([^\s,]+))?`)
	reDockerTooMany  = failure.LazyRE(`(?:toomanyrequests|TOOMANYREQUESTS):?\s*(.*)`)
	reDockerRetryDur = failure.LazyRE(`(?i)retry-after:\s*(\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))`)
	reDockerLongWin  = failure.LazyRE(`(?i)per (?:6|six) hours|per day\b|\bdaily\b|;w=(?:21600|86400)\b`)
	reDockerManifest = failure.LazyRE(`manifest unknown|MANIFEST_UNKNOWN|manifest for (\S+) not found|no such manifest: (\S+)`)
	reDockerRef      = failure.LazyRE(`(?:^|[\s"'])((?:[a-z0-9][a-z0-9.-]*(?::\d+)?/)?[a-z0-9][a-z0-9._/-]*(?::\w[\w.-]{0,127}|@sha256:[0-9a-f]{64})): not found`)
	reDockerName     = failure.LazyRE(`name unknown|name not known to registry|does not exist in the registry with id`)
	reDockerRepoName = failure.LazyRE(`repository with name '([^']+)'|repository (\S+) not found`)
	reDockerStatus   = failure.LazyRE(`[Uu]nexpected (?:HTTP )?status(?: code)?(?: from (GET|HEAD|PUT|POST|PATCH|DELETE) request to \S+?| https?://\S+?)?:? (\d{3})\b`)
	reDockerRegCode  = failure.LazyRE(`invalid status code from registry (\d{3})`)
	reDockerResolve  = failure.LazyRE(`failed to resolve (?:source metadata for|reference) "?([^\s"]+?)"?: (.*)`)
	reDockerStepExit = failure.LazyRE(`did not complete successfully: exit code:? (\d+)`)
	reDockerJSONCode = failure.LazyRE(`"code"\s*:\s*"(DENIED|UNAUTHORIZED|TOOMANYREQUESTS|MANIFEST_UNKNOWN|NAME_UNKNOWN|BLOB_UNKNOWN|BLOB_UPLOAD_UNKNOWN|MANIFEST_INVALID|UNSUPPORTED|TAG_INVALID|NAME_INVALID)"(?:\s*,\s*"message"\s*:\s*"([^"]*)")?`)
	reDockerUnsup    = failure.LazyRE(`[Uu]nsupported media type|Unsupported Media Type|(?:^|[^\w\s])\s*unsupported: `)
)

var dockerFamily = failure.Family{
	Tool:  failure.ToolDocker,
	Names: []string{"docker", "docker-compose", "podman", "buildah", "skopeo", "nerdctl"},
	Marks: []string{"Error response from daemon:", "The push refers to repository", "failed to solve:", "buildx failed with:",
		"Cannot connect to the Docker daemon", "initiating layer upload to", "toomanyrequests:"},
	Matchers: dockerMatchers,
}

var dockerMatchers = []failure.Matcher{
	// BuildKit's and containerd's "failed to resolve source metadata for
	// REF: msg" / "failed to resolve reference "REF": msg": the message
	// decides; the words are not a DNS failure.
	{
		Gates: []string{"failed to resolve source metadata for", "failed to resolve reference"},
		RE:    reDockerResolve,
		Frame: true,
		Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			ref := failure.Clip(m[1])
			if h, ok := c.Phrase(m[2]); ok {
				h.Rank = max(h.Rank, dockerRankFrame)
				if !strings.Contains(h.Reason, ref) {
					h.Reason = "cannot resolve image " + ref + ": " + h.Reason
				}
				return h, true
			}
			return failure.Hit{Class: failure.Unknown, Code: CodeDockerResolve, Rank: dockerRankFrame, Reason: "BuildKit cannot resolve image " + ref + ": " + failure.Clip(m[2]),
				Remedy: "read BuildKit's message: check the image name and tag, the registry login, and the network to the registry"}, true
		},
	},
	// the registry's own answer, {"errors":[{"code":"DENIED","message":"…"}]}:
	// read as the client would print it ("denied: …")
	{
		Gates: []string{`"code"`},
		RE:    reDockerJSONCode,
		Frame: true,
		Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			return c.Phrase(strings.ToLower(strings.ReplaceAll(m[1], "_", " ")) + ": " + m[2])
		},
	},
	{
		Gates: []string{"access denied"},
		RE:    reDockerPullDeny,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			reason := "pull access denied: the repository does not exist or needs a login"
			if m[1] != "" {
				reason = "pull access denied for " + failure.Clip(m[1]) + ": the repository does not exist or needs a login"
			}
			return failure.Hit{Class: failure.Policy, Code: CodeDockerPullDenied, Rank: failure.RankTool, Reason: reason,
				Remedy: "check the image name (a local image that was never built, a typo, a missing registry prefix), or docker login with access to the private repository"}, true
		},
	},
	{
		Gates: []string{"nied", "NIED: ", "nauthorized", "UTHORIZED: "},
		RE:    reDockerErrcode,
		Build: func(c *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
			if reLabelledField.MatchString(line) {
				return failure.Hit{}, false // another tool's "Type: unauthorized" field (certbot's problem block), not a registry errcode
			}
			return dockerErrcodeHit(c, line, strings.ToLower(m[1]), strings.TrimSpace(m[2])), true
		},
	},
	// containers/image (podman, buildah, skopeo) prints DENIED's message alone:
	// "reading manifest latest in docker.io/x/y: requested access to the resource is denied"
	{
		Gates: []string{"access to the resource is denied"},
		Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			return dockerErrcodeHit(c, line, "denied", "requested access to the resource is denied"), true
		},
	},
	{
		Gates: []string{"nsufficient_scope"},
		Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			return dockerErrcodeHit(c, line, "denied", "insufficient_scope: the token lacks the repository's scope"), true
		},
	},
	// a credential helper that fails: its own output decides (a network
	// failure while storing them is one); otherwise no credentials to send
	{
		Gates: []string{"error getting credentials", "error storing credentials"},
		Frame: true,
		Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			_, rest, _ := strings.Cut(line, "credentials")
			if h, ok := c.Phrase(rest); ok && h.Rank >= failure.RankTransport {
				return h, true
			}
			return failure.Hit{Class: failure.Policy, Code: failure.CodeDockerNoCredentials, Rank: failure.RankTool, Reason: "the Docker credential helper failed: no credentials for the registry",
				Remedy: "fix the credential store: install the helper named by credsStore/credHelpers in ~/.docker/config.json or remove that entry (a config copied from Docker Desktop names docker-credential-desktop), then docker login again"}, true
		},
	},
	{
		Gates: []string{"not allowed to Write organization package", "not allowed to Create organization package", "ermission_denied: write_package", "ermission_denied: create_package"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return ghcrWriteHit(), true
		},
	},
	{
		Gates: []string{"no basic auth credentials", "non TTY device"},
		Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			if strings.Contains(line, "non TTY") {
				return failure.Hit{Class: failure.Policy, Code: failure.CodeDockerNoCredentials, Rank: failure.RankTool, Reason: "docker login got no password (it cannot prompt without a terminal)",
					Remedy: "pass the credentials: docker login -u USER --password-stdin, or docker/login-action with username and password; check that the secrets are set and named right (an unset secret is empty)"}, true
			}
			return failure.Hit{Class: failure.Policy, Code: failure.CodeDockerNoCredentials, Rank: failure.RankTool, Reason: "no credentials for the registry (no basic auth credentials)",
				Remedy: "log in to the registry before pushing or pulling (aws ecr get-login-password | docker login, docker/login-action) in the same job and as the same user"}, true
		},
	},
	{
		Gates: []string{"toomanyrequests", "REQUESTS"},
		RE:    reDockerTooMany,
		Build: func(c *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
			return dockerRateHit(c, line, m[1]), true
		},
	},
	{
		Gates: []string{"anifest unknown", "ST_UNKNOWN", "anifest for ", "no such manifest: "},
		RE:    reDockerManifest,
		Build: func(_ *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
			reason := "manifest unknown: the registry has no such tag or digest"
			if ref := m[1] + m[2]; ref != "" {
				reason = "manifest for " + failure.Clip(ref) + " not found: the registry has no such tag or digest"
			} else if r := reDockerRef.FindStringSubmatch(line); r != nil {
				reason = "manifest unknown: " + failure.Clip(r[1]) + " is not in the registry"
			}
			return failure.Hit{Class: failure.Absent, Code: CodeDockerManifestUnknown, Rank: failure.RankTool, Reason: reason, Remedy: remedyDockerNotFound}, true
		},
	},
	{
		Gates: []string{"not found"},
		RE:    reDockerRef,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Absent, Code: CodeDockerImageNotFound, Rank: failure.RankTool, Reason: "image " + failure.Clip(m[1]) + " not found in the registry", Remedy: remedyDockerNotFound}, true
		},
	},
	{
		Gates: []string{"name unknown", "name not known to registry", "does not exist in the registry with id"},
		RE:    reDockerName,
		Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			repo := "the repository"
			if r := reDockerRepoName.FindStringSubmatch(line); r != nil {
				repo = "repository " + failure.Clip(r[1]+r[2])
			}
			if strings.Contains(line, " not found: name unknown") || dockerDirection(c, line, "") < 0 {
				return failure.Hit{Class: failure.Absent, Code: CodeDockerNameUnknown, Rank: failure.RankTool, Reason: repo + " does not exist in the registry",
					Remedy: "not there: fix the image name (registry, namespace, repository), or push the image first"}, true
			}
			return failure.Hit{Class: failure.Structural, Code: CodeDockerNameUnknown, Rank: failure.RankTool, Reason: repo + " does not exist in the registry (pushing there needs it created)",
				Remedy: "create the repository first (aws ecr create-repository; ECR does not create it on push), or fix the name: the tag must be REGISTRY/REPOSITORY:TAG with the repository's name, not its URI"}, true
		},
	},
	{
		Gates: []string{"load unknown"},
		Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			if !strings.Contains(line, "blob upload unknown") {
				return failure.Hit{}, false // "download unknown …" is not the registry's code
			}
			return failure.Hit{Class: failure.Transient, Code: CodeDockerBlobUpload, Rank: failure.RankTool, Reason: "blob upload unknown: the registry lost the layer's upload session",
				Remedy: "the upload session expired or landed on another registry replica: pushing again starts a new one; if every push fails, the registry's replicas do not share upload state (sticky sessions, shared storage)"}, true
		},
	},
	{
		Gates: []string{"known blob", "lob unknown"},
		Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			// docker's own "unknown blob" is a push's; the registry's "blob
			// unknown" needs push progress before it (on a pull the layer is
			// gone, and "manifest blob unknown" names a layer never pushed)
			client := strings.Contains(line, "unknown blob")
			if !client && (!strings.Contains(line, "blob unknown") || strings.Contains(line, "manifest blob unknown")) {
				return failure.Hit{}, false
			}
			if d := dockerDirection(c, line, ""); d < 0 || (d == 0 && !client) {
				return failure.Hit{}, false
			}
			return failure.Hit{Class: failure.Transient, Code: CodeDockerBlobUnknown, Rank: failure.RankTool, Reason: "unknown blob while pushing: the registry lost track of a layer between upload and commit",
				Remedy: "a known registry-side race (ghcr.io, docker.pkg.github.com): pushing again re-uploads the layer"}, true
		},
	},
	{
		Gates: []string{"anifest invalid", "ST_INVALID"},
		Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			if strings.Contains(line, "falling back") {
				return failure.Hit{}, false // docker's warning before it retries in the older format
			}
			return failure.Hit{Class: failure.Structural, Code: CodeDockerManifestInvalid, Rank: failure.RankTool, Reason: "manifest invalid: the registry refuses the image manifest as pushed",
				Remedy: "the registry does not accept this manifest format: push a format it knows (docker buildx --provenance=false, oci-mediatypes=false, or --format docker for podman/buildah) or upgrade the registry"}, true
		},
	},
	{
		Gates: []string{"nsupported media type", "Unsupported Media Type", "nsupported: "},
		RE:    reDockerUnsup,
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Structural, Code: CodeDockerUnsupported, Rank: failure.RankTool, Reason: "the registry does not support the manifest media type or operation",
				Remedy: "push a format the registry supports (docker buildx --provenance=false or oci-mediatypes=false for OCI indexes and attestations) or upgrade the registry"}, true
		},
	},
	{
		Gates: []string{"is immutable", "configured as immutable"},
		Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			if strings.Contains(line, "field is immutable") {
				return failure.Hit{}, false // a Kubernetes object's field, not a registry's tag
			}
			return failure.Hit{Class: failure.Structural, Code: CodeDockerTagImmutable, Rank: failure.RankTool, Reason: "the tag already exists in an immutable repository and cannot be overwritten",
				Remedy: "push a new tag (a version or commit SHA), or skip the push when the tag is already there; an immutable tag is never replaced"}, true
		},
	},
	{
		Gates: []string{"nvalid reference format", "name invalid"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Structural, Code: CodeDockerBadReference, Rank: failure.RankTool, Reason: "invalid image reference (name or tag)",
				Remedy: "fix the image name: REGISTRY/NAMESPACE/REPOSITORY:TAG, the repository in lower case, the tag of letters, digits, '_', '.', '-' (an empty variable leaves a trailing ':')"}, true
		},
	},
	{
		Gates: []string{"Multi-platform build is not supported", "is currently not supported for docker driver"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Structural, Code: CodeDockerBuilderUnsupported, Rank: failure.RankTool, Reason: "the docker driver cannot build for several platforms",
				Remedy: "use a builder that can: docker/setup-buildx-action (docker-container driver) before the build, or docker buildx create --use, or turn on the containerd image store; or build one platform"}, true
		},
	},
	{
		Gates: []string{"format error"},
		Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			if !strings.Contains(line, "exec format error") && !strings.Contains(line, "Exec format error") {
				return failure.Hit{}, false
			}
			return failure.Hit{Class: failure.Structural, Code: CodeDockerBuilderUnsupported, Rank: failure.RankTool, Reason: "a binary for another CPU architecture cannot run here (exec format error)",
				Remedy: "register QEMU emulators before a cross-platform build (docker/setup-qemu-action, tonistiigi/binfmt), or build on a runner of the target architecture"}, true
		},
	},
	{
		Gates: []string{"does not exist locally with the tag"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Structural, Code: CodeDockerNoLocalImage, Rank: failure.RankTool, Reason: "no local image with the tag to push",
				Remedy: "build or docker tag the image under exactly the name being pushed (an earlier build step failed, or the tags differ)"}, true
		},
	},
	{
		Gates: []string{"trying to connect to the Docker daemon socket"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Policy, Code: CodeDockerDaemonPerm, Rank: failure.RankTool, Reason: "permission denied on the Docker daemon's socket",
				Remedy: "run as a user in the docker group (log in again after adding it), or with sudo; on a self-hosted runner give the runner's user access to /var/run/docker.sock"}, true
		},
	},
	{
		Gates: []string{"connect to the Docker daemon at"},
		Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Unknown, Code: CodeDockerDaemonDown, Rank: failure.RankTool, Reason: "the Docker daemon is not reachable",
				Remedy: "start the daemon or wait for it (a docker:dind service takes seconds to come up; DOCKER_HOST and DOCKER_TLS_CERTDIR must match it); retry by hand once it answers"}, true
		},
	},
	// a status the registry client reports for one request
	{
		Gates: []string{"nexpected HTTP status", "nexpected status"},
		RE:    reDockerStatus,
		Build: func(c *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
			code, method := failure.Atoi(m[2]), m[1]
			if code < 400 || code > 599 {
				return failure.Hit{}, false
			}
			c.Facts.Status = code
			if code == 500 && dockerDirection(c, line, method) > 0 {
				return failure.Hit{Class: failure.Unknown, Code: CodeDockerPushServerError, Rank: failure.RankTool, Reason: "the registry answered 500 Internal Server Error to the push",
					Remedy: "a registry's 500 on a push is as often a layer it cannot store (size, storage quota, back-end permissions) as an outage: check the registry's status page and logs, retry by hand once; do not resend in a loop"}, true
			}
			on := method
			if on == "" {
				if (code != 404 && code != 410) || dockerDirection(c, line, "") <= 0 {
					return failure.Hit{}, false // the shared status recognisers read it
				}
				on = "push" // a 404 to a push: the registry cannot take it this way
			}
			vd := failure.StatusVerdict(code, strings.ToUpper(on), c.Tool)
			if method == "" {
				vd.Reason = failure.StatusName(code) + " on a push: the registry refuses the upload"
				vd.Remedy = "the registry does not accept this push (an OCI index or attestation it does not support, a repository that does not exist, an upload flow it does not implement): push a format it knows (docker buildx --provenance=false) or fix the target; resending will not help"
			} else {
				vd.Reason += " on " + method
			}
			return failure.Hit{Class: vd.Class, Code: vd.Code, Rank: failure.RankStatus, Reason: vd.Reason, Remedy: vd.Remedy}, true
		},
	},
	{
		Gates: []string{"invalid status code from registry "},
		RE:    reDockerRegCode,
		Build: func(c *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			c.Facts.Status = failure.Atoi(m[1])
			return failure.StatusHit(c, c.Facts.Status, failure.RankStatus)
		},
	},
	{
		Gates: []string{"not found", "no such file or directory", "file parse error"},
		Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
			// a COPY source or the Dockerfile missing; not a cache key that
			// needed a pull (the message decides that one)
			if !strings.Contains(line, "file parse error") && !strings.Contains(line, "checksum of ref") &&
				!strings.Contains(line, "compute cache key") && !strings.Contains(line, "read dockerfile") {
				return failure.Hit{}, false
			}
			return failure.Hit{Class: failure.Structural, Code: CodeDockerBuildContext, Rank: failure.RankTool, Reason: "the Dockerfile, or a file it COPYs, is missing from the build context or malformed",
				Remedy: "fix the Dockerfile or the build context: the COPY source must exist under the context directory and not be excluded by .dockerignore (a file an earlier step or artifact should have produced is missing)"}, true
		},
	},
	{
		Gates: []string{"did not complete successfully: exit code"},
		RE:    reDockerStepExit,
		Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
			return failure.Hit{Class: failure.Unknown, Code: CodeDockerBuildStep, Rank: failure.RankMention, Reason: "a Dockerfile RUN step failed (exit code " + m[1] + ")",
				Remedy: "the command inside the build failed: its own output above the ERROR line says why; fix the command or its inputs"}, true
		},
	},
}

// dockerErrcodeHit reads a registry's DENIED or UNAUTHORIZED message.
func dockerErrcodeHit(c *failure.ScanCtx, line, code, msg string) failure.Hit {
	l := strings.ToLower(msg)
	switch {
	case strings.Contains(l, "write_package") || strings.Contains(l, "create_package") || strings.Contains(l, "organization package"):
		return ghcrWriteHit()
	case strings.Contains(l, "token has expired"):
		return failure.Hit{Class: failure.Policy, Code: CodeDockerTokenExpired, Rank: failure.RankTool, Reason: "the registry login has expired (" + failure.Clip(msg) + ")",
			Remedy: "log in again right before pushing (an ECR token lasts 12 hours: aws ecr get-login-password | docker login, or aws-actions/amazon-ecr-login in the same job)"}
	case strings.Contains(l, "exceed the configured upper limit") || strings.Contains(l, "quota"):
		return failure.Hit{Class: failure.Policy, Code: failure.CodeQuotaExhausted, Rank: failure.RankTool, Reason: "the registry's storage quota is exhausted: " + failure.Clip(msg),
			Remedy: "free space in the registry project (delete old tags, run garbage collection) or raise its quota"}
	case code == "unauthorized":
		what := "the registry refused the credentials"
		switch {
		case strings.Contains(l, "incorrect username or password"):
			what = "the registry rejected the username or password"
		case strings.Contains(l, "authentication required"):
			what = "the registry requires authentication"
		}
		if msg != "" {
			what += " (unauthorized: " + failure.Clip(msg) + ")"
		}
		return failure.Hit{Class: failure.Policy, Code: CodeDockerUnauthorized, Rank: failure.RankTool, Reason: what,
			Remedy: "log in with valid credentials (the Docker ID, not the e-mail; an access token rather than the password when 2FA is on) for the registry host in the image name, in the same job and as the same user that pushes"}
	}
	reason := "the registry denied access"
	if msg != "" {
		reason += " (denied: " + failure.Clip(msg) + ")"
	}
	if strings.Contains(line, `/v2/": `) || strings.Contains(line, "/v2/: ") {
		reason = "the registry refused the login" + reason[len("the registry denied access"):] // GET /v2/ is docker login's check
	} else if d := dockerDirection(c, line, ""); d > 0 {
		reason = "the registry denied the push" + reason[len("the registry denied access"):]
	} else if d < 0 {
		reason = "the registry denied the pull" + reason[len("the registry denied access"):]
	}
	return failure.Hit{Class: failure.Policy, Code: CodeDockerDenied, Rank: failure.RankTool, Reason: reason, Remedy: remedyDockerLogin}
}

func ghcrWriteHit() failure.Hit {
	return failure.Hit{Class: failure.Policy, Code: CodeDockerGHCRWrite, Rank: failure.RankTool, Reason: "ghcr.io denies the token write access to the package", Remedy: remedyDockerGHCR}
}

// dockerRateHit reads a registry's TOOMANYREQUESTS: ghcr.io's gives the wait
// ("retry-after: 985.86µs, allowed: 44000/minute"); Docker Hub's pull rate
// limit gives none and clears as its window moves. A limit the text itself
// says lasts hours or a day, with no wait given, is a quota spent for now.
func dockerRateHit(c *failure.ScanCtx, line, msg string) failure.Hit {
	var wait time.Duration
	if m := reDockerRetryDur.FindStringSubmatch(msg); m != nil {
		if d, err := time.ParseDuration(m[1]); err == nil && d > 0 {
			wait = d
		}
	}
	if wait == 0 && reDockerLongWin.MatchString(line) {
		return failure.Hit{Class: failure.Policy, Code: failure.CodeQuotaExhausted, Rank: failure.RankTool, Reason: "the registry's pull quota for the period is spent: " + failure.Clip(msg),
			Remedy: "authenticate the pulls (docker login) or use a mirror/cache, or wait for the window to pass; retrying within the run will not help"}
	}
	if wait == 0 && !c.FromAnswer() && strings.Contains(msg, "pull rate limit") && c.OutlastsRun(dockerHubWindow) {
		// Docker Hub's pull limit counts the pulls of a 6-hour window
		// (docs.docker.com/docker-hub/usage/pulls): with no reset given,
		// the window is the wait, and it outlasts the run.
		return failure.Hit{Class: failure.Policy, Code: failure.CodeRateLimitWindow, Rank: failure.RankTool,
			Reason: "Docker Hub pull rate limit reached (toomanyrequests): its window is 6h, longer than the step can wait",
			Remedy: "authenticate the pulls (docker login, docker/login-action) or use a mirror or pull-through cache; else run again after the window (a later scheduled run); retrying within this run cannot succeed"}
	}
	remedy := failure.RemedyRateLimit
	reason := "registry rate limit exceeded (toomanyrequests)"
	switch {
	case strings.Contains(msg, "pull rate limit"):
		reason, remedy = "Docker Hub pull rate limit reached (toomanyrequests)", remedyDockerRate
	case wait > 0:
		reason = "registry rate limit exceeded (toomanyrequests, retry after " + wait.String() + ")"
	}
	return failure.Hit{Class: failure.Transient, Code: failure.CodeRateLimited, Rank: failure.RankTool, Reason: reason, Remedy: remedy, RetryAfter: wait}
}

// dockerHubWindow is the window Docker Hub counts pulls over (6 hours,
// docs.docker.com/docker-hub/usage/pulls).
const dockerHubWindow = 6 * time.Hour

// dockerDirection tells whether the line belongs to a push (>0) or a pull
// (<0), from the request's method, the line's own words, then the nearest
// push or pull progress lines before it; 0 when nothing says.
func dockerDirection(c *failure.ScanCtx, line, method string) int {
	switch method {
	case "PUT", "POST", "PATCH":
		return 1
	case "GET", "HEAD":
		return -1
	}
	for _, w := range []string{"blobs/uploads", "layer upload", "uploading layer", "error pushing", "failed to push", "pushing ", "failed commit on ref", "PUT http", "POST http", "PATCH http"} {
		if strings.Contains(line, w) {
			return 1
		}
	}
	for _, w := range []string{"pull", "Pull", "reading manifest", "initializing source", "GET http", "HEAD http", `Get "http`, `Head "http`} {
		if strings.Contains(line, w) {
			return -1
		}
	}
	end := min(max(c.LineEnd, 0), len(c.Text))
	before := c.Text[max(0, end-dockerContext):end]
	push := lastOf(before, "The push refers to", "Pushing [", ": Pushed", "pushing layers", "Layer already exists", "failed to push", "error pushing")
	pull := lastOf(before, "Pulling from", "Pulling fs layer", "Pull complete", "error pulling", "failed to pull", "Downloading [")
	switch {
	case push > pull:
		return 1
	case pull > push:
		return -1
	}
	return 0
}

// lastOf returns the offset of the last occurrence in s of any of words; -1 when none.
func lastOf(s string, words ...string) int {
	last := -1
	for _, w := range words {
		last = max(last, strings.LastIndex(s, w))
	}
	return last
}
