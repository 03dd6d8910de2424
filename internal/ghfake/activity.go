package ghfake

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Activity is one branch change in the fake's repository activity log
// (repos/list-activities): what GitHub records for every push, force push,
// branch creation and deletion, at GitHub's own time.
type Activity struct {
	ID            int64
	Branch        string
	Before, After string
	At            time.Time
	Type          string // push, force_push, branch_creation, branch_deletion
	Actor         string
}

// RecordActivity appends a change of branch to repo's activity log as
// GitHub would record a push at time at; Type is "push", "force_push", ...
// Moving the branch itself is SetBranch's (which records its own push).
func (s *Server) RecordActivity(repo string, a Activity) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordActivity(repo, a)
}

// recordActivity is RecordActivity for a caller holding s.mu.
func (s *Server) recordActivity(repo string, a Activity) {
	if s.activity == nil {
		s.activity = map[string][]Activity{}
	}
	s.nextActivityID++
	a.ID = s.nextActivityID
	a.At = a.At.UTC().Truncate(time.Second)
	if a.Actor == "" {
		a.Actor = "octocat"
	}
	s.activity[repo] = append(s.activity[repo], a)
}

// branchMoved records a branch change seen by ImportGit, SetBranch or
// git/update-ref. The caller holds s.mu.
func (s *Server) branchMoved(repo, branch string, old, next plumbing.Hash, found, force bool, at time.Time) {
	switch {
	case !found:
		s.recordActivity(repo, Activity{Branch: branch, Before: plumbing.ZeroHash.String(), After: next.String(), At: at, Type: "branch_creation"})
	case old != next:
		typ := "push"
		if force {
			typ = "force_push"
		}
		s.recordActivity(repo, Activity{Branch: branch, Before: old.String(), After: next.String(), At: at, Type: typ})
	}
}

// listActivities answers GET /repos/{owner}/{repo}/activity: the log's
// entries for the ref query parameter (refs/heads/<branch>, or the
// branch's short name), newest first, per_page at a time (default 30, at
// most 100), with GitHub's cursor pagination: a Link rel="next" whose
// after parameter is the last entry's id.
func (s *Server) listActivities(params []string, q url.Values) (int, any) {
	repo := params[0] + "/" + params[1]
	ref := strings.TrimPrefix(q.Get("ref"), "refs/heads/")
	per := 30
	if n, err := strconv.Atoi(q.Get("per_page")); err == nil && n > 0 {
		per = min(n, 100)
	}
	after, _ := strconv.ParseInt(q.Get("after"), 10, 64)
	out := []map[string]any{}
	log := s.activity[repo]
	more := false
	for i := len(log) - 1; i >= 0; i-- {
		a := log[i]
		if (ref != "" && a.Branch != ref) || (after != 0 && a.ID >= after) {
			continue
		}
		if len(out) == per {
			more = true
			break
		}
		out = append(out, map[string]any{"id": a.ID, "node_id": "RA_" + strconv.FormatInt(a.ID, 10), "before": a.Before, "after": a.After,
			"ref": "refs/heads/" + a.Branch, "timestamp": a.At.Format(time.RFC3339), "activity_type": a.Type,
			"actor": map[string]any{"login": a.Actor, "id": 1, "type": "User"}})
	}
	if !more {
		return http.StatusOK, out
	}
	next := url.Values{}
	for k, v := range q {
		next[k] = v
	}
	next.Set("after", fmt.Sprint(out[len(out)-1]["id"]))
	link := fmt.Sprintf(`<%s/repos/%s/activity?%s>; rel="next"`, s.WebURL+apiPrefix, repo, next.Encode())
	return http.StatusOK, withHeader{header: http.Header{"Link": {link}}, body: out}
}

// hasActivity reports whether the log has an entry for branch of repo.
// The caller holds s.mu.
func (s *Server) hasActivity(repo, branch string) bool {
	for _, a := range s.activity[repo] {
		if a.Branch == branch {
			return true
		}
	}
	return false
}
