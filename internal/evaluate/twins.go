package evaluate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
)

// sharedHead is why pull request pr's checks on its head sha cannot be
// trusted to be its own (nil when they can): check runs belong to a
// commit, not to a pull request, so a second open pull request of the same
// head into another branch (whose policy and merge base its author may
// have written) would post its verdict where branch protection reads this
// one's. An error listing the commit's pull requests fails closed too.
// Without a token nothing can be listed: a warning says so.
func sharedHead(ctx context.Context, d *Deps, pr int, sha string) error {
	if pr <= 0 {
		return nil
	}
	if d.API == nil {
		d.warnf("swarm-gate: without a token it cannot check that no other pull request into another branch has the head commit %s (whose verdict would show on the same commit)", gitsha.Short(sha))
		return nil
	}
	prs, err := d.API.PullRequestsWithCommit(ctx, d.Repo, sha)
	if err != nil {
		return fmt.Errorf("swarm-gate could not list the pull requests whose head is commit %s, so it cannot tell whether another pull request into another branch would post its verdict on the same commit; it fails closed: %v%s", gitsha.Short(sha), ghapi.Brief(err), PermissionHint(err, "pull-requests: read"))
	}
	base := ""
	var heads []*ghapi.PullRequest
	for _, p := range prs {
		if p.State != "open" || p.HeadSHA != sha {
			continue
		}
		if p.Number == pr {
			base = p.BaseRef
			continue
		}
		heads = append(heads, p)
	}
	if len(heads) == 0 {
		return nil
	}
	if base == "" {
		own, err := d.API.PullRequest(ctx, d.Repo, pr)
		if err != nil {
			return fmt.Errorf("swarm-gate could not read pull request #%d to compare its base branch with that of the other pull requests whose head is commit %s; it fails closed: %v", pr, gitsha.Short(sha), ghapi.Brief(err))
		}
		base = own.BaseRef
	}
	var others []string
	for _, p := range heads {
		if p.BaseRef != base {
			others = append(others, fmt.Sprintf("#%d into %q", p.Number, p.BaseRef))
		}
	}
	if len(others) == 0 {
		return nil
	}
	slices.Sort(others)
	return fmt.Errorf("commit %s is also the head of pull request %s: a check run belongs to a commit, not to a pull request, so the verdict of one (under its own base branch's policy and merge base) would show as the other's. Close the other pull request, or give one of them a commit of its own, then re-run the checks (`/swarm recheck`)", gitsha.Short(sha), strings.Join(others, ", "))
}
