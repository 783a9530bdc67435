package failure

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The generic layer: what any tool says the same way, for the tools no
// recogniser knows (gem, nuget, maven, wrangler, vercel, netlify,
// firebase, aws, terraform, helm, git-lfs, ssh, go modules, ...). It runs
// under the tool recognisers (its ranks sit below theirs where both may
// speak) and reads three things:
//
//   - the HTTP status a tool reports, in the shapes tools print it ("HTTP
//     Error: 500", "Return code is: 401", "StatusCode: 403", "Response
//     status code does not indicate success: 409 (Conflict)", .NET's
//     "Conflict https://host/path 449ms"), decided by statusVerdict with
//     the request's method when the text gives it;
//   - universal phrases, as a table of rows (phraseRows): credentials,
//     permission, existence, absence, validation, quotas and billing,
//     throttling, servers failing, network words;
//   - waits: a stated wait or reset the run cannot make (longer than its
//     --max-elapsed: "try again in 11 days", "in 24h", "next month", "after
//     the billing cycle") is a quota spent for the run, policy.
//
// Every verdict carries a code naming no tool (auth-rejected,
// permission-denied, already-exists, http-NNN, ...), so a report tells a
// generic verdict from a tool's own.

// The generic layer's codes.
const (
	// CodeAuthRejected: the credentials are missing, invalid or expired.
	CodeAuthRejected Code = "auth-rejected"
	// CodePermissionDenied: the credentials are valid but may not do this.
	CodePermissionDenied Code = "permission-denied"
	// CodeAlreadyExists: the thing to create or publish exists already.
	CodeAlreadyExists Code = "already-exists"
	// CodeNotFound: a lookup found nothing (an API's not-found error code).
	CodeNotFound Code = "not-found"
	// CodeValidation: the service rejected the request's content.
	CodeValidation Code = "validation-failed"
	// CodeThrottled: the service throttles the caller for now.
	CodeThrottled Code = "throttled"
	// CodeServiceUnavailable: the service failed on its side.
	CodeServiceUnavailable Code = "service-unavailable"
	// CodePushTooLarge: a push over the host's size limit.
	CodePushTooLarge Code = "push-too-large"
	// CodeGitIdentity: git has no user.name/user.email to commit with.
	CodeGitIdentity Code = "git-identity-unknown"
)

// The ranks of the generic layer, relative to the scanner's.
const (
	rankGenericNet    = RankTransport - 2 // below the network recognisers
	rankGenericServer = RankTransport + 2 // a server's failure, above transport noise
	rankGenericPhrase = RankStatus - 4    // a refusal's words, below an explicit status
	rankGenericStatus = RankStatus        // a status the tool reports explicitly
	rankGenericExists = RankStatus - 3    // existence: a 409 on a publish says the same
	rankGenericQuota  = RankRateLimit + 2 // a spent quota or a plan limit beats "rate limit"
	rankGenericWait   = RankRateLimit     // a wait the run cannot make ties "rate limit" (and a stop wins a tie), not a tool's own verdict
)

const (
	remedyAuthRejected = "the credentials are missing, invalid, expired or revoked: set a valid token or key in the job's secrets (and the variable or login the tool reads); retrying cannot succeed"
	remedyPermission   = "the credentials are valid but lack the permission: grant the role, scope or policy the operation needs (or use credentials that have it); retrying cannot succeed"
	remedyExists       = "it exists already and cannot be overwritten: bump the version (or name), or treat an existing one as done (a skip-duplicate option); resending fails the same way"
	remedyValidation   = "the service rejects the request's content: fix it (see the message); resending it unchanged fails the same way"
	remedyNotFound     = "not there: treat it as not found, or fix the name (a resource the credentials cannot see also looks absent)"
	remedyThrottled    = "the service throttles the caller: retrying after a backoff; slow down or raise the limit if it recurs"
	remedyServer       = "the service failed on its side: retrying after a backoff; if it lasts, check the service's status page"
	remedyPlan         = "a plan or billing limit: upgrade the plan, fix billing, or wait for the period to reset; retrying within the run cannot succeed"
)

// phraseRow is one row of the universal phrase table: when a line holds
// one of gates and matches re, it is classified as class with code, at
// rank, with reason (re's match is appended) and remedy. A row whose
// quota is set decides through quotaVerdict (a short reset is a rate
// limit); unless, when set, drops a line it matches.
type phraseRow struct {
	gates  []string
	re     string // "" when a gate alone decides
	class  Class
	code   Code
	rank   int
	reason string
	remedy string
	quota  bool
	unless string
	// fixed keeps reason as it is (the match is not quoted into it).
	fixed bool
	// plain rows are a tool recogniser's constant rows moved into a table:
	// their gates are matched as written, and they speak wherever their
	// words appear (a frame's message, an HTTP answer's body, a warning),
	// as the closures they replace did.
	plain bool
	tr    TraceBits
}

