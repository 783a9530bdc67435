package failure

import "strings"

// Kubernetes API status reasons (metav1.StatusReason), as kubectl and helm
// print them ("Error from server (Forbidden): ...", "Error: UPGRADE FAILED:
// ... is invalid: ...: field is immutable"), as a client prints the Status
// object ("reason": "Forbidden"), and in the API server's stable words (an
// RBAC refusal "is forbidden: User \"x\" cannot list resource ...";
// "Operation cannot be fulfilled on ...: the object has been modified").
//
//   - Forbidden, Unauthorized: policy.
//   - NotFound: absent (a lookup found nothing).
//   - AlreadyExists, Invalid (a field is immutable or invalid), BadRequest,
//     and a server-side apply's field-manager conflicts: structural.
//   - Conflict on an update ("the object has been modified; please apply
//     your changes to the latest version and try again"): transient: send
//     it again against the latest version.
//   - TooManyRequests, ServerTimeout, Timeout, ServiceUnavailable:
//     transient.

// The Kubernetes codes.
const (
	// CodeKubeForbidden: the API server's RBAC refuses the verb (Forbidden).
	CodeKubeForbidden Code = "kube-forbidden"
	// CodeKubeUnauthorized: the credentials are missing or invalid
	// (Unauthorized).
	CodeKubeUnauthorized Code = "kube-unauthorized"
	// CodeKubeNotFound: the object does not exist (NotFound).
	CodeKubeNotFound Code = "kube-not-found"
	// CodeKubeExists: the object exists already (AlreadyExists).
	CodeKubeExists Code = "kube-already-exists"
	// CodeKubeInvalid: the object is invalid, or changes an immutable field
	// (Invalid, BadRequest).
	CodeKubeInvalid Code = "kube-invalid"
	// CodeKubeConflict: the object changed under the update (Conflict).
	CodeKubeConflict Code = "kube-conflict"
	// CodeKubeApplyConflict: a server-side apply conflicts with another
	// field manager.
	CodeKubeApplyConflict Code = "kube-apply-conflict"
	// CodeKubeUnavailable: the API server is throttling, timing out or
	// unavailable (TooManyRequests, ServerTimeout, Timeout,
	// ServiceUnavailable).
	CodeKubeUnavailable Code = "kube-unavailable"
	// CodeKubeNoConfig: kubectl talks to its built-in default server
	// (localhost:8080): no kubeconfig was found.
	CodeKubeNoConfig Code = "kube-no-config"
)

const (
	remedyKubeForbidden = "the API server's RBAC refuses this verb on this resource for this user or service account: grant it (a Role/ClusterRole and its binding) or use credentials that have it; retrying cannot succeed"
	remedyKubeAuth      = "the cluster refuses the credentials (missing, expired or wrong kubeconfig, token or certificate): refresh them; retrying cannot succeed"
	remedyKubeNotFound  = "not there: treat it as not found, or fix the name or namespace"
	remedyKubeExists    = "the object exists already: apply (or replace) instead of create, or treat an existing one as done"
	remedyKubeInvalid   = "the API server rejects the object as sent (an invalid value, or a change to an immutable field such as a Deployment's spec.selector): fix the manifest, or delete and recreate the object; resending it unchanged fails the same way"
	remedyKubeConflict  = "the object changed between read and update (optimistic concurrency): sending it again against the latest version"
	remedyKubeApply     = "another field manager owns these fields (server-side apply): resolve the ownership (--force-conflicts, or stop the other manager, e.g. an operator, from writing them); resending fails the same way"
	remedyKubeAvailable = "the API server is throttling or did not answer in time: retrying after a backoff"
)

// kubeReasons is the table of the status reasons.
var kubeReasons = map[string]struct {
	class  Class
	code   Code
	remedy string
}{
	"Forbidden":          {Policy, CodeKubeForbidden, remedyKubeForbidden},
	"Unauthorized":       {Policy, CodeKubeUnauthorized, remedyKubeAuth},
	"NotFound":           {Absent, CodeKubeNotFound, remedyKubeNotFound},
	"AlreadyExists":      {Structural, CodeKubeExists, remedyKubeExists},
	"Invalid":            {Structural, CodeKubeInvalid, remedyKubeInvalid},
	"BadRequest":         {Structural, CodeKubeInvalid, remedyKubeInvalid},
	"Conflict":           {Transient, CodeKubeConflict, remedyKubeConflict},
	"TooManyRequests":    {Transient, CodeKubeUnavailable, remedyKubeAvailable},
	"ServerTimeout":      {Transient, CodeKubeUnavailable, remedyKubeAvailable},
	"Timeout":            {Transient, CodeKubeUnavailable, remedyKubeAvailable},
	"ServiceUnavailable": {Transient, CodeKubeUnavailable, remedyKubeAvailable},
}

