package event

import "github.com/swarm-gate/swarm-gate/internal/actions"

// issueComment routes a comment: the Action's command handler says itself
// why a comment is no command; the App fetches nothing for one that
// cannot be.
func issueComment(ev *actions.Event, door Door) Work {
	isNew := ev.Issue != nil && ev.Comment != nil && ev.Action == "created" && ev.Issue.IsPullRequest()
	if door == App && !isNew {
		return skip("the comment is not a new comment on a pull request")
	}
	w := Work{Kind: Command}
	if isNew {
		w.Target.PR, w.Refs = ev.Issue.Number, []string{pullHead(ev.Issue.Number)}
	}
	return w
}
