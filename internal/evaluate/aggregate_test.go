package evaluate_test

import (
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// TestAggregateNamesAgentApproval: when the approval plan-freeze accepts
// was added by the pull request itself, the aggregate check's summary says
// so first, even when every gate passed (issue 20 item 3).
func TestAggregateNamesAgentApproval(t *testing.T) {
	rep := &report.Report{Head: strings.Repeat("a", 40), Base: strings.Repeat("b", 40), MergeBase: strings.Repeat("b", 40)}
	attested := gates.Finding{Rule: gates.RuleAgentAttested, Severity: gates.SeverityNotice, Message: "the plan-critic approval of this plan (seq 4) is a ledger line this pull request adds"}
	widened := gates.Finding{Rule: gates.RuleSelfApprovedWidening, Severity: gates.SeverityError, Path: "src/db.go",
		Message: "this pull request widens task 1.1's scope to \"src/db.go\" (declared in .swarm/scopes/scope-1.1.json)"}
	const top = "> [!WARNING]\n> **Approved by the agent in this PR**: "
	for _, c := range []struct {
		name    string
		results []gates.Result
		want    string // what the summary starts with after top; "" = no warning
		outcome gates.Outcome
	}{
		{"agent-attested approval", []gates.Result{{Name: "swarm/plan-freeze", Outcome: gates.Passed, Findings: []gates.Finding{attested}}, {Name: "swarm/scope", Outcome: gates.Passed}}, "the plan-critic approval of this plan (seq 4)", gates.Passed},
		{"base-anchored approval", []gates.Result{{Name: "swarm/plan-freeze", Outcome: gates.Passed}, {Name: "swarm/scope", Outcome: gates.Passed}}, "", gates.Passed},
		// plan-freeze's notice comes first in the results: the widening
		// must still be the one named at the top.
		{"self-approved scope widening", []gates.Result{{Name: "swarm/plan-freeze", Outcome: gates.Passed, Findings: []gates.Finding{attested}},
			{Name: "swarm/scope", Outcome: gates.Failed, Findings: []gates.Finding{widened}}}, "this pull request widens task 1.1's scope", gates.Failed},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := evaluate.Aggregate(rep, c.results, &evaluate.Runs{}, nil)
			if got := strings.HasPrefix(res.Summary, top); got != (c.want != "") {
				t.Errorf("summary starts with the warning: %v, want %v:\n%s", got, c.want != "", res.Summary)
			} else if c.want != "" && !strings.HasPrefix(res.Summary, top+c.want) {
				t.Errorf("the warning does not name %q:\n%s", c.want, res.Summary)
			}
			if res.Outcome != c.outcome {
				t.Errorf("outcome %s, want %s: the note must not change it", res.Outcome, c.outcome)
			}
		})
	}
}

// TestAggregateNamesDeclaredWidening: a widening through a scope
// declaration alone, with no approval at all, is not called an approval.
func TestAggregateNamesDeclaredWidening(t *testing.T) {
	rep := &report.Report{Head: strings.Repeat("a", 40), Base: strings.Repeat("b", 40), MergeBase: strings.Repeat("b", 40)}
	declared := gates.Finding{Rule: gates.RuleSelfApprovedWidening, Severity: gates.SeverityError, Path: "src/db.go",
		Message: "this pull request's scope declaration .swarm/scopes/scope-1.1.json widens task 1.1's scope to \"src/**\""}
	res := evaluate.Aggregate(rep, []gates.Result{{Name: "swarm/scope", Outcome: gates.Failed, Findings: []gates.Finding{declared}}}, &evaluate.Runs{}, nil)
	if want := "> [!WARNING]\n> **Scope widened by the agent's own declaration in this PR**: this pull request's scope declaration"; !strings.HasPrefix(res.Summary, want) {
		t.Errorf("summary does not start with %q:\n%s", want, res.Summary)
	}
}
