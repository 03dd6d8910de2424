package ghfake

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// gitState is the fake's git hosting: repositories served over git's smart
// HTTP protocol under WebURL. Guarded by Server.mu.
type gitState struct {
	root     string // GIT_PROJECT_ROOT: <owner>/<name>.git links to the served repositories
	repos    map[string]gitRepo
	requests []GitRequest
	adverts  map[advertKey]advert // gitadvert.go
	// uploadPacks counts the git upload-pack processes started, for tests.
	uploadPacks int
}

type gitRepo struct {
	tipsOnly bool
	dir      string // the absolute git directory
	root     string // gitState.root
	git      string // the git executable
}

// GitRequest is one request to the fake's git hosting.
type GitRequest struct {
	// Repo is "owner/name"; Path the URL path after "<repo>.git", e.g.
	// "/info/refs" or "/git-upload-pack".
	Repo, Path string
	// User is the basic-auth user name ("" without credentials).
	User   string
	Status int
}

// GitOption changes how ServeGit serves a repository.
type GitOption func(*gitRepo)

// GitTipsOnly serves the repository without uploadpack.allowReachableSHA1InWant
// and allowAnySHA1InWant (some Git servers behave so): the advertisement
// does not offer fetch by SHA, so that clients of protocol versions 0 and
// 1 (go-git, git with protocol.version=0) fetch only what the advertised
// refs point at, and a commit no ref reaches is refused. (git's
// upload-pack still serves a commit a ref reaches to a client that asks
// for it anyway over stateless HTTP, or over protocol version 2.)
func GitTipsOnly() GitOption { return func(r *gitRepo) { r.tipsOnly = true } }

// ServeGit serves the git repository at dir (a working tree with a .git
// directory, or a bare repository) as repo ("owner/name") at
// WebURL/owner/name.git over git's smart HTTP protocol, read-only, as
// GitHub does. A fetch's two requests are answered as `git http-backend`
// would, by `git upload-pack --stateless-rpc` without http-backend: the
// ref advertisement (GET info/refs; kept and served again while the
// repository's refs are unchanged, gitadvert.go) and the pack (POST
// git-upload-pack). Other requests (the dumb protocol's files) go to `git
// http-backend` itself. A commit can be fetched by its SHA
// when a ref reaches it (uploadpack.allowReachableSHA1InWant), and every
// request needs basic auth whose password is Token or a live installation
// token (GitHub's user name for the latter is x-access-token; any is
// accepted). Other requests get 401; pushes get 403. The test is skipped
// when git is not installed.
func (s *Server) ServeGit(repo, dir string, opts ...GitOption) {
	s.t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		s.t.Skipf("skipping: the fake's git hosting runs `git upload-pack` and `git http-backend`, and git is not installed: %v", err)
	}
	gitDir := filepath.Join(dir, ".git")
	if _, err := os.Stat(gitDir); err != nil {
		gitDir = dir
	}
	abs, err := filepath.Abs(gitDir)
	if err != nil {
		s.t.Fatalf("ghfake: ServeGit %s: %v", repo, err)
	}
	s.mu.Lock()
	if s.git.root == "" {
		s.git.root = s.t.TempDir()
		s.git.repos = map[string]gitRepo{}
	}
	root := s.git.root
	s.mu.Unlock()
	link := filepath.Join(root, filepath.FromSlash(repo)+".git")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		s.t.Fatalf("ghfake: ServeGit %s: %v", repo, err)
	}
	_ = os.Remove(link)
	if err := os.Symlink(abs, link); err != nil {
		s.t.Fatalf("ghfake: ServeGit %s: %v", repo, err)
	}
	git, _ := exec.LookPath("git")
	r := gitRepo{dir: abs, root: root, git: git}
	for _, o := range opts {
		o(&r)
	}
	s.mu.Lock()
	s.git.repos[repo] = r
	s.mu.Unlock()
}

// GitRequests returns the git requests so far, in arrival order.
func (s *Server) GitRequests() []GitRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]GitRequest(nil), s.git.requests...)
}

// gitPath matches /owner/name.git and what follows.
var gitPath = regexp.MustCompile(`^/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)\.git(/.*)?$`)