var (
	// reKubeReason: kubectl's "Error from server (Reason)" and a Status
	// object's "reason": "Reason".
	reKubeReason = LazyRE(`Error from server \((\w+)\)|"reason":\s*"(\w+)"`)
	// reKubeWords: the API server's stable words; the group that matched
	// names the reason (kubeWordReasons).
	reKubeWords = LazyRE(`(\bis forbidden: User "[^"]*" cannot \w+ resource "[^"]*")|(Operation cannot be fulfilled on [^:]+: the object has been modified|the object has been modified; please apply your changes to the latest version)|(\bis invalid: [^\n]{0,600}?field is immutable|\bis invalid: \S+: (?:Invalid value|Required value|Unsupported value|Forbidden))|(Apply failed with \d+ conflicts?: conflicts with "[^"]*")`)
	// reKubeRBAC: who may not do what, from an RBAC refusal.
	reKubeRBAC = LazyRE(`User "([^"]*)" cannot (\w+) resource "([^"]*)"(?: in API group "([^"]*)")?(?: in the namespace "([^"]*)")?`)
)

var kubeWordReasons = []string{"Forbidden", "Conflict", "Invalid", "ApplyConflict"}

// kubeHit is the verdict on status reason, read on line.
func kubeHit(line, reason string) (Hit, bool) {
	if reason == "ApplyConflict" || reason == "Conflict" && (strings.Contains(line, "Apply failed with") || strings.Contains(line, "conflicts with \"")) {
		return Hit{Class: Structural, Code: CodeKubeApplyConflict, Rank: rankStdCode, Reason: "Kubernetes: a server-side apply conflicts with another field manager", Remedy: remedyKubeApply}, true
	}
	r, ok := kubeReasons[reason]
	if !ok {
		return Hit{}, false
	}
	if reason == "Conflict" && !strings.Contains(line, "has been modified") && !strings.Contains(line, "Operation cannot be fulfilled") {
		return Hit{}, false // a Conflict that is not an update's race says nothing more than 409
	}
	h := Hit{Class: r.class, Code: r.code, Rank: rankStdCode, Reason: "Kubernetes API: " + reason, Remedy: r.remedy}
	if m := reKubeRBAC.FindStringSubmatch(line); m != nil && reason == "Forbidden" {
		h.Reason += ": " + Clip(m[1]) + " cannot " + m[2] + " " + Clip(m[3])
		if m[5] != "" {
			h.Reason += " in namespace " + Clip(m[5])
		}
	}
	if reason == "Invalid" && strings.Contains(line, "field is immutable") {
		h.Reason += ": a field is immutable"
	}
	return h, true
}

// reKubeRefused: kubectl's "The connection to the server H:P was refused -
// did you specify the right host or port?"; the first group is the built-in
// default it falls back to without a kubeconfig.
var reKubeRefused = LazyRE(`The connection to the server (?:((?:localhost|127\.0\.0\.1):8080)|(\S+)) was refused`)

var kubeMatchers = []Matcher{
	{
		Gates: []string{"The connection to the server "},
		RE:    reKubeRefused,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			if m[1] != "" {
				return Hit{Class: Structural, Code: CodeKubeNoConfig, Rank: rankStdCode, Reason: "kubectl found no kubeconfig and fell back to its default server (" + m[1] + ")",
					Remedy: "kubectl read no kubeconfig (cron and service users have another HOME and no KUBECONFIG): set KUBECONFIG or pass --kubeconfig to the cluster's config; retrying cannot succeed"}, true
			}
			return Hit{Class: Transient, Code: CodeRefused, Rank: rankStdWords, Reason: "the Kubernetes API server refused the connection (" + Clip(m[2]) + ")", Remedy: remedyRetryNet}, true
		},
	},
	{
		Gates: []string{"Error from server (", `"reason":`},
		RE:    reKubeReason,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			if m[2] != "" && !c.textHolds(`"kind": "Status"`, `"kind":"Status"`, `"status": "Failure"`, `"status":"Failure"`) {
				return Hit{}, false // a "reason" of some other JSON
			}
			return kubeHit(c.quotaContext(line), m[1]+m[2])
		},
	},
	{
		Gates: []string{"is forbidden: User", "the object has been modified", "field is immutable", "is invalid: ", "Apply failed with"},
		RE:    reKubeWords,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			for i, g := range m[1:] {
				if g != "" {
					h, ok := kubeHit(line, kubeWordReasons[i])
					h.Rank--
					return h, ok
				}
			}
			return Hit{}, false
		},
	},
}
