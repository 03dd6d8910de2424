package gates

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestCriticCorpus(t *testing.T) {
	legacy := withPlanFreeze(PlanFreezeConfig{Approval: ApprovalAny, AllowLegacyPlans: true})
	cases := []struct {
		repo    string
		cfg     *Config
		want    Outcome
		rule    string
		mention string
	}{
		{"VerduzcoTristan__landingpage", nil, Passed, "", "critic verdict: APPROVED (seq 3, agent-attested)"},
		{"pandejesal__Burgonomics-App", nil, Passed, "", "critic verdict: APPROVED (seq 6"},
		{"JG1995__fm-value-scout", nil, Failed, RuleCriticNoVerdict, "6 drift-verifier approvals"},
		{"JG1995__fm-value-scout", legacy, NotApplicable, "", "legacy_plans: allow"},
		{"DediGadot__IMU-Parkinson", nil, Failed, RuleCriticNoVerdict, "1 drift-verifier approval"},
		// quest-forge's receipts are the curator's, not the critic's.
		{"sleuthy-sloth__quest-forge", nil, Failed, RuleCriticNoVerdict, "0 receipts from the critic, 8 receipts from other reviewers"},
		{"basel-ax__saleor-tma-frontend", nil, Failed, RuleCriticNoVerdict, "plan-ledger.jsonl is missing"},
		{"BotoVed__haos-rover", nil, NotApplicable, "", "neither the merge base nor the head has .swarm/plan.json"},
	}
	for _, c := range cases {
		t.Run(c.repo, func(t *testing.T) {
			r := eval(Critic{}, &Input{Phase: 1, Head: corpus(t, c.repo), Config: c.cfg})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
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

func receipt(agent, verdict, at string) []byte {
	return []byte(`{"schema_version":1,"id":"x","receipt_type":"` + verdict + `","verdict":"` + verdict + `","reviewer":{"agent":"` + agent + `"},"reviewed_at":"` + at + `","scope_fingerprint":{"hash":"ab","scope_description":"plan","content_length":3},"blocking_findings":[{"x":1},{"x":2}]}`)
}

func TestCriticVerdicts(t *testing.T) {
	changed := edit(t, testPlan, `"acceptance": "prints rows"`, `"acceptance": "prints all rows"`)
	const approvedAt = "2026-07-17T18:05:08.942Z" // ledgerBuilder.approve's time
	cases := []struct {
		name      string
		fsys      func(t *testing.T) fstest.MapFS
		overrides func(t *testing.T) []Override
		want      Outcome
		rule      string
		mention   string
	}{
		{"approved", func(t *testing.T) fstest.MapFS {
			return newLedger(t, testPlan).approve(testPlan).fs(testPlan)
		}, nil, Passed, "", "critic verdict: APPROVED (seq 2, agent-attested)"},
		{"NEEDS_REVISION", func(t *testing.T) fstest.MapFS {
			l := newLedger(t, testPlan).approve(testPlan)
			l.lines[1] = strings.Replace(l.lines[1], `"verdict":"APPROVED"`, `"verdict":"NEEDS_REVISION"`, 1)
			return l.fs(testPlan)
		}, nil, Failed, RuleCriticNotApproved, "critic verdict: NEEDS_REVISION"},
		{"approved in lower case is not the plugin's token", func(t *testing.T) fstest.MapFS {
			l := newLedger(t, testPlan).approve(testPlan)
			l.lines[1] = strings.Replace(l.lines[1], `"verdict":"APPROVED"`, `"verdict":"approved"`, 1)
			return l.fs(testPlan)
		}, nil, Failed, RuleCriticNotApproved, "requires exactly APPROVED"},
		{"plan changed after approval", func(t *testing.T) fstest.MapFS {
			return newLedger(t, testPlan).approve(testPlan).snapshot(changed).fs(changed)
		}, nil, Failed, RuleCriticStale, "1 change that trip"},
		{"critic receipt rejects after the approval", func(t *testing.T) fstest.MapFS {
			m := newLedger(t, testPlan).approve(testPlan).fs(testPlan)
			m[".swarm/review-receipts/2026-07-18-r1.json"] = &fstest.MapFile{Data: receipt("critic", "rejected", "2026-07-18T10:00:00.000Z")}
			return m
		}, nil, Failed, RuleCriticReceiptReject, "2 blocking findings"},
		{"prefixed critic agent", func(t *testing.T) fstest.MapFS {
			m := newLedger(t, testPlan).approve(testPlan).fs(testPlan)
			m[".swarm/review-receipts/2026-07-18-r1.json"] = &fstest.MapFile{Data: receipt("mega_critic", "rejected", "2026-07-18T10:00:00.000Z")}
			return m
		}, nil, Failed, RuleCriticReceiptReject, "REJECTED"},
		{"critic receipt rejected before the approval", func(t *testing.T) fstest.MapFS {
			m := newLedger(t, testPlan).approve(testPlan).fs(testPlan)
			m[".swarm/review-receipts/2026-07-16-r1.json"] = &fstest.MapFile{Data: receipt("critic", "rejected", "2026-07-16T10:00:00.000Z")}
			return m
		}, nil, Passed, "", "1 receipt from the critic"},
		{"another reviewer's rejection is not the critic's", func(t *testing.T) fstest.MapFS {
			m := newLedger(t, testPlan).approve(testPlan).fs(testPlan)
			m[".swarm/review-receipts/2026-07-18-r1.json"] = &fstest.MapFile{Data: receipt("curator", "rejected", "2026-07-18T10:00:00.000Z")}
			return m
		}, nil, Passed, "", "1 receipt from other reviewers"},
		{"unreadable receipt fails closed", func(t *testing.T) fstest.MapFS {
			m := newLedger(t, testPlan).approve(testPlan).fs(testPlan)
			m[".swarm/review-receipts/2026-07-18-r1.json"] = &fstest.MapFile{Data: []byte("{\n  \"verdict\": \n")}
			return m
		}, nil, Error, RuleUnreadable, "2026-07-18-r1.json"},
		{"receipt time unreadable counts as after", func(t *testing.T) fstest.MapFS {
			m := newLedger(t, testPlan).approve(testPlan).fs(testPlan)
			m[".swarm/review-receipts/r1.json"] = &fstest.MapFile{Data: receipt("critic", "rejected", "yesterday")}
			return m
		}, nil, Failed, RuleCriticReceiptReject, approvedAt},
		{"human override", func(t *testing.T) fstest.MapFS {
			return newLedger(t, testPlan).approve(testPlan).snapshot(changed).fs(changed)
		}, func(t *testing.T) []Override {
			return []Override{{Command: CommandApprovePlanCritic, Actor: "octocat", Reason: "acceptance wording only", StructureHash: newLedger(t, changed).hashes(changed).Structure}}
		}, Overridden, RuleCriticStale, "@octocat"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := &Input{Phase: 1, Head: load(c.fsys(t))}
			if c.overrides != nil {
				in.Overrides = c.overrides(t)
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

// Issue 20: a critic receipt of the merge base that the pull request
// rewrites (its verdict, its review time, its hash) is named, and the merge
// base's version still counts.
func TestCriticReceiptEdited(t *testing.T) {
	const path = ".swarm/review-receipts/2026-07-18-r1.json"
	const after, before = "2026-07-18T10:00:00.000Z", "2026-07-16T10:00:00.000Z" // the approval is at 2026-07-17T18:05:08.942Z
	cases := []struct {
		name       string
		base, head []byte // nil: no such receipt
		want       Outcome
		rule       string
		sev        Severity
		mention    string
	}{
		{"unchanged rejection after the approval: already on the base", receipt("critic", "rejected", after), receipt("critic", "rejected", after), Passed, RuleCriticReceiptReject, SeverityWarning, PreExistingPrefix},
		{"rejection rewritten to approved", receipt("critic", "rejected", after), receipt("critic", "approved", after), Failed, RuleCriticReceiptReject, SeverityError, `verdict "rejected" → "approved"`},
		{"rejection moved before the approval", receipt("critic", "rejected", after), receipt("critic", "rejected", before), Failed, RuleCriticReceiptReject, SeverityError, `reviewed_at "` + after + `" → "` + before + `"`},
		{"rejection handed to another reviewer", receipt("critic", "rejected", after), receipt("curator", "rejected", after), Failed, RuleCriticReceiptReject, SeverityError, `reviewer "critic" → "curator"`},
		{"scope hash of an approval rewritten", receipt("critic", "approved", after), bytes.Replace(receipt("critic", "approved", after), []byte(`"hash":"ab"`), []byte(`"hash":"cd"`), 1), Passed, RuleCriticReceiptEdited, SeverityWarning, `scope hash "ab" → "cd"`},
		{"old rejection rewritten", receipt("critic", "rejected", before), receipt("critic", "approved", before), Passed, RuleCriticReceiptEdited, SeverityWarning, "The pull request edits the merge base's critic receipt"},
		{"receipt reformatted only", receipt("critic", "rejected", before), append(receipt("critic", "rejected", before), '\n'), Passed, "", "", "1 receipt from the critic"},
		{"added by the pull request", nil, receipt("critic", "approved", after), Passed, "", "", "1 receipt from the critic"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := newLedger(t, testPlan).approve(testPlan).fs(testPlan)
			head := newLedger(t, testPlan).approve(testPlan).fs(testPlan)
			if c.base != nil {
				base[path] = &fstest.MapFile{Data: c.base}
			}
			head[path] = &fstest.MapFile{Data: c.head}
			r := eval(Critic{}, &Input{Phase: 1, Base: load(base), Head: load(head)})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s\n%s", r.Outcome, r.Title, c.want, findingsText(r), r.Summary)
			}
			edited := slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Rule == RuleCriticReceiptEdited })
			if c.rule != RuleCriticReceiptEdited && edited || c.rule == "" && hasRule(r, RuleCriticReceiptReject) {
				t.Errorf("unexpected findings:\n%s", findingsText(r))
			}
			if c.rule != "" && !slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Rule == c.rule && f.Severity == c.sev && f.Path == path }) {
				t.Errorf("want a %s finding %s on %s:\n%s", c.sev, c.rule, path, findingsText(r))
			}
			if all := r.Title + "\n" + r.Summary + "\n" + findingsText(r); !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
			if c.rule == RuleCriticReceiptEdited && !strings.Contains(r.Summary, "edits the merge base's critic receipt") {
				t.Errorf("the summary does not name the edit:\n%s", r.Summary)
			}
		})
	}
}
