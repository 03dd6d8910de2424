package ghfake

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Fault is an injected failure or delay. It applies to the requests that
// match Method and Operation: counting those from 1, to the Nth and the
// Times-1 after it.
//
// Besides an error status (500, 502, 503, 404, a rate limit: see
// SecondaryRateLimit, TooManyRequests, PrimaryRateLimit), a fault can be
// an answer that never comes (Hang), a connection dropped before the
// answer (Reset), an answer cut mid-body (Truncate), or a body that is not
// JSON at all (Body is written as it is).
type Fault struct {
	// Method ("PATCH") and Operation (an operationId, "checks/update")
	// select the requests; "" matches any.
	Method    string
	Operation string
	// Match, when not nil, also selects the requests: only those it
	// returns true for count and fail (see CheckRunNamed).
	Match func(c *Call) bool
	// Nth is the first matching request that fails, counting from 1
	// (0 means 1). Times is how many consecutive matching requests fail
	// (0 means 1; a negative value means every one from the Nth on).
	Nth, Times int

	// Status is the status to answer with. 0 serves the request normally,
	// which with Header or Latency makes a fault of a success (say, one
	// that reports x-ratelimit-remaining: 0).
	Status int
	// Header is added to the response, replacing the fake's own values
	// (the X-RateLimit-* headers, Retry-After).
	Header http.Header
	// Body is the body of a failing response (or, with Status 200, of a
	// success), written as it is: it may be invalid JSON, such as a proxy's
	// HTML error page or a cut document. "" gives GitHub's body for the
	// status.
	Body string
	// Latency delays the response, on top of Server.SetLatency.
	Latency time.Duration
	// AfterApplying makes the request take effect before the failure is
	// returned, as when a gateway times out on a request GitHub did
	// process: a 502 that "may have been applied".
	AfterApplying bool

	// Hang holds the request without ever answering, until the client
	// gives up (its deadline passes, or it closes the connection) or the
	// test ends: a timeout. The request does not take effect unless
	// AfterApplying. The call is recorded with Status 0.
	Hang bool
	// Reset drops the connection without an answer (hijacked and closed
	// with SO_LINGER 0, so the client reads a TCP reset): a connection
	// reset. The request does not take effect unless AfterApplying. The
	// call is recorded with Status 0.
	Reset bool
	// Truncate serves the answer (the handler's, or Status and Body) with
	// a Content-Length for all of it, sends only the first half of its
	// body, and drops the connection: an answer lost mid-body. The request
	// takes effect when the answer is the handler's. A response without a
	// body is served whole.
	Truncate bool

	// First runs once, when the first request the fault applies to
	// arrives and before it is served (outside the fake's lock, so it may
	// call the fake): something else happening meanwhile, such as another
	// push to the branch.
	First func()
}

// drops is true for a fault that answers nothing, so that the request is
// not applied unless AfterApplying.
func (f *Fault) drops() bool { return f.Hang || f.Reset }

// rawBody is a response body written as it is (a fault's Body), not
// encoded as JSON.
type rawBody []byte

// ClearFaults removes every fault added with Fail: the API works again.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
}

// answer writes the response to a request that matched fault f (nil: none
// matched), as finish does, or hangs, resets or truncates it as f says.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, call *Call, f *Fault, status int, hdr http.Header, resp any) {
	switch {
	case f == nil:
		s.finish(w, call, status, hdr, resp)
	case f.Hang:
		s.record(call, 0)
		select {
		case <-r.Context().Done(): // the client gave up
		case <-s.closing: // the test ended
		}
		panic(http.ErrAbortHandler) // never an empty 200: drop the connection
	case f.Reset:
		s.record(call, 0)
		resetConnection(w)
	case f.Truncate && resp != nil && status != http.StatusNoContent:
		s.finish(&truncating{ResponseWriter: w}, call, status, hdr, resp)
	default:
		s.finish(w, call, status, hdr, resp)
	}
}

// record adds a call with the status it was answered with (0: none).
func (s *Server) record(call *Call, status int) {
	s.mu.Lock()
	call.Status = status
	s.calls = append(s.calls, *call)
	s.mu.Unlock()
}

// resetConnection closes the request's connection at once, with a TCP
// reset where the connection allows it.
func resetConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// truncating announces a body's whole length, sends half of it and drops
// the connection (finish writes the body in one Write).
type truncating struct {
	http.ResponseWriter
	status int
}

