package actionrun

import (
	"fmt"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/actions"
)

// Need is what a run on an event needs in the workspace, for a caller that
// must fetch the commits before it runs a Runner (the GitHub App): the
// routing is the Runner's own (mode auto, no inputs), so that what is
// fetched is exactly what is evaluated.
type Need struct {
	// Skip says why the event needs no commits: the Runner only writes a
	// notice for it. Empty when there is something to fetch.
	Skip string
	// Base and Head are the commits evaluated (full SHAs from the
	// payload); empty for a comment command, whose commits are the pull
	// request's (read it through the API: PR).
	Base, Head string
	// PR is the pull request evaluated or commented on (0: none).
	PR int
	// Command is true for issue_comment: the pull request's base and head
	// are needed, and the payload does not carry them.
	Command bool
	// Refs are the remote refs that carry Head and Base (refs/pull/<N>/head,
	// the base branch, the merge group's refs), for a server that does not
	// serve commits by SHA.
	Refs []string
}

// Needs returns what a run on ev (with GITHUB_REPOSITORY repo) needs in
// the workspace.
func Needs(ev *actions.Event, repo string) Need {
	j := route(ev, &Settings{Mode: ModeAuto}, repo)
	switch j.kind {
	case jobCheck:
		t := j.target
		n := Need{Base: t.Base, Head: t.Head, PR: t.PR}
		switch {
		case ev.PullRequest != nil:
			n.Refs = append(n.Refs, fmt.Sprintf("refs/pull/%d/head", ev.PullRequest.Number), branchRef(ev.PullRequest.Base.Ref))
		case ev.MergeGroup != nil:
			n.Refs = append(n.Refs, ev.MergeGroup.HeadRef, ev.MergeGroup.BaseRef)
		case t.PR > 0:
			n.Refs = append(n.Refs, fmt.Sprintf("refs/pull/%d/head", t.PR))
			for _, pr := range checkPullRequests(ev) {
				if pr.Number == t.PR {
					n.Refs = append(n.Refs, branchRef(pr.Base.Ref))
				}
			}
		case ev.Name == "push":
			n.Refs = append(n.Refs, ev.Ref)
		}
		n.Refs = compact(n.Refs)
		return n
	case jobCommand:
		if ev.Issue == nil || ev.Comment == nil || ev.Action != "created" || !ev.Issue.IsPullRequest() {
			return Need{Skip: "the comment is not a new comment on a pull request"}
		}
		return Need{Command: true, PR: ev.Issue.Number, Refs: []string{fmt.Sprintf("refs/pull/%d/head", ev.Issue.Number)}}
	case jobSkip, jobUsage:
		return Need{Skip: j.notice}
	}
	return Need{Skip: fmt.Sprintf("the %s event needs a workflow run (%s), which the GitHub App does not do", ev.Name, j.kind)}
}

func checkPullRequests(ev *actions.Event) []actions.PullRequestRef {
	switch {
	case ev.CheckRun != nil:
		return ev.CheckRun.PullRequests
	case ev.CheckSuite != nil:
		return ev.CheckSuite.PullRequests
	}
	return nil
}

// branchRef is refs/heads/<name>, "" for "".
func branchRef(name string) string {
	if name == "" || strings.HasPrefix(name, "refs/") {
		return name
	}
	return "refs/heads/" + name
}

// compact drops empty and repeated refs.
func compact(refs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range refs {
		if r != "" && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}
