package ghapi

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// RefActivity is one change of a branch as GitHub's repository activity
// records it (GET /repos/{owner}/{repo}/activity, "List repository
// activities"): Before and After are commit SHAs, At is GitHub's time of the
// change (server time: a pusher cannot choose it), Type is push,
// force_push, branch_creation, branch_deletion, pr_merge or
// merge_queue_merge.
type RefActivity struct {
	Before, After string
	At            time.Time
	Type          string
	Actor         string
}

// maxActivityPages bounds how far back BranchActivity reads.
const maxActivityPages = 10

// BranchActivity returns the changes of branch in repo from since on
// (At >= since, truncated to the second), newest first, and the newest
// change before since (nil when none was found within the pages read: the
// branch's state at since is then unknown). It reads newest first, 100 per
// page, and stops at the first change before since. The token needs read
// access to the repository's contents. Errors name the repository.
func (c *Client) BranchActivity(ctx context.Context, repo Repo, branch string, since time.Time) ([]RefActivity, *RefActivity, error) {
	since = since.UTC().Truncate(time.Second)
	q := url.Values{"ref": {"refs/heads/" + branch}, "direction": {"desc"}, "per_page": {"100"}}
	u := fmt.Sprintf("repos/%s/%s/activity?%s", url.PathEscape(repo.Owner), url.PathEscape(repo.Name), q.Encode())
	var out []RefActivity
	for page := 0; page < maxActivityPages; page++ {
		req, err := c.gh.NewRequest("GET", u, nil)
		if err != nil {
			return nil, nil, err
		}
		var items []struct {
			Before       string    `json:"before"`
			After        string    `json:"after"`
			Ref          string    `json:"ref"`
			Timestamp    time.Time `json:"timestamp"`
			ActivityType string    `json:"activity_type"`
			Actor        *struct {
				Login string `json:"login"`
			} `json:"actor"`
		}
		resp, err := c.gh.Do(ctx, req, &items)
		if err != nil {
			return nil, nil, apiError(fmt.Sprintf("listing the activity of branch %s in %s", branch, repo), err)
		}
		for _, it := range items {
			if it.Ref != "" && it.Ref != "refs/heads/"+branch {
				continue // the ref filter is GitHub's; do not trust an answer outside it
			}
			a := RefActivity{Before: it.Before, After: it.After, At: it.Timestamp.UTC(), Type: it.ActivityType}
			if it.Actor != nil {
				a.Actor = it.Actor.Login
			}
			if a.At.IsZero() {
				return nil, nil, fmt.Errorf("listing the activity of branch %s in %s: an activity without a timestamp (%s → %s)", branch, repo, shortRef(a.Before), shortRef(a.After))
			}
			if a.At.Truncate(time.Second).Before(since) {
				return out, &a, nil
			}
			out = append(out, a)
		}
		if resp == nil || resp.After == "" && resp.NextPage == 0 {
			return out, nil, nil
		}
		next := url.Values{}
		for k, v := range q {
			next[k] = v
		}
		if resp.After != "" {
			next.Set("after", resp.After)
		} else {
			next.Set("page", fmt.Sprint(resp.NextPage))
		}
		u = strings.SplitN(u, "?", 2)[0] + "?" + next.Encode()
	}
	return out, nil, nil
}
