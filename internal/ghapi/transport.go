package ghapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-github/v62/github"
)

// Transport is the http.RoundTripper under the go-github client: it waits
// out GitHub's rate limits and retries what is safe to retry, and counts
// what it sent.
//
// What is retried, at most MaxAttempts times in all:
//
//   - A rate-limit rejection, of any method: 429, or 403 with
//     x-ratelimit-remaining 0, a Retry-After header, or a message about a
//     secondary rate limit. GitHub answers these before doing anything, so
//     even a POST is known not to have been applied. The wait is
//     Retry-After seconds when given; else, with remaining 0, until
//     x-ratelimit-reset (plus one second for clock skew); else (a secondary
//     limit without headers) SecondaryWait doubled per attempt, jittered.
//   - 500, 502, 503 and 504, and errors on the connection, for idempotent
//     requests only: GET, HEAD, OPTIONS, PUT, DELETE, and PATCH except one
//     marked as appending (a check-run update with annotations appends
//     them). The wait is Retry-After when given, else Backoff doubled per
//     attempt with jitter, at most a minute.
//   - A connection that could not be made (dial or DNS failure), for any
//     method: the request never left.
//   - A success whose body breaks off before its end, for idempotent
//     requests: the body is read whole here (buffer), so that the cut is
//     seen where the request can be resent.
//
// A POST, or an appending PATCH, that fails in a way that leaves open
// whether GitHub applied it (a 5xx, a connection reset) is never resent
// here; the Client decides after reading back what GitHub holds. 401 and
// every other status are returned at once.
//
// Waits are bounded: one longer than MaxWait, or one that would end after
// the context's deadline, is not started, and the rate-limit response is
// returned as it is (go-github turns it into *github.RateLimitError or
// *github.AbuseRateLimitError).
//
// When a response reports x-ratelimit-remaining 0 (a success, or a
// rate-limit rejection returned as it is), the next request waits until
// x-ratelimit-reset (bounded the same way); if that wait does not fit, the
// request goes out and GitHub's answer decides.
//
// The Transport alone keeps the rate-limit state. go-github remembers, on
// its own, an x-ratelimit-reset seen with remaining 0 (or no remaining at
// all), and a secondary limit's Retry-After or x-ratelimit-reset; until
// then it refuses every request locally, without sending it, so that one
// answer the transport gave up on would make the Finaliser's requests
// fail too and leave check runs in progress. So the response handed to
// go-github has those headers renamed (see shield): X-RateLimit-Reset to
// X-Swarm-Gate-Ratelimit-Reset, Retry-After to X-Swarm-Gate-Retry-After,
// which the Client's error messages read.
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// MaxAttempts is the number of times one request is sent, at most
	// (default 3).
	MaxAttempts int
	// MaxWait is the longest single wait for a rate limit or Retry-After
	// (default 15 minutes).
	MaxWait time.Duration
	// Backoff is the first wait before resending after a 5xx or a
	// connection error (default 1 second), doubled per attempt.
	Backoff time.Duration
	// SecondaryWait is the first wait after a secondary rate limit that
	// names no time (default 1 minute, as GitHub's documentation asks).
	SecondaryWait time.Duration
	// AttemptTimeout bounds one attempt, response body included (default
	// DefaultAttemptTimeout), so that a connection that hangs never holds a
	// request for longer: every request has a deadline, whatever its
	// context.
	AttemptTimeout time.Duration
	// Sleep waits for d or until ctx is done, returning ctx.Err() then
	// (default: a timer). Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock that x-ratelimit-reset is compared with (default
	// time.Now).
	Now func() time.Time
	// Logger receives one debug record per retry or wait (default: none).
	Logger *slog.Logger

	requests, retries atomic.Int64
	waited            atomic.Int64 // nanoseconds

	once     sync.Once // fills in the defaults
	mu       sync.Mutex
	resumeAt time.Time // the primary limit is used up until then
}

// Stats counts what a Transport did, for logs and metrics.
type Stats struct {
	// Requests is the number of HTTP requests sent, retries included.
	Requests int64
	// Retries is the number of requests that were resends.
	Retries int64
	// Waited is the total time spent waiting for rate limits and backoff.
	Waited time.Duration
}

// Stats returns the counts so far.
func (t *Transport) Stats() Stats {
	return Stats{Requests: t.requests.Load(), Retries: t.retries.Load(), Waited: time.Duration(t.waited.Load())}
}

