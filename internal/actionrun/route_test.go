package actionrun

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/event"
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

// TestRouteModes: what the mode and the base, head and head-branch inputs
// make of an event (what the event means alone is internal/event's
// TestRoute).
func TestRouteModes(t *testing.T) {
	const repo = "Codertocat/Hello-World"
	cases := []struct {
		name, event, file string
		edit              func(ev *actions.Event)
		mode              Mode
		settings          Settings
		wantKind          event.Kind
		want              target // checked when wantKind is event.Check
		wantNotice        string
	}{
		{name: "pull_request with the base and head inputs", event: "pull_request", file: "pull_request/synchronize.json", wantKind: event.Check,
			settings: Settings{Base: "origin/main", Head: "HEAD~1", HeadBranch: "swarm/phase-3"},
			want:     target{Base: "origin/main", Head: "HEAD~1", HeadBranch: "swarm/phase-3", Kind: "pull_request", What: "pull request #2", PR: 2, Labels: []string{"bug"}}},
		{name: "mode check on workflow_dispatch without base", event: "workflow_dispatch", file: "workflow_dispatch/workflow_dispatch.json", mode: ModeCheck, wantKind: event.Usage,
			wantNotice: "needs the base input"},
		{name: "mode check on workflow_dispatch with base", event: "workflow_dispatch", file: "workflow_dispatch/workflow_dispatch.json", mode: ModeCheck,
			settings: Settings{Base: "main"}, wantKind: event.Check, want: target{Base: "main", Head: "HEAD", Kind: "manual", What: "the commits given by the base and head inputs"}},
		{name: "mode phase-wrap on a pull request", event: "pull_request", file: "pull_request/opened.json", mode: ModePhaseWrap, wantKind: event.PhaseWrap},
		{name: "mode command on a push", event: "push", file: "push/push.json", mode: ModeCommand, wantKind: event.Usage, wantNotice: "mode command runs on issue_comment events, not push"},
		{name: "mode command on a pull request", event: "pull_request", file: "pull_request/opened.json", mode: ModeCommand, wantKind: event.Usage, wantNotice: "mode command runs on issue_comment events, not pull_request"},
		{name: "mode command on a comment", event: "issue_comment", file: "issue_comment/created.json", mode: ModeCommand, wantKind: event.Command},
		{name: "mode publish on a push", event: "push", file: "push/push.json", mode: ModePublish, wantKind: event.Usage, wantNotice: "mode publish runs on workflow_run events"},
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
			if j.Kind != tc.wantKind {
				t.Fatalf("job %s (%q), want %s", j.Kind, j.Reason, tc.wantKind)
			}
			if !strings.Contains(j.Reason, tc.wantNotice) {
				t.Errorf("notice %q, want it to contain %q", j.Reason, tc.wantNotice)
			}
			if j.Kind == event.Check && tc.want.Kind != "" && !reflect.DeepEqual(j.Target, tc.want) {
				t.Errorf("target\n got %+v\nwant %+v", j.Target, tc.want)
			}
		})
	}
}
