package gates

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// TestSelfApprovalMatrix: a manual override no critic gave covers
// bookkeeping-grade changes only (issue 18 item 5). Rows: what changed
// since the last critic approval × who recorded the override × policy;
// plan-freeze and critic agree, and a maintainer's comment clears both.
func TestSelfApprovalMatrix(t *testing.T) {
	material := edit(t, testPlan, `"description": "Wire the command"`, `"description": "Wire the command and drop the tests"`)
	bookkeeping := edit(t, testPlan, `"size": "small", "description": "Wire`, `"size": "large", "description": "Wire`)
	type mk func(t *testing.T) (base, head fstest.MapFS)
	agent := func(plan string) mk {
		return func(t *testing.T) (fstest.MapFS, fstest.MapFS) {
			return newLedger(t, testPlan).approve(testPlan).fs(testPlan), newLedger(t, testPlan).approve(testPlan).snapshot(plan).agentApprove(plan, "critic output lost").fs(plan)
		}
	}
	editorInPR := func(plan string) mk {
		return func(t *testing.T) (fstest.MapFS, fstest.MapFS) {
			return newLedger(t, testPlan).approve(testPlan).fs(testPlan), newLedger(t, testPlan).approve(testPlan).snapshot(plan).manualApprove(plan, "typed in the editor").fs(plan)
		}
	}
	editorOnBase := func(plan string) mk {
		return func(t *testing.T) (fstest.MapFS, fstest.MapFS) {
			l := newLedger(t, testPlan).approve(testPlan).snapshot(plan).manualApprove(plan, "typed in the editor")
			return l.fs(plan), l.fs(plan)
		}
	}
	agentOnly := func(t *testing.T) (fstest.MapFS, fstest.MapFS) {
		return nil, newLedger(t, testPlan).agentApprove(testPlan, "no critic").fs(testPlan)
	}
	cases := []struct {
		name   string
		make   mk
		policy AgentOverridePolicy
		human  bool
		want   Outcome // plan-freeze and critic
		sev    Severity
		says   string
	}{
		{"agent, bookkeeping only: accepted with a warning", agent(bookkeeping), "", false, Passed, SeverityWarning, "0 material, 1 bookkeeping-grade"},
		{"agent, material: fails", agent(material), "", false, Failed, SeverityError, "the agent approved its own material change"},
		{"agent, no critic approval ever: fails", agentOnly, "", false, Failed, SeverityError, "no critic approval precedes it"},
		{"agent, material, policy allow: a warning", agent(material), AgentOverridesAllow, false, Passed, SeverityWarning, "1 material"},
		{"agent, bookkeeping only, policy fail: fails", agent(bookkeeping), AgentOverridesFail, false, Failed, SeverityError, "0 material, 1 bookkeeping-grade"},
		{"editor override added by the PR, material: fails", editorInPR(material), "", false, Failed, SeverityError, "user_confirmed true"},
		{"editor override added by the PR, bookkeeping: a warning", editorInPR(bookkeeping), "", false, Passed, SeverityWarning, "no maintainer's `/swarm approve-plan-critic` comment behind it"},
		{"editor override on the base branch, material: trusted", editorOnBase(material), "", false, Passed, "", ""},
		{"agent, material, a maintainer's comment bound to the plan: no self-approval", agent(material), "", true, Passed, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base, head := c.make(t)
			cfg := DefaultConfig()
			cfg.PlanFreeze.AgentOverrides = c.policy
			in := func() *Input {
				in := &Input{Phase: 1, Head: load(head), Config: cfg}
				if base != nil {
					in.Base = load(base)
				}
				if c.human {
					plan := in.Head.Plan
					in.Overrides = []Override{{Command: CommandApprovePlanCritic, Actor: "maintainer", StructureHash: plan.Digests.Structure, RecordedAt: "2026-07-19T00:00:00Z", Reason: "reviewed"}}
				}
				return in
			}
			pf := eval(PlanFreeze{}, in())
			if pf.Outcome != c.want {
				t.Fatalf("plan-freeze %s %q, want %s\n%s", pf.Outcome, pf.Title, c.want, findingsText(pf))
			}
			var hit *Finding
			for i := range pf.Findings {
				if pf.Findings[i].Rule == RuleAgentOverride {
					hit = &pf.Findings[i]
				}
			}
			switch {
			case c.sev == "" && hit != nil:
				t.Errorf("unexpected %s: %s", hit.Rule, hit.Message)
			case c.sev != "" && (hit == nil || hit.Severity != c.sev || !strings.Contains(hit.Message, c.says)):
				t.Errorf("want a %s %s saying %q:\n%s", c.sev, RuleAgentOverride, c.says, findingsText(pf))
			}
			cr := eval(Critic{}, in())
			if cr.Outcome != c.want {
				t.Errorf("critic %s %q, want %s\n%s", cr.Outcome, cr.Title, c.want, findingsText(cr))
			}
		})
	}
}

// TestPlanFreezeAgentAttestedNotice: a passing plan-freeze whose approval
// the pull request adds says so in a notice (which the aggregate check
// puts first); a base-anchored approval or a human override does not.
func TestPlanFreezeAgentAttestedNotice(t *testing.T) {
	l := newLedger(t, testPlan).approve(testPlan)
	for _, c := range []struct {
		name     string
		base     *swarm.Artifacts
		override bool
		want     bool
	}{
		{"approval added by the pull request", empty(), false, true},
		{"approval on the base branch", load(l.fs(testPlan)), false, false},
		{"human override", empty(), true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := &Input{Phase: 1, Head: load(l.fs(testPlan)), Base: c.base}
			if c.override {
				in.Overrides = []Override{{Command: CommandApprovePlanCritic, Actor: "octocat", Reason: "ok", RecordedAt: "2026-07-18T10:00:00Z", StructureHash: in.Head.Plan.Digests.Structure}}
			}
			r := eval(PlanFreeze{}, in)
			if r.Outcome != Passed {
				t.Fatalf("outcome %s (%s)\n%s", r.Outcome, r.Title, findingsText(r))
			}
			if got := hasRule(r, RuleAgentAttested); got != c.want {
				t.Errorf("%s notice: %v, want %v\n%s", RuleAgentAttested, got, c.want, findingsText(r))
			}
		})
	}
}
