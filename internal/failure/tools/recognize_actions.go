package tools

import (
	"strings"

	"github.com/retrywise/retrywise/internal/failure"
)

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
	CodeActionsArtifactNotFound failure.Code = "actions-artifact-not-found"
	CodeActionsArtifactExists   failure.Code = "actions-artifact-exists"
	CodeActionsArtifactName     failure.Code = "actions-artifact-name-invalid"
	CodeActionsArtifactNoFiles  failure.Code = "actions-artifact-no-files"
	CodeActionsArtifactDownload failure.Code = "actions-artifact-download-failed"
	CodeActionsServiceFailed    failure.Code = "actions-service-failed"
	CodeActionsCacheKeyTaken    failure.Code = "actions-cache-key-taken"
	CodeActionsCachePath        failure.Code = "actions-cache-path-missing"
	CodeActionsCacheTooLarge    failure.Code = "actions-cache-too-large"
	CodeActionsCacheMiss        failure.Code = "actions-cache-miss"
	CodeActionsCheckoutRef      failure.Code = "actions-checkout-ref-not-found"
	CodeActionsVersionNotFound  failure.Code = "actions-setup-version-not-found"
	CodeActionsVersionSpec      failure.Code = "actions-setup-version-unsatisfied"
	CodeActionsDownloadFailed   failure.Code = "actions-action-download-failed"
	CodeActionsResolveFailed    failure.Code = "actions-action-resolve-failed"
	CodeActionsUnresolved       failure.Code = "actions-action-unresolved"
	CodeActionsNotAllowed       failure.Code = "actions-action-not-allowed"
	CodeActionsDeprecated       failure.Code = "actions-action-deprecated"
	CodeActionsGHES             failure.Code = "actions-ghes-unsupported"
	CodeActionsOIDC             failure.Code = "actions-oidc-unavailable"
	CodeActionsInputMissing     failure.Code = "actions-input-missing"
	CodeActionsCommand          failure.Code = "actions-workflow-command-invalid"
	CodeActionsWorkflowInvalid  failure.Code = "actions-workflow-invalid"
	CodeActionsTimeout          failure.Code = "actions-timeout"
	CodeActionsRunnerLost       failure.Code = "actions-runner-lost"
	CodeActionsDiskFull         failure.Code = "actions-disk-full"
	CodeActionsStepFailed       failure.Code = "actions-step-failed"
)

const (
	// rankActionsWarning is the rank of a verdict read from a warning line
	// (or the cache actions' notices): below every other verdict.
	rankActionsWarning = failure.RankMention - 2
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
	reActionsCheckoutRef = failure.LazyRE(`A branch or tag with the name '([^']*)' could not be found`)
	reActionsArtName     = failure.LazyRE(`(?:for name|with the name): (\S+)`)
	reActionsBadName     = failure.LazyRE(`(artifact name|path for one of the files in artifact) is not valid: (.*?)\.? Contains the following character`)
	reActionsNoFiles     = failure.LazyRE(`No files were found with the provided path: (.*?)\.? No artifacts will be uploaded|No files were found with the provided path: (\S+)`)
	reActionsQuotaReset  = failure.LazyRE(`(?i)recalculated every ([\w -]+)`)
	reActionsTwirp       = failure.LazyRE(`Failed request: \((\d{3})\) ?([^:]*)(?::\s*(.*))?`)
	reActionsTwirpMethod = failure.LazyRE(`Failed to ([A-Z]\w+): `)
	reActionsAttempts    = failure.LazyRE(`Failed to make request after (\d+) attempts(?:: (.*))?`)
	reActionsNetCode     = failure.LazyRE(`Unable to make request: (E[A-Z]+)`)
	reActionsCacheStatus = failure.LazyRE(`Cache service responded with (\d{3})`)
	reActionsCacheKey    = failure.LazyRE(`Unable to reserve cache with key (.+?), another job`)
	reActionsCacheMiss   = failure.LazyRE(`Failed to restore cache entry\. Exiting as fail-on-cache-miss is set\.(?:\s*Input key: (\S+))?`)
	reActionsVersionNF   = failure.LazyRE(`Unable to find (\S+) version '([^']*)' for platform (\S+) and architecture ([\w-]+)|The version '([^']*)' with architecture '([^']*)' was not found|Version (\S+) with arch (\S+) not found`)
	reActionsSemver      = failure.LazyRE(`(?i)Could not find satisfied version for semver '?([^'\s]*)'?`)
	reActionsRespStatus  = failure.LazyRE(`Response status code does not indicate success: (\d{3})`)
	reActionsDownloadURL = failure.LazyRE(`Failed to download action (?:repository )?'(?:https?://[^/']+/repos/)?([^']*?)(?:/tarball/([^']*))?'`)
	reActionsResolve     = failure.LazyRE("Unable to resolve actions?[.,]? *(?:Repository not found ?: ?)?`?([\\w.-]+/[^\\s`,]*)`?(?:, (.*))?")
	reActionsNotAllowed  = failure.LazyRE("`?([\\w.-]+/[^\\s`,]+?)`?,? .*?not allowed(?: to be used)? in ([\\w.-]+/[\\w.-]+?)\\.? ")
	reActionsDeprecated  = failure.LazyRE("uses a deprecated version of `?([^`]+?)`?\\.")
	reActionsOIDC        = failure.LazyRE(`Unable to get (ACTIONS_ID_TOKEN_REQUEST_(?:URL|TOKEN)) env variable`)
	reActionsInput       = failure.LazyRE(`Input required and not supplied: (\S+)`)
	reActionsCommand     = failure.LazyRE("Unable to process file command '([^']*)' successfully|The `([\\w-]+)` command is disabled")
	reActionsTimeout     = failure.LazyRE(`The job (?:running on runner (.*?) )?has exceeded the maximum execution time (?:of |while awaiting a runner for )([^.]+)|The action '(.*?)' has timed out after ([^.]+)`)
	reActionsExit        = failure.LazyRE(`Process completed with exit code (\d+)|The process '([^']*)' failed with exit code (\d+)`)
)