// DefaultAttemptTimeout is a Transport's default AttemptTimeout. GitHub
// ends any REST request that takes it more than 10 seconds, so an attempt
// still unanswered after 30 seconds is taken for hung.
const DefaultAttemptTimeout = 30 * time.Second

// ErrAttemptTimeout is the error of an attempt that took longer than
// AttemptTimeout.
var ErrAttemptTimeout = errors.New("github request timed out")

// retryPolicy overrides the method's idempotency for one request.
type retryPolicy int

const (
	byMethod   retryPolicy = iota
	appending              // not idempotent: never resent after an ambiguous failure
	repeatable             // safe to resend (e.g. a reaction: GitHub answers 200 for a repeat)
)

type policyKey struct{}

func withPolicy(ctx context.Context, p retryPolicy) context.Context {
	return context.WithValue(ctx, policyKey{}, p)
}

func idempotent(req *http.Request) bool {
	switch p, _ := req.Context().Value(policyKey{}).(retryPolicy); p {
	case appending:
		return false
	case repeatable:
		return true
	}
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete, http.MethodPatch:
		return true
	}
	return false
}

func (t *Transport) defaults() {
	if t.MaxAttempts <= 0 {
		t.MaxAttempts = 3
	}
	if t.MaxWait <= 0 {
		t.MaxWait = 15 * time.Minute
	}
	if t.Backoff <= 0 {
		t.Backoff = time.Second
	}
	if t.SecondaryWait <= 0 {
		t.SecondaryWait = time.Minute
	}
	if t.AttemptTimeout <= 0 {
		t.AttemptTimeout = DefaultAttemptTimeout
	}
	if t.Sleep == nil {
		t.Sleep = sleep
	}
	if t.Now == nil {
		t.Now = time.Now
	}
	if t.Logger == nil {
		t.Logger = slog.New(slog.DiscardHandler)
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RoundTrip sends the request, waiting and resending as the type's comment
// says.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.once.Do(t.defaults)
	ctx := req.Context()
	body, err := replayable(req)
	if err != nil {
		return nil, err
	}
	if err := t.waitForReset(ctx, req); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		resp, err := t.send(ctx, req, body)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if attempt >= t.MaxAttempts || !(idempotent(req) || neverSent(err)) {
				return nil, err
			}
			if werr := t.wait(ctx, req, t.backoff(attempt), "connection error: "+err.Error(), attempt); werr != nil {
				return nil, werr
			}
			continue
		}
		wait, reason, retry := t.classify(req, resp, attempt)
		if !retry && resp.StatusCode < 300 && idempotent(req) && attempt < t.MaxAttempts {
			// An answer cut mid-body is resent like a broken connection.
			if err := buffer(resp); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				if werr := t.wait(ctx, req, t.backoff(attempt), "reading the answer: "+err.Error(), attempt); werr != nil {
					return nil, werr
				}
				continue
			}
		}
		if !retry || attempt >= t.MaxAttempts || !t.fits(ctx, wait) {
			t.noteRemaining(resp)
			shield(resp)
			return resp, nil
		}
		drain(resp)
		if err := t.wait(ctx, req, wait, reason, attempt); err != nil {
			return nil, err
		}
	}
}

// send makes one attempt with its own timeout; the timeout is released when
// the response body is closed.
func (t *Transport) send(ctx context.Context, req *http.Request, body []byte) (*http.Response, error) {
	actx, cancel := context.WithTimeout(ctx, t.AttemptTimeout)
	r := req.Clone(actx)
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
	}
	t.requests.Add(1)
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(r)
	if err != nil {
		cancel()
		if ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
			// Not the caller's deadline: the attempt's own. Whether the
			// request was applied is unknown, unlike after a cancellation.
			err = fmt.Errorf("%w (%v)", ErrAttemptTimeout, t.AttemptTimeout)
		}
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// maxBuffered bounds how much of an answer buffer reads before handing
// the rest over unread.
const maxBuffered = 32 << 20

// buffer reads a response body whole (up to maxBuffered; beyond, the rest
// is handed over unread), so that a body cut short is an error here, where
// the request can be resent, not in the caller's JSON decoder.
func buffer(resp *http.Response) error {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBuffered+1))
	if err != nil {
		resp.Body.Close()
		return err
	}
	if len(raw) > maxBuffered {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(raw), resp.Body), resp.Body}
		return nil
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	return nil
}

