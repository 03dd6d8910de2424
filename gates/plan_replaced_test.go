package gates

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestPlanReplaced: the merge base is a real project's ledger (the corpus's
// fm-value-scout); the head starts a new plan the way the plugin's savePlan
// does when the plan's identity changes, archiving the old ledger beside
// it. Only an archive that holds the merge base's ledger makes it a
// replacement; anything else is still a rewrite.
func TestPlanReplaced(t *testing.T) {
	const repo = "JG1995__fm-value-scout"
	base := corpusFS(t, repo, ".swarm/plan.json", ".swarm/plan-ledger.jsonl")
	baseLedger := base[".swarm/plan-ledger.jsonl"].Data
	const archive = ".swarm/plan-ledger.archived-1777918817105-598682382.jsonl"
	extra := strings.Replace(strings.TrimRight(lastLine(baseLedger), "\n"), `"seq":`+seqOf(t, baseLedger), `"seq":9999`, 1) + "\n"

	fresh := newLedger(t, testPlan)
	approved := newLedger(t, testPlan).approve(testPlan)
	sameID := corpusFS(t, repo, ".swarm/plan.json")
	cases := []struct {
		name    string
		head    fstest.MapFS
		outcome Outcome
		rule    string // the finding to look for
		sev     Severity
		says    string
	}{
		{"archive of the base ledger, no approval of the new plan: the replacement fails, named", with(fresh.fs(testPlan), archive, baseLedger),
			Failed, RulePlanReplaced, SeverityError, "plan replaced: default-FM_ValueScout___CSV_Parser___Scouting_View → default-Caf"},
		{"archive of the base ledger, the critic approved the new plan: passes, finished work listed", with(approved.fs(testPlan), archive, baseLedger),
			Passed, RulePlanReplaced, SeverityWarning, "completed work of the old plan that the new plan does not carry as completed: 1.1"},
		{"the archive extends the base ledger", with(approved.fs(testPlan), archive, append(append([]byte{}, baseLedger...), extra...)),
			Passed, RulePlanReplaced, SeverityWarning, "and 1 more event written before the replacement"},
		{"no archive: the ledger was rewritten", fresh.fs(testPlan),
			Failed, RuleLedgerRewritten, SeverityError, "the ledger was rewritten"},
		{"an archive of something else: rewritten", with(fresh.fs(testPlan), archive, newLedger(t, testPlan).data()),
			Failed, RuleLedgerRewritten, SeverityError, "the ledger was rewritten"},
		{"an archive of the base ledger truncated: rewritten", with(fresh.fs(testPlan), archive, []byte(firstLine(string(baseLedger))+"\n")),
			Failed, RuleLedgerRewritten, SeverityError, "the ledger was rewritten"},
		{"the same plan id with a new ledger and an archive: rewritten", with(with(sameID, ".swarm/plan-ledger.jsonl", []byte(firstLine(string(baseLedger))+"\n")), archive, baseLedger),
			Failed, RuleLedgerRewritten, SeverityError, "the ledger was truncated"},
		{"an archive that does not parse: could not evaluate, naming it", with(fresh.fs(testPlan), archive, []byte("{\"seq\":1,\n")),
			Error, "", "", archive + ": line 1"},
	}
	// A broken archive the pull request adds stops the gate even when the
	// ledger extends the base's; one already broken on the base warns.
	broken := []byte("{\"seq\":1,\n")
	extended := with(base, archive, broken)
	r := eval(PlanFreeze{}, &Input{Phase: 1, Base: load(base), Head: load(extended)})
	if r.Outcome != Error || !strings.Contains(r.Title, "an archived ledger the pull request adds or changes cannot be read") || !strings.Contains(findingsText(r), archive) {
		t.Errorf("a broken archive added: %s %q\n%s", r.Outcome, r.Title, findingsText(r))
	}
	r = eval(PlanFreeze{}, &Input{Phase: 1, Base: load(extended), Head: load(extended)})
	if r.Outcome == Error || !strings.Contains(findingsText(r), "already on the base branch: this archived ledger cannot be read") {
		t.Errorf("a broken archive already on the base: %s %q\n%s", r.Outcome, r.Title, findingsText(r))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := eval(PlanFreeze{}, &Input{Phase: 1, Base: load(base), Head: load(c.head)})
			if r.Outcome != c.outcome {
				t.Fatalf("outcome %s, want %s: %s\n%s", r.Outcome, c.outcome, r.Title, findingsText(r))
			}
			if c.rule == "" {
				if !strings.Contains(r.Title+r.Summary, c.says) {
					t.Fatalf("want %q in %q", c.says, r.Title)
				}
				return
			}
			var hit *Finding
			for i := range r.Findings {
				if r.Findings[i].Rule == c.rule {
					hit = &r.Findings[i]
				}
				if c.rule == RulePlanReplaced && r.Findings[i].Rule == RuleLedgerRewritten {
					t.Errorf("a replacement is not a rewrite: %s", r.Findings[i].Message)
				}
			}
			if hit == nil || hit.Severity != c.sev || !strings.Contains(hit.Message, c.says) {
				t.Fatalf("want a %s %s saying %q:\n%s", c.sev, c.rule, c.says, findingsText(r))
			}
			if c.outcome == Failed && c.rule == RulePlanReplaced && !strings.HasPrefix(r.Title, "plan replaced: ") {
				t.Errorf("title %q does not say the plan was replaced", r.Title)
			}
		})
	}
}