// phraseRows is the table. Rows are data: a new wording of a known kind is
// a new gate and alternative, not a new function.
var phraseRows = []phraseRow{
	// credentials
	{gates: []string{"nvalid token", "nvalid credentials", "nvalid access token", "nvalid auth", "nvalid API token", "nvalid api token"},
		re: `(?i)invalid (?:api |access |auth(?:entication)? |bearer |oauth )?(?:token|credentials)\b`, class: Policy, code: CodeAuthRejected, rank: rankGenericPhrase, reason: "credentials rejected", remedy: remedyAuthRejected},
	// a message asking to confirm the credentials are valid (Cloudflare's
	// 6003 "Please confirm that you have supplied valid Cloudflare API
	// credentials") says they were refused
	{gates: []string{"onfirm that you", "ake sure you", "heck that you", "nsure that you", "erify that you", "ake sure that you"},
		re: `(?i)\b(?:confirm|make sure|check|ensure|verify)(?: that)? you (?:have )?(?:supplied|provided|are using|used|entered|set) (?:a |the )?valid (?:[\w-]+ ){0,2}(?:credentials|token|key|password)\b`, class: Policy, code: CodeAuthRejected, rank: rankGenericPhrase, reason: "the message asks to confirm valid credentials were supplied", remedy: remedyAuthRejected},
	{gates: []string{"nauthorized", "nauthorised", "NAUTHORIZED", "nauthorizedOperation"},
		re: `(?i)(?:^|\berror\b:?|:|›|\(|\bis|\bare)\s*unauthori[sz]ed\b|(?-i:\bUNAUTHORIZED\b|Unauthorized(?:Operation|Access|Exception))`, class: Policy, code: CodeAuthRejected, rank: rankGenericPhrase, reason: "unauthorized", remedy: remedyAuthRejected},
	{gates: []string{"uthentication failed", "uthentication error", "uthentication required", "uthentication is required", "AUTHENTICATION_FAILED"},
		re: `(?i)authentication (?:failed|error|(?:is )?required)`, class: Policy, code: CodeAuthRejected, rank: rankGenericPhrase, reason: "authentication failed", remedy: remedyAuthRejected,
		unless: `(?i)proxy authentication|\b407\b`},
	{gates: []string{"Permission denied (publickey", "ermission denied (publickey"},
		re: `(?i)permission denied \(publickey[^)]*\)`, class: Policy, code: CodeAuthRejected, rank: rankGenericPhrase, reason: "the SSH key was refused",
		remedy: "the SSH server refuses the key: install the right private key (a deploy key with access, complete and in OpenSSH format) or use an HTTPS remote with a token; retrying cannot succeed"},
	{gates: []string{"InvalidAccessKeyId", "InvalidClientTokenId", "ExpiredToken", "SignatureDoesNotMatch", "UnrecognizedClientException", "ecurity token included in the request is", "SecurityToken.Expired", "InvalidSecurity", "AuthFailure"},
		re: `InvalidAccessKeyId|InvalidClientTokenId|ExpiredToken(?:Exception)?|SignatureDoesNotMatch|UnrecognizedClientException|security token included in the request is (?:invalid|expired)|SecurityToken\.Expired|InvalidSecurity|AuthFailure`, class: Policy, code: CodeAuthRejected, rank: rankGenericPhrase + 2, reason: "cloud credentials rejected",
		remedy: "the cloud credentials are invalid or expired: refresh them (re-run the OIDC/assume-role step, rotate the access key, check the secret's name and the region or partition); retrying cannot succeed"},
	{gates: []string{"ad credentials", "ad Credentials"},
		re: `(?i)bad credentials`, class: Policy, code: CodeAuthRejected, rank: rankGenericPhrase, reason: "bad credentials", remedy: remedyAuthRejected},
	{gates: []string{"oken has expired", "oken expired", "oken is expired", "xpired token", "oken was revoked", "oken has been revoked", "nvalid_grant", "ot logged in", "lease log in", "lease login", "lease sign in", "ign up for an account",
		"oken is invalid", "ey is invalid", "oken is not valid", "ey is not valid", "redentials are not valid", "redentials are invalid", "redentials is invalid", "assword is invalid", "oken was invalid", "as been revoked", "ave been revoked", "ey was revoked", "ey has expired", "eys have expired", "ust be authenticated", "ust be logged in", "ust be signed in", "ot authenticated", "nauthenticated", "UNAUTHENTICATED",
		"rovide credentials", "redentials required", "ccess token is required", "pi token is required", "uth token is required", "earer token is required", "ey is required", "ogin required", "ogin is required", "ailed to authenticate", "nable to locate credentials", "NoCredentialProviders", "o valid credential", "ould not load credentials", "oo many authentication failures", "Load key"},
		re: `(?i)token (?:has |is |was )?(?:expired|been revoked|revoked)|expired token|invalid_grant|not logged in|please (?:log ?in|sign in)|sign up for an account|(?:token|key|credentials?|password) (?:is|are|was) (?:invalid|expired|revoked|incorrect|not valid)|(?:api[ _-]?key|access key|secret key|token|credentials?|password)s? (?:has been|have been|was|were|has|have) (?:revoked|expired|deactivated)|must be (?:authenticated|logged in|signed in)|\bnot authenticated|\bunauthenticated\b|provide (?:valid )?credentials|(?:credentials|login|(?:an |the )?(?:access|api|auth|bearer) token|(?:an |the )?api[ _-]?key) (?:is |are )?required|failed to authenticate|unable to locate credentials|NoCredentialProviders|no valid credential|could not load credentials|too many authentication failures|Load key "[^"]*": (?:invalid format|error in libcrypto|bad permissions)`, class: Policy, code: CodeAuthRejected, rank: rankGenericPhrase, reason: "credentials expired or missing", remedy: remedyAuthRejected},
	// permission
	{gates: []string{"ccess denied", "ccess Denied", "ccessDenied", "ACCESS_DENIED", "ccess is denied"},
		re: `AccessDenied|ACCESS_DENIED|(?i:access (?:is )?denied)(?:[.,)]|\s*\(|\s*$|\s+for\b|\s+to\b|\s+by\b)`, class: Policy, code: CodePermissionDenied, rank: rankGenericPhrase, reason: "access denied", remedy: remedyPermission,
		unless: `(?i)EACCES|access denied for user '|\.(?:so|dll)\b|/(?:usr|etc|var|home|tmp)/`},
	{gates: []string{"ot authorized to perform", "ot authorised to perform", "ot authorized for th", "ot authorised for th", "nsufficient scope", "nsufficient_scope", "nsufficient permission", "nsufficient privileges", "PERMISSION_DENIED", "does not have permission", "do not have permission", "not have the necessary", "n't have the necessary", "don't have permission", "ot have the required permission", "ermission denied on", "denied on resource", "ccess forbidden", "AuthorizationFailed", "AuthorizationError"},
		re: `(?i)not authori[sz]ed to perform|not authori[sz]ed for (?:this|that|the) (?:action|operation|request|resource|package)|insufficient[ _](?:scopes?|permissions?|privileges)|PERMISSION_DENIED|(?:does|do)(?: not|n't) have (?:the (?:required |necessary )?)?(?:permissions?|privileges)|permission '[^']+' denied|denied on (?:resource|')|access forbidden|Authorization(?:Failed|Error)`, class: Policy, code: CodePermissionDenied, rank: rankGenericPhrase, reason: "permission denied", remedy: remedyPermission},
	{gates: []string{"ot allowed to", "ot permitted to", "ave access", "ccessDeniedException", "ForbiddenException", "AuthorizationFailed", "heck that you have"},
		re: `(?i)\b(?:is|are) not (?:allowed|permitted) to (?:push|publish|upload|deploy|write|modify|access|create|delete|update|use|perform|manage|view|read)\b|(?:does not|doesn't|do not|don't) have (?:the required |sufficient |enough )?access\b|AccessDeniedException|ForbiddenException|AuthorizationFailed|check that you have (?:the )?(?:proper |correct |required )?access`, class: Policy, code: CodePermissionDenied, rank: rankGenericPhrase, reason: "permission denied", remedy: remedyPermission,
		unless: `(?i)overwrit|re-?push|re-?publish|re-?upload|re-?deploy`},
	{gates: []string{"ermission '"},
		re: `(?i)permission '[^']+' denied`, class: Policy, code: CodePermissionDenied, rank: rankGenericPhrase, reason: "permission denied", remedy: remedyPermission},
	{gates: []string{"Forbidden", "forbidden", "FORBIDDEN"},
		re: `(?i)(?:^|error:?|\berror\b[^\n]{0,40}|\b\d{3}\b\W{0,3}|›)\s*forbidden\b`, class: Policy, code: CodePermissionDenied, rank: rankGenericPhrase - 2, reason: "forbidden", remedy: remedyPermission},
	// existence
	{gates: []string{"lready exists", "lready exist", "ALREADY_EXISTS", "lreadyExists", "lready been published", "lready been uploaded", "lready published", "lready has version"},
		re: `(?i)already[ _]?exists?|already been (?:published|uploaded|deployed)|already published|already has (?:a )?version\b`, class: Structural, code: CodeAlreadyExists, rank: rankGenericExists, reason: "it already exists", remedy: remedyExists,
		unless: `(?i)\block\b|\.lock\b|not an empty directory|in progress|\bcache\b|file (?:already )?exists|directory already exists|cannot create (?:regular file|directory)`},
	{gates: []string{"annot overwrite", "annot be overwritten", "ot allowed to overwrite", "overwrite", "epushing", "e-pushing", "epublish", "edeploy", "uplicate version", "uplicate package", "uplicate artifact", "uplicate release"},
		re: `(?i)cannot (?:be )?overwrit(?:e|ten)|not allowed to overwrite|(?:re-?push(?:ing)?|re-?publish(?:ing)?|re-?deploy(?:ing)?|re-?upload(?:ing)?|overwriting)\b[^\n]{0,50}\bnot (?:allowed|permitted)|duplicate (?:version|package|artifact|release)`, class: Structural, code: CodeAlreadyExists, rank: rankGenericExists, reason: "the version exists and cannot be replaced", remedy: remedyExists},
	{gates: []string{"till in use", "lready in use", "lready taken", "s taken"},
		re: `(?i)\b(?:name|version|tag|slug|release|package|subdomain|domain|project|app(?:lication)?|bucket)\b[^\n]{0,50}?\b(?:is |was )?(?:already|still) (?:in use|taken)\b|\bname is (?:already )?taken\b`, class: Structural, code: CodeAlreadyExists, rank: rankGenericExists, reason: "the name is taken", remedy: remedyExists,
		unless: `(?i)address already in use|EADDRINUSE|port`},
	// absence (an API's own not-found codes: the words "not found" alone
	// are too common: "command not found" is not a lookup)
	{gates: []string{"NoSuchKey", "NoSuchBucket", "NotFoundException", "ResourceNotFound", "NOT_FOUND", "NoSuchEntity", "\"code\": 404", "\"code\":404"},
		re: `NoSuchKey|NoSuchBucket|NoSuchEntity|\w*NotFoundException|ResourceNotFound|\bNOT_FOUND\b|"code":\s*404\b`, class: Absent, code: CodeNotFound, rank: rankGenericPhrase - 2, reason: "not found", remedy: remedyNotFound},
	// validation
	{gates: []string{"nvalid argument", "nvalidArgument", "INVALID_ARGUMENT", "alidation failed", "alidationError", "alidationException", "nprocessable", "alidation error", "s malformed", "ust be one of"},
		re: `(?i)invalid[ _]?argument|validation (?:failed|error)|Validation(?:Error|Exception)|unprocessable|\bis malformed\b|\bmust be one of\b`, class: Structural, code: CodeValidation, rank: rankGenericPhrase - 2, reason: "the request is invalid", remedy: remedyValidation,
		unless: `(?i)malformed response`},
	{gates: []string{"oo large", "oo big", "xceeds the maximum", "xceeds maximum", "xceeds the max", "ust be less than or equal to", "hecksum mismatch", "SECURITY ERROR"},
		re: `(?i)\b(?:payload|request|file|script|body|bundle|artifact|upload|archive|package|image|object|blob|asset|entity|worker)\b[^\n]{0,40}?\btoo (?:large|big)\b|exceeds? (?:the )?(?:maximum|max) (?:allowed )?(?:size|file size|upload size|length)|size must be less than or equal to|checksum mismatch|SECURITY ERROR`, class: Structural, code: CodeValidation, rank: rankGenericPhrase - 2, reason: "the request is too large or does not verify", remedy: "send less (smaller files, split the upload, Git LFS) or fix the content that fails verification; resending it unchanged fails the same way",
		unless: `(?i)pack exceeds|context|prompt|token|\b413\b`},
	// quotas, billing, plans
	{gates: []string{"uota exceeded", "xceeded quota", "over its data quota", "eached the ", "eached your ", "xceeded the ", "xceeded your ", "it the ", "it your ", "over its quota", "over your quota", "over quota", "data packs", "imit exceeded", "LimitExceeded", "imitExceeded", "imits exceeded"},
		re: `(?i)quota (?:exceeded|exhausted|reached)|exceeded (?:the |your |its )?(?:\w+ )?quota|over (?:its|your|the)? ?(?:\w+ )?quota|purchase more data packs|(?:\w+ )?limits? exceeded|\w*LimitExceeded(?:Exception)?|(?:reached|exceeded|hit) (?:the|your|its) (?:\w+ ){0,3}(?:limit|quota|cap)\b`, class: Policy, code: CodeQuotaExhausted, rank: rankGenericQuota, reason: "quota exhausted", quota: true,
		unless: `(?i)request ?limit ?exceeded|rate ?limit|throughput|too many requests|concurrent|connection|retry|context|token limit|size limit|time ?limit|timeout|deadline|recursion|memory|stack|depth`},
	{gates: []string{"rial has", "rial ended", "rial expired", "rial period", "ubscription has", "ubscription expired", "ubscription ended", "ubscription lapsed", "ubscription is", "ayment required", "ayment_required", "illing", "pgrade your plan", "pgrade the plan", "pgrade plan", "pgrade to a paid", "pgrade to pro"},
		re: `(?i)(?:free )?trial (?:period )?(?:has )?(?:ended|expired)|subscription (?:has )?(?:expired|ended|lapsed|is (?:inactive|past due))|payment[ _]required|billing (?:account (?:is )?(?:disabled|not active|required|closed)|hard limit|is (?:disabled|not active)|error|issue|problem)|(?:set up|enable|add|update) (?:your |a )?billing|upgrade (?:your |the )?plan|upgrade to (?:a paid|pro)`, class: Policy, code: CodeQuotaExhausted, rank: rankGenericQuota, reason: "a plan or billing limit", remedy: remedyPlan},
	{gates: []string{"sed all", "sed up all", "ut of build minutes", "ut of minutes", "ut of credits", "redits left", "ore credits", "nough credits", "inutes left", "uilds left", "redits remaining", "inutes remaining", "aximum number of", "ncluded usage", "ncluded minutes", "pending limit"},
		re: `(?i)used (?:up )?all (?:of )?(?:your|the|its) (?:\w+ ){0,3}(?:minutes|credits|builds|hours|deployments|recordings|quota)|out of (?:build )?(?:minutes|credits)|requires? more credits|(?:not enough|insufficient) credits|add more credits|no (?:remaining |more )?(?:credits|minutes|builds) (?:left|remaining)|(?:reached|hit|exceeded) the maximum number of|maximum number of [\w -]{1,40}? (?:has been |was |is )?reached|exceeded (?:your|the|its) (?:\w+ ){0,3}(?:included usage|included minutes|spending limit)`, class: Policy, code: CodeQuotaExhausted, rank: rankGenericQuota, reason: "a plan's allowance is spent", quota: true,
		unless: `(?i)retr|attempt|redirect|connection|concurrent|recursion|depth`},
	// a plan with no quota at all for the thing ("doesn't have a free quota
	// tier"): no reset helps
	{gates: []string{"ree quota tier", "ree tier", "ree-tier"},
		re: `(?i)(?:does not|doesn't|do not|don't) have a free(?: quota)? tier|\bno free(?: quota)? tier\b|not (?:available|supported|included) (?:on|in|for) (?:the |your )?free[ -]tier`, class: Policy, code: CodeQuotaExhausted, rank: rankGenericQuota + 2, reason: "the plan has no quota for it",
		remedy: "this plan or key has no quota for it (the limit is zero): enable billing or a plan that includes it, or use another model; retrying cannot succeed"},
	// a block or ban for abusing limits: not a throttle, whatever status
	// carries it
	{gates: []string{"locked from accessing", "emporarily banned", "emporarily blocked", "een banned", "een blocked", "eing blocked", "eing banned"},
		re: `(?i)\b(?:being |been )?(?:blocked|banned) from (?:accessing|using)\b|\btemporarily (?:banned|blocked)\b|\b(?:has|have) been (?:banned|blocked)\b`, class: Policy, code: CodePermissionDenied, rank: RankTool, reason: "the service blocks this client (a ban, not a throttle)",
		remedy: "the service has blocked or banned this client (often for exceeding its limits repeatedly): stop, slow the job down and wait for the block to lift (or ask the service); retrying within the run prolongs it",
		plain:  true}, // it speaks in an answer's body too: the body says more than its 429
	// git-lfs asking git for credentials it has none for, and a CLI that
	// cannot find the named thing (Heroku's "Couldn't find that app.")
	{gates: []string{"it credentials for"},
		re: `Git credentials for \S+ not found`, class: Policy, code: CodeAuthRejected, rank: rankGenericPhrase + 2, reason: "no credentials for the remote", remedy: remedyAuthRejected},
	{gates: []string{"ouldn't find that ", "ould not find that "},
		re: `(?i)could(?:n't| not) find that (?:app|pipeline|team|add-?on|space|domain|release|dyno|config var|account|organi[sz]ation)\b`, class: Structural, code: CodeNotFound, rank: rankGenericPhrase, reason: "the command names something that does not exist",
		remedy: "fix the name the command sends (the app, pipeline or team), or give the credentials access to it; resending it unchanged fails the same way"},
	// a project not set up for the step: nothing configured to build or
	// deploy from ("app does not have a Dockerfile or buildpacks configured",
	// "has no build command configured"), or an image the step names that is
	// not there ("Could not find image"); credentials not configured are
	// the credential rules' (policy).
	{gates: []string{"configured"},
		re: `(?i)\b(?:does not|doesn't|do not|don't) have (?:an? |any )?[\w./-]+(?: [\w./-]+){0,5} configured\b|\bhas no [\w./-]+(?: [\w./-]+){0,3} configured\b`, class: Structural, code: CodeValidation, rank: rankGenericPhrase - 2, reason: "the project is not set up for the step",
		remedy: "configure what the message names (a Dockerfile, a build section, an environment) in the project; rerunning it unchanged fails the same way",
		unless: `(?i)token|credential|api[ _-]?key|password|secret|\bauth|login|proxy`},
	{gates: []string{"ould not find image", "ouldn't find image", "ould not find the image"},
		re: `(?i)could(?:n't| not) find (?:the )?image\b`, class: Structural, code: CodeNotFound, rank: rankGenericPhrase, reason: "the image the step names does not exist",
		remedy: "build and push the image first, or fix its name or tag; rerunning unchanged fails the same way"},
	// an account or app refused an action by the platform's rule (X's
	// "cannot perform write actions", "looks like it might be automated")
	{gates: []string{"annot perform write actions", "ight be automated"},
		re: `(?i)cannot perform write actions|looks like it might be automated`, class: Policy, code: CodePermissionDenied, rank: rankGenericPhrase, reason: "the platform refuses the action for this account or app", remedy: remedyPermission},
	// words of excess requests, whatever status carries them (Kudu's 406
	// "Excessive SCM Site operation requests"), and a rate limit said to
	// the caller ("We had to rate limit you"): a throttle, whose window
	// and wait the wait readers judge
	{gates: []string{"xcessive "},
		re: `(?i)\bexcessive (?:[\w-]+ ){0,4}(?:requests|calls|operations)\b`, class: Transient, code: CodeThrottled, rank: RankTool, reason: "throttled", remedy: remedyThrottled,
		unless: `(?i)per (?:hour|day|week|month)|daily|\b(?:hours?|days?)\b`, plain: true},
	{gates: []string{"o rate limit you", "o rate-limit you", "ou are being rate limited", "ou have been rate limited", "ou are rate limited"},
		re: `(?i)\bto rate[- ]limit you\b|\byou (?:are being|have been|are) rate[- ]limited\b`, class: Transient, code: CodeThrottled, rank: RankRateLimit - 1, reason: "throttled", remedy: remedyThrottled},
	// a concurrency limit: it clears when the running build or job ends
	{gates: []string{"oncurrent build", "oncurrent job", "oncurrent deploy", "oncurrent run"},
		re: `(?i)\bconcurrent (?:builds?|jobs?|deploy(?:ment)?s?|runs?)(?: limit)?\b[^\n]{0,30}?\b(?:limit|reached|exceeded)\b|\breached (?:its|your|the) concurrent (?:builds?|jobs?|deploy(?:ment)?s?|runs?) limit\b`, class: Transient, code: CodeThrottled, rank: RankTool, reason: "a concurrency limit (it clears when the running job ends)",
		remedy: "another build or job holds the account's concurrency: retrying after it ends; cancel stale builds or raise the limit if it recurs"},
	// throttling (transient): AWS's and Google's throttle codes
	{gates: []string{"RequestLimitExceeded", "Throttling", "ThrottlingException", "TooManyRequestsException", "SlowDown", "RATE_LIMIT_EXCEEDED", "ProvisionedThroughputExceeded"},
		re: `RequestLimitExceeded|Throttling(?:Exception)?|TooManyRequestsException|\bSlowDown\b|RATE_LIMIT_EXCEEDED|ProvisionedThroughputExceeded\w*`, class: Transient, code: CodeThrottled, rank: RankRateLimit, reason: "throttled", remedy: remedyThrottled},
	// "too many requests" in words, with no status: throttling (a status
	// beside it, 429, is read as the status)
	{gates: []string{"oo many requests", "oo Many Requests", "OO MANY REQUESTS"},
		re: `(?i)\btoo many requests\b`, class: Transient, code: CodeThrottled, rank: rankGenericPhrase, reason: "throttled", remedy: remedyThrottled,
		unless: `\b429\b`},
	// the server failing
	{gates: []string{"SERVICE_UNAVAILABLE", "UNAVAILABLE\"", "ervice is currently unavailable", "ervice Unavailable", "ervice unavailable", "nternal error encountered", "nternalServerError", "erviceUnavailable", "InternalFailure", "InternalError", "ServiceException", "try again in a few moments", "ry again later"},
		re: `(?i)SERVICE_UNAVAILABLE|"status"\s*:\s*"UNAVAILABLE"|service (?:is )?(?:currently |temporarily )?unavailable|internal error encountered|InternalServerError|\bServiceUnavailable\b|\bInternalFailure\b|\bInternalError\b|\bServiceException\b|try again in a few moments|try again later`, class: Transient, code: CodeServiceUnavailable, rank: rankGenericServer, reason: "the service failed on its side", remedy: remedyServer},
	{gates: []string{"nexpected condition which prevented", "nexpected server error", "nternal Server Error", "nternal server error", "emporarily unavailable", "emote end closed connection", "RemoteDisconnected", "IncompleteRead", "ChunkedEncodingError", "TaskCanceledException", "HttpClient.Timeout"},
		re: `(?i)server encountered an unexpected condition|unexpected server error|internal server error|temporarily unavailable|remote end closed connection|RemoteDisconnected|IncompleteRead|ChunkedEncodingError|TaskCanceledException|HttpClient\.Timeout`, class: Transient, code: CodeServiceUnavailable, rank: rankGenericServer - 4, reason: "the service or the connection failed", remedy: remedyServer,
		unless: `\b\d{3}\W{0,3}(?i:internal server error)`},
	{gates: []string{"pstream connect error", "disconnect/reset before headers"},
		re: `(?i)upstream connect error or disconnect/reset before headers`, class: Transient, code: CodeServiceUnavailable, rank: rankGenericServer, reason: "the service's proxy could not reach its upstream", remedy: remedyServer},
	// network words the network recognisers do not read
	{gates: []string{"EAI_AGAIN", "UnknownHostException", "emporary failure in name resolution"},
		re: `EAI_AGAIN|UnknownHostException|(?i:temporary failure in name resolution)`, class: Transient, code: CodeDNS, rank: rankGenericNet, reason: "the host name did not resolve", remedy: remedyRetryNet},
	{gates: []string{"ETIMEDOUT", "ESOCKETTIMEDOUT", "ConnectTimeoutError", "UND_ERR_CONNECT_TIMEOUT", "LS handshake timeout", "/o timeout", "SocketTimeoutException", "ERR_SOCKET_CONNECTION_TIMEOUT", "OpenTimeout", "ReadTimeout", "execution expired"},
		re: `ETIMEDOUT|ESOCKETTIMEDOUT|ConnectTimeoutError|UND_ERR_CONNECT_TIMEOUT|SocketTimeoutException|ERR_SOCKET_CONNECTION_TIMEOUT|Net::(?:Open|Read)Timeout|(?i:TLS handshake timeout|i/o timeout|failed to open TCP connection to \S+ \(execution expired\))`, class: Transient, code: CodeTimeout, rank: rankGenericNet, reason: "the connection timed out", remedy: remedyRetryNet},
	{gates: []string{"ECONNRESET", "UND_ERR_SOCKET", "ocket hang up", "network socket disconnected", "onnection reset", "emote host terminated the handshake", "SSLHandshakeException", "Premature EOF"},
		re: `ECONNRESET|UND_ERR_SOCKET|(?i:socket hang up|network socket disconnected|connection reset|remote host terminated the handshake|SSLHandshakeException|premature EOF)`, class: Transient, code: CodeReset, rank: rankGenericNet, reason: "the connection was reset", remedy: remedyRetryNet},
	// A sandbox's or a firewall's own refusal, in any tool's words: the
	// network is refused by policy, not down.
	{gates: []string{"ot allowed in this sandbox", "etwork access", "not in allowlist", "not in the allowlist", "not on the allowlist", "by network policy", "by egress policy", "blocked by firewall", "blocked by the firewall", "omain is not allowed", "omain not allowed"},
		re:    `(?i)not allowed in this sandbox|network access (?:to \S+ )?(?:is )?(?:not allowed|denied|blocked|disabled)|not (?:in|on) (?:the )?allow-?list|blocked by (?:the )?(?:network|egress) policy|blocked by (?:the )?firewall|domain (?:is )?not allowed`,
		class: Policy, code: CodeEgressBlocked, rank: rankGenericPhrase, reason: "the network is refused by policy",
		remedy: "a sandbox or firewall refuses this host: allow it (the sandbox's or firewall's allowlist, or its network setting); retrying cannot succeed"},
	// connect() refused with EPERM: a local policy (a sandbox without network,
	// a firewall's OUTPUT rule), never a network that blinked.
	{gates: []string{"connect: operation not permitted", "EPERM: operation not permitted, connect", "EPERM, connect", "connect EPERM", "Operation not permitted"},
		re:    `connect: operation not permitted|EPERM: operation not permitted, connect|EPERM, connect|connect EPERM \S+:\d+|connect to address \S+: Operation not permitted`,
		class: Policy, code: CodeEgressBlocked, rank: rankGenericNet + 1, reason: "the connection was refused by a local policy (EPERM)",
		remedy: "connect() returned EPERM: a sandbox without network or a firewall's output rule refuses the host; allow it (or enable the sandbox's network); retrying cannot succeed"},
	// Python's requests/urllib3 through conda, pip and friends: "HTTP 000"
	// is no answer at all.
	{gates: []string{"HTTP 000", "Max retries exceeded with url", "NewConnectionError", "Failed to establish a new connection"},
		re: `HTTP 000 CONNECTION FAILED|(?i:failed to establish a new connection)`, class: Transient, code: CodeConnectFailed, rank: rankGenericNet, reason: "the connection could not be opened", remedy: remedyRetryNet},
	{gates: []string{"nexpected EOF"},
		re: `(?i)unexpected EOF`, class: Transient, code: CodeUnexpectedEOF, rank: rankGenericNet, reason: "the connection closed early", remedy: remedyRetryNet},
}

