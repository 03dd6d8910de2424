package actions

import (
	"strings"
	"testing"
)

func TestWorkflowRun(t *testing.T) {
	cases := []struct {
		name, payload string
		wantErr       string
		wantHead      string
		wantFork      string
	}{
		{"fork pull request", `{"action":"completed","workflow_run":{"id":30433642,"name":"swarm-gate","event":"pull_request","conclusion":"failure",
			"head_sha":"acb5820ced9479c074f688cc328bf03f341a511d","head_branch":"swarm/phase-2","run_attempt":1,
			"head_repository":{"full_name":"fork-owner/demo"},"repository":{"full_name":"octo/demo"},"pull_requests":[]}}`,
			"", "acb5820ced9479c074f688cc328bf03f341a511d", "fork-owner/demo"},
		{"no workflow_run", `{"action":"completed"}`, "has no workflow_run", "", ""},
		{"null workflow_run", `{"workflow_run":null}`, "has no workflow_run", "", ""},
		{"short head sha", `{"workflow_run":{"head_sha":"acb5820"}}`, "is not a commit SHA", "", ""},
		{"wrong type", `{"workflow_run":{"id":"x","head_sha":"acb5820ced9479c074f688cc328bf03f341a511d"}}`, "reading the payload's workflow_run", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := ParseEvent([]byte(tc.payload))
			if err != nil {
				t.Fatal(err)
			}
			wr, err := ev.WorkflowRun()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if wr.HeadSHA != tc.wantHead || wr.HeadRepository.FullName != tc.wantFork || wr.Event != "pull_request" || wr.HeadBranch != "swarm/phase-2" {
				t.Errorf("workflow run %+v", wr)
			}
		})
	}
}
