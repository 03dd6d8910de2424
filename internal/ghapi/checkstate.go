package ghapi

import (
	"context"
	"fmt"
	"sort"

	"github.com/google/go-github/v62/github"
)

// CheckRunsOnRef lists the latest check run of each name on a commit
// (checks/list-for-ref, filter latest, every page), sorted by name; for
// `/swarm help`, which shows the state of swarm-gate's checks.
func (c *Client) CheckRunsOnRef(ctx context.Context, repo Repo, sha string) ([]*CheckRun, error) {
	opts := &github.ListCheckRunsOptions{Filter: github.String("latest"), ListOptions: github.ListOptions{PerPage: 100}}
	latest := map[string]*github.CheckRun{}
	for {
		page, resp, err := c.gh.Checks.ListCheckRunsForRef(ctx, repo.Owner, repo.Name, sha, opts)
		if err != nil {
			return nil, apiError(fmt.Sprintf("listing the check runs of %s@%s", repo, shortRef(sha)), err)
		}
		for _, r := range checkRunsOf(page) {
			if r.GetID() == 0 {
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
