// Package ghapi is swarm-gate's narrow client of the GitHub REST API, over
// go-github: check runs (posted as rendered elsewhere, annotations 50 at a
// time, never left in progress), comments and reactions, permissions and
// team memberships, pull requests, compares, files and git data (the
// commit a command records), through a transport that honours rate limits
// and retries only what is safe to retry. It knows nothing of gates.
package ghapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/go-github/v62/github"
)

// API is what the Action and the App need from GitHub; Client implements
// it and tests can fake it.
type API interface {
	Checks
	CreateComment(ctx context.Context, repo Repo, issue int, body string) (*Comment, error)
	UpdateComment(ctx context.Context, repo Repo, commentID int64, body string) (*Comment, error)
	AddReaction(ctx context.Context, repo Repo, commentID int64, content string) error
	Permission(ctx context.Context, repo Repo, user string) (Permission, error)
	PullRequest(ctx context.Context, repo Repo, number int) (*PullRequest, error)
}

// Checks is the check-run part of API, all a Finaliser needs.
type Checks interface {
	StartChecks(ctx context.Context, repo Repo, headSHA string, names []string, externalID string) ([]*CheckRun, error)
	Complete(ctx context.Context, run *CheckRun, out CheckOutput) error
	Fail(ctx context.Context, run *CheckRun, reason string) error
}

var _ API = (*Client)(nil)

// Repo names a repository.
type Repo struct {
	Owner, Name string
}

// ParseRepo reads "owner/name" (as in GITHUB_REPOSITORY).
func ParseRepo(s string) (Repo, error) {
	owner, name, ok := strings.Cut(s, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return Repo{}, fmt.Errorf("repository %q: want owner/name", s)
	}
	return Repo{Owner: owner, Name: name}, nil
}

func (r Repo) String() string { return r.Owner + "/" + r.Name }

// Client is the GitHub client. Its methods are safe for concurrent use on
// different check runs.
type Client struct {
	gh        *github.Client
	transport *Transport
	log       *slog.Logger
	now       func() time.Time
	// detailsURL is the check runs' details_url ("" omits it).
	detailsURL atomic.Pointer[string]
	resends    int
	// conc is what BeginChecks leaves for PostCheck (deferred.go).
	conc concurrency
}

// Option configures a Client.
type Option func(*Client)

// WithLogger sets the logger for retries, waits and the Finaliser (default
// slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) { c.log = l; c.transport.Logger = l }
}

// WithSleep replaces how the transport waits (for tests: record the wait
// and return at once, or return ctx.Err()).
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client) { c.transport.Sleep = sleep }
}

// WithClock sets the clock used for x-ratelimit-reset and for completed_at.
func WithClock(now func() time.Time) Option {
	return func(c *Client) { c.now = now; c.transport.Now = now }
}

// WithMaxAttempts sets how many times one request is sent at most
// (default 3).
func WithMaxAttempts(n int) Option {
	return func(c *Client) { c.transport.MaxAttempts = n }
}

// WithAttemptTimeout bounds each attempt of a request, response body
// included (default DefaultAttemptTimeout): an attempt that hangs longer is
// cut, and resent when that is safe (Transport).
func WithAttemptTimeout(d time.Duration) Option {
	return func(c *Client) { c.transport.AttemptTimeout = d }
}

// WithDetailsURL sets the details_url of every check run the client
// creates or updates (an absolute URL: the Action's workflow run page);
// "" omits it.
func WithDetailsURL(u string) Option {
	return func(c *Client) { c.SetDetailsURL(u) }
}

// SetDetailsURL changes the details_url sent with the check runs created
// or updated from now on ("" omits it): the App's summary comment, once it
// is known. Safe for concurrent use.
func (c *Client) SetDetailsURL(u string) { c.detailsURL.Store(&u) }

// details is the details_url to send, nil for none.
func (c *Client) details() *string {
	if p := c.detailsURL.Load(); p != nil && *p != "" {
		u := *p
		return &u
	}
	return nil
}

// DefaultBaseURL is github.com's API.
const DefaultBaseURL = "https://api.github.com/"

// NewClient returns a client for the API at baseURL with token, sending
// through httpClient's transport (nil: http.DefaultTransport) wrapped in a
// Transport.
//
// baseURL comes from configuration only, never from a request: "" or
// https://api.github.com/ for github.com; for GitHub Enterprise Server the
// API root, http(s)://HOST or http(s)://HOST/api/v3 (a trailing slash is
// added); for GHE.com http(s)://api.SUBDOMAIN.ghe.com. Other schemes, a
// user or password in the URL, a query or fragment, or another path are
// errors (a *BaseURLError). token must not be empty.
//
// httpClient.Timeout, if set, bounds each call including its retries and
// rate-limit waits; prefer context deadlines.
func NewClient(baseURL, token string, httpClient *http.Client, opts ...Option) (*Client, error) {
	if token == "" {
		return nil, errors.New("github client: the token is empty (set the github-token input or GITHUB_TOKEN)")
	}
	hc := &http.Client{}
	if httpClient != nil {
		cp := *httpClient
		hc = &cp
	}
	t := &Transport{Base: hc.Transport}
	hc.Transport = t
	c := &Client{transport: t, log: slog.Default(), now: time.Now, resends: 2}
	t.Logger = c.log
	for _, o := range opts {
		o(c)
	}
	t.once.Do(t.defaults)

	gh := github.NewClient(hc).WithAuthToken(token)
	api, upload, err := enterpriseURLs(baseURL)
	if err != nil {
		return nil, err
	}
	if api != "" {
		if gh, err = gh.WithEnterpriseURLs(api, upload); err != nil {
			return nil, &BaseURLError{URL: baseURL, Why: err.Error()}
		}
	}
	gh.UserAgent = "swarm-gate"
	c.gh = gh
	return c, nil
}

