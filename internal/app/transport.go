package app

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// evaluation counts one job's GitHub API requests. It travels in the
// request context, so that the requests made on the job's behalf by
// shared transports (minting the installation token) count too.
type evaluation struct {
	reads, writes, cacheHits atomic.Int64
}

type evaluationKey struct{}

func withEvaluation(ctx context.Context, e *evaluation) context.Context {
	return context.WithValue(ctx, evaluationKey{}, e)
}

func evaluationOf(ctx context.Context) *evaluation {
	e, _ := ctx.Value(evaluationKey{}).(*evaluation)
	return e
}

// Calls is the number of requests sent for the evaluation.
func (e *evaluation) Calls() int64 { return e.reads.Load() + e.writes.Load() }

// counting is the transport right above the network: every request it
// sends is one API call, counted in the metrics and in the request's
// evaluation, and the x-ratelimit-remaining of every response goes to the
// gauge of its rate limit (limit).
type counting struct {
	next http.RoundTripper
	m    *metrics
	// limit names the rate limit the requests draw on, the installation
	// label of swarm_gate_rate_limit_remaining: an installation id, or
	// appLimit.
	limit string
}

// appLimit is the installation label of the App's own requests (JWT).
const appLimit = "app"

func (c *counting) RoundTrip(req *http.Request) (*http.Response, error) {
	c.m.apiCalls.WithLabelValues(req.Method).Inc()
	if e := evaluationOf(req.Context()); e != nil {
		if req.Method == http.MethodGet || req.Method == http.MethodHead {
			e.reads.Add(1)
		} else {
			e.writes.Add(1)
		}
	}
	resp, err := c.next.RoundTrip(req)
	if err == nil {
		if n, perr := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining")); perr == nil {
			c.m.rateRemaining.WithLabelValues(c.limit).Set(float64(n))
		}
	}
	return resp, err
}

// tokenSource gives the installation token to send; ghinstallation's
// Transport is one (it mints a token when there is none or the one it has
// expires within a minute).
type tokenSource interface {
	Token(ctx context.Context) (string, error)
}

// installationAuth sets the installation token on each request, so that a
// token that expires during a long evaluation is replaced.
type installationAuth struct {
	tokens tokenSource
	next   http.RoundTripper
}

func (a *installationAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := a.tokens.Token(req.Context())
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "token "+tok)
	return a.next.RoundTrip(r)
}

// getCache answers a GET that one evaluation already made (same URL and
// Accept header) from the first answer, while nothing written since could
// have changed it: a write invalidates the cached reads of the same
// repository that share a path word with it (a check-run update drops the
// cached list of the commit's check runs; a new comment the cached list of
// comments). Only 200 answers are kept. A GET with "Cache-Control:
// no-cache" is always sent (ghapi's re-list of a commit's check runs, which
// another replica may have changed), and its answer replaces the cached
// one. One getCache serves one evaluation.
type getCache struct {
	next http.RoundTripper
	m    *metrics

	mu      sync.Mutex
	entries map[string]*cached
}

type cached struct {
	path   string
	status string
	code   int
	proto  string
	header http.Header
	body   []byte
}

func newGetCache(next http.RoundTripper, m *metrics) *getCache {
	return &getCache{next: next, m: m, entries: map[string]*cached{}}
}

// maxCachedBody bounds what one cached answer may hold.
const maxCachedBody = 8 << 20

func (c *getCache) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet {
		if req.Method != http.MethodHead && req.Method != http.MethodOptions {
			c.invalidate(req.URL.Path)
		}
		return c.next.RoundTrip(req)
	}
	key := req.URL.String() + "\x00" + req.Header.Get("Accept")
	c.mu.Lock()
	hit := c.entries[key]
	c.mu.Unlock()
	if req.Header.Get("Cache-Control") == "no-cache" {
		hit = nil // the caller wants GitHub's answer now (and it is kept)
	}
	if hit != nil {
		c.m.cacheHits.Inc()
		if e := evaluationOf(req.Context()); e != nil {
			e.cacheHits.Add(1)
		}
		return hit.response(req), nil
	}
	resp, err := c.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCachedBody+1))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	entry := &cached{path: req.URL.Path, status: resp.Status, code: resp.StatusCode, proto: resp.Proto, header: resp.Header.Clone(), body: body}
	if len(body) <= maxCachedBody {
		c.mu.Lock()
		c.entries[key] = entry
		c.mu.Unlock()
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

func (e *cached) response(req *http.Request) *http.Response {
	return &http.Response{Status: e.status, StatusCode: e.code, Proto: e.proto, ProtoMajor: 1, ProtoMinor: 1,
		Header: e.header.Clone(), Body: io.NopCloser(bytes.NewReader(e.body)), ContentLength: int64(len(e.body)), Request: req}
}

// invalidate drops the cached reads a write to path may have changed.
func (c *getCache) invalidate(path string) {
	repo, words := resourceWords(path)
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		erepo, ewords := resourceWords(e.path)
		if repo == "" || erepo == "" || (repo == erepo && shareWord(words, ewords)) {
			delete(c.entries, k)
		}
	}
}

// hashOrNumber matches path segments that name an object rather than a
// kind of resource.
var hashOrNumber = regexp.MustCompile(`^(?:[0-9]+|[0-9a-f]{40})$`)

// resourceWords splits an API path under /repos/{owner}/{repo}/ into the
// repository and the words naming kinds of resources (check-runs,
// commits, issues, comments, ...); repo is "" for other paths.
func resourceWords(path string) (repo string, words []string) {
	i := strings.Index(path, "/repos/")
	if i < 0 {
		return "", nil
	}
	parts := strings.Split(path[i+len("/repos/"):], "/")
	if len(parts) < 3 {
		return "", nil
	}
	for _, p := range parts[2:] {
		if p != "" && !hashOrNumber.MatchString(p) {
			words = append(words, p)
		}
	}
	return parts[0] + "/" + parts[1], words
}

func shareWord(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
