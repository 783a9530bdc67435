package ghissue

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/retrywise/retrywise/internal/ghapi"
	"github.com/retrywise/retrywise/internal/redact"
)

// DefaultServerURL is the web root used when GITHUB_SERVER_URL is not set.
const DefaultServerURL = "https://github.com"

// Run names the workflow run whose job is reported.
type Run struct {
	// Owner and Repo are the repository, from GITHUB_REPOSITORY.
	Owner, Repo string
	// Workflow is the workflow's name (its path when it has none), from GITHUB_WORKFLOW.
	Workflow string
	// Job is the job's id, from GITHUB_JOB.
	Job string
	// ServerURL is GitHub's web root without a trailing slash, from GITHUB_SERVER_URL.
	ServerURL string
	// ID is the run's id, from GITHUB_RUN_ID.
	ID int64
	// Attempt is the run attempt, 1 for the first, from GITHUB_RUN_ATTEMPT.
	Attempt int
}

// RunFromEnv reads the run from the variables GitHub Actions sets:
// GITHUB_REPOSITORY, GITHUB_WORKFLOW, GITHUB_JOB and GITHUB_RUN_ID are
// required; GITHUB_SERVER_URL defaults to DefaultServerURL and
// GITHUB_RUN_ATTEMPT to 1.
func RunFromEnv(getenv func(string) string) (Run, error) {
	var r Run
	need := func(name string) (string, error) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return "", fmt.Errorf("%s is not set: report-issue runs only inside a GitHub Actions job", name)
		}
		return v, nil
	}
	repo, err := need("GITHUB_REPOSITORY")
	if err != nil {
		return Run{}, err
	}
	owner, name, err := ghapi.ParseRepo(repo)
	if err != nil {
		return Run{}, fmt.Errorf("GITHUB_REPOSITORY: %v", err)
	}
	r.Owner, r.Repo = owner, name
	if r.Workflow, err = need("GITHUB_WORKFLOW"); err != nil {
		return Run{}, err
	}
	if r.Job, err = need("GITHUB_JOB"); err != nil {
		return Run{}, err
	}
	id, err := need("GITHUB_RUN_ID")
	if err != nil {
		return Run{}, err
	}
	if r.ID, err = strconv.ParseInt(id, 10, 64); err != nil || r.ID <= 0 {
		return Run{}, fmt.Errorf("invalid GITHUB_RUN_ID %q: want a positive number", id)
	}
	r.Attempt = 1
	if a := strings.TrimSpace(getenv("GITHUB_RUN_ATTEMPT")); a != "" {
		if r.Attempt, err = strconv.Atoi(a); err != nil || r.Attempt <= 0 {
			return Run{}, fmt.Errorf("invalid GITHUB_RUN_ATTEMPT %q: want a positive number", a)
		}
	}
	r.ServerURL = DefaultServerURL
	if s := strings.TrimSpace(getenv("GITHUB_SERVER_URL")); s != "" {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return Run{}, fmt.Errorf("invalid GITHUB_SERVER_URL %q: want an http(s) URL such as %s", redact.URL(s), DefaultServerURL)
		}
		r.ServerURL = strings.TrimRight(s, "/")
	}
	return r, nil
}

// Repository returns owner/repo.
func (r Run) Repository() string { return r.Owner + "/" + r.Repo }

// URL returns the run's page, with /attempts/N for an attempt after the first.
func (r Run) URL() string {
	u := fmt.Sprintf("%s/%s/%s/actions/runs/%d", r.ServerURL, url.PathEscape(r.Owner), url.PathEscape(r.Repo), r.ID)
	if r.Attempt > 1 {
		u += fmt.Sprintf("/attempts/%d", r.Attempt)
	}
	return u
}
