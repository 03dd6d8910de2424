package ghfake

import (
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// gitState is the fake's git hosting: repositories served over git's smart
// HTTP protocol under WebURL. Guarded by Server.mu.
type gitState struct {
	root     string // GIT_PROJECT_ROOT: <owner>/<name>.git links to the served repositories
	repos    map[string]gitRepo
	requests []GitRequest
}

type gitRepo struct {
	tipsOnly bool
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
// and allowAnySHA1InWant: a client can fetch only what the advertised refs
// point at, not a commit by its SHA (some Git servers behave so).
func GitTipsOnly() GitOption { return func(r *gitRepo) { r.tipsOnly = true } }

// ServeGit serves the git repository at dir (a working tree with a .git
// directory, or a bare repository) as repo ("owner/name") at
// WebURL/owner/name.git over git's smart HTTP protocol, read-only, through
// `git http-backend`, as GitHub does: a commit can be fetched by its SHA
// when a ref reaches it (uploadpack.allowReachableSHA1InWant), and every
// request needs basic auth whose password is Token or a live installation
// token (GitHub's user name for the latter is x-access-token; any is
// accepted). Other requests get 401; pushes get 403. The test is skipped
// when git is not installed.
func (s *Server) ServeGit(repo, dir string, opts ...GitOption) {
	s.t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		s.t.Skipf("skipping: the fake's git hosting runs `git http-backend`, and git is not installed: %v", err)
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
	var r gitRepo
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
	root := s.git.root
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
	git, _ := exec.LookPath("git")
	env := []string{
		"GIT_PROJECT_ROOT=" + root,
		"GIT_HTTP_EXPORT_ALL=1",
		"GIT_CONFIG_NOSYSTEM=1",
		"HOME=" + root,
		"GIT_CONFIG_COUNT=3",
		"GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*",
		"GIT_CONFIG_KEY_1=uploadpack.allowReachableSHA1InWant", "GIT_CONFIG_VALUE_1=" + boolString(!served.tipsOnly),
		"GIT_CONFIG_KEY_2=uploadpack.allowAnySHA1InWant", "GIT_CONFIG_VALUE_2=" + boolString(!served.tipsOnly),
	}
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	h := &cgi.Handler{Path: git, Args: []string{"http-backend"}, Dir: root, Env: env, InheritEnv: []string{"PATH"},
		Stderr: testWriter{s}}
	h.ServeHTTP(rec, r)
	record(rec.status)
	return true
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

// testWriter sends git http-backend's stderr to the test log.
type testWriter struct{ s *Server }

func (w testWriter) Write(p []byte) (int, error) {
	w.s.t.Logf("ghfake git http-backend: %s", strings.TrimSpace(string(p)))
	return len(p), nil
}
