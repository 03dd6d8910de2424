package event

import (
	"fmt"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/actions"
)

// AggregateCheck is the name of the aggregate check run, the one branch
// protection requires (evaluate.AggregateCheck).
const AggregateCheck = "swarm-gate"

// OwnCheck is true for swarm-gate's check names: the aggregate and the
// gates'. A check_run event about another app's run is not ours to redo.
func OwnCheck(name string) bool {
	if name == AggregateCheck {
		return true
	}
	for _, g := range gates.Registry() {
		if g.Name() == name {
			return true
		}
	}
	return false
}

// checkAction is the action a check_run or check_suite is routed as: the
// Action re-evaluates on rerequested only (it has pull_request for new
// pushes); the App treats check_suite requested as rerequested.
func checkAction(ev *actions.Event, door Door) string {
	if door == App && ev.Name == "check_suite" && ev.Action == "requested" {
		return "rerequested"
	}
	return ev.Action
}

// checkSkip says why a check_run or check_suite routed as action is not
// evaluated, or "".
func checkSkip(ev *actions.Event, action string) string {
	if action != "rerequested" {
		return fmt.Sprintf("nothing to do for %s %q: swarm-gate re-evaluates on rerequested", ev.Name, action)
	}
	if ev.CheckRun != nil && !OwnCheck(ev.CheckRun.Name) {
		return fmt.Sprintf("check run %q is not one of swarm-gate's", ev.CheckRun.Name)
	}
	return ""
}

// checkTarget is the pull request GitHub lists whose head is the checks'
// commit.
func checkTarget(ev *actions.Event) (Target, bool) {
	sha, prs := checkHead(ev)
	for _, pr := range prs {
		if sha != "" && pr.Head.SHA == sha && pr.Base.SHA != "" {
			return Target{Base: pr.Base.SHA, Head: sha, HeadBranch: pr.Head.Ref, PostSHA: sha,
				Kind: "pull_request", What: fmt.Sprintf("pull request #%d (re-requested)", pr.Number), PR: pr.Number, ReadLabels: true}, true
		}
	}
	return Target{}, false
}

func checkHead(ev *actions.Event) (string, []actions.PullRequestRef) {
	switch {
	case ev.CheckRun != nil:
		return ev.CheckRun.HeadSHA, ev.CheckRun.PullRequests
	case ev.CheckSuite != nil:
		return ev.CheckSuite.HeadSHA, ev.CheckSuite.PullRequests
	}
	return "", nil
}

func checkRefs(ev *actions.Event, pr int) []string {
	r := []string{pullHead(pr)}
	_, prs := checkHead(ev)
	for _, p := range prs {
		if p.Number == pr {
			r = append(r, branchRef(p.Base.Ref))
		}
	}
	return r
}