// gateVariants returns gates with their capitalised and upper-case forms
// ("alidation failed" finds "Validation Failed" and "VALIDATION FAILED"):
// a gate starts inside a word, so only the letters after a space are
// capitalised.
func gateVariants(gates []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(g string) {
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	for _, g := range gates {
		add(g)
		b := []byte(g)
		for i := 1; i < len(b); i++ {
			if b[i-1] == ' ' && b[i] >= 'a' && b[i] <= 'z' {
				b[i] -= 'a' - 'A'
			}
		}
		add(string(b))
		add(strings.ToUpper(g))
	}
	return out
}

// phraseMatchers turns the table into matchers.
func phraseMatchers(rows []phraseRow) []Matcher {
	out := make([]Matcher, len(rows))
	for i := range rows {
		r := rows[i]
		var re, unless *LazyRegexp
		if r.re != "" {
			re = LazyRE(r.re)
		}
		if r.unless != "" {
			unless = LazyRE(r.unless)
		}
		gates := r.gates
		if !r.plain {
			gates = gateVariants(gates)
		}
		out[i] = Matcher{Gates: gates, RE: re, Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			if !r.plain && (c.inFrame || c.answer || notAFailureLine(line)) || unless != nil && unless.MatchString(line) {
				return Hit{}, false
			}
			what := ""
			if len(m) > 0 {
				what = m[0]
			}
			if r.quota {
				return quotaVerdict(c, line, what, r.rank), true
			}
			h := Hit{Class: r.class, Code: r.code, Rank: r.rank, Reason: r.reason, Remedy: r.remedy, Trace: r.tr}
			if !r.fixed {
				h.Reason += " (\"" + Clip(what) + "\")"
			}
			if r.class == Transient && r.code != CodeThrottled && !r.plain {
				h.Trace = TrNet
			}
			return h, true
		}}
	}
	return out
}

