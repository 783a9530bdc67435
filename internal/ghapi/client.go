// Package ghapi talks to the GitHub REST API through
// github.com/google/go-github/v60; for now it reads the rate-limit quota.
//
// Two habits of go-github v60 need care, and Classify handles both: a 429
// answer comes back as a plain *github.ErrorResponse (only a 403 with
// X-RateLimit-Remaining: 0 becomes a *github.RateLimitError), and after a
// rate-limit error a go-github client refuses further calls by itself until
// the reset, returning a *github.RateLimitError (or *AbuseRateLimitError for
// the secondary limit) without sending anything. Both become transient
// failures whose RetryAfter is the reset, so the one retry loop waits on the
// injected clock. (GET /rate_limit itself is exempt from the refusal.)
package ghapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/redact"
)

// DefaultBaseURL is the API base used when GITHUB_API_URL is not set.
const DefaultBaseURL = "https://api.github.com/"

// Options configures New.
type Options struct {
	// HTTPClient sends the requests; nil means a client with Go's default transport.
	HTTPClient *http.Client
	// BaseURL is the REST API's root, as in GITHUB_API_URL; "" means DefaultBaseURL.
	BaseURL string
	// Token authenticates as "Authorization: Bearer TOKEN"; "" sends no credentials.
	Token string
	// UserAgent is sent with every request; "" keeps go-github's.
	UserAgent string
	// Clock gives the time that rate-limit resets are measured from; nil means the wall clock.
	Clock clock.Clock
}

// Client is a GitHub API client; it is safe for concurrent use.
type Client struct {
	gh  *github.Client
	clk clock.Clock
}

// New returns a client for the API at opts.BaseURL.
func New(opts Options) (*Client, error) {
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid GitHub API URL %q: want an http(s) URL such as %s", redact.URL(base), DefaultBaseURL)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	gh := github.NewClient(opts.HTTPClient)
	if opts.Token != "" {
		gh = gh.WithAuthToken(opts.Token)
	}
	gh.BaseURL = u
	if opts.UserAgent != "" {
		gh.UserAgent = opts.UserAgent
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	return &Client{gh: gh, clk: clk}, nil
}

// GitHub returns the go-github client New configured (base URL, token, user
// agent), for the packages that call other endpoints; it is shared, not a copy.
func (c *Client) GitHub() *github.Client { return c.gh }

// BaseURL returns the API root the client sends to.
func (c *Client) BaseURL() *url.URL { u := *c.gh.BaseURL; return &u }

// Resource names a rate-limit bucket.
type Resource string

// The buckets github-quota checks.
const (
	Core    Resource = "core"
	Search  Resource = "search"
	GraphQL Resource = "graphql"
)

// ParseResource returns the resource named s: core, search or graphql.
func ParseResource(s string) (Resource, error) {
	switch r := Resource(strings.ToLower(strings.TrimSpace(s))); r {
	case Core, Search, GraphQL:
		return r, nil
	}
	return "", fmt.Errorf("invalid resource %q: want core, search or graphql", s)
}

// Rate is one bucket's state.
type Rate struct {
	// Limit is the bucket's size per window.
	Limit int `json:"limit"`
	// Remaining is what is left in this window.
	Remaining int `json:"remaining"`
	// Reset is when the window ends and the bucket refills.
	Reset time.Time `json:"reset"`
}

// Quota is the rate-limit state of every bucket GitHub reported.
type Quota map[Resource]Rate

// Quota reads GET /rate_limit (which does not count against the quota). A
// failure is returned as a classified *failure.Failure.
func (c *Client) Quota(ctx context.Context) (Quota, error) {
	rl, _, err := c.gh.RateLimit.Get(ctx)
	if err != nil {
		return nil, Classify(err, c.clk.Now())
	}
	q := Quota{}
	add := func(r Resource, v *github.Rate) {
		if v != nil {
			q[r] = Rate{Limit: v.Limit, Remaining: v.Remaining, Reset: v.Reset.Time}
		}
	}
	add(Core, rl.Core)
	add(Search, rl.Search)
	add(GraphQL, rl.GraphQL)
	add("code_search", rl.CodeSearch)
	add("integration_manifest", rl.IntegrationManifest)
	add("source_import", rl.SourceImport)
	add("code_scanning_upload", rl.CodeScanningUpload)
	add("actions_runner_registration", rl.ActionsRunnerRegistration)
	add("scim", rl.SCIM)
	add("dependency_snapshots", rl.DependencySnapshots)
	return q, nil
}
