package actionrun

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
)

type jobKind int

const (
	jobSkip      jobKind = iota // nothing to do: a notice says why
	jobCheck                    // evaluate target and post the checks
	jobPhaseWrap                // post swarm/phase-wrap (default branch, open phase PRs)
	jobCommand                  // a comment command
	jobPublish                  // post a fork pull request's checks (workflow_run)
	jobUsage                    // the mode cannot work with this event
)

func (k jobKind) String() string {
	return [...]string{"skip", "check", "phase-wrap", "command", "publish", "usage"}[k]
}

// job is what route decided.
type job struct {
	kind   jobKind
	notice string // jobSkip, jobUsage: why
	target target // jobCheck
}

// target is one evaluation of ModeCheck.
type target struct {
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
	// QueuedPR is the pull request a merge group was made for (parsed from
	// its head ref), whose head branch gives the phase; 0 when unknown.
	QueuedPR int
}

// pullRequestActions are the pull_request actions that are evaluated
// (edited only when the base branch changed).
var pullRequestActions = map[string]bool{"opened": true, "synchronize": true, "reopened": true, "ready_for_review": true}

// route decides what to do with the event in the mode. repo is
// GITHUB_REPOSITORY.
func route(ev *actions.Event, s *Settings, repo string) job {
	switch s.Mode {
	case ModePhaseWrap:
		return job{kind: jobPhaseWrap}
	case ModeCommand:
		if ev.Name != "issue_comment" {
			return job{kind: jobUsage, notice: fmt.Sprintf("mode command runs on issue_comment events, not %s (see the comment-command workflow in docs/action.md)", ev.Name)}
		}
		return job{kind: jobCommand}
	case ModePublish:
		if ev.Name != "workflow_run" {
			return job{kind: jobUsage, notice: fmt.Sprintf("mode publish runs on workflow_run events, not %s (see the poster workflow for pull requests from forks in docs/action.md)", ev.Name)}
		}
		return job{kind: jobPublish}
	case ModeCheck:
		t, ok := eventTarget(ev, repo)
		if !ok {
			t = target{Head: "HEAD", Kind: "manual", What: "the commits given by the base and head inputs"}
			if s.Base == "" {
				return job{kind: jobUsage, notice: fmt.Sprintf("mode check on a %s event needs the base input (the ref to compare with)", ev.Name)}
			}
		}
		return job{kind: jobCheck, target: override(t, s)}
	}
	// ModeAuto.
	switch ev.Name {
	case "pull_request":
		edited := ev.Action == "edited" && ev.Changes != nil && ev.Changes.Base != nil
		// A swarm:phase-<N> label added or removed may change the phase.
		relabeled := (ev.Action == "labeled" || ev.Action == "unlabeled") && ev.Label != nil && strings.HasPrefix(ev.Label.Name, "swarm:phase-")
		if !pullRequestActions[ev.Action] && !edited && !relabeled {
			return skip("nothing to do for pull_request %q: swarm-gate evaluates opened, synchronize, reopened, ready_for_review, edited when the base branch changed, and labeled/unlabeled with a swarm:phase-<N> label", ev.Action)
		}
	case "merge_group":
		if ev.Action != "checks_requested" {
			return skip("nothing to do for merge_group %q: swarm-gate evaluates checks_requested", ev.Action)
		}
	case "push":
		if why := pushSkip(ev); why != "" {
			return skip("%s", why)
		}
	case "check_run", "check_suite":
		if ev.Action != "rerequested" {
			return skip("nothing to do for %s %q: swarm-gate re-evaluates on rerequested", ev.Name, ev.Action)
		}
		if ev.CheckRun != nil && !ownCheck(ev.CheckRun.Name) {
			return skip("check run %q is not one of swarm-gate's", ev.CheckRun.Name)
		}
	case "issue_comment":
		return job{kind: jobCommand}
	case "schedule", "workflow_dispatch":
		return job{kind: jobPhaseWrap}
	case "workflow_run":
		return job{kind: jobPublish}
	case "pull_request_target":
		return skip("swarm-gate does not run on pull_request_target: that event has a write token next to the pull request's code, and a mistake in the workflow runs that code with it; use pull_request, and the workflow_run poster for pull requests from forks (see the README)")
	default:
		return skip("nothing to do for the %s event (swarm-gate handles pull_request, merge_group, push to the default branch, issue_comment, schedule, workflow_dispatch, check_run/check_suite rerequested and workflow_run)", ev.Name)
	}
	t, ok := eventTarget(ev, repo)
	if !ok {
		if what := malformed(ev); what != "" {
			return job{kind: jobUsage, notice: fmt.Sprintf("the %s payload at GITHUB_EVENT_PATH has no %s; GitHub always sends one, so the file is not that event's payload (a workflow or test that writes GITHUB_EVENT_PATH itself must give the whole payload)", ev.Name, what)}
		}
		return skip("the %s %s payload names no commits to evaluate (a check run of a fork's pull request or of a push lists no pull request; re-run the workflow instead)", ev.Name, ev.Action)
	}
	return job{kind: jobCheck, target: override(t, s)}
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

func skip(format string, args ...any) job {
	return job{kind: jobSkip, notice: fmt.Sprintf(format, args...)}
}

// eventTarget reads what to evaluate from a payload; ok is false when the
// event names no pull request, merge group or pushed range.
func eventTarget(ev *actions.Event, repo string) (target, bool) {
	switch {
	case ev.PullRequest != nil:
		pr := ev.PullRequest
		if pr.Base.SHA == "" || pr.Head.SHA == "" {
			return target{}, false
		}
		return target{Base: pr.Base.SHA, Head: pr.Head.SHA, HeadBranch: pr.Head.Ref, PostSHA: pr.Head.SHA,
			Kind: "pull_request", What: fmt.Sprintf("pull request #%d", pr.Number), Fork: pr.Head.RepoFullName() != repo, PR: pr.Number, Labels: pr.LabelNames()}, true
	case ev.MergeGroup != nil:
		mg := ev.MergeGroup
		if mg.BaseSHA == "" || mg.HeadSHA == "" {
			return target{}, false
		}
		return target{Base: mg.BaseSHA, Head: mg.HeadSHA, PostSHA: mg.HeadSHA, Kind: "merge_group",
			What: "the merge group " + strings.TrimPrefix(mg.HeadRef, "refs/heads/"), QueuedPR: queuedPR(mg.HeadRef)}, true
	case ev.CheckRun != nil || ev.CheckSuite != nil:
		sha, prs := "", []actions.PullRequestRef(nil)
		if ev.CheckRun != nil {
			sha, prs = ev.CheckRun.HeadSHA, ev.CheckRun.PullRequests
		} else {
			sha, prs = ev.CheckSuite.HeadSHA, ev.CheckSuite.PullRequests
		}
		for _, pr := range prs {
			if sha != "" && pr.Head.SHA == sha && pr.Base.SHA != "" {
				return target{Base: pr.Base.SHA, Head: sha, HeadBranch: pr.Head.Ref, PostSHA: sha,
					Kind: "pull_request", What: fmt.Sprintf("pull request #%d (re-requested)", pr.Number), PR: pr.Number}, true
			}
		}
		return target{}, false
	case ev.Name == "push" && ev.After != "" && ev.Before != "":
		branch := strings.TrimPrefix(ev.Ref, "refs/heads/")
		return target{Base: ev.Before, Head: ev.After, HeadBranch: branch, PostSHA: ev.After, Kind: "push",
			What: "the push to " + branch}, true
	}
	return target{}, false
}

// pushSkip says why a push is not evaluated, or "".
func pushSkip(ev *actions.Event) string {
	def := ""
	if ev.Repository != nil {
		def = ev.Repository.DefaultBranch
	}
	switch {
	case def == "" || ev.Ref != "refs/heads/"+def:
		return fmt.Sprintf("nothing to do for a push to %s: swarm-gate evaluates pushes to the default branch (pull requests are evaluated on pull_request)", ev.Ref)
	case ev.Deleted:
		return "nothing to do: the push deleted " + ev.Ref
	case strings.Trim(ev.Before, "0") == "":
		return "nothing to do: the push created " + ev.Ref + ", so there is no earlier commit to compare with"
	}
	return ""
}

// override applies the base, head and head-branch inputs.
func override(t target, s *Settings) target {
	if s.Base != "" {
		t.Base = s.Base
	}
	if s.Head != "" && s.Head != t.Head {
		t.Head, t.PostSHA = s.Head, ""
	}
	if s.HeadBranch != "" {
		t.HeadBranch = s.HeadBranch
	}
	return t
}

// queueRef is a merge queue's head ref: gh-readonly-queue/<base>/pr-<N>-<sha>.
var queueRef = regexp.MustCompile(`^(?:refs/heads/)?gh-readonly-queue/.+/pr-(\d+)-[0-9a-f]{40}$`)

func queuedPR(ref string) int {
	m := queueRef.FindStringSubmatch(ref)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0
	}
	return n
}

// aggregateName is the aggregate check's name.
const aggregateName = evaluate.AggregateCheck

// ownCheck is true for swarm-gate's check names.
func ownCheck(name string) bool {
	if name == aggregateName {
		return true
	}
	for _, g := range gates.Registry() {
		if g.Name() == name {
			return true
		}
	}
	return false
}
