package gates

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestQAGateProfileTurnsGatesOff: sast_enabled and critic_pre_plan off in
// the base policy's qa_gates turn swarm/sast and swarm/critic into
// not_applicable, and plan-freeze stops requiring an approval (but keeps
// checking the ledger).
func TestQAGateProfileTurnsGatesOff(t *testing.T) {
	off := DefaultConfig()
	off.Source = ".github/swarm-gate.yml at base x"
	off.QAGates.SASTEnabled, off.QAGates.CriticPrePlan, off.QAGates.FromFile = false, false, true
	noApproval := newLedger(t, testPlan).snapshot(testPlan)

	r := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), Config: off})
	if r.Outcome != NotApplicable || !strings.Contains(r.Title, "sast_enabled is off") {
		t.Errorf("sast: %s %q", r.Outcome, r.Title)
	}
	r = eval(Critic{}, &Input{Phase: 1, Head: load(noApproval.fs(testPlan)), Config: off})
	if r.Outcome != NotApplicable || !strings.Contains(r.Title, "critic_pre_plan is off") {
		t.Errorf("critic: %s %q", r.Outcome, r.Title)
	}
	r = eval(PlanFreeze{}, &Input{Phase: 1, Head: load(noApproval.fs(testPlan)), Config: off})
	if r.Outcome != Passed || !strings.Contains(r.Title, "no plan-critic approval required") || len(failingFindings(r.Findings)) != 0 {
		t.Errorf("plan-freeze: %s %q\n%s", r.Outcome, r.Title, findingsText(r))
	}
	// The ledger is still checked.
	tampered := newLedger(t, testPlan).snapshot(testPlan)
	tampered.lines[1] = edit(t, tampered.lines[1], `"Wire the command"`, `"Wire the commands"`)
	r = eval(PlanFreeze{}, &Input{Phase: 1, Head: load(tampered.fs(testPlan)), Config: off})
	if r.Outcome != Failed || !hasRule(r, RuleLedgerHash) {
		t.Errorf("plan-freeze with a tampered ledger: %s %v", r.Outcome, rules(r))
	}
	// With the defaults, the same inputs fail.
	r = eval(PlanFreeze{}, &Input{Phase: 1, Head: load(noApproval.fs(testPlan))})
	if r.Outcome != Failed || !hasRule(r, RuleNoApproval) {
		t.Errorf("plan-freeze with the defaults: %s %v", r.Outcome, rules(r))
	}
}