func with(m fstest.MapFS, name string, data []byte) fstest.MapFS {
	out := fstest.MapFS{}
	for k, v := range m {
		out[k] = v
	}
	out[name] = &fstest.MapFile{Data: data}
	return out
}

func lastLine(data []byte) string {
	s := strings.TrimRight(string(data), "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// seqOf is the seq of the ledger's last line, as its text.
func seqOf(t *testing.T, data []byte) string {
	t.Helper()
	l := lastLine(data)
	i := strings.Index(l, `"seq":`)
	if i < 0 {
		t.Fatal("no seq in the last line")
	}
	j := i + len(`"seq":`)
	k := j
	for k < len(l) && l[k] >= '0' && l[k] <= '9' {
		k++
	}
	return l[j:k]
}

// TestPlanReplacedStatusRegression: a plan replacement (a new title, the
// base ledger archived, the agent's own critic_approved line for the new
// plan) does not carry the base's completed tasks as completed. With
// plan_freeze.status_regression: fail that is a reset of finished work and
// fails, as it does without a replacement; it passed with a warning before
// (attacker pass: a retitled plan reset tasks 1.1 and 1.2 under
// status_regression: fail, and every gate passed). The default policy keeps
// the replacement's documented warning listing the dropped work.
func TestPlanReplacedStatusRegression(t *testing.T) {
	const repo = "JG1995__fm-value-scout"
	base := corpusFS(t, repo, ".swarm/plan.json", ".swarm/plan-ledger.jsonl")
	const archive = ".swarm/plan-ledger.archived-1777918817105-598682382.jsonl"
	head := with(newLedger(t, testPlan).approve(testPlan).fs(testPlan), archive, base[".swarm/plan-ledger.jsonl"].Data)
	strict := DefaultConfig()
	strict.PlanFreeze.StatusRegression = RegressionFail
	r := eval(PlanFreeze{}, &Input{Phase: 1, Base: load(base), Head: load(head), Config: strict})
	if r.Outcome != Failed || !hasRule(r, RuleCompletedReset) && !hasRule(r, RuleCompletedRemoved) {
		t.Errorf("status_regression: fail, plan replaced: %s %q, want a completed-task reset or removal failing\n%s", r.Outcome, r.Title, findingsText(r))
	}
	r = eval(PlanFreeze{}, &Input{Phase: 1, Base: load(base), Head: load(head)})
	if r.Outcome != Passed {
		t.Errorf("default policy, plan replaced: %s %q, want passed with warnings\n%s", r.Outcome, r.Title, findingsText(r))
	}
}
