package event

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

const webhooks = "../../../shared/github/webhooks"

// readEvent reads one of GitHub's example payloads, changed by edit.
func readEvent(t *testing.T, name, file string, edit func(ev *actions.Event)) *actions.Event {
	t.Helper()
	ev := &actions.Event{}
	if file != "" {
		path := filepath.Join(webhooks, file)
		if _, err := os.Stat(path); err != nil {
			sharedtest.Skip(t, "GitHub's example payloads are not available: %v", err)
		}
		var err error
		if ev, err = actions.ReadEvent(path); err != nil {
			t.Fatal(err)
		}
	}
	ev.Name = name
	if edit != nil {
		edit(ev)
	}
	return ev
}

// TestRoute: what each event (GitHub's example payloads) asks a workflow
// run to do, and what it evaluates.
func TestRoute(t *testing.T) {
	const repo = "Codertocat/Hello-World"
	cases := []struct {
		name, event, file string
		edit              func(ev *actions.Event)
		wantKind          Kind
		want              Target // checked when wantKind is Check
		wantNotice        string
	}{
		{name: "pull_request synchronize", event: "pull_request", file: "pull_request/synchronize.json", wantKind: Check,
			want: Target{Base: "f95f852bd8fca8fcc58a9a2d6c842781e32a215e", Head: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", HeadBranch: "changes",
				PostSHA: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", Kind: "pull_request", What: "pull request #2", PR: 2, Labels: []string{"bug"}}},
		{name: "pull_request opened", event: "pull_request", file: "pull_request/opened.json", wantKind: Check},
		{name: "pull_request reopened", event: "pull_request", file: "pull_request/reopened.json", wantKind: Check},
		{name: "pull_request ready_for_review", event: "pull_request", file: "pull_request/ready_for_review.json", wantKind: Check},
		{name: "pull_request edited, base changed", event: "pull_request", file: "pull_request/opened.json", wantKind: Check,
			edit: func(ev *actions.Event) {
				ev.Action = "edited"
				ev.Changes = &actions.Changes{Base: &actions.BaseChange{Ref: actions.Change{From: "develop"}}}
			}},
		{name: "pull_request edited, title only", event: "pull_request", file: "pull_request/opened.json", wantKind: Skip, wantNotice: `nothing to do for pull_request "edited"`,
			edit: func(ev *actions.Event) {
				ev.Action = "edited"
				ev.Changes = &actions.Changes{Title: &actions.Change{From: "x"}}
			}},
		{name: "pull_request labeled", event: "pull_request", file: "pull_request/labeled.json", wantKind: Skip, wantNotice: `nothing to do for pull_request "labeled"`},
		{name: "pull_request labeled with a phase label", event: "pull_request", file: "pull_request/labeled.json", wantKind: Check,
			edit: func(ev *actions.Event) { ev.Label = &actions.Label{Name: "swarm:phase-2"} }},
		{name: "pull_request unlabeled a phase label", event: "pull_request", file: "pull_request/unlabeled.json", wantKind: Check,
			edit: func(ev *actions.Event) { ev.Label = &actions.Label{Name: "swarm:phase-2"} }},
		{name: "pull_request from a fork", event: "pull_request", file: "pull_request/synchronize.json", wantKind: Check,
			edit: func(ev *actions.Event) { ev.PullRequest.Head.Repo.FullName = "fork-owner/Hello-World" },
			want: Target{Base: "f95f852bd8fca8fcc58a9a2d6c842781e32a215e", Head: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", HeadBranch: "changes",
				PostSHA: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", Kind: "pull_request", What: "pull request #2", Fork: true, PR: 2, Labels: []string{"bug"}}},
		{name: "merge_group checks_requested", event: "merge_group", file: "merge_group/checks_requested.json", wantKind: Check,
			edit: func(ev *actions.Event) {
				ev.MergeGroup.HeadRef = "refs/heads/gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64"
			},
			want: Target{Base: "380387fbc80638b734a49e1be1c4dfec1c01b33c", Head: "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d",
				PostSHA: "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d", Kind: "merge_group", What: "the merge group gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64", QueuedPR: 104}},
		{name: "merge_group destroyed", event: "merge_group", file: "merge_group/checks_requested.json", wantKind: Skip, wantNotice: `nothing to do for merge_group "destroyed"`,
			edit: func(ev *actions.Event) { ev.Action = "destroyed" }},
		{name: "push to a tag", event: "push", file: "push/push.json", wantKind: Skip, wantNotice: "a push to refs/tags/simple-tag"},
		{name: "push creating the default branch", event: "push", file: "push/push.with-new-branch.json", wantKind: Skip,
			edit:       func(ev *actions.Event) { ev.Ref = "refs/heads/" + ev.Repository.DefaultBranch },
			wantNotice: "the push created refs/heads/"},
		{name: "push to the default branch", event: "push", file: "push/push.json", wantKind: Check,
			edit: func(ev *actions.Event) {
				ev.Ref, ev.Before, ev.After, ev.Deleted = "refs/heads/master", strings.Repeat("a", 40), strings.Repeat("b", 40), false
			},
			want: Target{Base: strings.Repeat("a", 40), Head: strings.Repeat("b", 40), HeadBranch: "master", PostSHA: strings.Repeat("b", 40), Kind: "push", What: "the push to master"}},
		{name: "push deleting the default branch", event: "push", file: "push/push.json", wantKind: Skip, wantNotice: "the push deleted refs/heads/master",
			edit: func(ev *actions.Event) { ev.Ref, ev.Deleted = "refs/heads/master", true }},
		{name: "issue_comment", event: "issue_comment", file: "issue_comment/created.json", wantKind: Command},
		{name: "schedule", event: "schedule", wantKind: PhaseWrap},
		{name: "workflow_dispatch", event: "workflow_dispatch", file: "workflow_dispatch/workflow_dispatch.json", wantKind: PhaseWrap},
		{name: "workflow_run", event: "workflow_run", wantKind: Publish},
		{name: "check_run rerequested of another app", event: "check_run", file: "check_run/rerequested.json", wantKind: Skip, wantNotice: "is not one of swarm-gate's"},
		{name: "check_run rerequested of swarm-gate", event: "check_run", file: "check_run/rerequested.json", wantKind: Check,
			edit: func(ev *actions.Event) {
				ev.CheckRun.Name = "swarm/scope"
				ev.CheckRun.PullRequests = []actions.PullRequestRef{{Number: 3,
					Head: actions.Branch{Ref: "swarm/phase-2", SHA: ev.CheckRun.HeadSHA}, Base: actions.Branch{Ref: "main", SHA: strings.Repeat("c", 40)}}}
			},
			want: Target{Base: strings.Repeat("c", 40), Head: "d6fde92930d4715a2b49857d24b940956b26d2d3", HeadBranch: "swarm/phase-2",
				PostSHA: "d6fde92930d4715a2b49857d24b940956b26d2d3", Kind: "pull_request", What: "pull request #3 (re-requested)", PR: 3, ReadLabels: true}},
		{name: "check_run rerequested without a pull request", event: "check_run", file: "check_run/rerequested.json", wantKind: Skip, wantNotice: "names no commits to evaluate",
			edit: func(ev *actions.Event) { ev.CheckRun.Name, ev.CheckRun.PullRequests = "swarm-gate", nil }},
		{name: "check_suite completed", event: "check_suite", file: "check_suite/completed.json", wantKind: Skip, wantNotice: `nothing to do for check_suite "completed"`},
		{name: "check_suite rerequested", event: "check_suite", file: "check_suite/rerequested.json", wantKind: Check},
		{name: "pull_request_target", event: "pull_request_target", file: "pull_request/opened.json", wantKind: Skip, wantNotice: "does not run on pull_request_target"},
		{name: "installation", event: "installation", file: "installation/created.json", wantKind: Skip, wantNotice: "nothing to do for the installation event"},
		{name: "pull_request payload without its pull_request", event: "pull_request", file: "pull_request/opened.json", wantKind: Usage,
			wantNotice: "the pull_request payload at GITHUB_EVENT_PATH has no pull_request object with base and head commit SHAs",
			edit:       func(ev *actions.Event) { ev.PullRequest = nil }},
		{name: "merge_group payload without its merge_group", event: "merge_group", file: "merge_group/checks_requested.json", wantKind: Usage,
			wantNotice: "the merge_group payload at GITHUB_EVENT_PATH has no merge_group object",
			edit:       func(ev *actions.Event) { ev.MergeGroup = nil }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev := readEvent(t, tc.event, tc.file, tc.edit)
			w := Route(ev, repo, Action)
			if w.Kind != tc.wantKind {
				t.Fatalf("work %s (%q), want %s", w.Kind, w.Reason, tc.wantKind)
			}
			if !strings.Contains(w.Reason, tc.wantNotice) {
				t.Errorf("reason %q, want it to contain %q", w.Reason, tc.wantNotice)
			}
			if w.Kind == Check && tc.want.Kind != "" && !reflect.DeepEqual(w.Target, tc.want) {
				t.Errorf("target\n got %+v\nwant %+v", w.Target, tc.want)
			}
		})
	}
}

func TestQueuedPR(t *testing.T) {
	cases := []struct {
		ref  string
		want int
	}{
		{"refs/heads/gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64", 104},
		{"gh-readonly-queue/release/v2/pr-7-929f8209d40f77f4abc622a499c93a83babdbe64", 7},
		{"refs/heads/gh-readonly-queue/main/pr-104-929f82", 0},
		{"refs/heads/main", 0},
		{"", 0},
	}
	for _, tc := range cases {
		if got := queuedPR(tc.ref); got != tc.want {
			t.Errorf("queuedPR(%q) = %d, want %d", tc.ref, got, tc.want)
		}
	}
}

// fetched is what the App fetches for a Work (what TestRouteApp checks).
type fetched struct {
	Base, Head string
	PR         int
	Command    bool
	Refs       []string
}

func fetchOf(w Work) fetched {
	return fetched{Base: w.Target.Base, Head: w.Target.Head, PR: w.Target.PR, Command: w.Kind == Command, Refs: w.Refs}
}

// TestRouteApp: what the App fetches for an event is what the evaluation
// will evaluate, with the refs that carry the commits and the coalescing
// key; what it cannot do is a skip.
func TestRouteApp(t *testing.T) {
	base, head := strings.Repeat("b", 40), strings.Repeat("h", 40)
	pr := &actions.PullRequest{Number: 12, Base: actions.Branch{Ref: "main", SHA: base}, Head: actions.Branch{Ref: "swarm/phase-1", SHA: head, Repo: &actions.Repository{FullName: "o/r"}}}
	prRef := actions.PullRequestRef{Number: 12, Base: actions.Branch{Ref: "main", SHA: base}, Head: actions.Branch{Ref: "swarm/phase-1", SHA: head}}
	cases := []struct {
		name     string
		ev       actions.Event
		want     fetched
		wantKey  string
		wantSkip string
	}{
		{"pull_request synchronize", actions.Event{Name: "pull_request", Action: "synchronize", PullRequest: pr},
			fetched{Base: base, Head: head, PR: 12, Refs: []string{"refs/pull/12/head", "refs/heads/main"}}, "o/r#12", ""},
		{"pull_request closed", actions.Event{Name: "pull_request", Action: "closed", PullRequest: pr}, fetched{}, "", `nothing to do for pull_request "closed"`},
		{"merge_group", actions.Event{Name: "merge_group", Action: "checks_requested", MergeGroup: &actions.MergeGroup{BaseSHA: base, HeadSHA: head,
			HeadRef: "refs/heads/gh-readonly-queue/main/pr-12-" + base, BaseRef: "refs/heads/main"}},
			fetched{Base: base, Head: head, Refs: []string{"refs/heads/gh-readonly-queue/main/pr-12-" + base, "refs/heads/main"}}, "o/r@" + head, ""},
		{"check_suite rerequested", actions.Event{Name: "check_suite", Action: "rerequested", CheckSuite: &actions.CheckSuite{HeadSHA: head, PullRequests: []actions.PullRequestRef{prRef}}},
			fetched{Base: base, Head: head, PR: 12, Refs: []string{"refs/pull/12/head", "refs/heads/main"}}, "o/r#12", ""},
		{"check_suite requested", actions.Event{Name: "check_suite", Action: "requested", CheckSuite: &actions.CheckSuite{HeadSHA: head, PullRequests: []actions.PullRequestRef{prRef}}},
			fetched{Base: base, Head: head, PR: 12, Refs: []string{"refs/pull/12/head", "refs/heads/main"}}, "o/r#12", ""},
		{"check_suite requested without a pull request", actions.Event{Name: "check_suite", Action: "requested", CheckSuite: &actions.CheckSuite{HeadSHA: head}},
			fetched{}, "", "the check_suite rerequested payload names no commits to evaluate"},
		{"check_run of another check", actions.Event{Name: "check_run", Action: "rerequested", CheckRun: &actions.CheckRun{Name: "lint", HeadSHA: head, PullRequests: []actions.PullRequestRef{prRef}}},
			fetched{}, "", `check run "lint" is not one of swarm-gate's`},
		{"check_run requested", actions.Event{Name: "check_run", Action: "requested", CheckRun: &actions.CheckRun{Name: "swarm-gate", HeadSHA: head, PullRequests: []actions.PullRequestRef{prRef}}},
			fetched{}, "", `nothing to do for check_run "requested"`},
		{"comment command", actions.Event{Name: "issue_comment", Action: "created", Issue: &actions.Issue{Number: 12, PullRequest: &actions.IssuePullRequest{URL: "x"}}, Comment: &actions.Comment{Body: "/swarm recheck"}},
			fetched{Command: true, PR: 12, Refs: []string{"refs/pull/12/head"}}, "o/r#12", ""},
		{"comment on an issue", actions.Event{Name: "issue_comment", Action: "created", Issue: &actions.Issue{Number: 3}, Comment: &actions.Comment{Body: "/swarm recheck"}},
			fetched{}, "", "not a new comment on a pull request"},
		{"schedule", actions.Event{Name: "schedule"}, fetched{}, "", "the schedule event needs a workflow run (phase-wrap), which the GitHub App does not do"},
		{"workflow_run", actions.Event{Name: "workflow_run"}, fetched{}, "", "the workflow_run event needs a workflow run (publish), which the GitHub App does not do"},
		{"pull_request without its pull_request", actions.Event{Name: "pull_request", Action: "opened"}, fetched{}, "",
			"the pull_request payload at GITHUB_EVENT_PATH has no pull_request object with base and head commit SHAs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := Route(&tc.ev, "o/r", App)
			if tc.wantSkip != "" {
				if w.Kind != Skip || !strings.Contains(w.Reason, tc.wantSkip) {
					t.Errorf("%s %q, want a skip containing %q", w.Kind, w.Reason, tc.wantSkip)
				}
				return
			}
			if got := fetchOf(w); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Route = %+v, want %+v", got, tc.want)
			}
			if w.Key != tc.wantKey || w.Coalesce != (w.Kind == Check) {
				t.Errorf("key %q coalesce %v, want %q %v", w.Key, w.Coalesce, tc.wantKey, w.Kind == Check)
			}
		})
	}
}

// TestRouteDoors: the App door evaluates check_suite requested, the
// Action door does not (it has pull_request for new pushes).
func TestRouteDoors(t *testing.T) {
	head := strings.Repeat("h", 40)
	ev := &actions.Event{Name: "check_suite", Action: "requested", CheckSuite: &actions.CheckSuite{HeadSHA: head, PullRequests: []actions.PullRequestRef{{Number: 1,
		Head: actions.Branch{SHA: head}, Base: actions.Branch{SHA: strings.Repeat("b", 40)}}}}}
	if w := Route(ev, "o/r", Action); w.Kind != Skip || w.Reason != `nothing to do for check_suite "requested": swarm-gate re-evaluates on rerequested` {
		t.Errorf("Action door: %s %q", w.Kind, w.Reason)
	}
	if w := Route(ev, "o/r", App); w.Kind != Check || w.Target.What != "pull request #1 (re-requested)" {
		t.Errorf("App door: %s %+v", w.Kind, w.Target)
	}
	if ev.Action != "requested" {
		t.Errorf("Route changed the event's action to %q", ev.Action)
	}
}
