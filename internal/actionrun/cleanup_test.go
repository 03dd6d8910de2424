package actionrun_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestCleanupCompletesWhatWasLeft: the post step completes, as failure,
// the saved check runs GitHub still has in progress, and nothing else.
func TestCleanupCompletesWhatWasLeft(t *testing.T) {
	h := newHarness(t, "Codertocat/Hello-World")
	h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
	left := h.fake.AddCheckRun(h.repo, ghfake.CheckRun{Name: "swarm/scope", HeadSHA: h.head, Status: "in_progress", ExternalID: "k"})
	done := h.fake.AddCheckRun(h.repo, ghfake.CheckRun{Name: "swarm/critic", HeadSHA: h.head, Status: "completed", Conclusion: "success", Title: "ok", ExternalID: "k"})
	cases := []struct {
		name      string
		state     string
		wantCode  int
		wantCalls map[string]int
	}{
		{"nothing saved: a normal run", "", 0, map[string]int{}},
		{"another repository's runs", `{"repo":"someone/else","runs":[{"id":1,"name":"swarm-gate"}]}`, 2, map[string]int{}},
		{"one left in progress, one completed", fmt.Sprintf(`{"repo":"Codertocat/Hello-World","runs":[{"id":%d,"name":"swarm/scope"},{"id":%d,"name":"swarm/critic"}]}`, left, done), 0,
			map[string]int{"checks/get": 2, "checks/update": 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(h.fake.Calls())
			h.env["STATE_check_runs"] = tc.state
			if code := h.run(context.Background(), map[string]string{"mode": "cleanup"}); code != tc.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tc.wantCode, h.log.String())
			}
			calls := map[string]int{}
			for _, c := range h.fake.Calls()[before:] {
				calls[c.Operation]++
			}
			if fmt.Sprint(calls) != fmt.Sprint(tc.wantCalls) {
				t.Errorf("requests %v, want %v", calls, tc.wantCalls)
			}
		})
	}
	for _, cr := range h.fake.CheckRuns(h.repo) {
		switch cr.ID {
		case left:
			if cr.Status != "completed" || cr.Conclusion != "failure" || !strings.Contains(cr.Title, "the swarm-gate step ended before completing this check") {
				t.Errorf("left run: %s/%s %q", cr.Status, cr.Conclusion, cr.Title)
			}
		case done:
			if cr.Conclusion != "success" || cr.Title != "ok" {
				t.Errorf("completed run changed: %s %q", cr.Conclusion, cr.Title)
			}
		}
	}
}
