// Package ghfake is an httptest fake of the GitHub REST API for tests: an
// in-memory store of check runs, comments, reactions, permissions, pull
// requests and files, where every request is validated against GitHub's own
// OpenAPI description (../shared/github/openapi-subset.json), every call is
// recorded, and failures and latency can be injected.
package ghfake

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// Token is the only token the fake accepts (as "Bearer <Token>" or
// "token <Token>"); any other Authorization gets 401 Bad credentials.
const Token = "ghfake-token"

// Login is the user the fake's token belongs to: the author of the comments
// and reactions it creates.
const Login = "swarm-gate[bot]"

// apiPrefix is the path under which the fake serves the API, as GitHub
// Enterprise Server does, so that clients configured with URL exercise the
// enterprise base-URL handling.
const apiPrefix = "/api/v3"

// Server is a fake GitHub REST API. Create it with New; its methods are safe
// for concurrent use.
type Server struct {
	// URL is the API base URL, ending in "/api/v3/"; pass it to the client
	// as its GitHub Enterprise base URL.
	URL string
	// WebURL is the fake's web root, which html_url fields point under.
	WebURL string

	t    testing.TB
	srv  *httptest.Server
	spec *spec

	// closing is closed when the test ends, to release hanging requests
	// (Fault.Hang).
	closing chan struct{}

	mu      sync.Mutex
	calls   []Call
	faults  []*faultState
	latency time.Duration
	nextID  int64
	store
	app     appState     // app.go: Apps, installations, installation tokens
	git     gitState     // gitserve.go: repositories served over git's smart HTTP
	gitdata gitDataState // gitdata.go: the Git Data API's objects and refs, branch protection, team memberships
}

// New starts a fake for the test and closes it when the test ends. It skips
// the test, with a message, when ../shared (GitHub's OpenAPI description)
// is not beside the repository, as the corpus tests do.
func New(t testing.TB) *Server {
	t.Helper()
	sp, err := loadSpec()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			sharedtest.Skip(t, "skipping: GitHub's OpenAPI subset is not at %s (clone ../shared beside the repo to run GitHub API tests)", SubsetPath)
		}
		t.Fatalf("ghfake: %v", err)
	}
	s := &Server{t: t, spec: sp, nextID: 1000, store: newStore(), closing: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	t.Cleanup(func() { close(s.closing) }) // runs first: Close waits for hanging requests
	s.WebURL = s.srv.URL
	s.URL = s.srv.URL + apiPrefix + "/"
	return s
}

// Handler is the fake's HTTP handler (the REST API under /api/v3 and the
// git hosting), for serving it behind another server in the same process,
// e.g. one that observes each response without a proxy's second hop. URLs
// in responses still name WebURL; clients may be given the other server's.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serve) }

// Call is one request the fake received, for assertions.
type Call struct {
	Method string
	// Path is the API path without the /api/v3 prefix, unescaped, e.g.
	// /repos/octo/demo/check-runs/1001.
	Path string
	// Operation is the operationId of the matched operation, e.g.
	// "checks/update"; "" when the request matched none.
	Operation string
	// Params are the decoded path parameters, e.g. {"check_run_id": "1001"}.
	Params map[string]string
	Query  url.Values
	Header http.Header
	// Body is the decoded JSON body: map[string]any, []any, or nil.
	Body any
	// Status is the HTTP status the fake answered with; 0 when it never
	// answered (Fault.Hang, Fault.Reset).
	Status int
}