func (t *truncating) WriteHeader(status int) { t.status = status }

func (t *truncating) Write(p []byte) (int, error) {
	t.Header().Set("Content-Length", strconv.Itoa(len(p)))
	t.ResponseWriter.WriteHeader(t.status)
	_, _ = t.ResponseWriter.Write(p[:len(p)/2])
	if fl, ok := t.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
	// The server drops the connection without logging: the client reads
	// an unexpected EOF.
	panic(http.ErrAbortHandler)
}

type faultState struct {
	Fault
	seen int
}

// Fail injects a fault. Faults are checked in the order they were added;
// each counts its own matching requests, and the first one whose window
// holds the request applies.
func (s *Server) Fail(f Fault) {
	if f.Nth <= 0 {
		f.Nth = 1
	}
	if f.Times == 0 {
		f.Times = 1
	}
	s.mu.Lock()
	s.faults = append(s.faults, &faultState{Fault: f})
	s.mu.Unlock()
}

// matchFault counts the call against every fault and returns the one that
// applies, or nil. The caller holds s.mu.
func (s *Server) matchFault(c *Call) *Fault {
	var hit *Fault
	for _, f := range s.faults {
		if (f.Method != "" && f.Method != c.Method) || (f.Operation != "" && f.Operation != c.Operation) || (f.Match != nil && !f.Match(c)) {
			continue
		}
		f.seen++
		if hit == nil && f.seen >= f.Nth && (f.Times < 0 || f.seen < f.Nth+f.Times) {
			hit = &f.Fault
		}
	}
	return hit
}

// CheckRunNamed is a Fault.Match for the requests whose JSON body names
// the check run name (a create or an update of that check): a fault on one
// check whatever order the checks are reported in.
func CheckRunNamed(name string) func(c *Call) bool {
	return func(c *Call) bool {
		b, ok := c.Body.(map[string]any)
		return ok && b["name"] == name
	}
}

// SecondaryRateLimit is GitHub's answer when a secondary rate limit is hit:
// 403 with a Retry-After of retryAfter seconds (no header when negative) and
// the secondary-rate-limit documentation URL that go-github recognises.
func SecondaryRateLimit(retryAfter int) Fault {
	f := Fault{Status: http.StatusForbidden, Header: http.Header{}, Body: secondaryBody}
	if retryAfter >= 0 {
		f.Header.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	return f
}

// TooManyRequests is a 429 with a Retry-After of retryAfter seconds (no
// header when negative), GitHub's other answer to a secondary rate limit.
func TooManyRequests(retryAfter int) Fault {
	f := SecondaryRateLimit(retryAfter)
	f.Status = http.StatusTooManyRequests
	return f
}

// PrimaryRateLimit is GitHub's answer when the hourly limit is used up: 403
// with x-ratelimit-remaining 0 and x-ratelimit-reset at reset.
func PrimaryRateLimit(reset time.Time) Fault {
	return Fault{Status: http.StatusForbidden, Header: RateLimitHeaders(0, reset),
		Body: `{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit"}`}
}

// RateLimitHeaders are the X-RateLimit-* headers for remaining requests
// until reset (Fault.Header).
func RateLimitHeaders(remaining int, reset time.Time) http.Header {
	h := http.Header{}
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Used", strconv.Itoa(5000-remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	return h
}

const secondaryBody = `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID FAKE.","documentation_url":"https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`

func (f *Fault) body() []byte {
	if f.Body != "" {
		return []byte(f.Body)
	}
	msg := http.StatusText(f.Status)
	switch f.Status {
	case http.StatusUnauthorized:
		msg = "Bad credentials"
	case http.StatusBadGateway:
		msg = "Server Error"
	case http.StatusServiceUnavailable:
		msg = "Service Unavailable"
	case http.StatusGatewayTimeout:
		msg = "We couldn't respond to your request in time. Sorry about that. Please try resubmitting your request and contact us if the problem persists."
	}
	raw, _ := json.Marshal(errorBody(msg, ""))
	return raw
}

// Seen reports how many requests the faults of operation have matched so
// far (the count of the first fault for it; 0 without one), counted when a
// request arrives, before any latency: a test can wait for a held request
// to have reached the fake.
func (s *Server) Seen(operation string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.faults {
		if f.Operation == operation {
			return f.seen
		}
	}
	return 0
}