var (
	// reStatusShapes: a status a tool reports explicitly, in the shapes
	// tools print it; the first non-empty group is the status.
	// "failed (401)" is a status: an exit status is at most 255.
	reStatusShapes = LazyRE(`(?i)\bHTTP[ _-]?Error:?\s*([45]\d\d)\b|\bdoes not indicate success:\s*([45]\d\d)\b|\b(?:return|response|http|status)[ _-]?code(?: is)?\s*[:=]?\s*([45]\d\d)\b|\b(?:error(?: occurred)?:?|failed) \(([45]\d\d)\)|\bstatusCode"?\s*[:=]\s*([45]\d\d)\b|^\s*(?:Error|error|ERROR):\s*([45]\d\d)(?::|\s+[A-Za-z])|\b(?:googleapi: Error|RESPONSE|Error code:?|error code:?) ([45]\d\d)\b|\breceived status code ([45]\d\d)\b|\b([45]\d\d) (?:Client|Server) Error\b`)
	// reDotNetStatus: .NET's HttpStatusCode name before the URL, as nuget
	// prints each response ("  Conflict https://host/path 449ms").
	reDotNetStatus = LazyRE(`^\s*(BadRequest|Unauthorized|PaymentRequired|Forbidden|NotFound|MethodNotAllowed|NotAcceptable|RequestTimeout|Conflict|Gone|RequestEntityTooLarge|UnprocessableEntity|TooManyRequests|InternalServerError|BadGateway|ServiceUnavailable|GatewayTimeout) https?://\S+ \d+ms\s*$`)
	reExistsWords  = LazyRE(`(?i)already exists?|cannot be modified|duplicate`)
	rePublishWords = LazyRE(`(?i)\b(?:push|publish|deploy|upload|submit)\w*|\b(?:PUT|POST)\b`)
	// reArrowStatus: "METHOD /path -> 502 Bad Gateway", the status maybe on
	// the next line (wrangler's API errors).
	reArrowStatus = LazyRE(`\b(GET|HEAD|POST|PUT|PATCH|DELETE)\s+\S+\s*->\s*(?:([45]\d\d)\b)?\s*$|^\s*->\s*([45]\d\d)\b`)
	// reEnumStatus: a client library's error variant carrying the status, as
	// a Rust enum's Debug form prints it: "Client(429)", or "Client(" with
	// "429," on the next line (elefren's Error::Client(StatusCode) for
	// Mastodon; Server(StatusCode) for 5xx).
	reEnumStatus     = LazyRE(`\b(Client|Server)(?:Error)?\(\s*(?:(\d{3})\s*,?\s*\)|$)`)
	reEnumStatusNext = LazyRE(`^\s*(\d{3}),?\s*$`)
)

