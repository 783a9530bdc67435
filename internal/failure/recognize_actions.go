package failure

import "strings"

// GitHub's own actions in a workflow log: the runner (downloading and
// resolving actions, the job's limits, cancellation, the machine itself),
// actions/checkout, the artifact and cache actions and their services, the
// setup-* actions' version lookups, OIDC tokens and the workflow's own
// commands. The git, npm or docker output a step prints is recognised by
// those tools' matchers; these run whatever the tool, so the family has no
// program names and no marks ("##[error]" is in every workflow log).
//
// A warning does not fail a job (the cache actions only warn when the cache
// service fails): a verdict these matchers read from a "Warning:" line ranks
// below every error, so the error that failed the step decides when the log
// has one; the "Process completed with exit code" line that ends a failed
// step ranks just above it, so such a warning's retry never stands in for an
// unrecognised failure.

// The family's codes.
const (
	CodeActionsArtifactNotFound Code = "actions-artifact-not-found"
	CodeActionsArtifactExists   Code = "actions-artifact-exists"
	CodeActionsArtifactName     Code = "actions-artifact-name-invalid"
	CodeActionsArtifactNoFiles  Code = "actions-artifact-no-files"
	CodeActionsArtifactDownload Code = "actions-artifact-download-failed"
	CodeActionsServiceFailed    Code = "actions-service-failed"
	CodeActionsCacheKeyTaken    Code = "actions-cache-key-taken"
	CodeActionsCachePath        Code = "actions-cache-path-missing"
	CodeActionsCacheTooLarge    Code = "actions-cache-too-large"
	CodeActionsCacheMiss        Code = "actions-cache-miss"
	CodeActionsCheckoutRef      Code = "actions-checkout-ref-not-found"
	CodeActionsVersionNotFound  Code = "actions-setup-version-not-found"
	CodeActionsVersionSpec      Code = "actions-setup-version-unsatisfied"
	CodeActionsDownloadFailed   Code = "actions-action-download-failed"
	CodeActionsResolveFailed    Code = "actions-action-resolve-failed"
	CodeActionsUnresolved       Code = "actions-action-unresolved"
	CodeActionsNotAllowed       Code = "actions-action-not-allowed"
	CodeActionsDeprecated       Code = "actions-action-deprecated"
	CodeActionsGHES             Code = "actions-ghes-unsupported"
	CodeActionsOIDC             Code = "actions-oidc-unavailable"
	CodeActionsInputMissing     Code = "actions-input-missing"
	CodeActionsCommand          Code = "actions-workflow-command-invalid"
	CodeActionsWorkflowInvalid  Code = "actions-workflow-invalid"
	CodeActionsTimeout          Code = "actions-timeout"
	CodeActionsRunnerLost       Code = "actions-runner-lost"
	CodeActionsDiskFull         Code = "actions-disk-full"
	CodeActionsStepFailed       Code = "actions-step-failed"
)

const (
	// rankActionsWarning is the rank of a verdict read from a warning line
	// (or the cache actions' notices): below every other verdict.
	rankActionsWarning = rankMention - 2
	// rankActionsStep is the rank of "Process completed with exit code N":
	// it says only that a step failed, so any other recogniser's verdict
	// beats it, but it outranks a warning.
	rankActionsStep = rankActionsWarning + 1

	// actionsContext bounds how far back the runner's download lines are
	// looked for before a bare "Response status code ..." error.
	actionsContext = 4096
)

const (
	remedyArtifactNotFound = "no artifact of that name in this run (never uploaded, uploaded under another name, or expired): fix the name or upload it first; from another run, download-artifact needs run-id and github-token"
	remedyActionRef        = "fix `uses:`: the action's repository was renamed, deleted or misspelt, or the tag does not exist; a private action's repository must allow access from this one (its Settings → Actions → Access)"
	remedyCacheKeyTaken    = "nothing failed: a cache key is written once, so an existing (or stuck reserved) key is never saved again; put a hash of the cached files in the key (hashFiles) when the cache must change"
	remedyActionsService   = "GitHub's Actions service failed (an outage or overload, see githubstatus.com): retrying"
)

