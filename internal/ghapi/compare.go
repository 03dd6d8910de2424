package ghapi

import (
	"context"
	"fmt"

	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/internal/gitsha"
)

// Comparison is what GitHub's compare API (repos/compare-commits) says of
// two commits, base and head.
type Comparison struct {
	// MergeBase is the full SHA of their merge base (merge_base_commit).
	MergeBase string
	// AheadBy is the number of commits of head that base lacks: those of
	// MergeBase..head (ahead_by). BehindBy is the number of base's that
	// head lacks (behind_by).
	AheadBy, BehindBy int
	// Status is "diverged", "ahead", "behind" or "identical".
	Status string
}

// Compare asks GitHub for the merge base of base and head (commit SHAs or
// branch names of repo) and how far each side is from it: GET
// /repos/{owner}/{repo}/compare/{base}...{head}, with per_page=1 so that
// GitHub lists one commit of the comparison instead of up to 250. It is one
// REST call (the changed files GitHub adds to the first page are not
// read).
//
// Errors name the comparison and what failed: GitHub's answer (404 when a
// commit is unknown or the histories are unrelated, a rate limit, a
// server error), or an answer without a full SHA as merge base or with
// negative counts.
func (c *Client) Compare(ctx context.Context, repo Repo, base, head string) (*Comparison, error) {
	action := fmt.Sprintf("comparing %s...%s of %s (GET repos/%s/compare)", base, head, repo, repo)
	cmp, _, err := c.gh.Repositories.CompareCommits(ctx, repo.Owner, repo.Name, base, head, &github.ListOptions{PerPage: 1})
	if err != nil {
		return nil, apiError(action, err)
	}
	out := &Comparison{MergeBase: cmp.GetMergeBaseCommit().GetSHA(), AheadBy: cmp.GetAheadBy(), BehindBy: cmp.GetBehindBy(), Status: cmp.GetStatus()}
	switch {
	case !gitsha.Full(out.MergeBase):
		return nil, fmt.Errorf("%s: GitHub's answer has no merge base commit SHA (merge_base_commit.sha %q)", action, out.MergeBase)
	case cmp.AheadBy == nil || cmp.BehindBy == nil || out.AheadBy < 0 || out.BehindBy < 0:
		return nil, fmt.Errorf("%s: GitHub's answer has no valid ahead_by and behind_by (%s, %s)", action, count(cmp.AheadBy), count(cmp.BehindBy))
	}
	return out, nil
}

// count prints a count of an answer, "none" when absent.
func count(n *int) string {
	if n == nil {
		return "none"
	}
	return fmt.Sprint(*n)
}