// errorShapeGroup is the group of reStatusShapes that reads "Error: NNN
// ...": a bare number after "Error:" is a status only when a colon or the
// status's reason phrase follows it ("Error: 500 Internal error", "Error:
// 403: ..."), not a count ("error: 404 bytes of body are still expected").
const errorShapeGroup = 6

// countNouns are the words that make the number before them a count, a size
// or a duration, never a status.
var countNouns = map[string]bool{
	"b": true, "byte": true, "bytes": true, "kb": true, "kib": true, "mb": true, "mib": true, "gb": true, "gib": true, "tb": true, "k": true, "m": true,
	"object": true, "objects": true, "file": true, "files": true, "line": true, "lines": true, "item": true, "items": true,
	"entry": true, "entries": true, "record": true, "records": true, "row": true, "rows": true, "package": true, "packages": true,
	"char": true, "chars": true, "character": true, "characters": true, "commit": true, "commits": true, "ref": true, "refs": true,
	"delta": true, "deltas": true, "test": true, "tests": true, "error": false, "errors": true, "warning": true, "warnings": true,
	"ms": true, "s": true, "sec": true, "secs": true, "second": true, "seconds": true, "minute": true, "minutes": true,
	"time": true, "times": true, "attempt": true, "attempts": true, "retries": true, "of": true, "more": true, "remaining": true,
	"blob": true, "blobs": true, "layer": true, "layers": true, "chunk": true, "chunks": true, "part": true, "parts": true,
}