var (
	reActionsCheckoutRef = lazyRE(`A branch or tag with the name '([^']*)' could not be found`)
	reActionsArtName     = lazyRE(`(?:for name|with the name): (\S+)`)
	reActionsBadName     = lazyRE(`(artifact name|path for one of the files in artifact) is not valid: (.*?)\.? Contains the following character`)
	reActionsNoFiles     = lazyRE(`No files were found with the provided path: (.*?)\.? No artifacts will be uploaded|No files were found with the provided path: (\S+)`)
	reActionsQuotaReset  = lazyRE(`(?i)recalculated every ([\w -]+)`)
	reActionsTwirp       = lazyRE(`Failed request: \((\d{3})\) ?([^:]*)(?::\s*(.*))?`)
	reActionsTwirpMethod = lazyRE(`Failed to ([A-Z]\w+): `)
	reActionsAttempts    = lazyRE(`Failed to make request after (\d+) attempts(?:: (.*))?`)
	reActionsNetCode     = lazyRE(`Unable to make request: (E[A-Z]+)`)
	reActionsCacheStatus = lazyRE(`Cache service responded with (\d{3})`)
	reActionsCacheKey    = lazyRE(`Unable to reserve cache with key (.+?), another job`)
	reActionsCacheMiss   = lazyRE(`Failed to restore cache entry\. Exiting as fail-on-cache-miss is set\.(?:\s*Input key: (\S+))?`)
	reActionsVersionNF   = lazyRE(`Unable to find (\S+) version '([^']*)' for platform (\S+) and architecture ([\w-]+)|The version '([^']*)' with architecture '([^']*)' was not found|Version (\S+) with arch (\S+) not found`)
	reActionsSemver      = lazyRE(`(?i)Could not find satisfied version for semver '?([^'\s]*)'?`)
	reActionsRespStatus  = lazyRE(`Response status code does not indicate success: (\d{3})`)
	reActionsDownloadURL = lazyRE(`Failed to download action (?:repository )?'(?:https?://[^/']+/repos/)?([^']*?)(?:/tarball/([^']*))?'`)
	reActionsResolve     = lazyRE("Unable to resolve actions?[.,]? *(?:Repository not found ?: ?)?`?([\\w.-]+/[^\\s`,]*)`?(?:, (.*))?")
	reActionsNotAllowed  = lazyRE("`?([\\w.-]+/[^\\s`,]+?)`?,? .*?not allowed(?: to be used)? in ([\\w.-]+/[\\w.-]+?)\\.? ")
	reActionsDeprecated  = lazyRE("uses a deprecated version of `?([^`]+?)`?\\.")
	reActionsOIDC        = lazyRE(`Unable to get (ACTIONS_ID_TOKEN_REQUEST_(?:URL|TOKEN)) env variable`)
	reActionsInput       = lazyRE(`Input required and not supplied: (\S+)`)
	reActionsCommand     = lazyRE("Unable to process file command '([^']*)' successfully|The `([\\w-]+)` command is disabled")
	reActionsTimeout     = lazyRE(`The job (?:running on runner (.*?) )?has exceeded the maximum execution time (?:of |while awaiting a runner for )([^.]+)|The action '(.*?)' has timed out after ([^.]+)`)
	reActionsExit        = lazyRE(`Process completed with exit code (\d+)|The process '([^']*)' failed with exit code (\d+)`)
)

// actionsWarning reports whether a log line is a warning (which does not
// fail the job): the runner's "##[warning]", the web log's "Warning:".
func actionsWarning(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return strings.HasPrefix(t, "Warning: ") || strings.HasPrefix(t, "##[warning]") || strings.HasPrefix(t, "::warning")
}

// demoted ranks a hit from a warning line below every error.
func demoted(h hit, line string) hit {
	if actionsWarning(line) {
		h.rank = rankActionsWarning
	}
	return h
}

// actionsBefore returns the line being examined and the text shortly before
// it, for context the runner prints on earlier lines.
func actionsBefore(c *scanCtx, line string) string {
	end := min(c.lineEnd, len(c.text))
	lo := max(0, end-len(line)-actionsContext)
	return c.text[lo:end]
}

// actionsStatus classifies an HTTP status an action or the runner reports;
// lookup says whether the request only read.
func actionsStatus(c *scanCtx, status int, lookup bool) verdict {
	method := "POST"
	if lookup {
		method = ""
	}
	return statusVerdict(status, method, c.tool)
}

