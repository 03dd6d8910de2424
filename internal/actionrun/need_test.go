package actionrun

import (
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/actions"
)

// TestNeeds: what the App fetches for an event is what the Runner will
// evaluate, with the refs that carry the commits.
func TestNeeds(t *testing.T) {
	base, head := strings.Repeat("b", 40), strings.Repeat("h", 40)
	pr := &actions.PullRequest{Number: 12, Base: actions.Branch{Ref: "main", SHA: base}, Head: actions.Branch{Ref: "swarm/phase-1", SHA: head, Repo: &actions.Repository{FullName: "o/r"}}}
	prRef := actions.PullRequestRef{Number: 12, Base: actions.Branch{Ref: "main", SHA: base}, Head: actions.Branch{Ref: "swarm/phase-1", SHA: head}}
	cases := []struct {
		name     string
		ev       actions.Event
		want     Need
		wantSkip string
	}{
		{"pull_request synchronize", actions.Event{Name: "pull_request", Action: "synchronize", PullRequest: pr},
			Need{Base: base, Head: head, PR: 12, Refs: []string{"refs/pull/12/head", "refs/heads/main"}}, ""},
		{"pull_request closed", actions.Event{Name: "pull_request", Action: "closed", PullRequest: pr}, Need{}, `nothing to do for pull_request "closed"`},
		{"merge_group", actions.Event{Name: "merge_group", Action: "checks_requested", MergeGroup: &actions.MergeGroup{BaseSHA: base, HeadSHA: head,
			HeadRef: "refs/heads/gh-readonly-queue/main/pr-12-" + base, BaseRef: "refs/heads/main"}},
			Need{Base: base, Head: head, Refs: []string{"refs/heads/gh-readonly-queue/main/pr-12-" + base, "refs/heads/main"}}, ""},
		{"check_suite rerequested", actions.Event{Name: "check_suite", Action: "rerequested", CheckSuite: &actions.CheckSuite{HeadSHA: head, PullRequests: []actions.PullRequestRef{prRef}}},
			Need{Base: base, Head: head, PR: 12, Refs: []string{"refs/pull/12/head", "refs/heads/main"}}, ""},
		{"check_run of another check", actions.Event{Name: "check_run", Action: "rerequested", CheckRun: &actions.CheckRun{Name: "lint", HeadSHA: head, PullRequests: []actions.PullRequestRef{prRef}}},
			Need{}, `check run "lint" is not one of swarm-gate's`},
		{"comment command", actions.Event{Name: "issue_comment", Action: "created", Issue: &actions.Issue{Number: 12, PullRequest: &actions.IssuePullRequest{URL: "x"}}, Comment: &actions.Comment{Body: "/swarm recheck"}},
			Need{Command: true, PR: 12, Refs: []string{"refs/pull/12/head"}}, ""},
		{"comment on an issue", actions.Event{Name: "issue_comment", Action: "created", Issue: &actions.Issue{Number: 3}, Comment: &actions.Comment{Body: "/swarm recheck"}},
			Need{}, "not a new comment on a pull request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Needs(&tc.ev, "o/r")
			if tc.wantSkip != "" {
				if !strings.Contains(got.Skip, tc.wantSkip) {
					t.Errorf("Skip %q, want it to contain %q", got.Skip, tc.wantSkip)
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Needs = %+v, want %+v", got, tc.want)
			}
		})
	}
}