// pause waits before the Client resends, itself, a request whose failure
// left open whether GitHub applied it, once it read back that it was not
// (attempt counts from 1, as the transport's): the same growing, jittered
// backoff as the transport's own resends, counted in Stats. It returns
// ctx.Err() when ctx ends first, and an error without waiting when the
// wait would end after ctx's deadline.
func (t *Transport) pause(ctx context.Context, what string, attempt int) error {
	t.once.Do(t.defaults)
	d := t.backoff(attempt)
	if !t.fits(ctx, d) {
		return fmt.Errorf("not resending %s: the next attempt would end after the deadline", what)
	}
	t.Logger.DebugContext(ctx, "github request will be resent by the client", "what", what, "attempt", attempt, "wait", d)
	t.retries.Add(1)
	t.waited.Add(int64(d))
	return t.Sleep(ctx, d)
}

// replayable reads the request body once so that every attempt can send
// it; nil when there is none.
func replayable(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

// classify says whether a response is worth resending and after how long.
func (t *Transport) classify(req *http.Request, resp *http.Response, attempt int) (wait time.Duration, reason string, retry bool) {
	retryAfter, hasRetryAfter := parseRetryAfter(resp.Header.Get("Retry-After"), t.Now())
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusForbidden:
		remaining := resp.Header.Get("X-RateLimit-Remaining")
		switch {
		case hasRetryAfter:
			return retryAfter, "rate limited (Retry-After)", true
		case remaining == "0":
			reset, ok := parseReset(resp.Header.Get("X-RateLimit-Reset"))
			if !ok {
				return t.grow(t.SecondaryWait, attempt, t.MaxWait), "rate limit used up, no reset time", true
			}
			return max(0, reset.Sub(t.Now())) + time.Second, "rate limit used up until x-ratelimit-reset", true
		case resp.StatusCode == http.StatusTooManyRequests || secondaryLimit(resp):
			return t.grow(t.SecondaryWait, attempt, t.MaxWait), "secondary rate limit", true
		}
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		// GitHub answers 500 for transient faults too (issue 20 item 4: a
		// permission read that got 500 failed the command at once).
		if !idempotent(req) {
			return 0, "", false
		}
		if hasRetryAfter {
			return retryAfter, resp.Status, true
		}
		return t.backoff(attempt), resp.Status, true
	}
	return 0, "", false
}

// secondaryLimit reads a 403's body (and puts it back) to tell a secondary
// rate limit from a permission error.
func secondaryLimit(resp *http.Response) bool {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(raw), resp.Body), resp.Body}
	if err != nil {
		return false
	}
	s := strings.ToLower(string(raw))
	return strings.Contains(s, "secondary rate limit") || strings.Contains(s, "abuse") || strings.Contains(s, "secondary-rate-limits")
}

func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if when, err := http.ParseTime(v); err == nil {
		return max(0, when.Sub(now)), true
	}
	return 0, false
}

func parseReset(v string) (time.Time, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, false
	}
	return time.Unix(n, 0), true
}

// backoff is the wait before resending after a 5xx or a connection error.
func (t *Transport) backoff(attempt int) time.Duration {
	return t.grow(t.Backoff, attempt, time.Minute)
}

// grow doubles first per attempt after the first, up to limit, and adds up
// to half of it again at random, so that parallel clients spread out.
func (t *Transport) grow(first time.Duration, attempt int, limit time.Duration) time.Duration {
	d := first
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	return d + time.Duration(rand.Int64N(int64(d/2)+1))
}

// fits says whether a wait can be started: not longer than MaxWait, and
// ending before the context's deadline.
func (t *Transport) fits(ctx context.Context, d time.Duration) bool {
	if d > t.MaxWait {
		return false
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		return false
	}
	return true
}

func (t *Transport) wait(ctx context.Context, req *http.Request, d time.Duration, reason string, attempt int) error {
	t.Logger.DebugContext(ctx, "github request will be resent", "method", req.Method, "path", req.URL.Path,
		"attempt", attempt, "wait", d, "reason", reason)
	t.retries.Add(1)
	t.waited.Add(int64(d))
	return t.Sleep(ctx, d)
}

// noteRemaining remembers a used-up primary limit reported on a response
// (see the type's comment).
func (t *Transport) noteRemaining(resp *http.Response) {
	if strings.TrimSpace(resp.Header.Get("X-RateLimit-Remaining")) != "0" {
		return
	}
	reset, ok := parseReset(resp.Header.Get("X-RateLimit-Reset"))
	if !ok {
		return
	}
	t.mu.Lock()
	t.resumeAt = reset.Add(time.Second)
	t.mu.Unlock()
}

// Where shield moves the rate-limit headers go-github would act on.
const (
	shieldedReset      = "X-Swarm-Gate-Ratelimit-Reset"
	shieldedRetryAfter = "X-Swarm-Gate-Retry-After"
)

