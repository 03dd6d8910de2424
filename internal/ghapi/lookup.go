package ghapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

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

// MaxPullRequestCommits is how many commits pulls/list-commits returns at
// most; a pull request with that many may have more, unseen.
const MaxPullRequestCommits = 250

// PullRequestContributors lists the GitHub logins that authored or
// committed pull request number's commits (pulls/list-commits), each once,
// in the order first seen. Merge commits are left out: "Update branch"
// makes whoever clicks it the author of one, without writing the change.
// Commits whose email GitHub maps to no account add no login. It fails
// when the list may be incomplete: MaxPullRequestCommits commits or more.
func (c *Client) PullRequestContributors(ctx context.Context, repo Repo, number int) ([]string, error) {
	opts := &github.ListOptions{PerPage: 100}
	var out []string
	seen := map[string]bool{}
	n := 0
	for {
		page, resp, err := c.gh.PullRequests.ListCommits(ctx, repo.Owner, repo.Name, number, opts)
		if err != nil {
			return nil, apiError(fmt.Sprintf("listing the commits of pull request %s#%d", repo, number), err)
		}
		for _, rc := range page {
			n++
			if rc == nil || len(rc.Parents) > 1 {
				continue
			}
			for _, login := range []string{rc.GetAuthor().GetLogin(), rc.GetCommitter().GetLogin()} {
				if k := strings.ToLower(login); login != "" && !seen[k] {
					seen[k] = true
					out = append(out, login)
				}
			}
		}
		if n >= MaxPullRequestCommits {
			return nil, fmt.Errorf("pull request %s#%d has %d commits or more, and GitHub lists only the first %d, so the rest are unseen", repo, number, MaxPullRequestCommits, MaxPullRequestCommits)
		}
		if nextPage(resp) == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}