// actionsWarning reports whether a log line is a warning (which does not
// fail the job): the runner's "##[warning]", the web log's "Warning:".
func actionsWarning(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return strings.HasPrefix(t, "Warning: ") || strings.HasPrefix(t, "##[warning]") || strings.HasPrefix(t, "::warning")
}

// demoted ranks a hit from a warning line below every error.
func demoted(h failure.Hit, line string) failure.Hit {
	if actionsWarning(line) {
		h.Rank = rankActionsWarning
	}
	return h
}

// actionsBefore returns the line being examined and the text shortly before
// it, for context the runner prints on earlier lines.
func actionsBefore(c *failure.ScanCtx, line string) string {
	end := min(c.LineEnd, len(c.Text))
	lo := max(0, end-len(line)-actionsContext)
	return c.Text[lo:end]
}

// actionsStatus classifies an HTTP status an action or the runner reports;
// lookup says whether the request only read.
func actionsStatus(c *failure.ScanCtx, status int, lookup bool) failure.Verdict {
	method := "POST"
	if lookup {
		method = ""
	}
	return failure.StatusVerdict(status, method, c.Tool)
}

var actionsFamily = failure.Family{
	Tool: failure.ToolActions,
	Matchers: []failure.Matcher{
		// actions/checkout
		{
			Gates: []string{"could not be found"},
			RE:    reActionsCheckoutRef,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Absent, Code: CodeActionsCheckoutRef, Rank: failure.RankTool,
					Reason: "actions/checkout: no branch or tag " + failure.Clip(m[1]) + " in the repository",
					Remedy: "the ref is not in the repository checked out: push it first, or (a pull request from a fork) check out the fork: repository: ${{ github.event.pull_request.head.repo.full_name }}"}, true
			},
		},

		// upload-artifact, download-artifact and the results service
		{
			Gates: []string{"Artifact not found for name: ", "artifact(s): Artifact not found", "Unable to find an artifact with the name", "Unable to find any artifacts for the associated workflow"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				reason := "no such artifact in the workflow run"
				if m := reActionsArtName.FindStringSubmatch(line); m != nil {
					reason = "artifact " + failure.Clip(strings.TrimRight(m[1], ".")) + " not found in the workflow run"
				}
				return failure.Hit{Class: failure.Absent, Code: CodeActionsArtifactNotFound, Rank: failure.RankTool, Reason: reason, Remedy: remedyArtifactNotFound}, true
			},
		},
		{
			Gates: []string{"Contains the following character"},
			RE:    reActionsBadName,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				what := "artifact name"
				if strings.HasPrefix(m[1], "path") {
					what = "file path in the artifact"
				}
				return failure.Hit{Class: failure.Structural, Code: CodeActionsArtifactName, Rank: failure.RankTool,
					Reason: "upload-artifact: the " + what + " " + failure.Clip(m[2]) + " has a forbidden character",
					Remedy: "remove \" : < > | * ? \\ / and line breaks from the artifact's name and file names (e.g. replace them in the matrix value used in the name)"}, true
			},
		},
		{
			Gates: []string{"No files were found with the provided path"},
			RE:    reActionsNoFiles,
			Build: func(_ *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
				h := failure.Hit{Class: failure.Structural, Code: CodeActionsArtifactNoFiles, Rank: failure.RankTool,
					Reason: "upload-artifact: no files match the path " + failure.Clip(m[1]+m[2]),
					Remedy: "the path matched nothing: check that the build wrote the files there (and include-hidden-files for dot files); set if-no-files-found: ignore where an empty upload is fine"}
				return demoted(h, line), true
			},
		},
		{
			Gates: []string{"Artifact storage quota has been hit"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				reason := "the account's artifact storage quota is used up"
				if m := reActionsQuotaReset.FindStringSubmatch(line); m != nil {
					reason += " (usage is recalculated every " + failure.Clip(strings.TrimSpace(m[1])) + ")"
				}
				return failure.Hit{Class: failure.Policy, Code: failure.CodeQuotaExhausted, Rank: failure.RankTool, Reason: reason,
					Remedy: "delete old artifacts (or lower retention-days) or buy more storage: uploads fail until the usage is recalculated"}, true
			},
		},
		{
			Gates: []string{"GHES"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !strings.Contains(line, "not currently supported on GHES") {
					return failure.Hit{}, false
				}
				return failure.Hit{Class: failure.Structural, Code: CodeActionsGHES, Rank: failure.RankTool, Reason: "artifact actions v4 do not run on GitHub Enterprise Server",
					Remedy: "on GitHub Enterprise Server use actions/upload-artifact@v3 and actions/download-artifact@v3"}, true
			},
		},
		{
			// the toolkit's twirp client (artifacts, cache service v2):
			// "Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: ..."
			Gates: []string{"Failed request: ("},
			RE:    reActionsTwirp,
			Build: func(c *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
				status := failure.Atoi(m[1])
				if status < 400 || status > 599 {
					return failure.Hit{}, false
				}
				method := ""
				if mm := reActionsTwirpMethod.FindStringSubmatch(line); mm != nil {
					method = mm[1]
				}
				msg := strings.ToLower(m[3])
				st := failure.StatusName(status)
				var h failure.Hit
				switch {
				case strings.Contains(msg, "artifact with this name already exists"):
					h = actionsArtifactExists()
				case status == 409 && (strings.Contains(method, "Cache") || strings.Contains(msg, "cache")):
					h = failure.Hit{Class: failure.Structural, Code: CodeActionsCacheKeyTaken, Rank: rankActionsWarning,
						Reason: "the cache key is already saved (" + st + "): nothing was saved", Remedy: remedyCacheKeyTaken}
				case status >= 500 || status == 429 || status == 408:
					h = failure.Hit{Class: failure.Transient, Code: CodeActionsServiceFailed, Rank: failure.RankTool, Reason: actionsServiceReason(method, st), Remedy: remedyActionsService}
				default:
					vd := actionsStatus(c, status, strings.HasPrefix(method, "Get") || strings.HasPrefix(method, "List"))
					reason := "the Actions service refused the request (" + st + ")"
					if method != "" {
						reason = "the Actions service refused " + failure.Clip(method) + " (" + st + ")"
					}
					if m[3] != "" {
						reason += ": " + failure.Clip(m[3])
					}
					h = failure.Hit{Class: vd.Class, Code: vd.Code, Rank: failure.RankTool, Reason: reason, Remedy: vd.Remedy}
				}
				return demoted(h, line), true
			},
		},
		{
			Gates: []string{"Failed to make request after "},
			RE:    reActionsAttempts,
			Build: func(_ *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
				method := ""
				if mm := reActionsTwirpMethod.FindStringSubmatch(line); mm != nil {
					method = mm[1]
				}
				// the toolkit repeats only timeouts, 5xx and 429
				h := failure.Hit{Class: failure.Transient, Code: CodeActionsServiceFailed, Rank: failure.RankStatus,
					Reason: actionsServiceReason(method, m[1]+" attempts failed"), Remedy: remedyActionsService}
				if m[2] != "" {
					h.Reason += " (" + failure.Clip(m[2]) + ")"
				}
				return demoted(h, line), true
			},
		},
		{
			Gates: []string{"Artifact download failed after "},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				// the toolkit retries any error: a network blip, or an archive
				// that is not a zip (docker's build records) every time
				h := failure.Hit{Class: failure.Unknown, Code: CodeActionsArtifactDownload, Rank: failure.RankStatus,
					Reason: "download-artifact: every download of the artifact failed",
					Remedy: "if it fails every time, the artifact is not a zip (download it with its own action, e.g. docker's build records) or the runner cannot reach blob storage; a sporadic failure passes on a re-run"}
				return demoted(h, line), true
			},
		},
		{
			Gates: []string{"Unable to make request: "},
			RE:    reActionsNetCode,
			Build: func(_ *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
				// ECONNRESET, ETIMEDOUT, ECONNREFUSED and EHOSTUNREACH are read by the network matchers
				if m[1] != "ENOTFOUND" {
					return failure.Hit{}, false
				}
				h := failure.Hit{Class: failure.Transient, Code: failure.CodeDNS, Trace: failure.TrNet | failure.TrNotSent, Rank: failure.RankTransport,
					Reason: "could not resolve the Actions service's host (ENOTFOUND)",
					Remedy: "DNS lookup failed: retrying; a self-hosted runner must reach GitHub's Actions endpoints"}
				return demoted(h, line), true
			},
		},

		// actions/cache and the cache service
		{
			Gates: []string{"Cache service responded with "},
			RE:    reActionsCacheStatus,
			Build: func(c *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
				status := failure.Atoi(m[1])
				if status < 400 || status > 599 {
					return failure.Hit{}, false
				}
				vd := actionsStatus(c, status, strings.Contains(line, "getCacheEntry"))
				h := failure.Hit{Class: vd.Class, Code: vd.Code, Rank: failure.RankStatus, Reason: "the Actions cache service answered " + failure.StatusName(status), Remedy: vd.Remedy}
				if vd.Class == failure.Transient {
					h.Remedy = remedyActionsService
				}
				return demoted(h, line), true
			},
		},
		{
			Gates: []string{"Unable to reserve cache with key"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				reason := "the cache key already exists or another job is saving it: nothing was saved"
				if m := reActionsCacheKey.FindStringSubmatch(line); m != nil {
					reason = "cache key " + failure.Clip(m[1]) + " already exists or another job is saving it: nothing was saved"
				}
				// actions/cache only reports it: it never fails the job
				return failure.Hit{Class: failure.Structural, Code: CodeActionsCacheKeyTaken, Rank: rankActionsWarning, Reason: reason, Remedy: remedyCacheKeyTaken}, true
			},
		},
		{
			Gates: []string{"Path Validation Error: "},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				h := failure.Hit{Class: failure.Structural, Code: CodeActionsCachePath, Rank: failure.RankTool,
					Reason: "actions/cache: none of the paths to cache exist, so nothing is saved",
					Remedy: "make `path:` name the directories the build really writes (or fix the working directory); every run repeats this until then"}
				if strings.Contains(line, "At least one") {
					h.Reason = "actions/cache: no path to cache was given"
				}
				return demoted(h, line), true
			},
		},
		{
			Gates: []string{"Cache size of"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !strings.Contains(line, "not saving cache") {
					return failure.Hit{}, false
				}
				h := failure.Hit{Class: failure.Structural, Code: CodeActionsCacheTooLarge, Rank: failure.RankTool,
					Reason: "actions/cache: the cache is over the size limit, not saved",
					Remedy: "cache less (narrower paths, exclude build output) so the archive stays under the limit"}
				return demoted(h, line), true
			},
		},
		{
			Gates: []string{"Failed to restore cache entry"},
			RE:    reActionsCacheMiss,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				reason := "no cache entry for the key (fail-on-cache-miss)"
				if m[1] != "" {
					reason = "no cache entry for key " + failure.Clip(m[1]) + " (fail-on-cache-miss)"
				}
				return failure.Hit{Class: failure.Unknown, Code: CodeActionsCacheMiss, Rank: failure.RankTool, Reason: reason,
					Remedy: "the key has no saved cache visible to this branch (never saved, evicted, or the save failed): save it first or drop fail-on-cache-miss; re-run only if the cache service was failing"}, true
			},
		},

		// setup-node, setup-python, setup-go, setup-java: version lookups
		{
			Gates: []string{"Unable to find ", "not found"},
			RE:    reActionsVersionNF,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				var reason string
				switch {
				case m[2] != "":
					reason = failure.Clip(m[1]) + " version " + failure.Clip(m[2]) + " does not exist for " + failure.Clip(m[3]) + "/" + failure.Clip(m[4])
				case m[5] != "":
					reason = "version " + failure.Clip(m[5]) + " does not exist for architecture " + failure.Clip(m[6]) + " on this runner's OS"
				default:
					reason = "version " + failure.Clip(m[7]) + " does not exist for architecture " + failure.Clip(m[8])
				}
				return failure.Hit{Class: failure.Absent, Code: CodeActionsVersionNotFound, Rank: failure.RankTool, Reason: reason,
					Remedy: "no build of that version for this OS and architecture: ask for a version published for it (see the action's versions manifest), another architecture, or another runner image"}, true
			},
		},
		{
			Gates: []string{"Could not find satisfied version"},
			RE:    reActionsSemver,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Structural, Code: CodeActionsVersionSpec, Rank: failure.RankTool,
					Reason: "no version of the distribution satisfies " + failure.Clip(m[1]),
					Remedy: "change the version spec (or the distribution) to one in the available list the action printed"}, true
			},
		},

		// the runner: downloading and resolving actions
		{
			Gates: []string{"Response status code does not indicate success: "},
			RE:    reActionsRespStatus,
			Build: func(c *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
				status := failure.Atoi(m[1])
				if status < 400 || status > 599 {
					return failure.Hit{}, false
				}
				before := actionsBefore(c, line)
				if !strings.Contains(before, "Failed to download action") && !strings.Contains(before, "Failed to resolve action download info") {
					return failure.StatusHit(c, status, failure.RankStatus)
				}
				action := "an action"
				if d := reActionsDownloadURL.FindStringSubmatch(before); d != nil {
					action = failure.Clip(d[1])
					if d[2] != "" {
						action += "@" + failure.Clip(d[2])
					}
				}
				st := failure.StatusName(status)
				var h failure.Hit
				switch vd := failure.StatusVerdict(status, "", c.Tool); {
				case vd.Class == failure.Transient:
					h = failure.Hit{Class: failure.Transient, Code: CodeActionsDownloadFailed, Rank: failure.RankTool,
						Reason: "the runner could not download " + action + " (" + st + ")", Remedy: remedyActionsService}
				case status == 404 || status == 410:
					h = failure.Hit{Class: failure.Structural, Code: CodeActionsUnresolved, Rank: failure.RankTool,
						Reason: "the runner found no " + action + " to download (" + st + ")", Remedy: remedyActionRef}
				default:
					h = failure.Hit{Class: vd.Class, Code: vd.Code, Rank: failure.RankTool, Reason: "the runner could not download " + action + " (" + st + ")", Remedy: vd.Remedy}
				}
				return demoted(h, line), true
			},
		},
		{
			Gates: []string{"Unable to resolve action"},
			RE:    reActionsResolve,
			Build: func(_ *failure.ScanCtx, line string, m []string) (failure.Hit, bool) {
				why := "repository not found"
				if l := strings.ToLower(m[2]); strings.Contains(l, "version") || strings.Contains(l, "ref") {
					why = failure.Clip(m[2])
				}
				return failure.Hit{Class: failure.Structural, Code: CodeActionsUnresolved, Rank: failure.RankTool,
					Reason: "the runner cannot resolve action " + failure.Clip(strings.TrimRight(m[1], ".")) + ": " + why, Remedy: remedyActionRef}, true
			},
		},
		{
			Gates: []string{"Failed to resolve action download info"},
			Frame: true,
			Build: func(c *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				_, msg, _ := strings.Cut(line, "download info")
				msg = strings.TrimLeft(msg, ". ")
				msg = strings.TrimPrefix(msg, "Error: ")
				if h, ok := c.Phrase(msg); ok {
					h.Reason = "the runner could not resolve the job's actions: " + h.Reason
					h.Rank = max(h.Rank, failure.RankTool)
					return demoted(h, line), true
				}
				return failure.Hit{Class: failure.Unknown, Code: CodeActionsResolveFailed, Rank: failure.RankTool,
					Reason: "the runner could not resolve the job's actions: " + failure.Clip(msg),
					Remedy: "read the runner's error: a wrong `uses:` needs fixing, an outage passes (re-run when githubstatus.com is green)"}, true
			},
		},
		{
			Gates: []string{"Can't find 'action.yml'"},
			Build: func(_ *failure.ScanCtx, _ string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Structural, Code: CodeActionsUnresolved, Rank: failure.RankTool, Reason: "no action.yml at the action's path",
					Remedy: "check out the repository before a local action (uses: ./...) runs, or fix the action's path"}, true
			},
		},
		{
			Gates: []string{"Actions in this workflow must be", "The action "},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				reason := "the repository's Actions policy does not allow the action"
				m := reActionsNotAllowed.FindStringSubmatch(line)
				switch {
				case m != nil:
					reason = "the Actions policy of " + failure.Clip(m[2]) + " does not allow " + failure.Clip(m[1])
				case !strings.Contains(line, "all actions must be from") && !strings.Contains(line, "Actions in this workflow must be"):
					return failure.Hit{}, false
				}
				return failure.Hit{Class: failure.Policy, Code: CodeActionsNotAllowed, Rank: failure.RankTool, Reason: reason,
					Remedy: "allow the action in the repository's or organisation's Settings → Actions → General (allowed actions), or use an allowed one"}, true
			},
		},
		{
			Gates: []string{"This request has been automatically failed"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				reason := "GitHub fails requests from a deprecated action version"
				if m := reActionsDeprecated.FindStringSubmatch(line); m != nil {
					reason = "GitHub fails requests from the deprecated " + failure.Clip(m[1])
				}
				return failure.Hit{Class: failure.Structural, Code: CodeActionsDeprecated, Rank: failure.RankTool, Reason: reason,
					Remedy: "upgrade the action in `uses:` (actions/upload-artifact@v4, actions/cache@v4): a deprecated version is refused on purpose"}, true
			},
		},

		// permissions the workflow must grant, inputs it must pass, commands it writes
		{
			Gates: []string{"ID_TOKEN_REQUEST_"},
			RE:    reActionsOIDC,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Policy, Code: CodeActionsOIDC, Rank: failure.RankTool,
					Reason: "no OIDC token for the job (" + m[1] + " is not set)",
					Remedy: "grant the job `permissions: id-token: write` (pull requests from forks never get an OIDC token)"}, true
			},
		},
		{
			Gates: []string{"Input required and not supplied: "},
			RE:    reActionsInput,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				name := failure.Clip(m[1])
				return failure.Hit{Class: failure.Structural, Code: CodeActionsInputMissing, Rank: failure.RankTool,
					Reason: "the step was not given its required input " + name,
					Remedy: "pass `with: " + name + ":` to the step; an input taken from a secret is empty where the secret is not set or not given (forks, Dependabot)"}, true
			},
		},
		{
			Gates: []string{"Unable to process file command '", "The `"},
			RE:    reActionsCommand,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				reason := "the step wrote a malformed " + failure.Clip(m[1]) + " file command"
				remedy := "write NAME=value lines (a multi-line value needs the NAME<<DELIMITER form) to $GITHUB_OUTPUT / $GITHUB_ENV"
				if m[2] != "" {
					reason = "the ::" + failure.Clip(m[2]) + ":: workflow command is disabled"
					remedy = "write to $GITHUB_OUTPUT, $GITHUB_ENV or $GITHUB_PATH instead of the disabled ::" + failure.Clip(m[2]) + ":: command"
				}
				return failure.Hit{Class: failure.Structural, Code: CodeActionsCommand, Rank: failure.RankTool, Reason: reason, Remedy: remedy}, true
			},
		},

		{
			Gates: []string{"The template is not valid", "The workflow is not valid", "Invalid workflow file", "Unrecognized named-value: '"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				return failure.Hit{Class: failure.Structural, Code: CodeActionsWorkflowInvalid, Rank: failure.RankTool, Reason: "GitHub rejected the workflow file or an expression in it",
					Remedy: "fix the workflow YAML at the line and column the error names (an unknown context, a bad expression, a missing key); nothing runs until it parses"}, true
			},
		},

		// billing, limits, cancellation and the runner machine
		{
			Gates: []string{"The job was not started because"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !strings.Contains(line, "payments") && !strings.Contains(line, "spending limit") && !strings.Contains(line, "billing") {
					return failure.Hit{}, false
				}
				return failure.Hit{Class: failure.Policy, Code: failure.CodeQuotaExhausted, Rank: failure.RankTool,
					Reason: "GitHub did not start the job: the account's Actions billing (a failed payment or the spending limit)",
					Remedy: "settle the account's billing (Settings → Billing and plans: payment method, spending limit); jobs start again once it is"}, true
			},
		},
		{
			Gates: []string{"The job running on runner", "The job has exceeded the maximum execution time", "' has timed out after "},
			RE:    reActionsTimeout,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				reason := "the job ran past its time limit of " + failure.Clip(m[2])
				switch {
				case m[1] != "":
					reason += " on " + failure.Clip(m[1])
				case strings.Contains(m[0], "awaiting a runner"):
					reason = "no runner picked the job up within " + failure.Clip(m[2])
				}
				if m[2] == "" {
					reason = "the step " + failure.Clip(m[3]) + " ran past its timeout of " + failure.Clip(m[4])
				}
				return failure.Hit{Class: failure.Unknown, Code: CodeActionsTimeout, Rank: failure.RankTool, Reason: reason,
					Remedy: "the job or step ran out of time (timeout-minutes; 6 hours on GitHub-hosted runners): make it faster, split it or raise timeout-minutes; re-run by hand only if it hung"}, true
			},
		},
		{
			Gates: []string{"The operation was cancel", "The job was canceled because", "The run was canceled by"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				h := failure.Hit{Class: failure.Unknown, Code: failure.CodeCancelled, Rank: failure.RankTool, Reason: "the runner cancelled the job or step (a user, a timeout, fail-fast or a concurrency group)",
					Remedy: "see why the run was cancelled (its annotations); re-run it by hand if the cancellation was not meant"}
				return demoted(h, line), true
			},
		},
		{
			Gates: []string{"The hosted runner", "The self-hosted runner", "The runner has received a shutdown signal"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				if !strings.Contains(line, "lost communication with the server") && !strings.Contains(line, "encountered an error while running your job") && !strings.Contains(line, "shutdown signal") {
					return failure.Hit{}, false
				}
				return failure.Hit{Class: failure.Unknown, Code: CodeActionsRunnerLost, Rank: failure.RankTool, Reason: "the runner machine went away during the job (shut down, starved or cut off)",
					Remedy: "re-run the job by hand; if it recurs, the job exhausts the runner's memory, CPU or network (use a larger runner, or less parallelism)"}, true
			},
		},
		{
			Gates: []string{"space left on device", "You are running out of disk space"},
			Build: func(_ *failure.ScanCtx, line string, _ []string) (failure.Hit, bool) {
				h := failure.Hit{Class: failure.Unknown, Code: CodeActionsDiskFull, Rank: failure.RankRefusal, Reason: "the runner's disk is full",
					Remedy: "environment must change: free disk space in the job (remove unused tool caches, docker images) or use a runner with a larger disk; retrying will not help"}
				return demoted(h, line), true
			},
		},
		{
			Gates: []string{"Process completed with exit code ", "The process '"},
			RE:    reActionsExit,
			Build: func(_ *failure.ScanCtx, _ string, m []string) (failure.Hit, bool) {
				reason := "a step exited with code " + m[1]
				if m[1] == "" {
					reason = failure.Clip(m[2]) + " exited with code " + m[3]
				}
				return failure.Hit{Class: failure.Unknown, Code: CodeActionsStepFailed, Rank: rankActionsStep, Reason: reason + " (the cause is in its output)",
					Remedy: "read the step's own output above this line; if its failure is known to pass on a second try, add --retry-on REGEX for it (or --stop-on)"}, true
			},
		},
	},
}

func actionsArtifactExists() failure.Hit {
	return failure.Hit{Class: failure.Structural, Code: CodeActionsArtifactExists, Rank: failure.RankTool,
		Reason: "upload-artifact: an artifact with this name already exists in the workflow run",
		Remedy: "artifact names must be unique in a run (upload-artifact v4): put the matrix values in the name, or set overwrite: true"}
}

func actionsServiceReason(method, what string) string {
	if method == "" {
		return "the Actions service failed: " + what
	}
	return "the Actions service failed " + failure.Clip(method) + ": " + what
}