// shield renames, in a response handed to go-github, the headers from
// which go-github would start refusing requests locally (see the type's
// comment):
//
//   - X-RateLimit-Reset, unless x-ratelimit-remaining is a positive
//     number (go-github reads a missing or unreadable remaining as 0);
//   - on a 403 or a 429, Retry-After and X-RateLimit-Reset (go-github
//     takes either for the end of a secondary limit).
//
// x-ratelimit-remaining is kept: with "0", a 403 is still a
// *github.RateLimitError, not a permission error.
func shield(resp *http.Response) {
	h := resp.Header
	if h == nil {
		return
	}
	move := func(from, to string) {
		if v := h.Get(from); v != "" {
			h.Set(to, v)
		}
		h.Del(from)
	}
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("X-RateLimit-Remaining")))
	if err != nil || n <= 0 || resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests {
		move("X-RateLimit-Reset", shieldedReset)
	}
	if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests {
		move("Retry-After", shieldedRetryAfter)
	}
}

// waitForReset holds a request until a used-up primary limit resets. If
// the wait does not fit, the request goes out and GitHub's answer decides.
func (t *Transport) waitForReset(ctx context.Context, req *http.Request) error {
	t.mu.Lock()
	d := t.resumeAt.Sub(t.Now())
	t.mu.Unlock()
	if d <= 0 || !t.fits(ctx, d) {
		return ctx.Err()
	}
	t.Logger.DebugContext(ctx, "github rate limit used up; waiting for the reset", "method", req.Method, "path", req.URL.Path, "wait", d)
	t.waited.Add(int64(d))
	return t.Sleep(ctx, d)
}

// neverSent is true for errors that prove the request did not reach the
// server: the connection could not be made.
func neverSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// drain discards the rest of a response that will be resent, so that its
// connection can be reused.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
}

// IsRateLimited reports whether err is GitHub's rate limit, primary or
// secondary, that the transport gave up waiting out: a
// *github.RateLimitError, a *github.AbuseRateLimitError, a 429, or a 403
// whose message speaks of a rate limit (a secondary limit whose
// documentation URL go-github does not recognise).
func IsRateLimited(err error) bool {
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	if errors.As(err, &rl) || errors.As(err, &ab) {
		return true
	}
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return false
	}
	switch er.Response.StatusCode {
	case http.StatusTooManyRequests:
		return true
	case http.StatusForbidden:
		return strings.Contains(strings.ToLower(er.Message), "rate limit")
	}
	return false
}

// rateLimitedError is a rate limit the transport gave up on, saying when
// GitHub expects it to lift (from the headers shield moved).
type rateLimitedError struct {
	err  error
	note string
}

func (e *rateLimitedError) Error() string {
	s := e.err.Error()
	var rl *github.RateLimitError
	if errors.As(e.err, &rl) {
		// go-github appends "[rate reset in …]" from the header shield
		// moved away: without it, the text is wrong.
		if i := strings.LastIndex(s, " [rate "); i >= 0 {
			s = s[:i]
		}
	}
	return s + " (" + e.note + ")"
}

func (e *rateLimitedError) Unwrap() error { return e.err }

// explainRateLimit returns err, or, when it is a rate limit
// (IsRateLimited), err with a note on when the limit lifts and what to do.
func explainRateLimit(err error) error {
	var done *rateLimitedError
	if !IsRateLimited(err) || errors.As(err, &done) {
		return err
	}
	var h http.Header
	var er *github.ErrorResponse
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	switch {
	case errors.As(err, &rl) && rl.Response != nil:
		h = rl.Response.Header
	case errors.As(err, &ab) && ab.Response != nil:
		h = ab.Response.Header
	case errors.As(err, &er) && er.Response != nil:
		h = er.Response.Header
	}
	note := "GitHub's secondary rate limit"
	if strings.TrimSpace(h.Get("X-RateLimit-Remaining")) == "0" {
		note = "GitHub's API rate limit for this token is used up"
	}
	if reset, ok := parseReset(h.Get(shieldedReset)); ok {
		note += "; it resets at " + reset.UTC().Format(time.RFC3339)
	}
	if d, ok := parseRetryAfter(h.Get(shieldedRetryAfter), time.Now()); ok {
		note += "; GitHub asked to wait " + d.String()
	}
	return &rateLimitedError{err: err, note: note + "; swarm-gate waited and resent as long as its limits allow: re-run once the limit lifts"}
}