// CountAfter reports whether rest, the text right after a number that looks
// like a status, makes the number a count or a size ("404 bytes", "500
// objects", "413 KiB", "429 of 500", "503%"): the generic status readers
// never take it for a status.
func CountAfter(rest string) bool {
	if strings.HasPrefix(rest, "%") {
		return true
	}
	rest = strings.TrimLeft(rest, " \t")
	i := 0
	for i < len(rest) && isLetter(rest[i]) {
		i++
	}
	return i > 0 && countNouns[strings.ToLower(rest[:i])]
}

// statusWordAfter reports whether rest, the text after "Error: NNN", gives
// the number HTTP context: a colon, a bracket, or the status's reason
// phrase ("Internal Server Error", "Not Found", "Client Error").
func statusWordAfter(code int, rest string) bool {
	r := strings.TrimLeft(rest, " \t")
	if r == "" || r[0] == ':' || r[0] == '(' || r[0] == '-' {
		return true
	}
	if PhraseStatus(code, r) {
		return true
	}
	// the reason's first word alone ("500 Internal error", "503 Service
	// down"): the words of that status's own phrase
	word := r
	if i := strings.IndexAny(word, " \t,.;"); i >= 0 {
		word = word[:i]
	}
	name := strings.ToLower(http.StatusText(code))
	first, _, _ := strings.Cut(name, " ")
	return first != "" && strings.EqualFold(word, first)
}

var dotNetStatus = map[string]int{
	"BadRequest": 400, "Unauthorized": 401, "PaymentRequired": 402, "Forbidden": 403, "NotFound": 404, "MethodNotAllowed": 405,
	"NotAcceptable": 406, "RequestTimeout": 408, "Conflict": 409, "Gone": 410, "RequestEntityTooLarge": 413, "UnprocessableEntity": 422,
	"TooManyRequests": 429, "InternalServerError": 500, "BadGateway": 502, "ServiceUnavailable": 503, "GatewayTimeout": 504,
}

