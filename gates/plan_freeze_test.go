package gates

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestPlanFreezeCorpus(t *testing.T) {
	cases := []struct {
		repo     string
		phase    int
		want     Outcome
		wantRule string
		wantText string
	}{
		{"VerduzcoTristan__landingpage", 1, Passed, "", "seq 3"},
		{"pandejesal__Burgonomics-App", 1, Passed, "", ""},
		{"JG1995__fm-value-scout", 1, Failed, RuleNoApproval, "drift-verifier approvals"},
		{"micschr0__photochron", 1, Failed, RuleNoApproval, "drift-verifier approval"},
		{"DediGadot__IMU-Parkinson", 1, Failed, RuleNoApproval, "drift-verifier approval"},
		{"basel-ax__saleor-tma-frontend", 1, Failed, RuleNoApproval, "plan-ledger.jsonl is missing"},
		{"phlawlessDevelopment__bomberz", 1, Failed, RuleNoApproval, "PLAN_CRITIC_GATE_VIOLATION"},
		{"BotoVed__haos-rover", 1, Error, "", "plan.json is missing"},
	}
	for _, c := range cases {
		t.Run(c.repo, func(t *testing.T) {
			r := eval(PlanFreeze{}, &Input{Phase: c.phase, Head: corpus(t, c.repo)})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			if c.wantRule != "" && !hasRule(r, c.wantRule) {
				t.Errorf("rules %v, want %s", rules(r), c.wantRule)
			}
			all := r.Title + r.Summary + findingsText(r)
			if !strings.Contains(all, c.wantText) {
				t.Errorf("output does not mention %q:\n%s", c.wantText, all)
			}
		})
	}
}

func TestPlanFreezeTampering(t *testing.T) {
	const repo = "VerduzcoTristan__landingpage"
	files := []string{".swarm/plan.json", ".swarm/plan-ledger.jsonl"}
	edit := func(t *testing.T, file, old, new string) fstest.MapFS {
		m := corpusFS(t, repo, files...)
		s := string(m[file].Data)
		if !strings.Contains(s, old) {
			t.Fatalf("%s does not contain %q", file, old)
		}
		m[file] = &fstest.MapFile{Data: []byte(strings.Replace(s, old, new, 1))}
		return m
	}
	cases := []struct {
		name  string
		fsys  func(t *testing.T) fstest.MapFS
		want  Outcome
		rules []string
		text  string
	}{
		{"unchanged", func(t *testing.T) fstest.MapFS { return corpusFS(t, repo, files...) }, Passed, nil, ""},
		{"description edited in plan.json after approval",
			func(t *testing.T) fstest.MapFS {
				return edit(t, ".swarm/plan.json", `"description": "Scaffold Hub data`, `"description": "Scaffold the Hub data`)
			},
			Failed, []string{RulePlanOutsideLedger, RulePlanChanged}, "task 1.1: description changed"},
		{"embedded plan edited in the ledger line",
			func(t *testing.T) fstest.MapFS {
				return edit(t, ".swarm/plan-ledger.jsonl", `"description":"Scaffold Hub data`, `"description":"Scaffold Hub DATA`)
			},
			Failed, []string{RuleLedgerHash}, "seq 1"},
		{"approval verdict not APPROVED",
			func(t *testing.T) fstest.MapFS {
				return edit(t, ".swarm/plan-ledger.jsonl", `"verdict":"APPROVED","source":"plan_critic_gate"`, `"verdict":"NEEDS_REVISION","source":"plan_critic_gate"`)
			},
			Failed, []string{RuleApprovalVerdict}, "does not contain plan critic VERDICT: APPROVED"},
		{"approval turned into a drift approval",
			func(t *testing.T) fstest.MapFS {
				return edit(t, ".swarm/plan-ledger.jsonl", `"source":"plan_critic_gate"`, `"phase":1`)
			},
			Failed, []string{RuleNoApproval}, "1 drift-verifier approval"},
		{"ledger truncated mid-line",
			func(t *testing.T) fstest.MapFS {
				m := corpusFS(t, repo, files...)
				d := m[".swarm/plan-ledger.jsonl"].Data
				m[".swarm/plan-ledger.jsonl"] = &fstest.MapFile{Data: d[:len(d)-50]}
				return m
			},
			Error, nil, "plan-ledger.jsonl: line 9"},
		{"plan.json not JSON",
			func(t *testing.T) fstest.MapFS { return edit(t, ".swarm/plan.json", `{`, `{{`) },
			Error, nil, ".swarm/plan.json: line 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := eval(PlanFreeze{}, &Input{Phase: 1, Head: load(c.fsys(t))})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			for _, rule := range c.rules {
				if !hasRule(r, rule) {
					t.Errorf("rules %v, want %s", rules(r), rule)
				}
			}
			if all := r.Title + r.Summary + findingsText(r); !strings.Contains(all, c.text) {
				t.Errorf("output does not mention %q:\n%s", c.text, all)
			}
		})
	}
}

// TestPlanFreezeEditedOutsideLedger uses fm-value-scout's history/05942dadcd,
// whose plan.json was edited without a ledger event.
func TestPlanFreezeEditedOutsideLedger(t *testing.T) {
	m := corpusFS(t, "JG1995__fm-value-scout", "history/05942dadcd/plan.json", "history/05942dadcd/plan-ledger.jsonl")
	fsys := fstest.MapFS{
		".swarm/plan.json":         m["history/05942dadcd/plan.json"],
		".swarm/plan-ledger.jsonl": m["history/05942dadcd/plan-ledger.jsonl"],
	}
	r := eval(PlanFreeze{}, &Input{Phase: 1, Head: load(fsys)})
	if r.Outcome != Failed || !hasRule(r, RulePlanOutsideLedger) {
		t.Errorf("outcome %s, rules %v; want failed with %s", r.Outcome, rules(r), RulePlanOutsideLedger)
	}
}
