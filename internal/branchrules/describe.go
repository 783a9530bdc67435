package branchrules

import (
	"encoding/json"
	"fmt"
	"strings"
)

// params holds every parameter describe reads, of every rule type, under
// GitHub's names (REST API "Rules" reference); a type uses its own few.
type params struct {
	UpdateAllowsFetchAndMerge      bool     `json:"update_allows_fetch_and_merge"`
	RequiredDeploymentEnvironments []string `json:"required_deployment_environments"`

	RequiredApprovingReviewCount   int  `json:"required_approving_review_count"`
	RequireCodeOwnerReview         bool `json:"require_code_owner_review"`
	RequireLastPushApproval        bool `json:"require_last_push_approval"`
	RequiredReviewThreadResolution bool `json:"required_review_thread_resolution"`

	RequiredStatusChecks []struct {
		Context string `json:"context"`
	} `json:"required_status_checks"`
	StrictRequiredStatusChecksPolicy bool `json:"strict_required_status_checks_policy"`

	Name     string `json:"name"`
	Negate   bool   `json:"negate"`
	Operator string `json:"operator"`
	Pattern  string `json:"pattern"`

	Workflows []struct {
		Path string `json:"path"`
		Ref  string `json:"ref"`
	} `json:"workflows"`
	CodeScanningTools []struct {
		Tool string `json:"tool"`
	} `json:"code_scanning_tools"`

	RestrictedFilePaths      []string `json:"restricted_file_paths"`
	MaxFilePathLength        int      `json:"max_file_path_length"`
	RestrictedFileExtensions []string `json:"restricted_file_extensions"`
	MaxFileSize              int      `json:"max_file_size"`
}

// patternSubjects are what each pattern rule constrains.
var patternSubjects = map[string]string{
	"commit_message_pattern":      "commit messages",
	"commit_author_email_pattern": "commit author emails",
	"committer_email_pattern":     "committer emails",
	"branch_name_pattern":         "branch names",
	"tag_name_pattern":            "tag names",
}

// describe says in a few words what rule r requires; "" for a type it does
// not know (named by its type alone).
func describe(r Rule) string {
	var p params
	if len(r.Parameters) > 0 && string(r.Parameters) != "null" {
		if err := json.Unmarshal(r.Parameters, &p); err != nil {
			p = params{} // an unexpected shape: say what the type means, without details
		}
	}
	switch r.Type {
	case "creation":
		return "creating the branch is restricted"
	case "update":
		if p.UpdateAllowsFetchAndMerge {
			return "updates are restricted, except by fetch and merge"
		}
		return "updates are restricted"
	case "deletion":
		return "deleting the branch is restricted"
	case "required_linear_history":
		return "merge commits are blocked"
	case "merge_queue":
		return "changes must go through a merge queue"
	case "required_deployments":
		if len(p.RequiredDeploymentEnvironments) == 0 {
			return "deployments must succeed first"
		}
		return "deployments to " + strings.Join(p.RequiredDeploymentEnvironments, ", ") + " must succeed first"
	case "required_signatures":
		return "commits must be signed"
	case "pull_request":
		s := []string{"changes must go through a pull request"}
		switch n := p.RequiredApprovingReviewCount; {
		case n == 1:
			s = append(s, "1 approving review")
		case n > 1:
			s = append(s, fmt.Sprintf("%d approving reviews", n))
		}
		if p.RequireCodeOwnerReview {
			s = append(s, "a code owner's review")
		}
		if p.RequireLastPushApproval {
			s = append(s, "the last push approved by someone else")
		}
		if p.RequiredReviewThreadResolution {
			s = append(s, "conversations resolved")
		}
		return strings.Join(s, ", ")
	case "required_status_checks":
		var checks []string
		for _, c := range p.RequiredStatusChecks {
			if c.Context != "" {
				checks = append(checks, c.Context)
			}
		}
		s := "status checks must pass"
		if len(checks) > 0 {
			s = strings.Join(checks, ", ") + " must pass"
		}
		if p.StrictRequiredStatusChecksPolicy {
			s += " on a branch up to date with it"
		}
		return s
	case "non_fast_forward":
		return "force pushes are blocked"
	case "commit_message_pattern", "commit_author_email_pattern", "committer_email_pattern", "branch_name_pattern", "tag_name_pattern":
		return patternRule(patternSubjects[r.Type], p)
	case "workflows":
		var paths []string
		for _, w := range p.Workflows {
			if w.Path != "" {
				paths = append(paths, w.Path)
			}
		}
		if len(paths) == 0 {
			return "required workflows must pass"
		}
		return "workflows " + strings.Join(paths, ", ") + " must pass"
	case "code_scanning":
		var tools []string
		for _, c := range p.CodeScanningTools {
			if c.Tool != "" {
				tools = append(tools, c.Tool)
			}
		}
		if len(tools) == 0 {
			return "code scanning results are required"
		}
		return "code scanning results of " + strings.Join(tools, ", ") + " are required"
	case "file_path_restriction":
		if len(p.RestrictedFilePaths) == 0 {
			return "changes to some paths are blocked"
		}
		return "changes to " + strings.Join(p.RestrictedFilePaths, ", ") + " are blocked"
	case "max_file_path_length":
		if p.MaxFilePathLength > 0 {
			return fmt.Sprintf("file paths may not be longer than %d characters", p.MaxFilePathLength)
		}
		return "file paths have a maximum length"
	case "file_extension_restriction":
		if len(p.RestrictedFileExtensions) == 0 {
			return "some file extensions are blocked"
		}
		return "files ending in " + strings.Join(p.RestrictedFileExtensions, ", ") + " are blocked"
	case "max_file_size":
		if p.MaxFileSize > 0 {
			return fmt.Sprintf("files over %d MB are blocked", p.MaxFileSize)
		}
		return "files over a maximum size are blocked"
	case "copilot_code_review":
		return "pull requests get a Copilot review"
	}
	return ""
}

// patternRule describes a pattern rule on subject: `commit messages must start with "feat"`.
func patternRule(subject string, p params) string {
	verb := map[string]string{"starts_with": "start with", "ends_with": "end with", "contains": "contain", "regex": "match"}[p.Operator]
	if verb == "" {
		verb = "match"
	}
	must := "must"
	if p.Negate {
		must = "must not"
	}
	s := fmt.Sprintf("%s %s %s", subject, must, verb)
	if p.Pattern != "" {
		s += fmt.Sprintf(" %q", p.Pattern)
	} else {
		s += " a pattern"
	}
	if p.Name != "" {
		s = p.Name + ": " + s
	}
	return s
}
