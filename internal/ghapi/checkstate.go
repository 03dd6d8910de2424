package ghapi

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/google/go-github/v62/github"
)

// CheckRunsOnRef lists the latest check run of each name that app created
// on a commit (checks/list-for-ref, every page; app_id when app has an id),
// sorted by name; for `/swarm help`, which shows the state of swarm-gate's
// checks. A run of another App, whatever its name, is left out (see
// App.Matches).
func (c *Client) CheckRunsOnRef(ctx context.Context, repo Repo, sha string, app App) ([]*CheckRun, error) {
	opts := &github.ListCheckRunsOptions{Filter: github.String("latest"), ListOptions: github.ListOptions{PerPage: 100}}
	if app.ID != 0 {
		opts.AppID = github.Int64(app.ID)
	} else {
		// Without app_id, "latest" may pick another App's newer run of
		// the same name and hide ours: all runs, the newest of ours kept.
		opts.Filter = github.String("all")
	}
	latest := map[string]*github.CheckRun{}
	for {
		page, resp, err := c.gh.Checks.ListCheckRunsForRef(ctx, repo.Owner, repo.Name, sha, opts)
		if err != nil {
			return nil, apiError(fmt.Sprintf("listing the check runs of %s@%s", repo, shortRef(sha)), err)
		}
		for _, r := range checkRunsOf(page) {
			if r.GetID() == 0 || !app.Matches(App{ID: r.GetApp().GetID(), Slug: r.GetApp().GetSlug()}) {
				continue
			}
			if prev := latest[r.GetName()]; prev == nil || r.GetID() > prev.GetID() {
				latest[r.GetName()] = r
			}
		}
		if nextPage(resp) == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	out := make([]*CheckRun, 0, len(latest))
	for _, r := range latest {
		out = append(out, fromGitHub(repo, r))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// FirstCheckSuite is when GitHub first saw a commit: the earliest
// created_at of its check suites (checks/list-suites-for-ref, every page).
// GitHub creates check suites when a commit is pushed, and nobody can
// create one in the past, so this is a time the pusher does not choose (an
// upper bound of the push time, unlike the committer time). It is the zero
// time, with no error, when the commit has no check suite; suites without
// a created_at are skipped.
func (c *Client) FirstCheckSuite(ctx context.Context, repo Repo, sha string) (time.Time, error) {
	opts := &github.ListCheckSuiteOptions{ListOptions: github.ListOptions{PerPage: 100}}
	var first time.Time
	for {
		page, resp, err := c.gh.Checks.ListCheckSuitesForRef(ctx, repo.Owner, repo.Name, sha, opts)
		if err != nil {
			return time.Time{}, apiError(fmt.Sprintf("listing the check suites of %s@%s", repo, shortRef(sha)), err)
		}
		if page != nil {
			for _, s := range page.CheckSuites {
				at := s.GetCreatedAt().Time
				if at.IsZero() {
					continue
				}
				if first.IsZero() || at.Before(first) {
					first = at
				}
			}
		}
		if nextPage(resp) == 0 {
			return first, nil
		}
		opts.Page = resp.NextPage
	}
}
