package actionrun

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

// TestRoute: what each event (GitHub's example payloads) makes the action
// do in mode auto, and what it evaluates.
func TestRoute(t *testing.T) {
	const repo = "Codertocat/Hello-World"
	cases := []struct {
		name, event, file string
		edit              func(ev *actions.Event)
		mode              Mode
		settings          Settings
		wantKind          jobKind
		want              target // checked when wantKind is jobCheck
		wantNotice        string
	}{
		{name: "pull_request synchronize", event: "pull_request", file: "pull_request/synchronize.json", wantKind: jobCheck,
			want: target{Base: "f95f852bd8fca8fcc58a9a2d6c842781e32a215e", Head: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", HeadBranch: "changes",
				PostSHA: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", Kind: "pull_request", What: "pull request #2", PR: 2, Labels: []string{"bug"}}},
		{name: "pull_request opened", event: "pull_request", file: "pull_request/opened.json", wantKind: jobCheck},
		{name: "pull_request reopened", event: "pull_request", file: "pull_request/reopened.json", wantKind: jobCheck},
		{name: "pull_request ready_for_review", event: "pull_request", file: "pull_request/ready_for_review.json", wantKind: jobCheck},
		{name: "pull_request edited, base changed", event: "pull_request", file: "pull_request/opened.json", wantKind: jobCheck,
			edit: func(ev *actions.Event) {
				ev.Action = "edited"
				ev.Changes = &actions.Changes{Base: &actions.BaseChange{Ref: actions.Change{From: "develop"}}}
			}},
		{name: "pull_request edited, title only", event: "pull_request", file: "pull_request/opened.json", wantKind: jobSkip, wantNotice: `nothing to do for pull_request "edited"`,
			edit: func(ev *actions.Event) {
				ev.Action = "edited"
				ev.Changes = &actions.Changes{Title: &actions.Change{From: "x"}}
			}},
		{name: "pull_request labeled", event: "pull_request", file: "pull_request/labeled.json", wantKind: jobSkip, wantNotice: `nothing to do for pull_request "labeled"`},
		{name: "pull_request labeled with a phase label", event: "pull_request", file: "pull_request/labeled.json", wantKind: jobCheck,
			edit: func(ev *actions.Event) { ev.Label = &actions.Label{Name: "swarm:phase-2"} }},
		{name: "pull_request unlabeled a phase label", event: "pull_request", file: "pull_request/unlabeled.json", wantKind: jobCheck,
			edit: func(ev *actions.Event) { ev.Label = &actions.Label{Name: "swarm:phase-2"} }},
		{name: "pull_request from a fork", event: "pull_request", file: "pull_request/synchronize.json", wantKind: jobCheck,
			edit: func(ev *actions.Event) { ev.PullRequest.Head.Repo.FullName = "fork-owner/Hello-World" },
			want: target{Base: "f95f852bd8fca8fcc58a9a2d6c842781e32a215e", Head: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", HeadBranch: "changes",
				PostSHA: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", Kind: "pull_request", What: "pull request #2", Fork: true, PR: 2, Labels: []string{"bug"}}},
		{name: "pull_request with the base and head inputs", event: "pull_request", file: "pull_request/synchronize.json", wantKind: jobCheck,
			settings: Settings{Base: "origin/main", Head: "HEAD~1", HeadBranch: "swarm/phase-3"},
			want:     target{Base: "origin/main", Head: "HEAD~1", HeadBranch: "swarm/phase-3", Kind: "pull_request", What: "pull request #2", PR: 2, Labels: []string{"bug"}}},
		{name: "merge_group checks_requested", event: "merge_group", file: "merge_group/checks_requested.json", wantKind: jobCheck,
			edit: func(ev *actions.Event) {
				ev.MergeGroup.HeadRef = "refs/heads/gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64"
			},
			want: target{Base: "380387fbc80638b734a49e1be1c4dfec1c01b33c", Head: "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d",
				PostSHA: "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d", Kind: "merge_group", What: "the merge group gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64", QueuedPR: 104}},
		{name: "merge_group destroyed", event: "merge_group", file: "merge_group/checks_requested.json", wantKind: jobSkip, wantNotice: `nothing to do for merge_group "destroyed"`,
			edit: func(ev *actions.Event) { ev.Action = "destroyed" }},
		{name: "push to a tag", event: "push", file: "push/push.json", wantKind: jobSkip, wantNotice: "a push to refs/tags/simple-tag"},
		{name: "push creating the default branch", event: "push", file: "push/push.with-new-branch.json", wantKind: jobSkip,
			edit:       func(ev *actions.Event) { ev.Ref = "refs/heads/" + ev.Repository.DefaultBranch },
			wantNotice: "the push created refs/heads/"},
		{name: "push to the default branch", event: "push", file: "push/push.json", wantKind: jobCheck,
			edit: func(ev *actions.Event) {
				ev.Ref, ev.Before, ev.After, ev.Deleted = "refs/heads/master", strings.Repeat("a", 40), strings.Repeat("b", 40), false
			},
			want: target{Base: strings.Repeat("a", 40), Head: strings.Repeat("b", 40), HeadBranch: "master", PostSHA: strings.Repeat("b", 40), Kind: "push", What: "the push to master"}},
		{name: "push deleting the default branch", event: "push", file: "push/push.json", wantKind: jobSkip, wantNotice: "the push deleted refs/heads/master",
			edit: func(ev *actions.Event) { ev.Ref, ev.Deleted = "refs/heads/master", true }},
		{name: "issue_comment", event: "issue_comment", file: "issue_comment/created.json", wantKind: jobCommand},
		{name: "schedule", event: "schedule", wantKind: jobPhaseWrap},
		{name: "workflow_dispatch", event: "workflow_dispatch", file: "workflow_dispatch/workflow_dispatch.json", wantKind: jobPhaseWrap},
		{name: "workflow_run", event: "workflow_run", wantKind: jobPublish},
		{name: "check_run rerequested of another app", event: "check_run", file: "check_run/rerequested.json", wantKind: jobSkip, wantNotice: "is not one of swarm-gate's"},
		{name: "check_run rerequested of swarm-gate", event: "check_run", file: "check_run/rerequested.json", wantKind: jobCheck,
			edit: func(ev *actions.Event) {
				ev.CheckRun.Name = "swarm/scope"
				ev.CheckRun.PullRequests = []actions.PullRequestRef{{Number: 3,
					Head: actions.Branch{Ref: "swarm/phase-2", SHA: ev.CheckRun.HeadSHA}, Base: actions.Branch{Ref: "main", SHA: strings.Repeat("c", 40)}}}
			},
			want: target{Base: strings.Repeat("c", 40), Head: "d6fde92930d4715a2b49857d24b940956b26d2d3", HeadBranch: "swarm/phase-2",
				PostSHA: "d6fde92930d4715a2b49857d24b940956b26d2d3", Kind: "pull_request", What: "pull request #3 (re-requested)", PR: 3}},
		{name: "check_run rerequested without a pull request", event: "check_run", file: "check_run/rerequested.json", wantKind: jobSkip, wantNotice: "names no commits to evaluate",
			edit: func(ev *actions.Event) { ev.CheckRun.Name, ev.CheckRun.PullRequests = "swarm-gate", nil }},
		{name: "check_suite completed", event: "check_suite", file: "check_suite/completed.json", wantKind: jobSkip, wantNotice: `nothing to do for check_suite "completed"`},
		{name: "check_suite rerequested", event: "check_suite", file: "check_suite/rerequested.json", wantKind: jobCheck},
		{name: "pull_request_target", event: "pull_request_target", file: "pull_request/opened.json", wantKind: jobSkip, wantNotice: "does not run on pull_request_target"},
		{name: "installation", event: "installation", file: "installation/created.json", wantKind: jobSkip, wantNotice: "nothing to do for the installation event"},
		{name: "mode check on workflow_dispatch without base", event: "workflow_dispatch", file: "workflow_dispatch/workflow_dispatch.json", mode: ModeCheck, wantKind: jobUsage,
			wantNotice: "needs the base input"},
		{name: "mode check on workflow_dispatch with base", event: "workflow_dispatch", file: "workflow_dispatch/workflow_dispatch.json", mode: ModeCheck,
			settings: Settings{Base: "main"}, wantKind: jobCheck, want: target{Base: "main", Head: "HEAD", Kind: "manual", What: "the commits given by the base and head inputs"}},
		{name: "mode phase-wrap on a pull request", event: "pull_request", file: "pull_request/opened.json", mode: ModePhaseWrap, wantKind: jobPhaseWrap},
		{name: "mode command on a push", event: "push", file: "push/push.json", mode: ModeCommand, wantKind: jobUsage, wantNotice: "mode command runs on issue_comment events, not push"},
		{name: "mode command on a pull request", event: "pull_request", file: "pull_request/opened.json", mode: ModeCommand, wantKind: jobUsage, wantNotice: "mode command runs on issue_comment events, not pull_request"},
		{name: "mode command on a comment", event: "issue_comment", file: "issue_comment/created.json", mode: ModeCommand, wantKind: jobCommand},
		{name: "pull_request payload without its pull_request", event: "pull_request", file: "pull_request/opened.json", wantKind: jobUsage,
			wantNotice: "the pull_request payload at GITHUB_EVENT_PATH has no pull_request object with base and head commit SHAs",
			edit:       func(ev *actions.Event) { ev.PullRequest = nil }},
		{name: "merge_group payload without its merge_group", event: "merge_group", file: "merge_group/checks_requested.json", wantKind: jobUsage,
			wantNotice: "the merge_group payload at GITHUB_EVENT_PATH has no merge_group object",
			edit:       func(ev *actions.Event) { ev.MergeGroup = nil }},
		{name: "mode publish on a push", event: "push", file: "push/push.json", mode: ModePublish, wantKind: jobUsage, wantNotice: "mode publish runs on workflow_run events"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev := readEvent(t, tc.event, tc.file, tc.edit)
			s := tc.settings
			s.Mode = tc.mode
			if s.Mode == "" {
				s.Mode = ModeAuto
			}
			j := route(ev, &s, repo)
			if j.kind != tc.wantKind {
				t.Fatalf("job %s (%q), want %s", j.kind, j.notice, tc.wantKind)
			}
			if !strings.Contains(j.notice, tc.wantNotice) {
				t.Errorf("notice %q, want it to contain %q", j.notice, tc.wantNotice)
			}
			if j.kind == jobCheck && tc.want.Kind != "" && !reflect.DeepEqual(j.target, tc.want) {
				t.Errorf("target\n got %+v\nwant %+v", j.target, tc.want)
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
