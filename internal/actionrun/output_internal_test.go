package actionrun

import (
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// TestAggregateNamesAgentApproval: when the approval plan-freeze accepts
// was added by the pull request itself, the aggregate check's summary says
// so first, even when every gate passed (issue 20 item 3).
func TestAggregateNamesAgentApproval(t *testing.T) {
	rep := &report.Report{Head: strings.Repeat("a", 40), Base: strings.Repeat("b", 40), MergeBase: strings.Repeat("b", 40)}
	attested := gates.Finding{Rule: gates.RuleAgentAttested, Severity: gates.SeverityNotice, Message: "the plan-critic approval of this plan (seq 4) is a ledger line this pull request adds"}
	for _, c := range []struct {
		name    string
		results []gates.Result
		want    bool
	}{
		{"agent-attested approval", []gates.Result{{Name: "swarm/plan-freeze", Outcome: gates.Passed, Findings: []gates.Finding{attested}}, {Name: "swarm/scope", Outcome: gates.Passed}}, true},
		{"base-anchored approval", []gates.Result{{Name: "swarm/plan-freeze", Outcome: gates.Passed}, {Name: "swarm/scope", Outcome: gates.Passed}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := aggregate(rep, c.results, &checkSet{}, nil)
			got := strings.HasPrefix(res.Summary, "> [!WARNING]\n> **Approved by the agent in this PR**: the plan-critic approval of this plan (seq 4)")
			if got != c.want {
				t.Errorf("summary starts with the warning: %v, want %v:\n%s", got, c.want, res.Summary)
			}
			if res.Outcome != gates.Passed {
				t.Errorf("outcome %s: the note must not change it", res.Outcome)
			}
		})
	}
}