var actionsFamily = family{
	tool: ToolActions,
	matchers: []matcher{
		// actions/checkout
		{
			gates: []string{"could not be found"},
			re:    reActionsCheckoutRef,
			build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
				return hit{class: Absent, code: CodeActionsCheckoutRef, rank: rankTool,
					reason: "actions/checkout: no branch or tag " + clip(m[1]) + " in the repository",
					remedy: "the ref is not in the repository checked out: push it first, or (a pull request from a fork) check out the fork: repository: ${{ github.event.pull_request.head.repo.full_name }}"}, true
			},
		},

		// upload-artifact, download-artifact and the results service
		{
			gates: []string{"Artifact not found for name: ", "artifact(s): Artifact not found", "Unable to find an artifact with the name", "Unable to find any artifacts for the associated workflow"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				reason := "no such artifact in the workflow run"
				if m := reActionsArtName.FindStringSubmatch(line); m != nil {
					reason = "artifact " + clip(strings.TrimRight(m[1], ".")) + " not found in the workflow run"
				}
				return hit{class: Absent, code: CodeActionsArtifactNotFound, rank: rankTool, reason: reason, remedy: remedyArtifactNotFound}, true
			},
		},
		{
			gates: []string{"Contains the following character"},
			re:    reActionsBadName,
			build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
				what := "artifact name"
				if strings.HasPrefix(m[1], "path") {
					what = "file path in the artifact"
				}
				return hit{class: Structural, code: CodeActionsArtifactName, rank: rankTool,
					reason: "upload-artifact: the " + what + " " + clip(m[2]) + " has a forbidden character",
					remedy: "remove \" : < > | * ? \\ / and line breaks from the artifact's name and file names (e.g. replace them in the matrix value used in the name)"}, true
			},
		},
		{
			gates: []string{"No files were found with the provided path"},
			re:    reActionsNoFiles,
			build: func(_ *scanCtx, line string, m []string) (hit, bool) {
				h := hit{class: Structural, code: CodeActionsArtifactNoFiles, rank: rankTool,
					reason: "upload-artifact: no files match the path " + clip(m[1]+m[2]),
					remedy: "the path matched nothing: check that the build wrote the files there (and include-hidden-files for dot files); set if-no-files-found: ignore where an empty upload is fine"}
				return demoted(h, line), true
			},
		},
		{
			gates: []string{"Artifact storage quota has been hit"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				reason := "the account's artifact storage quota is used up"
				if m := reActionsQuotaReset.FindStringSubmatch(line); m != nil {
					reason += " (usage is recalculated every " + clip(strings.TrimSpace(m[1])) + ")"
				}
				return hit{class: Policy, code: CodeQuotaExhausted, rank: rankTool, reason: reason,
					remedy: "delete old artifacts (or lower retention-days) or buy more storage: uploads fail until the usage is recalculated"}, true
			},
		},
		{
			gates: []string{"GHES"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				if !strings.Contains(line, "not currently supported on GHES") {
					return hit{}, false
				}
				return hit{class: Structural, code: CodeActionsGHES, rank: rankTool, reason: "artifact actions v4 do not run on GitHub Enterprise Server",
					remedy: "on GitHub Enterprise Server use actions/upload-artifact@v3 and actions/download-artifact@v3"}, true
			},
		},
		{
			// the toolkit's twirp client (artifacts, cache service v2):
			// "Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: ..."
			gates: []string{"Failed request: ("},
			re:    reActionsTwirp,
			build: func(c *scanCtx, line string, m []string) (hit, bool) {
				status := atoi(m[1])
				if status < 400 || status > 599 {
					return hit{}, false
				}
				method := ""
				if mm := reActionsTwirpMethod.FindStringSubmatch(line); mm != nil {
					method = mm[1]
				}
				msg := strings.ToLower(m[3])
				st := statusName(status)
				var h hit
				switch {
				case strings.Contains(msg, "artifact with this name already exists"):
					h = actionsArtifactExists()
				case status == 409 && (strings.Contains(method, "Cache") || strings.Contains(msg, "cache")):
					h = hit{class: Structural, code: CodeActionsCacheKeyTaken, rank: rankActionsWarning,
						reason: "the cache key is already saved (" + st + "): nothing was saved", remedy: remedyCacheKeyTaken}
				case status >= 500 || status == 429 || status == 408:
					h = hit{class: Transient, code: CodeActionsServiceFailed, rank: rankTool, reason: actionsServiceReason(method, st), remedy: remedyActionsService}
				default:
					vd := actionsStatus(c, status, strings.HasPrefix(method, "Get") || strings.HasPrefix(method, "List"))
					reason := "the Actions service refused the request (" + st + ")"
					if method != "" {
						reason = "the Actions service refused " + clip(method) + " (" + st + ")"
					}
					if m[3] != "" {
						reason += ": " + clip(m[3])
					}
					h = hit{class: vd.class, code: vd.code, rank: rankTool, reason: reason, remedy: vd.remedy}
				}
				return demoted(h, line), true
			},
		},
		{
			gates: []string{"Failed to make request after "},
			re:    reActionsAttempts,
			build: func(_ *scanCtx, line string, m []string) (hit, bool) {
				method := ""
				if mm := reActionsTwirpMethod.FindStringSubmatch(line); mm != nil {
					method = mm[1]
				}
				// the toolkit repeats only timeouts, 5xx and 429
				h := hit{class: Transient, code: CodeActionsServiceFailed, rank: rankStatus,
					reason: actionsServiceReason(method, m[1]+" attempts failed"), remedy: remedyActionsService}
				if m[2] != "" {
					h.reason += " (" + clip(m[2]) + ")"
				}
				return demoted(h, line), true
			},
		},
		{
			gates: []string{"Artifact download failed after "},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				// the toolkit retries any error: a network blip, or an archive
				// that is not a zip (docker's build records) every time
				h := hit{class: Unknown, code: CodeActionsArtifactDownload, rank: rankStatus,
					reason: "download-artifact: every download of the artifact failed",
					remedy: "if it fails every time, the artifact is not a zip (download it with its own action, e.g. docker's build records) or the runner cannot reach blob storage; a sporadic failure passes on a re-run"}
				return demoted(h, line), true
			},
		},
		{
			gates: []string{"Unable to make request: "},
			re:    reActionsNetCode,
			build: func(_ *scanCtx, line string, m []string) (hit, bool) {
				// ECONNRESET, ETIMEDOUT, ECONNREFUSED and EHOSTUNREACH are read by the network matchers
				if m[1] != "ENOTFOUND" {
					return hit{}, false
				}
				h := hit{class: Transient, code: CodeDNS, tr: trNet | trNotSent, rank: rankTransport,
					reason: "could not resolve the Actions service's host (ENOTFOUND)",
					remedy: "DNS lookup failed: retrying; a self-hosted runner must reach GitHub's Actions endpoints"}
				return demoted(h, line), true
			},
		},

		// actions/cache and the cache service
		{
			gates: []string{"Cache service responded with "},
			re:    reActionsCacheStatus,
			build: func(c *scanCtx, line string, m []string) (hit, bool) {
				status := atoi(m[1])
				if status < 400 || status > 599 {
					return hit{}, false
				}
				vd := actionsStatus(c, status, strings.Contains(line, "getCacheEntry"))
				h := hit{class: vd.class, code: vd.code, rank: rankStatus, reason: "the Actions cache service answered " + statusName(status), remedy: vd.remedy}
				if vd.class == Transient {
					h.remedy = remedyActionsService
				}
				return demoted(h, line), true
			},
		},
		{
			gates: []string{"Unable to reserve cache with key"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				reason := "the cache key already exists or another job is saving it: nothing was saved"
				if m := reActionsCacheKey.FindStringSubmatch(line); m != nil {
					reason = "cache key " + clip(m[1]) + " already exists or another job is saving it: nothing was saved"
				}
				// actions/cache only reports it: it never fails the job
				return hit{class: Structural, code: CodeActionsCacheKeyTaken, rank: rankActionsWarning, reason: reason, remedy: remedyCacheKeyTaken}, true
			},
		},
		{
			gates: []string{"Path Validation Error: "},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				h := hit{class: Structural, code: CodeActionsCachePath, rank: rankTool,
					reason: "actions/cache: none of the paths to cache exist, so nothing is saved",
					remedy: "make `path:` name the directories the build really writes (or fix the working directory); every run repeats this until then"}
				if strings.Contains(line, "At least one") {
					h.reason = "actions/cache: no path to cache was given"
				}
				return demoted(h, line), true
			},
		},
		{
			gates: []string{"Cache size of"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				if !strings.Contains(line, "not saving cache") {
					return hit{}, false
				}
				h := hit{class: Structural, code: CodeActionsCacheTooLarge, rank: rankTool,
					reason: "actions/cache: the cache is over the size limit, not saved",
					remedy: "cache less (narrower paths, exclude build output) so the archive stays under the limit"}
				return demoted(h, line), true
			},
		},
		{
			gates: []string{"Failed to restore cache entry"},
			re:    reActionsCacheMiss,
			build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
				reason := "no cache entry for the key (fail-on-cache-miss)"
				if m[1] != "" {
					reason = "no cache entry for key " + clip(m[1]) + " (fail-on-cache-miss)"
				}
				return hit{class: Unknown, code: CodeActionsCacheMiss, rank: rankTool, reason: reason,
					remedy: "the key has no saved cache visible to this branch (never saved, evicted, or the save failed): save it first or drop fail-on-cache-miss; re-run only if the cache service was failing"}, true
			},
		},

		// setup-node, setup-python, setup-go, setup-java: version lookups
		{
			gates: []string{"Unable to find ", "not found"},
			re:    reActionsVersionNF,
			build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
				var reason string
				switch {
				case m[2] != "":
					reason = clip(m[1]) + " version " + clip(m[2]) + " does not exist for " + clip(m[3]) + "/" + clip(m[4])
				case m[5] != "":
					reason = "version " + clip(m[5]) + " does not exist for architecture " + clip(m[6]) + " on this runner's OS"
				default:
					reason = "version " + clip(m[7]) + " does not exist for architecture " + clip(m[8])
				}
				return hit{class: Absent, code: CodeActionsVersionNotFound, rank: rankTool, reason: reason,
					remedy: "no build of that version for this OS and architecture: ask for a version published for it (see the action's versions manifest), another architecture, or another runner image"}, true
			},
		},
		{
			gates: []string{"Could not find satisfied version"},
			re:    reActionsSemver,
			build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
				return hit{class: Structural, code: CodeActionsVersionSpec, rank: rankTool,
					reason: "no version of the distribution satisfies " + clip(m[1]),
					remedy: "change the version spec (or the distribution) to one in the available list the action printed"}, true
			},
		},

		// the runner: downloading and resolving actions
		{
			gates: []string{"Response status code does not indicate success: "},
			re:    reActionsRespStatus,
			build: func(c *scanCtx, line string, m []string) (hit, bool) {
				status := atoi(m[1])
				if status < 400 || status > 599 {
					return hit{}, false
				}
				before := actionsBefore(c, line)
				if !strings.Contains(before, "Failed to download action") && !strings.Contains(before, "Failed to resolve action download info") {
					return statusHit(c, status, rankStatus)
				}
				action := "an action"
				if d := reActionsDownloadURL.FindStringSubmatch(before); d != nil {
					action = clip(d[1])
					if d[2] != "" {
						action += "@" + clip(d[2])
					}
				}
				st := statusName(status)
				var h hit
				switch vd := statusVerdict(status, "", c.tool); {
				case vd.class == Transient:
					h = hit{class: Transient, code: CodeActionsDownloadFailed, rank: rankTool,
						reason: "the runner could not download " + action + " (" + st + ")", remedy: remedyActionsService}
				case status == 404 || status == 410:
					h = hit{class: Structural, code: CodeActionsUnresolved, rank: rankTool,
						reason: "the runner found no " + action + " to download (" + st + ")", remedy: remedyActionRef}
				default:
					h = hit{class: vd.class, code: vd.code, rank: rankTool, reason: "the runner could not download " + action + " (" + st + ")", remedy: vd.remedy}
				}
				return demoted(h, line), true
			},
		},
		{
			gates: []string{"Unable to resolve action"},
			re:    reActionsResolve,
			build: func(_ *scanCtx, line string, m []string) (hit, bool) {
				why := "repository not found"
				if l := strings.ToLower(m[2]); strings.Contains(l, "version") || strings.Contains(l, "ref") {
					why = clip(m[2])
				}
				return hit{class: Structural, code: CodeActionsUnresolved, rank: rankTool,
					reason: "the runner cannot resolve action " + clip(strings.TrimRight(m[1], ".")) + ": " + why, remedy: remedyActionRef}, true
			},
		},
		{
			gates: []string{"Failed to resolve action download info"},
			frame: true,
			build: func(c *scanCtx, line string, _ []string) (hit, bool) {
				_, msg, _ := strings.Cut(line, "download info")
				msg = strings.TrimLeft(msg, ". ")
				msg = strings.TrimPrefix(msg, "Error: ")
				if h, ok := c.phrase(msg); ok {
					h.reason = "the runner could not resolve the job's actions: " + h.reason
					h.rank = max(h.rank, rankTool)
					return demoted(h, line), true
				}
				return hit{class: Unknown, code: CodeActionsResolveFailed, rank: rankTool,
					reason: "the runner could not resolve the job's actions: " + clip(msg),
					remedy: "read the runner's error: a wrong `uses:` needs fixing, an outage passes (re-run when githubstatus.com is green)"}, true
			},
		},
		{
			gates: []string{"Can't find 'action.yml'"},
			build: func(_ *scanCtx, _ string, _ []string) (hit, bool) {
				return hit{class: Structural, code: CodeActionsUnresolved, rank: rankTool, reason: "no action.yml at the action's path",
					remedy: "check out the repository before a local action (uses: ./...) runs, or fix the action's path"}, true
			},
		},
		{
			gates: []string{"Actions in this workflow must be", "The action "},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				reason := "the repository's Actions policy does not allow the action"
				m := reActionsNotAllowed.FindStringSubmatch(line)
				switch {
				case m != nil:
					reason = "the Actions policy of " + clip(m[2]) + " does not allow " + clip(m[1])
				case !strings.Contains(line, "all actions must be from") && !strings.Contains(line, "Actions in this workflow must be"):
					return hit{}, false
				}
				return hit{class: Policy, code: CodeActionsNotAllowed, rank: rankTool, reason: reason,
					remedy: "allow the action in the repository's or organisation's Settings → Actions → General (allowed actions), or use an allowed one"}, true
			},
		},
		{
			gates: []string{"This request has been automatically failed"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				reason := "GitHub fails requests from a deprecated action version"
				if m := reActionsDeprecated.FindStringSubmatch(line); m != nil {
					reason = "GitHub fails requests from the deprecated " + clip(m[1])
				}
				return hit{class: Structural, code: CodeActionsDeprecated, rank: rankTool, reason: reason,
					remedy: "upgrade the action in `uses:` (actions/upload-artifact@v4, actions/cache@v4): a deprecated version is refused on purpose"}, true
			},
		},

		// permissions the workflow must grant, inputs it must pass, commands it writes
		{
			gates: []string{"ID_TOKEN_REQUEST_"},
			re:    reActionsOIDC,
			build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
				return hit{class: Policy, code: CodeActionsOIDC, rank: rankTool,
					reason: "no OIDC token for the job (" + m[1] + " is not set)",
					remedy: "grant the job `permissions: id-token: write` (pull requests from forks never get an OIDC token)"}, true
			},
		},
		{
			gates: []string{"Input required and not supplied: "},
			re:    reActionsInput,
			build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
				name := clip(m[1])
				return hit{class: Structural, code: CodeActionsInputMissing, rank: rankTool,
					reason: "the step was not given its required input " + name,
					remedy: "pass `with: " + name + ":` to the step; an input taken from a secret is empty where the secret is not set or not given (forks, Dependabot)"}, true
			},
		},
		{
			gates: []string{"Unable to process file command '", "The `"},
			re:    reActionsCommand,
			build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
				reason := "the step wrote a malformed " + clip(m[1]) + " file command"
				remedy := "write NAME=value lines (a multi-line value needs the NAME<<DELIMITER form) to $GITHUB_OUTPUT / $GITHUB_ENV"
				if m[2] != "" {
					reason = "the ::" + clip(m[2]) + ":: workflow command is disabled"
					remedy = "write to $GITHUB_OUTPUT, $GITHUB_ENV or $GITHUB_PATH instead of the disabled ::" + clip(m[2]) + ":: command"
				}
				return hit{class: Structural, code: CodeActionsCommand, rank: rankTool, reason: reason, remedy: remedy}, true
			},
		},

		{
			gates: []string{"The template is not valid", "The workflow is not valid", "Invalid workflow file", "Unrecognized named-value: '"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				return hit{class: Structural, code: CodeActionsWorkflowInvalid, rank: rankTool, reason: "GitHub rejected the workflow file or an expression in it",
					remedy: "fix the workflow YAML at the line and column the error names (an unknown context, a bad expression, a missing key); nothing runs until it parses"}, true
			},
		},

		// billing, limits, cancellation and the runner machine
		{
			gates: []string{"The job was not started because"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				if !strings.Contains(line, "payments") && !strings.Contains(line, "spending limit") && !strings.Contains(line, "billing") {
					return hit{}, false
				}
				return hit{class: Policy, code: CodeQuotaExhausted, rank: rankTool,
					reason: "GitHub did not start the job: the account's Actions billing (a failed payment or the spending limit)",
					remedy: "settle the account's billing (Settings → Billing and plans: payment method, spending limit); jobs start again once it is"}, true
			},
		},
		{
			gates: []string{"The job running on runner", "The job has exceeded the maximum execution time", "' has timed out after "},
			re:    reActionsTimeout,
			build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
				reason := "the job ran past its time limit of " + clip(m[2])
				switch {
				case m[1] != "":
					reason += " on " + clip(m[1])
				case strings.Contains(m[0], "awaiting a runner"):
					reason = "no runner picked the job up within " + clip(m[2])
				}
				if m[2] == "" {
					reason = "the step " + clip(m[3]) + " ran past its timeout of " + clip(m[4])
				}
				return hit{class: Unknown, code: CodeActionsTimeout, rank: rankTool, reason: reason,
					remedy: "the job or step ran out of time (timeout-minutes; 6 hours on GitHub-hosted runners): make it faster, split it or raise timeout-minutes; re-run by hand only if it hung"}, true
			},
		},
		{
			gates: []string{"The operation was cancel", "The job was canceled because", "The run was canceled by"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				h := hit{class: Unknown, code: CodeCancelled, rank: rankTool, reason: "the runner cancelled the job or step (a user, a timeout, fail-fast or a concurrency group)",
					remedy: "see why the run was cancelled (its annotations); re-run it by hand if the cancellation was not meant"}
				return demoted(h, line), true
			},
		},
		{
			gates: []string{"The hosted runner", "The self-hosted runner", "The runner has received a shutdown signal"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				if !strings.Contains(line, "lost communication with the server") && !strings.Contains(line, "encountered an error while running your job") && !strings.Contains(line, "shutdown signal") {
					return hit{}, false
				}
				return hit{class: Unknown, code: CodeActionsRunnerLost, rank: rankTool, reason: "the runner machine went away during the job (shut down, starved or cut off)",
					remedy: "re-run the job by hand; if it recurs, the job exhausts the runner's memory, CPU or network (use a larger runner, or less parallelism)"}, true
			},
		},
		{
			gates: []string{"space left on device", "You are running out of disk space"},
			build: func(_ *scanCtx, line string, _ []string) (hit, bool) {
				h := hit{class: Unknown, code: CodeActionsDiskFull, rank: rankRefusal, reason: "the runner's disk is full",
					remedy: "environment must change: free disk space in the job (remove unused tool caches, docker images) or use a runner with a larger disk; retrying will not help"}
				return demoted(h, line), true
			},
		},
		{
			gates: []string{"Process completed with exit code ", "The process '"},
			re:    reActionsExit,
			build: func(_ *scanCtx, _ string, m []string) (hit, bool) {
				reason := "a step exited with code " + m[1]
				if m[1] == "" {
					reason = clip(m[2]) + " exited with code " + m[3]
				}
				return hit{class: Unknown, code: CodeActionsStepFailed, rank: rankActionsStep, reason: reason + " (the cause is in its output)",
					remedy: "read the step's own output above this line; if its failure is known to pass on a second try, add --retry-on REGEX for it (or --stop-on)"}, true
			},
		},
	},
}

func actionsArtifactExists() hit {
	return hit{class: Structural, code: CodeActionsArtifactExists, rank: rankTool,
		reason: "upload-artifact: an artifact with this name already exists in the workflow run",
		remedy: "artifact names must be unique in a run (upload-artifact v4): put the matrix values in the name, or set overwrite: true"}
}

func actionsServiceReason(method, what string) string {
	if method == "" {
		return "the Actions service failed: " + what
	}
	return "the Actions service failed " + clip(method) + ": " + what
}
