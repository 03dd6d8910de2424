// Package event decides what a GitHub event asks swarm-gate to do: Route
// turns an event and its payload into the Work to do, or a Skip with the
// reason.
package event

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/actions"
)

// Kind is what a Work is.
type Kind int

const (
	Skip      Kind = iota // nothing to do: Reason says why
	Check                 // evaluate Target and post the checks
	PhaseWrap             // post swarm/phase-wrap (default branch, open phase pull requests)
	Command               // handle a comment command on pull request Target.PR
	Publish               // post a fork pull request's checks (workflow_run)
	Usage                 // the event cannot be handled as asked: Reason says why
)

func (k Kind) String() string {
	return [...]string{"skip", "check", "phase-wrap", "command", "publish", "usage"}[k]
}

// Door is the front door an event came in by.
type Door int

const (
	// Action is a workflow run (swarm-gate action, mode auto).
	Action Door = iota
	// App is a GitHub App delivery: there is no workflow run to do
	// phase-wrap or publish in, and check_suite requested is evaluated too
	// (the webhook queue may have let it supersede the pull_request
	// delivery of the same push, under the same pull request key).
	App
)

// Work is what Route decided.
type Work struct {
	Kind Kind
	// Reason says why, for Skip and Usage.
	Reason string
	// Target is what Check evaluates; for Command only Target.PR is set.
	Target Target
	// Key is the coalescing key, "owner/name#N" for a pull request, else
	// "owner/name@<head sha>"; "" when there is none (Skip, Usage,
	// PhaseWrap, Publish).
	Key string
	// Coalesce is true when a newer Work with the same Key makes this one
	// pointless (a new push supersedes an evaluation of the old head);
	// false for comment commands, which must each run.
	Coalesce bool
	// Refs are the remote refs that carry Target's commits
	// (refs/pull/<N>/head, the base branch, the merge group's refs), for a
	// caller that fetches them from a server that does not serve commits
	// by SHA.
	Refs []string
}

// Target is one evaluation.
type Target struct {
	// Base, Head and HeadBranch are pipeline.Options' (refs or SHAs).
	Base, Head, HeadBranch string
	// PostSHA is the full commit SHA the checks go on; "" means resolve
	// Head in the checkout.
	PostSHA string
	// Kind names the evaluation in external ids: pull_request,
	// merge_group, push or manual.
	Kind string
	// What describes it in logs and summaries ("pull request #12").
	What string
	// Fork is true for a pull request whose head is in another repository.
	Fork bool
	// PR is the pull request's number (0: none), whose comments hold the
	// human overrides.
	PR int
	// Labels are the pull request's label names (a swarm:phase-<N> label
	// names the phase when the head branch does not).
	Labels []string
	// ReadLabels is true when the payload lists pull request PR without
	// its labels (a check_run or check_suite): Check reads them, so that
	// a swarm:phase-<N> label names the phase as on the pull_request
	// delivery of the same commit.
	ReadLabels bool
	// QueuedPR is the pull request a merge group was made for (parsed from
	// its head ref), whose head branch gives the phase; 0 when unknown.
	QueuedPR int
}

// Route decides what ev (with its Name set) asks for, coming in by door,
// in repository repo ("owner/name", GITHUB_REPOSITORY). By the App door
// the Kind is only Check, Command or Skip.
func Route(ev *actions.Event, repo string, door Door) Work {
	w := route(ev, repo, door)
	if door == App {
		switch w.Kind {
		case Usage:
			w = skip("%s", w.Reason)
		case PhaseWrap, Publish:
			w = skip("the %s event needs a workflow run (%s), which the GitHub App does not do", ev.Name, w.Kind)
		}
	}
	switch {
	case w.Kind == Check && w.Target.PR > 0:
		w.Key, w.Coalesce = prKey(repo, w.Target.PR), true
	case w.Kind == Check:
		w.Key, w.Coalesce = repo+"@"+w.Target.PostSHA, true
	case w.Kind == Command && w.Target.PR > 0:
		w.Key = prKey(repo, w.Target.PR)
	}
	return w
}