// serveGit answers a request for the fake's git hosting and reports
// whether it was one (the API is served under /api/v3 only).
func (s *Server) serveGit(w http.ResponseWriter, r *http.Request) bool {
	m := gitPath.FindStringSubmatch(r.URL.Path)
	if m == nil || strings.HasPrefix(r.URL.Path, apiPrefix+"/") {
		return false
	}
	repo, rest := m[1]+"/"+m[2], m[3]
	user, pass, hasAuth := r.BasicAuth()
	s.mu.Lock()
	served, ok := s.git.repos[repo]
	valid := hasAuth && (pass == Token || s.liveToken(pass))
	s.mu.Unlock()
	status := 0
	record := func(code int) {
		s.mu.Lock()
		s.git.requests = append(s.git.requests, GitRequest{Repo: repo, Path: rest, User: user, Status: code})
		s.mu.Unlock()
	}
	switch {
	case !valid:
		w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
		status = http.StatusUnauthorized
		http.Error(w, "Invalid username or token. Password authentication is not supported for Git operations.", status)
	case !ok:
		status = http.StatusNotFound
		http.Error(w, "Repository not found.", status)
	case strings.Contains(rest, "receive-pack") || r.URL.Query().Get("service") == "git-receive-pack":
		status = http.StatusForbidden
		http.Error(w, "the fake's git hosting is read-only", status)
	}
	if status != 0 {
		record(status)
		return true
	}
	switch {
	case rest == "/info/refs" && r.Method == http.MethodGet && r.URL.Query().Get("service") == "git-upload-pack":
		record(s.advertiseUploadPack(w, r, served))
	case rest == "/git-upload-pack" && r.Method == http.MethodPost:
		record(s.uploadPack(w, r, served))
	default:
		// The rest (the dumb protocol's files, methods git does not
		// use) is http-backend's to answer.
		record(s.httpBackend(w, r, served))
	}
	return true
}

// gitEnv is the environment of the git processes serving repo: no system
// or user configuration, any owner's repository served, fetch by SHA
// allowed unless the repository is served tips only, and pack-objects'
// delta search in one thread (the packs are a few objects: a thread costs
// more than it saves).
func gitEnv(served gitRepo) []string {
	return []string{
		"GIT_CONFIG_NOSYSTEM=1",
		"HOME=" + served.root,
		"GIT_CONFIG_COUNT=4",
		"GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*",
		"GIT_CONFIG_KEY_1=uploadpack.allowReachableSHA1InWant", "GIT_CONFIG_VALUE_1=" + boolString(!served.tipsOnly),
		"GIT_CONFIG_KEY_2=uploadpack.allowAnySHA1InWant", "GIT_CONFIG_VALUE_2=" + boolString(!served.tipsOnly),
		"GIT_CONFIG_KEY_3=pack.threads", "GIT_CONFIG_VALUE_3=1",
	}
}

// httpBackend answers a git request through `git http-backend` as a CGI
// and returns the status it answered.
func (s *Server) httpBackend(w http.ResponseWriter, r *http.Request, served gitRepo) int {
	root := served.root
	env := append([]string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}, gitEnv(served)...)
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	h := &cgi.Handler{Path: served.git, Args: []string{"http-backend"}, Dir: root, Env: env, InheritEnv: []string{"PATH"},
		Stderr: testWriter{s}}
	h.ServeHTTP(rec, r)
	return rec.status
}

// noCache sets the headers with which git http-backend forbids caching
// its smart-protocol answers.
func noCache(h http.Header) {
	h.Set("Expires", "Fri, 01 Jan 1980 00:00:00 GMT")
	h.Set("Pragma", "no-cache")
	h.Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
}

// protocolV2 reports whether a Git-Protocol header asks for protocol
// version 2, as git's determine_protocol_version_server reads it (the
// highest version= among the colon-separated keys).
func protocolV2(header string) bool {
	v := 0
	for _, kv := range strings.Split(header, ":") {
		if n, ok := strings.CutPrefix(kv, "version="); ok {
			if n, err := strconv.Atoi(n); err == nil && n > v {
				v = n
			}
		}
	}
	return v == 2
}

