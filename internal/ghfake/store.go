package ghfake

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// store is the fake's in-memory GitHub, guarded by Server.mu.
type store struct {
	checkRuns   map[string][]*CheckRun   // repo "owner/name" -> runs, oldest first
	suites      map[string][]*CheckSuite // repo + "@" + head SHA -> check suites, oldest first
	nextSuiteID int64                    // the last id of a suite a test added (suites.go)
	// activity is each repository's branch-change log (activity.go).
	activity       map[string][]Activity
	nextActivityID int64
	comments       map[string][]*Comment // repo -> comments, oldest first
	permissions    map[string]string     // repo + "/" + user -> permission
	pulls          map[string]*PullRequest
	files          map[string]map[string]string // repo + "@" + ref -> path -> content
}

func newStore() store {
	return store{
		checkRuns:   map[string][]*CheckRun{},
		suites:      map[string][]*CheckSuite{},
		comments:    map[string][]*Comment{},
		permissions: map[string]string{},
		pulls:       map[string]*PullRequest{},
		files:       map[string]map[string]string{},
	}
}

type handler func(s *Server, r *request) (status int, body any)

// handlers are the operations the fake implements, by operationId. The
// other operations of the subset answer 501 and fail the test.
var handlers map[string]handler

func init() {
	handlers = map[string]handler{
		"checks/create":                                   (*Server).createCheckRun,
		"checks/update":                                   (*Server).updateCheckRun,
		"checks/get":                                      (*Server).getCheckRun,
		"checks/list-for-ref":                             (*Server).listCheckRunsForRef,
		"checks/list-suites-for-ref":                      (*Server).listSuitesForRef,
		"checks/list-annotations":                         (*Server).listAnnotations,
		"issues/create-comment":                           (*Server).createComment,
		"issues/list-comments":                            (*Server).listComments,
		"issues/get-comment":                              (*Server).getComment,
		"issues/update-comment":                           (*Server).updateComment,
		"reactions/create-for-issue-comment":              (*Server).createReaction,
		"repos/get-collaborator-permission-level":         (*Server).getPermission,
		"pulls/get":                                       (*Server).getPull,
		"pulls/list":                                      (*Server).listPulls,
		"pulls/list-files":                                (*Server).listPullFiles,
		"repos/list-pull-requests-associated-with-commit": (*Server).listCommitPulls,
		"pulls/list-commits":                              (*Server).listPullCommits,
		"repos/get-content":                               (*Server).getContent,
		"git/get-tree":                                    (*Server).getTree,
		"apps/get-authenticated":                          (*Server).getApp,
		"apps/create-installation-access-token":           (*Server).createInstallationToken,
		"git/get-ref":                                     (*Server).getRef,
		"git/update-ref":                                  (*Server).updateRef,
		"git/get-commit":                                  (*Server).getCommit,
		"git/create-commit":                               (*Server).createCommit,
		"git/create-tree":                                 (*Server).createTree,
		"git/create-blob":                                 (*Server).createBlob,
		"repos/get-branch":                                (*Server).getBranch,
		"repos/compare-commits":                           (*Server).compareCommits,
		"rate-limit/get":                                  (*Server).getRateLimit,
		"apps/list-installations":                         (*Server).listInstallations,
		"apps/list-repos-accessible-to-installation":      (*Server).listInstallationRepos,
	}
}

// handle runs the operation's handler. The caller holds s.mu.
func (s *Server) handle(r *request) (int, any) {
	h := handlers[r.Operation]
	if h == nil {
		s.t.Errorf("ghfake: %s (%s %s) is in the OpenAPI subset but the fake does not implement it", r.Operation, r.Method, r.route.template)
		return http.StatusNotImplemented, errorBody("ghfake does not implement "+r.Operation, "")
	}
	return h(s, r)
}

func (s *Server) newID() int64 {
	s.nextID++
	return s.nextID
}

func now() time.Time { return time.Now().UTC().Truncate(time.Second) }

func stamp(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func notFound() (int, any) { return http.StatusNotFound, errorBody("Not Found", "") }

// invalid is a 422 for a rule GitHub documents but the OpenAPI schema does
// not enforce; the test fails too, since the client broke a documented rule.
func (s *Server) invalid(r *request, format string, args ...any) (int, any) {
	msg := fmt.Sprintf(format, args...)
	s.t.Errorf("ghfake: %s %s (%s): %s", r.Method, r.Path, r.Operation, msg)
	return http.StatusUnprocessableEntity, validationFailed(msg)
}

// page slices n items per the page and per_page query parameters (GitHub's
// defaults: 30 per page, at most 100) and sets the Link header for the
// other pages. It returns the bounds [lo, hi).
func (s *Server) page(r *request, n int) (lo, hi int) {
	per, _ := strconv.Atoi(r.Query.Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, 100)
	pg, _ := strconv.Atoi(r.Query.Get("page"))
	pg = max(pg, 1)
	last := max(1, (n+per-1)/per)
	link := func(p int, rel string) string {
		q := url.Values{}
		for k, v := range r.Query {
			q[k] = v
		}
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(per))
		u := url.URL{Path: apiPrefix + r.Path, RawQuery: q.Encode()}
		return fmt.Sprintf("<%s%s>; rel=%q", s.WebURL, u.String(), rel)
	}
	var links []string
	if pg < last {
		links = append(links, link(pg+1, "next"), link(last, "last"))
	}
	if pg > 1 {
		links = append(links, link(1, "first"), link(min(pg-1, last), "prev"))
	}
	if len(links) > 0 {
		v := links[0]
		for _, l := range links[1:] {
			v += ", " + l
		}
		r.header.Set("Link", v)
	}
	lo = min(n, (pg-1)*per)
	return lo, min(n, lo+per)
}

func str(m map[string]any, k string) (string, bool) {
	v, ok := m[k].(string)
	return v, ok
}

func num(m map[string]any, k string) int {
	f, _ := m[k].(float64)
	return int(f)
}
