package actionrun_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestScheduledPhaseWrap: on a schedule (and workflow_dispatch), the
// action posts swarm/phase-wrap on the checkout's commit and on each open
// swarm/phase-<N> pull request the checkout has; others are skipped with a
// notice.
func TestScheduledPhaseWrap(t *testing.T) {
	for _, event := range []string{"schedule", "workflow_dispatch"} {
		t.Run(event, func(t *testing.T) {
			h := newHarness(t, "octo-org/octo-repo")
			payload := ""
			if event == "workflow_dispatch" {
				payload = "workflow_dispatch/workflow_dispatch.json"
			}
			h.event(event, payload, func(p map[string]any) {
				if event == "schedule" {
					p["schedule"] = "17 6 * * *"
				}
			})
			h.env["GITHUB_SHA"], h.env["GITHUB_REF"] = h.base, "refs/heads/main"
			missing := strings.Repeat("e", 40)
			for _, pr := range []ghfake.PullRequest{
				{Number: 5, HeadRef: demo.HeadBranch, HeadSHA: h.head, BaseRef: "main", BaseSHA: h.base},
				{Number: 6, HeadRepo: "fork-owner/octo-repo", HeadRef: "swarm/phase-2", HeadSHA: missing, BaseRef: "main", BaseSHA: h.base},
				{Number: 7, HeadRef: "feature/x", HeadSHA: h.head, BaseRef: "main", BaseSHA: h.base},
			} {
				h.fake.AddPullRequest(h.repo, pr)
			}
			code := h.run(context.Background(), nil)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (phase 1 cannot close at main)\n%s\n%s", code, h.log.String(), h.logs.String())
			}
			key := "swarm-gate:phase-wrap:" + workflowKey
			want := []run{
				{Name: "swarm/phase-wrap", HeadSHA: h.base, ExternalID: key, Status: "completed", Conclusion: "failure"},
				{Name: "swarm/phase-wrap", HeadSHA: h.head, ExternalID: key, Status: "completed", Conclusion: "failure"},
			}
			if h.base > h.head {
				want[0], want[1] = want[1], want[0]
			}
			got := h.runs()
			for i := range got {
				got[i].Annotations = nil // the checklist's findings are the gate's business
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("check runs:\n got %v\nwant %v", got, want)
			}
			for _, cr := range h.fake.CheckRuns(h.repo) {
				if !strings.HasPrefix(cr.Title, "phase 1 cannot close: ") {
					t.Errorf("%s on %.7s: %q, want the checklist's verdict", cr.Name, cr.HeadSHA, cr.Title)
				}
			}
			if !strings.Contains(h.log.String(), "::notice::swarm-gate: phase-wrap: pull request #6 is not in the checkout") {
				t.Errorf("the fork's pull request was not skipped with a notice:\n%s", h.log.String())
			}
			out := h.outputs()
			var conclusions map[string]string
			if err := json.Unmarshal([]byte(out["conclusions"]), &conclusions); err != nil || !reflect.DeepEqual(conclusions, map[string]string{"swarm/phase-wrap": "failure"}) || out["phase-wrap"] != "failure" {
				t.Errorf("outputs %v", out)
			}
			if s := h.summary(); !strings.Contains(s, "### Pull request #5 (`swarm/phase-1`)") {
				t.Errorf("the step summary lacks pull request #5:\n%s", s)
			}
		})
	}
}