// advertiseUploadPack answers GET info/refs?service=git-upload-pack as git
// http-backend does, without it: the service announcement (for protocol
// versions 0 and 1) then `git upload-pack --stateless-rpc
// --advertise-refs`'s output, or the same output cached while the refs
// have not changed (gitadvert.go). It returns the status it answered: 200,
// or 500 when git cannot be started (the body then holds the error).
func (s *Server) advertiseUploadPack(w http.ResponseWriter, r *http.Request, served gitRepo) int {
	proto := r.Header.Get("Git-Protocol")
	key := advertKey{repo: served, proto: proto}
	state, stateErr := refsState(served.dir)
	body, cached := []byte(nil), false
	if stateErr == nil {
		body, cached = s.cachedAdvert(key, state)
	}
	if !cached {
		cmd := s.uploadPackCmd(r, served, proto, "--advertise-refs")
		var out bytes.Buffer
		cmd.Stdout = &out
		err := cmd.Run()
		if err != nil && out.Len() == 0 {
			http.Error(w, "git upload-pack: "+err.Error(), http.StatusInternalServerError)
			return http.StatusInternalServerError
		}
		body = out.Bytes()
		// Kept only when the refs did not change while upload-pack ran,
		// so that the advertisement is the one of the state it is kept
		// with.
		if after, afterErr := refsState(served.dir); err == nil && stateErr == nil && afterErr == nil && bytes.Equal(state, after) {
			s.keepAdvert(key, state, body)
		}
	}
	h := w.Header()
	noCache(h)
	h.Set("Content-Type", "application/x-git-upload-pack-advertisement")
	w.WriteHeader(http.StatusOK)
	if !protocolV2(proto) {
		_, _ = io.WriteString(w, "001e# service=git-upload-pack\n0000")
	}
	_, _ = w.Write(body)
	return http.StatusOK
}

// uploadPack answers POST git-upload-pack as git http-backend does,
// without it: the request body (gunzipped when its Content-Encoding is
// gzip or x-gzip) is `git upload-pack --stateless-rpc`'s input, its output
// the response. It returns the status it answered: 200 (also when
// upload-pack refuses the request: the refusal is in the body, as git
// sends it), 415 for another Content-Type than
// application/x-git-upload-pack-request (http-backend's answer), 400 for a
// body that is not gzip as announced, 500 when git cannot be started.
func (s *Server) uploadPack(w http.ResponseWriter, r *http.Request, served gitRepo) int {
	const accepted = "application/x-git-upload-pack-request"
	h := w.Header()
	if ct := r.Header.Get("Content-Type"); ct != accepted {
		noCache(h)
		h.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusUnsupportedMediaType)
		fmt.Fprintf(w, "Expected POST with Content-Type '%s', but received '%s' instead.\n", accepted, ct)
		return http.StatusUnsupportedMediaType
	}
	var body io.Reader = r.Body
	if enc := r.Header.Get("Content-Encoding"); enc == "gzip" || enc == "x-gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, "the request body is not gzip: "+err.Error(), http.StatusBadRequest)
			return http.StatusBadRequest
		}
		defer zr.Close()
		body = zr
	}
	cmd := s.uploadPackCmd(r, served, r.Header.Get("Git-Protocol"))
	cmd.Stdin = body
	stdout, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		http.Error(w, "git upload-pack: "+err.Error(), http.StatusInternalServerError)
		return http.StatusInternalServerError
	}
	noCache(h)
	h.Set("Content-Type", "application/x-git-upload-pack-result")
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, stdout); err != nil {
		// The client went away: let upload-pack end on a closed pipe.
		_, _ = io.Copy(io.Discard, stdout)
	}
	_ = cmd.Wait() // a refusal (not our ref) exits non-zero after its ERR packet
	return http.StatusOK
}

// uploadPackCmd is `git upload-pack --stateless-rpc [extra] <dir>` for the
// served repository, with the fake's configuration and the client's
// Git-Protocol header as GIT_PROTOCOL (as http-backend passes it).
func (s *Server) uploadPackCmd(r *http.Request, served gitRepo, proto string, extra ...string) *exec.Cmd {
	args := append(append([]string{"upload-pack", "--stateless-rpc"}, extra...), served.dir)
	s.mu.Lock()
	s.git.uploadPacks++
	s.mu.Unlock()
	cmd := exec.CommandContext(r.Context(), served.git, args...)
	cmd.Dir = served.dir
	cmd.Env = append(gitEnv(served), "PATH="+os.Getenv("PATH"))
	if proto != "" {
		cmd.Env = append(cmd.Env, "GIT_PROTOCOL="+proto)
	}
	cmd.Stderr = testWriter{s}
	return cmd
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// testWriter sends the git processes' stderr to the test log.
type testWriter struct{ s *Server }

func (w testWriter) Write(p []byte) (int, error) {
	w.s.t.Logf("ghfake git: %s", strings.TrimSpace(string(p)))
	return len(p), nil
}
