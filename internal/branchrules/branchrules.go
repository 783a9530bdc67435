// Package branchrules explains why a push to a branch may be refused, from
// the rules GitHub applies to it: GET /repos/{owner}/{repo}/rules/branches/{branch}
// needs only metadata: read, so GITHUB_TOKEN can read it, where branch
// protection (GET .../branches/{branch}/protection) needs admin and answers
// 403. Classic branch protection is therefore never listed; when a ref is
// protected (GITHUB_REF_PROTECTED) but has no rules, the text says so.
//
// The rules are decoded here rather than by go-github v60's RepositoryRule,
// which fails the whole answer on a rule type it does not know (merge_queue,
// code_scanning, file_path_restriction, ...); here an unknown type is named
// by its type. Reading the rules is never required for a push: a failure is
// for a note (Note), not an error of the step.
package branchrules

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/redact"
)

// Rule is one rule that applies to a branch, as GitHub returns it.
type Rule struct {
	// Type is the rule's type, such as "pull_request" or "non_fast_forward".
	Type string `json:"type"`
	// Parameters are the type's settings, as sent; nil for a rule without any.
	Parameters json.RawMessage `json:"parameters,omitempty"`
	// RulesetSourceType is "Repository", "Organization" or "Enterprise".
	RulesetSourceType string `json:"ruleset_source_type,omitempty"`
	// RulesetSource is the repository (owner/repo) or organization that holds the ruleset.
	RulesetSource string `json:"ruleset_source,omitempty"`
	// RulesetID is the ruleset's id.
	RulesetID int64 `json:"ruleset_id,omitempty"`
}

// MaxPages and MaxRules bound the rules read: 10 pages of 100, 1,000 rules.
const (
	MaxPages = 10
	MaxRules = 1000
)

// Get returns the active rules that apply to branch (which need not exist),
// reading every page within MaxPages and MaxRules; cut, when not nil, says
// at which bound the list was cut (a next link that repeats a page
// included). The branch is path-escaped whole, so feature/x is sent as
// feature%2Fx, as go-github sends it for the branch endpoints.
func Get(ctx context.Context, gh *github.Client, owner, repo, branch string) (rules []Rule, cut *ghapi.Cut, err error) {
	if err := ghapi.CheckRepo(owner, repo); err != nil {
		return nil, nil, err
	}
	return ghapi.Walk(ctx, ghapi.Pages{What: "the rules", PerPage: 100, MaxPages: MaxPages, MaxItems: MaxRules},
		func(ctx context.Context, page int) ([]Rule, *github.Response, error) {
			u := fmt.Sprintf("repos/%s/%s/rules/branches/%s?per_page=100&page=%d",
				url.PathEscape(owner), url.PathEscape(repo), url.PathEscape(branch), page)
			req, err := gh.NewRequest(http.MethodGet, u, nil)
			if err != nil {
				return nil, nil, err
			}
			var rules []Rule
			resp, err := gh.Do(ctx, req, &rules)
			if err != nil {
				return nil, nil, err
			}
			return rules, resp, nil
		})
}

// Explain returns one sentence naming the rules that apply to branch of
// owner/repo, such as `branch "main" has rules: pull_request (changes must
// go through a pull request, 1 approving review), non_fast_forward (force
// pushes are blocked)`. refProtected is GITHUB_REF_PROTECTED, to be passed
// only when GITHUB_REF is the branch pushed to. With no rules it returns the
// classic-protection sentence when refProtected, else "". An error (to be
// turned into a note with Note) leaves the text "". A list cut at a bound
// (Get) is said so at the sentence's end, with the bound.
func Explain(ctx context.Context, gh *github.Client, owner, repo, branch string, refProtected bool) (string, error) {
	rules, cut, err := Get(ctx, gh, owner, repo, branch)
	if err != nil {
		return "", err
	}
	s := Describe(branch, rules, refProtected)
	if cut != nil {
		if s == "" {
			s = fmt.Sprintf("branch %q has no rules in what was read", branch)
		}
		s += "; " + cut.Error()
	}
	return s, nil
}

