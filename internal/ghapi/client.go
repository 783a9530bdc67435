// Package ghapi talks to the GitHub REST API through
// github.com/google/go-github/v60; for now it reads the rate-limit quota.
//
// Every GitHub API client of retrywise comes from New, and New alone adds
// the token: per request, in a RoundTripper around the caller's transport,
// and only to a request whose origin (scheme, host and port, the default
// ports 80 and 443 written or not) is the API's (Options.BaseURL). A
// redirect to another origin, followed by the client (retrywise's policy,
// httpstep.FollowPolicy) or by go-github itself (the logs methods follow a
// 301 past CheckRedirect), never carries it; nor does any other request
// there carry an Authorization header. This is stricter than the rule for
// other redirects (docs/reference/secrets.md): an upgrade from http to
// https is another origin for the token.
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
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/httpstep"
	"github.com/retrywise/retrywise/internal/redact"
)

// DefaultBaseURL is the API base used when GITHUB_API_URL is not set.
const DefaultBaseURL = "https://api.github.com/"

// Options configures New.
type Options struct {
	// HTTPClient sends the requests; nil means a client with Go's default
	// transport. New uses a copy of it: its transport wrapped to add the
	// token, and retrywise's redirect policy (httpstep.FollowPolicy) when it
	// has no CheckRedirect of its own.
	HTTPClient *http.Client
	// BaseURL is the REST API's root, as in GITHUB_API_URL; "" means DefaultBaseURL.
	BaseURL string
	// Token authenticates as "Authorization: Bearer TOKEN", sent only to
	// BaseURL's origin; "" sends no credentials.
	Token string
	// UserAgent is sent with every request; "" keeps go-github's.
	UserAgent string
	// Clock gives the time that rate-limit resets are measured from (when
	// the answer has no Date header); nil means the wall clock.
	Clock clock.Clock
	// MaxElapsed is the step's whole max elapsed: a rate limit whose reset is
	// further away is policy (failure.JudgeWait); 0 means failure.DefaultMaxElapsed.
	MaxElapsed time.Duration
}

// Client is a GitHub API client; it is safe for concurrent use.
type Client struct {
	gh         *github.Client
	clk        clock.Clock
	maxElapsed time.Duration
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
	gh := github.NewClient(apiHTTPClient(opts.HTTPClient, originOf(u), opts.Token))
	gh.BaseURL = u
	if opts.UserAgent != "" {
		gh.UserAgent = opts.UserAgent
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	return &Client{gh: gh, clk: clk, maxElapsed: opts.MaxElapsed}, nil
}

// apiHTTPClient returns a copy of hc (nil: a client of Go's default
// transport) whose transport adds the token to the requests bound for
// origin, and whose redirects follow retrywise's policy unless hc has one.
// hc itself is left as it was.
func apiHTTPClient(hc *http.Client, origin, token string) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &tokenTransport{base: base, origin: origin, token: token}
	policy := c.CheckRedirect
	if policy == nil {
		policy = httpstep.FollowPolicy(nil)
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := policy(req, via); err != nil {
			return err
		}
		if req.Context().Value(stopAwayKey{}) != nil && !isMove(req, origin) {
			return http.ErrUseLastResponse
		}
		return nil
	}
	return &c
}

// stopAwayKey marks the context of a request (JobLogURL's) whose client
// stops at the first redirect that is not a move on the API's origin.
type stopAwayKey struct{}

// isMove reports whether req is a redirect by 301 or 308 (the resource
// moved) to a URL on origin.
func isMove(req *http.Request, origin string) bool {
	if req.Response == nil || originOf(req.URL) != origin {
		return false
	}
	st := req.Response.StatusCode
	return st == http.StatusMovedPermanently || st == http.StatusPermanentRedirect
}

// tokenTransport adds "Authorization: Bearer token" to each request whose
// origin is origin, and takes from every other request its Authorization
// header and any header holding the token.
type tokenTransport struct {
	base   http.RoundTripper
	origin string
	token  string
}

// MaxResponse is the most of an API answer's body that is read (a page
// of a list, an error): past it, reading fails with a structural
// http-body-too-large failure, so a hostile or broken server costs at most
// this much memory per request. GitHub's largest pages (100 jobs with
// their steps) are well under 1 MiB.
const MaxResponse = 32 << 20

// RoundTrip sends a copy of req, with or without the token, and bounds
// the answer's body to MaxResponse.
func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.send(req)
	if resp != nil && resp.Body != nil {
		resp.Body = &boundedBody{rc: resp.Body, left: MaxResponse, url: redact.URL(req.URL.String())}
	}
	return resp, err
}

func (t *tokenTransport) send(req *http.Request) (*http.Response, error) {
	if t.token == "" {
		return t.base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	if originOf(req.URL) == t.origin {
		r.Header.Set("Authorization", "Bearer "+t.token)
		return t.base.RoundTrip(r)
	}
	r.Header.Del("Authorization")
	for name, vs := range r.Header {
		for _, v := range vs {
			if strings.Contains(v, t.token) {
				r.Header.Del(name)
				break
			}
		}
	}
	return t.base.RoundTrip(r)
}

// boundedBody reads at most left more bytes of rc, then closes rc and
// fails with failure.APIResponseTooLarge.
type boundedBody struct {
	rc   io.ReadCloser
	left int64
	url  string
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// one byte more tells a body of exactly the bound from a longer one
		var one [1]byte
		if n, err := b.rc.Read(one[:]); n == 0 {
			return 0, err
		}
		// closed now: a caller that swaps the body for what it read (as
		// go-github's CheckResponse does) would otherwise never close it
		b.rc.Close()
		return 0, failure.APIResponseTooLarge(b.url, MaxResponse)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }

// originOf is u's origin, as the token's rule compares it:
// scheme://host:port, the scheme and host in lower case, a host's trailing
// dot dropped, the scheme's default port (80, 443) written when u has none.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// JobLogURL asks the API where a job's log is (GET
// /repos/{owner}/{repo}/actions/jobs/{id}/logs, which answers a redirect to
// a signed URL) and returns that URL, without sending anything there: the
// log is downloaded without the token. A move of the endpoint on the API's
// origin (301, 308) is followed with the token, under retrywise's redirect
// policy; any other redirect is the answer. It replaces go-github's
// GetWorkflowJobLogs, which follows a 301 itself, past the client's policy.
func (c *Client) JobLogURL(ctx context.Context, owner, repo string, jobID int64) (*url.URL, *github.Response, error) {
	req, err := c.gh.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/actions/jobs/%d/logs", url.PathEscape(owner), url.PathEscape(repo), jobID), nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.gh.BareDo(context.WithValue(ctx, stopAwayKey{}, true), req)
	if resp == nil || resp.Response == nil {
		return nil, resp, err
	}
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		if err == nil {
			resp.Body.Close()
			err = fmt.Errorf("unexpected status code: %s", resp.Status)
		}
		return nil, resp, err
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil, resp, fmt.Errorf("unexpected status code: %s without a Location", resp.Status)
	}
	u, perr := resp.Request.URL.Parse(loc)
	if perr != nil {
		return nil, resp, fmt.Errorf("the job's log: invalid Location: %w", perr)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, resp, &failure.RedirectSchemeError{Scheme: u.Scheme}
	}
	return u, resp, nil
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
		return nil, ClassifyFor(err, c.clk.Now(), c.maxElapsed)
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
