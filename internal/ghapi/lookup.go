package ghapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-github/v62/github"
)

// IsForbidden reports whether err is GitHub's 403 refusal of a request the
// token may not make ("Resource not accessible by integration": a
// read-only GITHUB_TOKEN, as on pull requests from forks, or a workflow
// without the permission), as opposed to a rate limit, which is also a 403
// but is waited out by the transport and reported as another error.
func IsForbidden(err error) bool {
	if IsRateLimited(err) {
		return false
	}
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusForbidden
}

// CheckRun reads one check run by id.
func (c *Client) CheckRun(ctx context.Context, repo Repo, id int64) (*CheckRun, error) {
	gh, _, err := c.gh.Checks.GetCheckRun(ctx, repo.Owner, repo.Name, id)
	if err == nil && gh.GetID() != id {
		err = fmt.Errorf("GitHub returned check run %d", gh.GetID())
	}
	if err != nil {
		return nil, apiError(fmt.Sprintf("reading check run %d in %s", id, repo), err)
	}
	return fromGitHub(repo, gh), nil
}

// MaxPullRequests bounds how many pull requests OpenPullRequests lists.
const MaxPullRequests = 1000

// OpenPullRequests lists the repository's open pull requests, newest
// first, at most MaxPullRequests. head ("" for all) keeps those whose head
// is the branch "owner:branch" (GitHub's head filter; owner is the fork's
// owner for a pull request from a fork).
func (c *Client) OpenPullRequests(ctx context.Context, repo Repo, head string) ([]*PullRequest, error) {
	opts := &github.PullRequestListOptions{State: "open", Head: head, ListOptions: github.ListOptions{PerPage: 100}}
	var out []*PullRequest
	for {
		page, resp, err := c.gh.PullRequests.List(ctx, repo.Owner, repo.Name, opts)
		if err != nil {
			return nil, apiError(fmt.Sprintf("listing the open pull requests of %s", repo), err)
		}
		for _, pr := range page {
			if len(out) == MaxPullRequests {
				return out, nil
			}
			if pr != nil {
				out = append(out, fromPull(pr))
			}
		}
		if nextPage(resp) == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// PullRequestsWithCommit lists the pull requests GitHub associates with
// commit sha (repos/list-pull-requests-associated-with-commit): for a
// commit not on the default branch, the open pull requests that contain
// it; at most MaxPullRequests.
func (c *Client) PullRequestsWithCommit(ctx context.Context, repo Repo, sha string) ([]*PullRequest, error) {
	opts := &github.ListOptions{PerPage: 100}
	var out []*PullRequest
	for {
		page, resp, err := c.gh.PullRequests.ListPullRequestsWithCommit(ctx, repo.Owner, repo.Name, sha, opts)
		if err != nil {
			return nil, apiError(fmt.Sprintf("listing the pull requests of commit %s in %s", sha, repo), err)
		}
		for _, pr := range page {
			if len(out) == MaxPullRequests {
				return out, nil
			}
			if pr != nil {
				out = append(out, fromPull(pr))
			}
		}
		if nextPage(resp) == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}
