package explain

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/retrywise/retrywise/internal/ghapi"
)

// Target names one workflow run: the web host it lives on, its repository,
// its id and, when the URL names one, its attempt.
type Target struct {
	// Host is the web host (github.com, or a GitHub Enterprise Server's).
	Host string
	// Owner and Repo name the repository.
	Owner, Repo string
	// RunID is the run's id.
	RunID int64
	// Attempt is the attempt the URL names; 0 means the latest.
	Attempt int
}

// String returns the run's URL.
func (t Target) String() string {
	host := t.Host
	if host == "" {
		host = "github.com"
	}
	s := fmt.Sprintf("https://%s/%s/%s/actions/runs/%d", host, t.Owner, t.Repo, t.RunID)
	if t.Attempt > 0 {
		s += fmt.Sprintf("/attempts/%d", t.Attempt)
	}
	return s
}

// ParseURL parses a run URL: https://HOST/OWNER/REPO/actions/runs/ID or
// .../runs/ID/attempts/N (a trailing slash, query or fragment allowed; a
// /job/ID suffix, as the web UI links a job, names the whole run).
func ParseURL(s string) (Target, error) {
	bad := func(why string) (Target, error) {
		return Target{}, fmt.Errorf("not a workflow run URL %q: %s (want https://HOST/OWNER/REPO/actions/runs/ID[/attempts/N])", s, why)
	}
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return bad("not an http(s) URL")
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 5 || parts[2] != "actions" || parts[3] != "runs" || parts[0] == "" || parts[1] == "" {
		return bad("its path is not OWNER/REPO/actions/runs/ID")
	}
	id, err := strconv.ParseInt(parts[4], 10, 64)
	if err != nil || id <= 0 {
		return bad("the run id is not a positive number")
	}
	if err := ghapi.CheckRepo(parts[0], parts[1]); err != nil {
		return bad(err.Error())
	}
	t := Target{Host: u.Host, Owner: parts[0], Repo: parts[1], RunID: id}
	rest := parts[5:]
	switch {
	case len(rest) == 0:
	case len(rest) >= 2 && rest[0] == "attempts":
		n, err := strconv.Atoi(rest[1])
		if err != nil || n <= 0 {
			return bad("the attempt is not a positive number")
		}
		t.Attempt = n
		if len(rest) > 2 {
			return bad("unexpected path after the attempt")
		}
	case len(rest) == 2 && rest[0] == "job":
		if _, err := strconv.ParseInt(rest[1], 10, 64); err != nil {
			return bad("the job id is not a number")
		}
	default:
		return bad("unexpected path after the run id")
	}
	return t, nil
}

// ParseRepo parses OWNER/REPO, checked against GitHub's name rules
// (ghapi.ParseRepo).
func ParseRepo(s string) (owner, repo string, err error) {
	return ghapi.ParseRepo(s)
}

// APIBase returns the REST API root for a run on host: apiURL (the
// environment's GITHUB_API_URL) when set, else https://api.github.com/ for
// github.com (or no host), else https://HOST/api/v3/ (GitHub Enterprise Server).
func APIBase(host, apiURL string) string {
	if apiURL != "" {
		return apiURL
	}
	switch strings.ToLower(host) {
	case "", "github.com", "www.github.com":
		return "https://api.github.com/"
	}
	return "https://" + host + "/api/v3/"
}
