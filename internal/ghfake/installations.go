package ghfake

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The reconciler's view of the installations: which repositories each
// installation of an App can reach (GET /installation/repositories), the
// installations of the App (GET /app/installations), and each
// installation's rate-limit budget (GET /rate_limit).

// SetInstallationRepos sets the repositories ("owner/name") installation
// id can reach, as GET /installation/repositories lists them.
func (s *Server) SetInstallationRepos(id int64, repos ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appInit()
	s.app.repos[id] = append([]string(nil), repos...)
}

// SetRateLimitRemaining makes GET /rate_limit answer, for the tokens of
// installation id, that n requests are left in the core limit (by
// default the fake answers 5000 less the requests it served).
func (s *Server) SetRateLimitRemaining(id int64, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appInit()
	s.app.remaining[id] = n
}

// tokenInstallation is the installation whose token the Authorization
// header carries, 0 for none. The caller holds s.mu.
func (s *Server) tokenInstallation(header string) int64 {
	_, tok, _ := strings.Cut(header, " ")
	if it := s.app.tokens[tok]; it != nil {
		return it.InstallationID
	}
	return 0
}

// getRateLimit answers GET /rate_limit: the core budget left for the
// token's installation. GitHub does not count this request against it.
func (s *Server) getRateLimit(r *request) (int, any) {
	s.appInit()
	remaining := max(0, 5000-len(s.calls))
	if n, ok := s.app.remaining[s.tokenInstallation(r.Header.Get("Authorization"))]; ok {
		remaining = n
	}
	reset := time.Now().Add(time.Hour).Unix()
	core := map[string]any{"limit": 5000, "remaining": remaining, "reset": reset, "used": 5000 - remaining}
	search := map[string]any{"limit": 30, "remaining": 30, "reset": reset, "used": 0}
	return http.StatusOK, map[string]any{"resources": map[string]any{"core": core, "search": search}, "rate": core}
}

// listInstallations answers GET /app/installations (App JWT): the App's
// installations, by id, per page.
func (s *Server) listInstallations(r *request) (int, any) {
	app, err := s.verifyJWT(r.Header.Get("Authorization"))
	if err != nil {
		return http.StatusUnauthorized, errorBody("A JSON web token could not be decoded", "")
	}
	var ids []int64
	for id, appID := range s.app.installations {
		if appID == app.id {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	lo, hi := s.page(r, len(ids))
	list := []any{}
	for _, id := range ids[lo:hi] {
		m := s.spec.example("base-installation-items")
		n := strconv.FormatInt(id, 10)
		m["id"] = id
		m["app_id"] = app.id
		m["app_slug"] = app.slug
		m["access_tokens_url"] = s.URL + "app/installations/" + n + "/access_tokens"
		m["repositories_url"] = s.URL + "installation/repositories"
		m["html_url"] = s.WebURL + "/settings/installations/" + n
		list = append(list, m)
	}
	return http.StatusOK, list
}

// listInstallationRepos answers GET /installation/repositories
// (installation token): the repositories SetInstallationRepos gave, per
// page.
func (s *Server) listInstallationRepos(r *request) (int, any) {
	id := s.tokenInstallation(r.Header.Get("Authorization"))
	if id == 0 {
		return http.StatusForbidden, errorBody("This endpoint requires an installation access token", "")
	}
	all := s.app.repos[id]
	lo, hi := s.page(r, len(all))
	repos := []any{}
	for i, full := range all[lo:hi] {
		owner, name, _ := strings.Cut(full, "/")
		page := s.spec.example("repository-paginated-2")
		m := page["repositories"].([]any)[0].(map[string]any)
		n := int64(1000 + lo + i)
		m["id"], m["node_id"], m["name"], m["full_name"] = n, "R_fake"+strconv.FormatInt(n, 10), name, full
		m["html_url"], m["url"], m["clone_url"] = s.WebURL+"/"+full, s.URL+"repos/"+full, s.WebURL+"/"+full+".git"
		m["default_branch"], m["archived"], m["private"] = "main", false, false
		setUser(m["owner"], owner)
		repos = append(repos, m)
	}
	return http.StatusOK, map[string]any{"total_count": len(all), "repository_selection": "selected", "repositories": repos}
}