// notAFailureLine reports whether a line only mentions a failure: a
// warning or note, a script's line (if grep ...; echo ...), a comment. The
// generic layer's words are common; such lines do not speak for the failure.
func notAFailureLine(line string) bool {
	t := strings.TrimLeft(line, " \t>|+-*")
	for _, p := range []string{"warning:", "Warning:", "WARNING:", "##[warning]", "npm WARN", "WARN ", "note:", "Note:", "hint:", "# ", "if ", "echo ", "printf ", "grep ", "then", "elif "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return strings.Contains(line, "grep -")
}

// genericStatusHit decides a status a tool reports through statusVerdict:
// a 409 on a publish is an existing version (structural).
func genericStatusHit(c *ScanCtx, line string, code, rank int) (Hit, bool) {
	if code < 400 || code > 599 || c.inFrame || c.answer || notAFailureLine(line) {
		return Hit{}, false
	}
	if (code == 404 || code == 410) && IsLookup(c.LookupMethod()) && rePublishWords.MatchString(line) {
		vd := StatusVerdict(code, "PUT", c.Tool)
		return Hit{Class: vd.Class, Code: vd.Code, Rank: rank, Reason: StatusName(code) + " on an upload: the endpoint does not exist or no longer takes it", Remedy: vd.Remedy}, true
	}
	if code == 409 && (!IsLookup(c.LookupMethod()) || rePublishWords.MatchString(line) || rePublishWords.MatchString(c.Text) || reExistsWords.MatchString(line)) {
		return Hit{Class: Structural, Code: HTTPCode(409), Rank: rank, Reason: StatusName(409) + " on a publish: the version or resource exists already (or changed under it)",
			Remedy: remedyExists}, true
	}
	return StatusHit(c, code, rank)
}

var genericStatusMatchers = []Matcher{
	{
		// A client library's error variant carrying a status: the variant
		// names the range (Client for 4xx, Server for 5xx), so a number out
		// of it is no status.
		Gates: []string{"Client(", "Server(", "ClientError(", "ServerError("},
		RE:    reEnumStatus,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			num := m[2]
			if num == "" {
				next := FollowingLines(c.Text, min(c.LineEnd, len(c.Text)), 1)
				if len(next) == 0 {
					return Hit{}, false
				}
				n := reEnumStatusNext.FindStringSubmatch(next[0])
				if n == nil {
					return Hit{}, false
				}
				num = n[1]
			}
			code := Atoi(num)
			if m[1] == "Client" && (code < 400 || code > 499) || m[1] == "Server" && (code < 500 || code > 599) {
				return Hit{}, false
			}
			return genericStatusHit(c, line, code, rankGenericStatus)
		},
	},
	{
		Gates: []string{"HTTP", "Http", "http", "indicate success", "code", "Code", "CODE", "status", "Status", "rror (", "rror: (", "ailed (", "googleapi", "RESPONSE ", "Client Error", "Server Error", "rror occurred (", "nexpected status", "nexpected response", "rror: 4", "rror: 5", "RROR: 4", "RROR: 5"},
		RE:    reStatusShapes,
		Build: func(c *ScanCtx, line string, _ []string) (Hit, bool) {
			ix := reStatusShapes.FindStringSubmatchIndex(line)
			for g := 1; ix != nil && 2*g+1 < len(ix); g++ {
				start, end := ix[2*g], ix[2*g+1]
				if start < 0 {
					continue
				}
				code := Atoi(line[start:end])
				if CountAfter(line[end:]) || g == errorShapeGroup && !statusWordAfter(code, line[end:]) {
					return Hit{}, false // "error: 413 bytes of body are still expected"
				}
				return genericStatusHit(c, line, code, rankGenericStatus)
			}
			return Hit{}, false
		},
	},
	{
		Gates: []string{"->"},
		RE:    reArrowStatus,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			code := m[2] + m[3]
			if code == "" {
				next := FollowingLines(c.Text, min(c.LineEnd, len(c.Text)), 1)
				if len(next) == 0 {
					return Hit{}, false
				}
				f := strings.Fields(next[0])
				if len(f) == 0 {
					return Hit{}, false
				}
				code = f[0]
			}
			n := Atoi(code)
			if n < 400 || n > 599 {
				return Hit{}, false
			}
			if m[1] != "" && n == 404 {
				vd := StatusVerdict(n, m[1], c.Tool)
				return Hit{Class: vd.Class, Code: vd.Code, Rank: rankGenericStatus, Reason: vd.Reason, Remedy: vd.Remedy}, true
			}
			return genericStatusHit(c, line, n, rankGenericStatus)
		},
	},
	{
		Gates: []string{" http"},
		RE:    reDotNetStatus,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			return genericStatusHit(c, line, dotNetStatus[m[1]], rankGenericStatus)
		},
	},
}

// Waits the run cannot make.
var (
	// reWaitStated: a relative wait the service states ("Try again in 11
	// days", "try again after in 54 minutes", "resets in 4h"); the client's
	// own backoff ("Retrying in 5s") is not one.
	reWaitStated = LazyRE(`(?i)(?:\b(?:try again|retry|resets?|available(?: again)?|restored?|unblocked|come back)\b(?:\s+(?:in|after|for))+|\btime to availability:?|\bretry[- ]after:?|\bplease wait(?: for)?)\s+(?:about\s+|approximately\s+|~\s*)?((?:\d[\d.]*|` + reNumberWord + `(?:[ -]` + reNumberWord + `)?\s)\s*[a-z]*(?:[ ,]+(?:and )?\d[\d.]*\s*[a-z]+)*)`)
	// reWaitCalendar: a wait told in calendar words ("next month", "after
	// the billing cycle", "tomorrow").
	reWaitCalendar = LazyRE(`(?i)\b(?:try again|retry|resets?|reset|available again|restore access|wait)\b[^\n]{0,60}?\b(next (?:month|week|year|billing (?:cycle|period))|tomorrow|(?:after|at the end of) (?:the |your )?(?:current |next )?billing (?:cycle|period)|(?:the )?(?:beginning|start) of (?:the )?next month)|\b(?:until|till) (?:the )?(next (?:month|billing (?:cycle|period))|next week|tomorrow)`)
)

// rePeriod: the period a limit counts over ("per six hours", "per day",
// "5 per 6 hours", "daily"); reLimitWords: the line speaks of a limit.
var (
	rePeriod     = LazyRE(`(?i)\bper\s+(?:(\d+|` + reNumberWord + `(?:[ -]` + reNumberWord + `)?)\s+)?(second|sec|minute|min|hour|hr|day|week|month)s?\b|\b(hourly|daily|weekly|monthly)\b`)
	reLimitWords = LazyRE(`(?i)rate[ -]?limit|\blimit(?:ed|s)?\b|\bquota|too many|throttl|exceeded`)
)

// periodOf returns the length of the period rePeriod's match m names.
func periodOf(m []string) time.Duration {
	switch strings.ToLower(m[3]) {
	case "hourly":
		return time.Hour
	case "daily":
		return 24 * time.Hour
	case "weekly":
		return 7 * 24 * time.Hour
	case "monthly":
		return 30 * 24 * time.Hour
	}
	unit := strings.ToLower(m[2])
	if unit == "month" {
		unit = "30 days"
	} else {
		unit = "1 " + unit
	}
	d, ok := parseWait(unit)
	if !ok {
		return 0
	}
	if m[1] != "" {
		n, ok := parseWait(m[1] + " s")
		if !ok {
			return 0
		}
		d *= time.Duration(n / time.Second)
	}
	return d
}

var waitMatchers = []Matcher{
	{
		// a limit that counts per six hours or per day: the run cannot wait
		// for its window when it is longer than the run's max elapsed
		Gates: []string{"per ", "Per ", "PER ", "hourly", "Hourly", "daily", "Daily", "weekly", "Weekly", "monthly", "Monthly", "HOURLY", "DAILY", "WEEKLY", "MONTHLY"},
		RE:    rePeriod,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			if !reLimitWords.MatchString(line) || c.inFrame || notAFailureLine(line) {
				return Hit{}, false
			}
			d := periodOf(m)
			if d <= c.waitLimit() {
				return Hit{}, false
			}
			return Hit{Class: Policy, Code: CodeRateLimitWindow, Rank: rankGenericWait, ResetIn: d,
				Reason: fmt.Sprintf("a limit counted %s (%s), longer than the run's max elapsed of %s: it resets within %s", Clip(m[0]), humanWait(d), c.waitLimit(), humanWait(d)),
				Remedy: fmt.Sprintf("the limit's window (%s) outlasts the run: run again once it has passed (a later scheduled run), or authenticate or raise the limit; retrying within this run cannot succeed", humanWait(d))}, true
		},
	},
	{
		Gates: []string{"ry again", "etry in", "etry after", "etry for", "eset in", "esets in", "eset after", "esets after", "vailable again", "vailable in", "vailable after", "estored in", "nblocked in", "ome back in", "RY AGAIN", "ime to availability", "etry-After", "etry-after", "lease wait"},
		RE:    reWaitStated,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			v := strings.TrimSpace(m[1])
			if n := Atoi(v); n >= 0 && len(v) <= 7 {
				v += "s" // a bare number: seconds, as Retry-After
			}
			d, ok := parseWait(v)
			if !ok || d <= c.waitLimit() {
				return Hit{}, false
			}
			h := waitHit(c, line, "in "+humanWait(d))
			h.ResetIn = d
			return h, true
		},
	},
	{
		// a reset written as a clock time ("resets at 2024-05-01T00:00:00Z",
		// "try again at 14:00 UTC"), judged against the run from now
		Gates: []string{"eset at ", "esets at ", "ry again at ", "etry at ", "etry after ", "vailable again at ", "enews at ", "eset on ", "esets on "},
		RE:    reResetAbs,
		Build: func(c *ScanCtx, line string, _ []string) (Hit, bool) {
			if !reLimitWords.MatchString(line) || c.inFrame || notAFailureLine(line) {
				return Hit{}, false
			}
			h, ok := statedResetHit(c, line, line, rankGenericWait)
			if h.Class == Transient {
				h.Rank++ // the throttle's words, with the wait they state
			}
			return h, ok
		},
	},
	{
		Gates: []string{"next month", "next week", "next year", "next billing", "tomorrow", "illing cycle", "illing period", "of next month"},
		RE:    reWaitCalendar,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			when := m[1] + m[2]
			return waitHit(c, line, when), true
		},
	},
}