func route(ev *actions.Event, repo string, door Door) Work {
	action := ev.Action
	switch ev.Name {
	case "pull_request":
		if why := pullRequestSkip(ev); why != "" {
			return skip("%s", why)
		}
	case "pull_request_target":
		return skip("%s", pullRequestTargetSkip)
	case "merge_group":
		if why := mergeGroupSkip(ev); why != "" {
			return skip("%s", why)
		}
	case "push":
		if why := pushSkip(ev); why != "" {
			return skip("%s", why)
		}
	case "check_run", "check_suite":
		action = checkAction(ev, door)
		if why := checkSkip(ev, action); why != "" {
			return skip("%s", why)
		}
	case "issue_comment":
		return issueComment(ev, door)
	case "schedule", "workflow_dispatch":
		return Work{Kind: PhaseWrap}
	case "workflow_run":
		return Work{Kind: Publish}
	default:
		return skip("nothing to do for the %s event (swarm-gate handles pull_request, merge_group, push to the default branch, issue_comment, schedule, workflow_dispatch, check_run/check_suite rerequested and workflow_run)", ev.Name)
	}
	t, ok := Commits(ev, repo)
	if !ok {
		if what := malformed(ev); what != "" {
			return Work{Kind: Usage, Reason: fmt.Sprintf("the %s payload at GITHUB_EVENT_PATH has no %s; GitHub always sends one, so the file is not that event's payload (a workflow or test that writes GITHUB_EVENT_PATH itself must give the whole payload)", ev.Name, what)}
		}
		return skip("the %s %s payload names no commits to evaluate (a check run of a fork's pull request or of a push lists no pull request; re-run the workflow instead)", ev.Name, action)
	}
	return Work{Kind: Check, Target: t, Refs: refs(ev, t)}
}

// Commits reads what to evaluate from a payload, whatever its action; ok
// is false when it names no pull request, merge group or pushed range.
// The payload's objects are tried in this order whatever ev.Name says.
func Commits(ev *actions.Event, repo string) (Target, bool) {
	switch {
	case ev.PullRequest != nil:
		return pullRequestTarget(ev.PullRequest, repo)
	case ev.MergeGroup != nil:
		return mergeGroupTarget(ev.MergeGroup)
	case ev.CheckRun != nil || ev.CheckSuite != nil:
		return checkTarget(ev)
	case ev.Name == "push" && ev.After != "" && ev.Before != "":
		return pushTarget(ev), true
	}
	return Target{}, false
}

// refs are the remote refs that carry t's commits.
func refs(ev *actions.Event, t Target) []string {
	var r []string
	switch {
	case ev.PullRequest != nil:
		r = pullRequestRefs(ev.PullRequest)
	case ev.MergeGroup != nil:
		r = mergeGroupRefs(ev.MergeGroup)
	case t.PR > 0:
		r = checkRefs(ev, t.PR)
	case ev.Name == "push":
		r = []string{ev.Ref}
	}
	return compact(r)
}

// malformed names what a pull_request, merge_group or push payload lacks
// that GitHub always sends, "" for other events.
func malformed(ev *actions.Event) string {
	switch ev.Name {
	case "pull_request":
		return "pull_request object with base and head commit SHAs"
	case "merge_group":
		return "merge_group object with base_sha and head_sha"
	case "push":
		return "before and after commit SHAs"
	}
	return ""
}

func skip(format string, args ...any) Work {
	return Work{Kind: Skip, Reason: fmt.Sprintf(format, args...)}
}

func prKey(repo string, pr int) string { return repo + "#" + strconv.Itoa(pr) }

func pullHead(pr int) string { return fmt.Sprintf("refs/pull/%d/head", pr) }

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