// BaseURLError is why a configured API base URL is refused (NewClient,
// CheckBaseURL).
type BaseURLError struct {
	URL string // as configured
	Why string // e.g. "that is the web site, not the API"
}

// WantBaseURL lists the API base URLs NewClient accepts, for messages.
const WantBaseURL = "https://api.github.com/, https://HOST/api/v3/ (GitHub Enterprise Server) or https://api.SUBDOMAIN.ghe.com/"

func (e *BaseURLError) Error() string {
	return fmt.Sprintf("github base URL %q: %s; want %s", e.URL, e.Why, WantBaseURL)
}

// CheckBaseURL checks a configured API base URL as NewClient does, without
// making a client; the error is a *BaseURLError.
func CheckBaseURL(baseURL string) error {
	_, _, err := enterpriseURLs(baseURL)
	return err
}

// Roots are the URLs one configured API base URL stands for.
type Roots struct {
	// API is the REST API's root without a trailing slash:
	// https://api.github.com, https://HOST/api/v3 (GitHub Enterprise
	// Server) or https://api.SUBDOMAIN.ghe.com (GHE.com).
	API string
	// Web is the root the repositories live under: https://github.com,
	// https://HOST or https://SUBDOMAIN.ghe.com.
	Web string
	// Upload is the uploads root with a trailing slash; "" for github.com.
	Upload string
}

// ParseBaseURL checks a configured API base URL ("" is github.com's) and
// returns its roots. The one parser of such a URL: NewClient, the Action
// (GITHUB_API_URL) and the App (SWARM_GATE_GITHUB_API_URL) all use it. The
// error is a *BaseURLError saying why (the web site, another path, another
// scheme, credentials, a query).
func ParseBaseURL(baseURL string) (Roots, error) {
	if baseURL == "" {
		return Roots{API: "https://api.github.com", Web: "https://github.com"}, nil
	}
	bad := func(why string) (Roots, error) {
		return Roots{}, &BaseURLError{URL: baseURL, Why: why}
	}
	u, err := url.Parse(baseURL)
	switch {
	case err != nil:
		return bad(err.Error())
	case u.Scheme != "https" && u.Scheme != "http":
		return bad("the scheme must be https or http")
	case u.Host == "" || u.Opaque != "":
		return bad("no host")
	case u.User != nil:
		return bad("credentials do not belong in the URL")
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return bad("no query or fragment allowed")
	}
	p := strings.TrimSuffix(u.Path, "/")
	host := strings.ToLower(u.Hostname())
	origin := u.Scheme + "://" + u.Host
	switch {
	case host == "api.github.com" && p == "":
		return Roots{API: "https://api.github.com", Web: "https://github.com"}, nil
	case host == "github.com":
		return bad("that is the web site, not the API")
	case strings.HasPrefix(host, "api.") && p == "":
		// GHE.com: go-github adds no /api/v3 for api.* hosts.
		return Roots{API: origin, Web: u.Scheme + "://" + strings.TrimPrefix(u.Host, "api."),
			Upload: u.Scheme + "://" + strings.Replace(u.Host, "api.", "uploads.", 1) + "/"}, nil
	case p == "" || p == "/api/v3":
		return Roots{API: origin + "/api/v3", Web: origin, Upload: origin + "/api/uploads/"}, nil
	}
	return bad("the path must be empty or /api/v3")
}

// enterpriseURLs returns the API and upload URLs for go-github's
// WithEnterpriseURLs, or "" for github.com.
func enterpriseURLs(baseURL string) (api, upload string, err error) {
	r, err := ParseBaseURL(baseURL)
	if err != nil || r.Upload == "" {
		return "", "", err
	}
	return r.API + "/", r.Upload, nil
}

// Stats returns what the transport sent and waited so far.
func (c *Client) Stats() Stats { return c.transport.Stats() }

// ambiguous is true for a failure that leaves open whether GitHub applied
// a request: a 5xx, or an error on the connection after it was made.
func ambiguous(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		return er.Response != nil && er.Response.StatusCode >= 500
	}
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	if errors.As(err, &rl) || errors.As(err, &ab) || neverSent(err) {
		return false
	}
	return true
}

// apiError names the call in an error; a rate limit says when it lifts
// (explainRateLimit).
func apiError(action string, err error) error {
	return fmt.Errorf("%s: %w", action, explainRateLimit(err))
}