// waitHit is the verdict on a wait the run cannot make: policy, the quota or
// limit is spent for longer than the run may last.
func waitHit(c *ScanCtx, line, when string) Hit {
	return Hit{Class: Policy, Code: CodeQuotaExhausted, Rank: rankGenericWait,
		Reason: fmt.Sprintf("a limit spent for longer than the run: the service says to wait %s, over the run's max elapsed of %s", Clip(when), c.waitLimit()),
		Remedy: "the quota or limit resets after the run would end: raise the plan or limit, use other credentials, or run again after the reset; retrying now cannot succeed"}
}

// Pushes over the host's size limit.
var (
	rePackLimit   = LazyRE(`(?i)pack exceeds maximum allowed size(?: \(([\d.]+ [KMGT]i?B)\))?`)
	reGitHubRemte = LazyRE(`(?i)github\.com[:/]|https://github\.com`)
)

// gitHubPushLimit is the most GitHub accepts in one push.
const gitHubPushLimit = 2.0 // GiB

// pushedGiB returns the largest pack size git reported writing ("Writing
// objects: 100% (9/9), 3.10 GiB | ..."), in GiB: one substring search over
// the text, and a look at the lines that hold " GiB".
func pushedGiB(text string) float64 {
	top := 0.0
	for off := 0; ; {
		i := strings.Index(text[off:], " GiB")
		if i < 0 {
			return top
		}
		i += off
		off = i + 4
		j := i
		for j > 0 && (text[j-1] >= '0' && text[j-1] <= '9' || text[j-1] == '.') {
			j--
		}
		start := strings.LastIndexAny(text[:j], "\r\n") + 1
		if !strings.Contains(text[start:j], "Writing objects:") {
			continue
		}
		if v, err := strconv.ParseFloat(text[j:i], 64); err == nil && v > top {
			top = v
		}
	}
}

func pushLimitHit(c *ScanCtx, limit string) Hit {
	reason := "the push is over the host's size limit"
	if limit != "" {
		reason += " (" + limit + ")"
	}
	if reGitHubRemte.MatchString(c.Text) || strings.HasPrefix(limit, "2.00 GiB") {
		reason += ": GitHub accepts at most 2 GiB per push"
	}
	return Hit{Class: Structural, Code: CodePushTooLarge, Rank: RankRefusal + 1, Reason: reason,
		Remedy: "push in smaller pieces (git push REMOTE <older-commit>:BRANCH step by step, then the rest), or move large files to Git LFS; resending the same push fails the same way"}
}

var pushLimitMatchers = []Matcher{
	{
		Gates: []string{"pack exceeds maximum allowed size"},
		RE:    rePackLimit,
		Build: func(c *ScanCtx, _ string, m []string) (Hit, bool) { return pushLimitHit(c, m[1]), true },
	},
	{
		// a pack of several GiB, then the connection dropped: the host cut
		// an oversized push (GitHub's limit is 2 GiB)
		Gates: []string{"hung up unexpectedly", "RPC failed", "unexpected disconnect while reading sideband"},
		Build: func(c *ScanCtx, _ string, _ []string) (Hit, bool) {
			if !c.pushSized {
				c.pushSized, c.pushGiB = true, pushedGiB(c.Text)
			}
			size := c.pushGiB
			if size < gitHubPushLimit {
				return Hit{}, false
			}
			return pushLimitHit(c, fmt.Sprintf("a %.2f GiB pack", size)), true
		},
	},
}

// git's identity.
var reGitIdentity = LazyRE(`Author identity unknown|Committer identity unknown|unable to auto-detect email address|empty ident name|Please tell me who you are`)

var gitIdentityMatchers = []Matcher{
	{
		Gates: []string{"identity unknown", "unable to auto-detect email address", "empty ident name", "Please tell me who you are"},
		RE:    reGitIdentity,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			return Hit{Class: Structural, Code: CodeGitIdentity, Rank: RankRefusal + 2, Reason: "git has no identity to commit with (\"" + m[0] + "\")",
				Remedy: "set the committer before the commit: the action inputs git-user-name and git-user-email, or git config user.name \"NAME\" and git config user.email \"EMAIL\" (e.g. github-actions[bot] and 41898282+github-actions[bot]@users.noreply.github.com); retrying cannot succeed"}, true
		},
	},
}

// A proxy's answer to CONNECT, as the clients without a recogniser word it
// (Python's http.client, undici, npm's agent).
var reTunnelStatus = LazyRE(`(?i)Tunnel connection failed:\s*(\d{3})|Proxy response \((\d{3})\) !== 200 when HTTP Tunneling|Invalid (?:status code|Proxy response)\W{0,3}(\d{3})\W{0,3}(?:connecting to proxy)?|proxy (?:CONNECT )?(?:returned|answered|responded with) (?:status |HTTP )?(\d{3})`)

var tunnelMatchers = []Matcher{
	{
		Gates: []string{"unnel connection failed", "when HTTP Tunneling", "onnecting to proxy", "nvalid Proxy response", "roxy returned", "roxy CONNECT returned", "roxy answered", "roxy responded with"},
		RE:    reTunnelStatus,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			code := Atoi(m[1] + m[2] + m[3] + m[4])
			h := Hit{Rank: rankConfig, Trace: trProxy | TrNet, Reason: fmt.Sprintf("the proxy refused the tunnel with HTTP %d", code)}
			switch {
			case code == 403:
				h.Class, h.Code, h.Remedy = Policy, CodeProxyDenied, remedyProxy403
			case code == 407:
				h.Class, h.Code, h.Remedy = Policy, CodeProxyAuth, remedyProxy407
			case code >= 500 && code <= 599:
				h.Class, h.Code, h.Remedy = Transient, CodeProxyUpstream, remedyProxy5xx
			default:
				h.Class, h.Code, h.Remedy = Unknown, CodeProxyRejected, remedyProxyOther
			}
			return h, true
		},
	},
}

// genericMatchers are the generic layer's matchers, run with every tool's.
var genericMatchers = concatMatchers(phraseMatchers(phraseRows), genericStatusMatchers, waitMatchers, pushLimitMatchers, gitIdentityMatchers, tunnelMatchers, sandboxMatchers)
