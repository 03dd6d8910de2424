package gates

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestPlanFreezeTrust covers the ways a pull request can make an approval
// look better than it is (found by trying to break the gate).
func TestPlanFreezeTrust(t *testing.T) {
	changed := edit(t, testPlan, `"description": "Wire the command"`, `"description": "Wire the command and delete the database"`)
	failAgent := DefaultConfig()
	failAgent.PlanFreeze.AgentOverrides = AgentOverridesFail
	allowAgent := DefaultConfig()
	allowAgent.PlanFreeze.AgentOverrides = AgentOverridesAllow
	cases := []struct {
		name    string
		base    func(t *testing.T) fstest.MapFS
		head    func(t *testing.T) fstest.MapFS
		cfg     *Config
		want    Outcome
		rule    string
		sev     Severity
		mention string
	}{
		{"the agent approves its own material change", nil, func(t *testing.T) fstest.MapFS {
			return newLedger(t, testPlan).approve(testPlan).snapshot(changed).agentApprove(changed, "critic output lost").fs(changed)
		}, nil, Failed, RuleAgentOverride, SeverityError, "task 1.2: description changed"},
		{"the agent approves its own material change, policy allows it", nil, func(t *testing.T) fstest.MapFS {
			return newLedger(t, testPlan).approve(testPlan).snapshot(changed).agentApprove(changed, "critic output lost").fs(changed)
		}, allowAgent, Passed, RuleAgentOverride, SeverityWarning, "task 1.2: description changed"},
		{"the agent approves its own change, policy fails it", nil, func(t *testing.T) fstest.MapFS {
			return newLedger(t, testPlan).approve(testPlan).snapshot(changed).agentApprove(changed, "x").fs(changed)
		}, failAgent, Failed, RuleAgentOverride, SeverityError, "not a critic verdict"},
		{"a rewritten ledger's approval at a base line number is not base-anchored", func(t *testing.T) fstest.MapFS {
			return newLedger(t, testPlan).approve(testPlan).fs(testPlan)
		}, func(t *testing.T) fstest.MapFS {
			l := newLedger(t, changed).approve(changed)
			return l.fs(changed)
		}, nil, Failed, RuleLedgerRewritten, SeverityError, "added in this pull request (agent-attested"},
		{"a leftover reset marker", nil, func(t *testing.T) fstest.MapFS {
			m := newLedger(t, testPlan).approve(testPlan).fs(testPlan)
			m[".swarm/plan-ledger.resetting"] = &fstest.MapFile{Data: []byte{}}
			return m
		}, nil, Failed, RuleLedgerResetting, SeverityError, "delete it and push again"},
		{"the pull request deletes the ledger", func(t *testing.T) fstest.MapFS {
			return newLedger(t, testPlan).approve(testPlan).fs(testPlan)
		}, func(t *testing.T) fstest.MapFS {
			return fstest.MapFS{".swarm/plan.json": {Data: []byte(testPlan)}}
		}, nil, Failed, RuleLedgerRewritten, SeverityError, "the pull request deletes .swarm/plan-ledger.jsonl, which has 2 events"},
		{"CRLF line endings", func(t *testing.T) fstest.MapFS {
			return newLedger(t, testPlan).approve(testPlan).fs(testPlan)
		}, func(t *testing.T) fstest.MapFS {
			m := newLedger(t, testPlan).approve(testPlan).fs(testPlan)
			m[".swarm/plan-ledger.jsonl"].Data = []byte(strings.ReplaceAll(string(m[".swarm/plan-ledger.jsonl"].Data), "\n", "\r\n"))
			return m
		}, nil, Failed, RuleLedgerRewritten, SeverityError, "the only difference is the line endings"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := &Input{Phase: 1, Head: load(c.head(t)), Config: c.cfg}
			if c.base != nil {
				in.Base = load(c.base(t))
			}
			r := eval(PlanFreeze{}, in)
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s\n%s", r.Outcome, r.Title, c.want, findingsText(r), r.Summary)
			}
			ok := false
			for _, f := range r.Findings {
				ok = ok || (f.Rule == c.rule && f.Severity == c.sev)
			}
			if !ok {
				t.Errorf("no %s finding of severity %s:\n%s", c.rule, c.sev, findingsText(r))
			}
			if all := r.Title + "\n" + r.Summary + "\n" + findingsText(r); !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
		})
	}
}

func TestCriticTrust(t *testing.T) {
	const after = "2026-07-18T10:00:00.000Z"
	cases := []struct {
		name    string
		base    func(t *testing.T) fstest.MapFS
		head    func(t *testing.T) fstest.MapFS
		want    Outcome
		rule    string
		mention string
	}{
		{"a forged payload_hash", nil, func(t *testing.T) fstest.MapFS {
			l := newLedger(t, testPlan).approve(testPlan)
			l.lines[1] = edit(t, l.lines[1], `"payload_hash":"`+l.hashes(testPlan).Structure+`"`, `"payload_hash":"`+strings.Repeat("0", 64)+`"`)
			return l.fs(testPlan)
		}, Failed, RuleCriticNotIntact, "payload_hash 000000000000 is neither hash"},
		{"a rejection deleted by the pull request still counts", func(t *testing.T) fstest.MapFS {
			m := newLedger(t, testPlan).approve(testPlan).fs(testPlan)
			m[".swarm/review-receipts/r1.json"] = &fstest.MapFile{Data: receipt("critic", "rejected", after)}
			return m
		}, func(t *testing.T) fstest.MapFS {
			return newLedger(t, testPlan).approve(testPlan).fs(testPlan)
		}, Failed, RuleCriticReceiptReject, "1 critic receipt deleted by this pull request still count"},
		{"no approved_at: the event time is the approval time", nil, func(t *testing.T) fstest.MapFS {
			l := newLedger(t, testPlan).approve(testPlan)
			l.lines[1] = edit(t, l.lines[1], `"approved_at":"2026-07-17T18:05:08.942Z",`, ``)
			m := l.fs(testPlan)
			// Before the event's timestamp (18:02 on 07-17): not after the approval.
			m[".swarm/review-receipts/r1.json"] = &fstest.MapFile{Data: receipt("critic", "rejected", "2026-07-17T18:01:00.000Z")}
			return m
		}, Passed, "", "1 receipt from the critic"},
		{"a verdict that is missing", nil, func(t *testing.T) fstest.MapFS {
			l := newLedger(t, testPlan).approve(testPlan)
			l.lines[1] = edit(t, l.lines[1], `,"verdict":"APPROVED"`, ``)
			return l.fs(testPlan)
		}, Failed, RuleCriticNotApproved, "critic verdict: (none)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := &Input{Phase: 1, Head: load(c.head(t))}
			if c.base != nil {
				in.Base = load(c.base(t))
			}
			r := eval(Critic{}, in)
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s\n%s", r.Outcome, r.Title, c.want, findingsText(r), r.Summary)
			}
			if c.rule != "" && !hasRule(r, c.rule) {
				t.Errorf("rules %v, want %s", rules(r), c.rule)
			}
			if all := r.Title + "\n" + r.Summary + "\n" + findingsText(r); !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
		})
	}
}