// Get returns the value at a dotted path in the call's JSON body (e.g.
// "output.annotations"), or nil when absent.
func (c Call) Get(path string) any {
	var v any = c.Body
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// Annotations is the number of annotations the call's body carries under
// output.annotations.
func (c Call) Annotations() int {
	list, _ := c.Get("output.annotations").([]any)
	return len(list)
}

// Calls returns every call so far, in arrival order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// CallsTo returns the calls to one operation (an operationId such as
// "checks/update"), in arrival order.
func (s *Server) CallsTo(operation string) []Call {
	var out []Call
	for _, c := range s.Calls() {
		if c.Operation == operation {
			out = append(out, c)
		}
	}
	return out
}

// SetLatency delays every response by d (injected faults add their own).
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	s.latency = d
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.serveGit(w, r) {
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	call := Call{Method: r.Method, Query: r.URL.Query(), Header: r.Header.Clone()}
	escaped, ok := strings.CutPrefix(r.URL.EscapedPath(), apiPrefix)
	call.Path, _ = url.PathUnescape(escaped)
	if len(body) > 0 {
		if err := json.Unmarshal(body, &call.Body); err != nil {
			s.t.Errorf("ghfake: %s %s: body is not JSON: %v", r.Method, call.Path, err)
			s.finish(w, &call, http.StatusBadRequest, nil, errorBody("Problems parsing JSON", ""))
			return
		}
	}
	if !ok {
		s.t.Errorf("ghfake: %s %s: not under %s; use Server.URL as the base URL", r.Method, r.URL.Path, apiPrefix)
		s.finish(w, &call, http.StatusNotFound, nil, errorBody("Not Found", ""))
		return
	}
	rt, params, pathOK := s.spec.find(r.Method, escaped)
	if rt == nil {
		if s.serveExtra(w, &call, r) { // gitdata.go: the unvalidated extra routes
			return
		}
		status := http.StatusNotFound
		if pathOK {
			status = http.StatusMethodNotAllowed
		}
		s.t.Errorf("ghfake: %s %s is not an operation of the OpenAPI subset", r.Method, call.Path)
		s.finish(w, &call, status, nil, errorBody("Not Found", ""))
		return
	}
	call.Operation, call.Params = rt.r.Operation.OperationID, params
	if !s.allowed(call.Operation, r.Header.Get("Authorization")) {
		s.finish(w, &call, http.StatusUnauthorized, nil, errorBody("Bad credentials", "https://docs.github.com/rest"))
		return
	}
	if err := validateRequest(r.Context(), r, body, rt, params); err != nil {
		s.t.Errorf("ghfake: %s %s (%s): the request does not match GitHub's OpenAPI description: %v", r.Method, call.Path, call.Operation, err)
		s.finish(w, &call, http.StatusUnprocessableEntity, nil, validationFailed(err.Error()))
		return
	}

	s.mu.Lock()
	f := s.matchFault(&call)
	latency := s.latency
	var first func()
	if f != nil && f.First != nil {
		first, f.First = f.First, nil
	}
	s.mu.Unlock()
	if first != nil {
		first()
	}
	if f != nil {
		latency += f.Latency
	}
	if latency > 0 {
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
		}
	}

	var status int
	var resp any
	hdr := http.Header{}
	if f == nil || f.AfterApplying || (f.Status == 0 && !f.drops()) {
		s.mu.Lock()
		status, resp = s.handle(&request{Call: &call, header: hdr, route: rt})
		s.mu.Unlock()
		if status < 400 && status != http.StatusNoContent {
			// Encoded once: the bytes validated are the bytes sent.
			raw, err := encodeJSON(resp)
			if err != nil {
				s.t.Errorf("ghfake bug: encoding the response: %v", err)
			}
			vh := hdr.Clone()
			vh.Set("Content-Type", "application/json; charset=utf-8")
			if err := validateResponse(r.Context(), r, rt, params, status, vh, raw); err != nil {
				s.t.Errorf("ghfake bug: its %d response to %s %s does not match the OpenAPI description: %v", status, r.Method, call.Path, err)
			}
			if resp != nil && err == nil {
				resp = rawBody(raw)
			}
			if r.Method == http.MethodGet && status == http.StatusOK && err == nil {
				// GitHub's conditional requests: every GET answer has an
				// ETag, and If-None-Match with it gets 304 and no body.
				sum := sha256.Sum256(raw)
				etag := `"` + hex.EncodeToString(sum[:16]) + `"`
				hdr.Set("ETag", etag)
				if r.Header.Get("If-None-Match") == etag {
					status, resp = http.StatusNotModified, nil
				}
			}
		}
	}
	if f != nil {
		for k, v := range f.Header {
			hdr[k] = v
		}
		if f.Status != 0 {
			status = f.Status
			resp = rawBody(f.body())
		}
	}
	s.answer(w, r, &call, f, status, hdr, resp)
}

// finish writes the response and records the call.
func (s *Server) finish(w http.ResponseWriter, call *Call, status int, hdr http.Header, resp any) {
	s.mu.Lock()
	call.Status = status
	s.calls = append(s.calls, *call)
	n := len(s.calls)
	s.mu.Unlock()
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-GitHub-Media-Type", "github.v3; format=json")
	h.Set("X-GitHub-Request-Id", fmt.Sprintf("FAKE:%04d", n))
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, 5000-n)))
	h.Set("X-RateLimit-Used", strconv.Itoa(n))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	for k, v := range hdr {
		h[k] = v
	}
	w.WriteHeader(status)
	if status == http.StatusNoContent || resp == nil {
		return
	}
	if raw, ok := resp.(rawBody); ok {
		_, _ = w.Write(raw)
		return
	}
	raw, err := encodeJSON(resp)
	if err != nil {
		s.t.Errorf("ghfake bug: encoding the response: %v", err)
	}
	_, _ = w.Write(raw)
}

// encodeJSON is the JSON of a response body as the fake sends it: HTML
// characters not escaped, ending in a newline.
func encodeJSON(resp any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(resp)
	return buf.Bytes(), err
}

func authorized(h string) bool {
	scheme, tok, ok := strings.Cut(h, " ")
	return ok && (strings.EqualFold(scheme, "Bearer") || strings.EqualFold(scheme, "token")) && tok == Token
}

func errorBody(msg, doc string) map[string]any {
	if doc == "" {
		doc = "https://docs.github.com/rest"
	}
	return map[string]any{"message": msg, "documentation_url": doc}
}

// validationFailed is GitHub's 422 body.
func validationFailed(detail string) map[string]any {
	return map[string]any{
		"message":           "Validation Failed",
		"errors":            []any{map[string]any{"resource": "Request", "code": "invalid", "message": detail}},
		"documentation_url": "https://docs.github.com/rest",
	}
}

// request is what an operation handler sees.
type request struct {
	*Call
	header http.Header // response headers (Link)
	route  *route
}

func (r *request) repo() string { return r.Params["owner"] + "/" + r.Params["repo"] }

func (r *request) body() map[string]any {
	m, _ := r.Body.(map[string]any)
	return m
}

func (r *request) int64Param(name string) int64 {
	n, _ := strconv.ParseInt(r.Params[name], 10, 64)
	return n
}