// Describe returns Explain's sentence for rules read already.
func Describe(branch string, rules []Rule, refProtected bool) string {
	if len(rules) == 0 {
		if refProtected {
			return fmt.Sprintf("branch %q is protected by classic branch protection, which GITHUB_TOKEN cannot read (it needs admin): see Settings → Branches", branch)
		}
		return ""
	}
	var parts, sources []string
	seen := map[string]bool{}
	for _, r := range rules {
		p := r.Type
		if p == "" {
			p = "unnamed rule"
		}
		if d := describe(r); d != "" {
			p += " (" + d + ")"
		}
		if !seen[p] {
			seen[p] = true
			parts = append(parts, p)
		}
		if s := source(r); s != "" && !seen["\x00"+s] {
			seen["\x00"+s] = true
			sources = append(sources, s)
		}
	}
	s := fmt.Sprintf("branch %q has rules: %s", branch, strings.Join(parts, ", "))
	if len(sources) > 0 {
		s += "; set by " + strings.Join(sources, " and ")
	}
	if refProtected {
		s += "; classic branch protection, if any, is not listed (reading it needs admin)"
	}
	return s
}

// source names the ruleset r comes from: "ruleset 42 of octo-org/nightly", "organization ruleset 7 of octo-org".
func source(r Rule) string {
	if r.RulesetID == 0 {
		return ""
	}
	s := fmt.Sprintf("ruleset %d", r.RulesetID)
	if t := strings.ToLower(r.RulesetSourceType); t != "" && t != "repository" {
		s = t + " " + s
	}
	if r.RulesetSource != "" {
		s += " of " + r.RulesetSource
	}
	return s
}

// Note turns an error of Explain into a note for the report, such as
// "could not read the branch rules: HTTP 403: Resource not accessible by
// integration (the token needs metadata: read)"; "" for nil. It holds no
// secret: go-github's errors carry the URL, never the headers, and the text
// is masked by redact's patterns besides.
func Note(err error) string {
	if err == nil {
		return ""
	}
	var (
		rle   *github.RateLimitError
		abuse *github.AbuseRateLimitError
		er    *github.ErrorResponse
		b     strings.Builder
	)
	b.WriteString("could not read the branch rules: ")
	switch {
	case errors.As(err, &rle):
		fmt.Fprintf(&b, "the API rate limit (%d requests an hour) is spent until %s", rle.Rate.Limit, rle.Rate.Reset.UTC().Format(time.RFC3339))
	case errors.As(err, &abuse):
		b.WriteString("GitHub's secondary rate limit: " + abuse.Message)
	case errors.As(err, &er) && er.Response != nil:
		fmt.Fprintf(&b, "HTTP %d", er.Response.StatusCode)
		if er.Message != "" {
			b.WriteString(": " + er.Message)
		}
		switch er.Response.StatusCode {
		case http.StatusForbidden:
			b.WriteString(" (the token needs metadata: read)")
		case http.StatusNotFound:
			b.WriteString(" (the repository is not visible to the token, which needs metadata: read)")
		case http.StatusUnauthorized:
			b.WriteString(" (GitHub did not accept the token)")
		}
	default:
		b.WriteString(err.Error())
	}
	return new(redact.Redactor).String(b.String())
}

// BranchOf returns the branch a push destination names: "refs/heads/main",
// "HEAD:main", "+HEAD:refs/heads/main" and "main" all name main. It returns
// "" for a destination that is not a branch (refs/tags/v1, another refs/
// namespace) or not known from the text alone (HEAD, "").
func BranchOf(ref string) string {
	ref = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(ref), "+"))
	if i := strings.LastIndexByte(ref, ':'); i >= 0 {
		ref = ref[i+1:]
	}
	switch {
	case strings.HasPrefix(ref, "refs/heads/"):
		return strings.TrimPrefix(ref, "refs/heads/")
	case strings.HasPrefix(ref, "refs/"), ref == "HEAD":
		return ""
	}
	return ref
}
