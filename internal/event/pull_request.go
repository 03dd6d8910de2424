package event

import (
	"fmt"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/actions"
)

// pullRequestActions are the pull_request actions that are evaluated
// (edited only when the base branch changed).
var pullRequestActions = map[string]bool{"opened": true, "synchronize": true, "reopened": true, "ready_for_review": true}

const pullRequestTargetSkip = "swarm-gate does not run on pull_request_target: that event has a write token next to the pull request's code, and a mistake in the workflow runs that code with it; use pull_request, and the workflow_run poster for pull requests from forks (see the README)"

// pullRequestSkip says why a pull_request event is not evaluated, or "".
func pullRequestSkip(ev *actions.Event) string {
	edited := ev.Action == "edited" && ev.Changes != nil && ev.Changes.Base != nil
	// A swarm:phase-<N> label added or removed may change the phase.
	relabeled := (ev.Action == "labeled" || ev.Action == "unlabeled") && ev.Label != nil && strings.HasPrefix(ev.Label.Name, "swarm:phase-")
	if !pullRequestActions[ev.Action] && !edited && !relabeled {
		return fmt.Sprintf("nothing to do for pull_request %q: swarm-gate evaluates opened, synchronize, reopened, ready_for_review, edited when the base branch changed, and labeled/unlabeled with a swarm:phase-<N> label", ev.Action)
	}
	return ""
}

func pullRequestTarget(pr *actions.PullRequest, repo string) (Target, bool) {
	if pr.Base.SHA == "" || pr.Head.SHA == "" {
		return Target{}, false
	}
	return Target{Base: pr.Base.SHA, Head: pr.Head.SHA, HeadBranch: pr.Head.Ref, PostSHA: pr.Head.SHA,
		Kind: "pull_request", What: fmt.Sprintf("pull request #%d", pr.Number), Fork: pr.Head.RepoFullName() != repo, PR: pr.Number, Labels: pr.LabelNames()}, true
}

func pullRequestRefs(pr *actions.PullRequest) []string {
	return []string{pullHead(pr.Number), branchRef(pr.Base.Ref)}
}
