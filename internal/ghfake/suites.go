package ghfake

import (
	"net/http"
	"sort"
	"strconv"
	"time"
)

// CheckSuite is a check suite in the fake's store (a copy, for
// assertions). GitHub creates one per App for each pushed commit; the fake
// creates one for its token's App (OwnApp) when the first check run on a
// commit is created, and tests add others (Pushed, AddCheckSuite).
type CheckSuite struct {
	ID        int64
	Repo      string // owner/name
	HeadSHA   string
	AppID     int64
	AppSlug   string
	AppName   string
	CreatedAt time.Time
}

// The Apps the fake's suites belong to: OwnApp* is the App of the fake's
// token (its check runs' suite), Actions* is GitHub Actions, whose suite
// GitHub creates when a commit is pushed to a repository with workflows
// (15368 is its id on github.com).
const (
	OwnAppID       = 1
	OwnAppSlug     = "swarm-gate"
	ActionsAppID   = 15368
	ActionsAppSlug = "github-actions"
)

// CheckSuites returns copies of a repository's check suites on a commit,
// oldest first.
func (s *Server) CheckSuites(repo, sha string) []CheckSuite {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CheckSuite
	for _, cs := range s.suites[repo+"@"+sha] {
		out = append(out, *cs)
	}
	return out
}

// AddCheckSuite stores a check suite on repo@cs.HeadSHA as if another App
// had created it (CreatedAt defaults to now, the App to GitHub Actions)
// and returns its id.
func (s *Server) AddCheckSuite(repo string, cs CheckSuite) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs.AppID == 0 {
		cs.AppID, cs.AppSlug, cs.AppName = ActionsAppID, ActionsAppSlug, "GitHub Actions"
	}
	if cs.CreatedAt.IsZero() {
		cs.CreatedAt = now()
	}
	return s.addSuite(repo, s.otherSuiteID(), cs).ID
}

// Pushed records that GitHub saw commit sha pushed to repo at time at, as
// the check suite GitHub Actions gets on a push: it sets the created_at of
// the commit's GitHub Actions suite, creating the suite if there is none.
// Tests commit locally, so this is how they say when a commit reached
// GitHub.
func (s *Server) Pushed(repo, sha string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at = at.UTC().Truncate(time.Second)
	for _, cs := range s.suites[repo+"@"+sha] {
		if cs.AppID == ActionsAppID {
			cs.CreatedAt = at
			return
		}
	}
	s.addSuite(repo, s.otherSuiteID(), CheckSuite{HeadSHA: sha, AppID: ActionsAppID, AppSlug: ActionsAppSlug, AppName: "GitHub Actions", CreatedAt: at})
}

// otherSuiteID is a new id for a suite a test adds. They come from their
// own sequence, so that adding one leaves the ids of everything else the
// fake creates as they were. The caller holds s.mu.
func (s *Server) otherSuiteID() int64 {
	s.nextSuiteID++
	return otherSuiteIDs + s.nextSuiteID
}

// otherSuiteIDs is where the ids of the suites tests add start.
const otherSuiteIDs = 7_000_000_000

// addSuite stores a suite with id. The caller holds s.mu.
func (s *Server) addSuite(repo string, id int64, cs CheckSuite) *CheckSuite {
	cs.ID = id
	cs.Repo = repo
	k := repo + "@" + cs.HeadSHA
	s.suites[k] = append(s.suites[k], &cs)
	return &cs
}

// suite returns the id of the fake's own App's suite on repo@sha, creating
// it now when the commit has none (GitHub creates it with the App's first
// check run there). The caller holds s.mu.
func (s *Server) suite(repo, sha string) int64 {
	for _, cs := range s.suites[repo+"@"+sha] {
		if cs.AppID == OwnAppID {
			return cs.ID
		}
	}
	return s.addSuite(repo, s.newID(), CheckSuite{HeadSHA: sha, AppID: OwnAppID, AppSlug: OwnAppSlug, AppName: OwnAppSlug, CreatedAt: now()}).ID
}

// listSuitesForRef answers with the suites on a commit (the ref must be
// its SHA), filtered by app_id and check_name (a suite holding a run of
// that name), oldest first.
func (s *Server) listSuitesForRef(r *request) (int, any) {
	var suites []*CheckSuite
	for _, cs := range s.suites[r.repo()+"@"+r.Params["ref"]] {
		if id := r.Query.Get("app_id"); id != "" && id != strconv.FormatInt(cs.AppID, 10) {
			continue
		}
		if n := r.Query.Get("check_name"); n != "" && !s.suiteHolds(cs, n) {
			continue
		}
		suites = append(suites, cs)
	}
	sort.SliceStable(suites, func(i, j int) bool { return suites[i].ID < suites[j].ID })
	lo, hi := s.page(r, len(suites))
	list := []any{}
	for _, cs := range suites[lo:hi] {
		list = append(list, s.checkSuiteJSON(cs))
	}
	return http.StatusOK, map[string]any{"total_count": len(suites), "check_suites": list}
}

// suiteHolds reports whether a run named name is in the suite.
func (s *Server) suiteHolds(cs *CheckSuite, name string) bool {
	for _, cr := range s.checkRuns[cs.Repo] {
		if cr.SuiteID == cs.ID && cr.Name == name {
			return true
		}
	}
	return false
}

// checkSuiteJSON is the suite as GitHub returns it, built on the
// description's own example.
func (s *Server) checkSuiteJSON(cs *CheckSuite) map[string]any {
	m := s.spec.example("check-suite")
	id := strconv.FormatInt(cs.ID, 10)
	api := s.URL + "repos/" + cs.Repo + "/check-suites/" + id
	runs := 0
	for _, cr := range s.checkRuns[cs.Repo] {
		if cr.SuiteID == cs.ID {
			runs++
		}
	}
	m["id"] = cs.ID
	m["node_id"] = "CS_fake" + id
	m["head_sha"] = cs.HeadSHA
	m["head_branch"] = nil
	m["before"], m["after"] = nil, cs.HeadSHA
	m["url"] = api
	m["check_runs_url"] = api + "/check-runs"
	m["created_at"] = stamp(cs.CreatedAt)
	m["updated_at"] = stamp(cs.CreatedAt)
	m["latest_check_runs_count"] = runs
	m["pull_requests"] = []any{}
	if app, ok := m["app"].(map[string]any); ok {
		app["id"], app["slug"], app["name"] = cs.AppID, cs.AppSlug, cs.AppName
		app["html_url"] = s.WebURL + "/apps/" + cs.AppSlug
	}
	if hc, ok := m["head_commit"].(map[string]any); ok {
		hc["id"] = cs.HeadSHA
	}
	return m
}
