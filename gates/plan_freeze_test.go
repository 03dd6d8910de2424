package gates

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestPlanFreezeCorpus(t *testing.T) {
	legacy := withPlanFreeze(PlanFreezeConfig{Approval: ApprovalAny, AllowLegacyPlans: true})
	cases := []struct {
		repo     string
		cfg      *Config
		want     Outcome
		wantRule []string
		mentions []string
		absent   string
	}{
		{"VerduzcoTristan__landingpage", nil, Passed, nil, []string{"seq 3", "6 status-only changes", "= structure hash of the embedded plan"}, ""},
		{"pandejesal__Burgonomics-App", nil, Passed, nil, []string{"seq 6", "no changes"}, ""},
		{"JG1995__fm-value-scout", nil, Failed, []string{RuleNoApproval}, []string{"6 drift-verifier approvals", "predates the plugin's mechanical plan-critic gate",
			"first critic_approved snapshot (seq 12, a drift-verifier approval of phase 1)", "task 2.2: description changed"}, ""},
		{"JG1995__fm-value-scout", legacy, Passed, nil, []string{"legacy_plans: allow"}, ""},
		{"micschr0__photochron", nil, Failed, []string{RuleNoApproval}, []string{"3 drift-verifier approvals"}, ""},
		{"DediGadot__IMU-Parkinson", nil, Failed, []string{RuleNoApproval}, []string{"1 drift-verifier approval", "execution profile locked at seq"}, ""},
		{"sleuthy-sloth__quest-forge", nil, Failed, []string{RuleSpecStale, RuleNoApproval}, []string{"the ledger's first plan (seq 1, plan_created)", "task 2.6 added", "spec-staleness.json is out of date: the plan was re-saved against the current .swarm/spec.md"}, ""},
		{"jonathanlopezc83717-commits__Frontend_1er_modulo", legacy, Failed, []string{RuleNoApproval}, []string{"PLAN_CRITIC_GATE_VIOLATION"}, "predates"},
		{"basel-ax__saleor-tma-frontend", nil, Failed, []string{RuleNoApproval}, []string{"plan-ledger.jsonl is missing"}, ""},
		{"phlawlessDevelopment__bomberz", nil, Failed, []string{RuleNoApproval}, []string{"PLAN_CRITIC_GATE_VIOLATION"}, ""},
		{"Areopaguaworkshop__msocr", nil, Failed, []string{RuleNoApproval}, []string{"0 unexplained"}, ""},
		{"BotoVed__haos-rover", nil, NotApplicable, nil, []string{"neither the merge base nor the head has .swarm/plan.json"}, ""},
	}
	for _, c := range cases {
		t.Run(c.repo, func(t *testing.T) {
			r := eval(PlanFreeze{}, &Input{Phase: 1, Head: corpus(t, c.repo), Config: c.cfg})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			for _, rule := range c.wantRule {
				if !hasRule(r, rule) {
					t.Errorf("rules %v, want %s", rules(r), rule)
				}
			}
			if len(c.wantRule) == 0 && len(failingFindings(r.Findings)) > 0 {
				t.Errorf("failing findings on a passing result:\n%s", findingsText(r))
			}
			all := r.Title + r.Summary + findingsText(r)
			for _, m := range c.mentions {
				if !strings.Contains(all, m) {
					t.Errorf("output does not mention %q:\n%s", m, all)
				}
			}
			if c.absent != "" && strings.Contains(all, c.absent) {
				t.Errorf("output mentions %q:\n%s", c.absent, all)
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
		{"approval verdict in lower case (the plugin requires APPROVED)",
			func(t *testing.T) fstest.MapFS {
				return edit(t, ".swarm/plan-ledger.jsonl", `"verdict":"APPROVED","source":"plan_critic_gate"`, `"verdict":"approved","source":"plan_critic_gate"`)
			},
			Failed, []string{RuleApprovalVerdict}, "VERDICT: APPROVED"},
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
		{"status repeated: the diff shows completed, the plugin reads pending",
			func(t *testing.T) fstest.MapFS {
				return edit(t, ".swarm/plan.json", `"size": "medium",
          "description": "Scaffold Hub data`, `"size": "medium", "status": "completed",
          "description": "Scaffold Hub data`)
			},
			Failed, []string{RuleDuplicateKey}, "`phases[0].tasks[0].status` appears twice in one object (lines 15 and 16)"},
		{"a key repeated in a ledger line",
			func(t *testing.T) fstest.MapFS {
				return edit(t, ".swarm/plan-ledger.jsonl", `"verdict":"APPROVED","source":"plan_critic_gate"`, `"verdict":"REJECTED","verdict":"APPROVED","source":"plan_critic_gate"`)
			},
			Failed, []string{RuleDuplicateKey}, "`payload.approval.verdict` appears twice in the event's line"},
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

// A key the merge base's plan.json already repeats is shown, not blamed.
func TestPlanFreezeDuplicateKeyOnBase(t *testing.T) {
	m := corpusFS(t, "VerduzcoTristan__landingpage", ".swarm/plan.json", ".swarm/plan-ledger.jsonl")
	plan := string(m[".swarm/plan.json"].Data)
	dup := strings.Replace(plan, `"size": "medium",`, `"size": "medium", "size": "medium",`, 1)
	if dup == plan {
		t.Fatal("corpus plan changed: no size field")
	}
	m[".swarm/plan.json"] = &fstest.MapFile{Data: []byte(dup)}
	r := eval(PlanFreeze{}, &Input{Phase: 1, Head: load(m), Base: load(m)})
	if r.Outcome != Passed || !hasRule(r, RuleDuplicateKey) || r.Delta == nil || r.Delta.PreExisting != 1 {
		t.Errorf("outcome %s (%s), rules %v, delta %+v; want passed with a pre-existing %s", r.Outcome, r.Title, rules(r), r.Delta, RuleDuplicateKey)
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

// TestPlanFreezeAppendOnly replays real base/head ledger pairs from the
// corpus history (each later version extends the earlier one) and damages
// them the ways a rewrite would.
func TestPlanFreezeAppendOnly(t *testing.T) {
	type pair struct{ repo, base, head string }
	real := []pair{
		{"JG1995__fm-value-scout", "history/05942dadcd/plan-ledger.jsonl", "history/d49c7e57af/plan-ledger.jsonl"},
		{"JG1995__fm-value-scout", "history/d49c7e57af/plan-ledger.jsonl", ".swarm/plan-ledger.jsonl"},
		{"phlawlessDevelopment__bomberz", "history/2b6a5945cd/plan-ledger.jsonl", "history/9d39fdc528/plan-ledger.jsonl"},
		{"sleuthy-sloth__quest-forge", "history/108df05bc6/plan-ledger.jsonl", "history/5aec337146/plan-ledger.jsonl"},
		{"jonathanlopezc83717-commits__Frontend_1er_modulo", "history/ea3136b455/plan-ledger.jsonl", "history/90d9ef4196/plan-ledger.jsonl"},
	}
	for _, p := range real {
		m := corpusFS(t, p.repo, p.base, p.head)
		base := load(fstest.MapFS{".swarm/plan-ledger.jsonl": m[p.base]}).Ledger
		head := load(fstest.MapFS{".swarm/plan-ledger.jsonl": m[p.head]}).Ledger
		if f := appendOnly(base, head); len(f) != 0 {
			t.Errorf("%s %s -> %s: %v", p.repo, p.base, p.head, f)
		}
	}

	const repo = "VerduzcoTristan__landingpage"
	m := corpusFS(t, repo, ".swarm/plan.json", ".swarm/plan-ledger.jsonl")
	full := string(m[".swarm/plan-ledger.jsonl"].Data)
	lines := strings.SplitAfter(full, "\n")
	baseOf := func(n int) *Input {
		return &Input{Phase: 1, Base: load(fstest.MapFS{".swarm/plan-ledger.jsonl": {Data: []byte(strings.Join(lines[:n], ""))}})}
	}
	cases := []struct {
		name     string
		baseN    int
		head     string
		want     Outcome
		rule     string
		mentions string
	}{
		{"head extends base, approval on the base side", 3, full, Passed, "", "base-anchored"},
		{"approval added by the pull request", 2, full, Passed, "", "added in this pull request"},
		{"base line 2 edited", 9, strings.Replace(full, `"seq":2,"timestamp":"`, `"seq":2,"timestamp":"x`, 1), Failed, RuleLedgerRewritten, "line 2 differs"},
		{"head truncated", 9, strings.Join(lines[:5], ""), Failed, RuleLedgerRewritten, "truncated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := baseOf(c.baseN)
			in.Head = load(fstest.MapFS{".swarm/plan.json": m[".swarm/plan.json"], ".swarm/plan-ledger.jsonl": {Data: []byte(c.head)}})
			r := eval(PlanFreeze{}, in)
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			if c.rule != "" && !hasRule(r, c.rule) {
				t.Errorf("rules %v, want %s", rules(r), c.rule)
			}
			if all := r.Summary + findingsText(r); !strings.Contains(all, c.mentions) {
				t.Errorf("output does not mention %q:\n%s", c.mentions, all)
			}
		})
	}
}

// TestPlanFreezeHistoryPairs runs the whole gate on real base/head pairs
// from the corpus history (an older committed .swarm state as the merge
// base, a newer one as head): the head ledger extends the base's, and every
// event replays.
func TestPlanFreezeHistoryPairs(t *testing.T) {
	type pair struct{ repo, base, head string }
	for _, p := range []pair{
		{"JG1995__fm-value-scout", "history/6bfbd4d282", "history/d49c7e57af"},
		{"JG1995__fm-value-scout", "history/d49c7e57af", ".swarm"},
		{"phlawlessDevelopment__bomberz", "history/2b6a5945cd", "history/9d39fdc528"},
		{"sleuthy-sloth__quest-forge", "history/108df05bc6", "history/5aec337146"},
		{"jonathanlopezc83717-commits__Frontend_1er_modulo", "history/ea3136b455", "history/90d9ef4196"},
		{"Areopaguaworkshop__msocr", "history/9259dcb217", "history/e2b1a897fa"},
	} {
		t.Run(p.repo+"/"+p.base+".."+p.head, func(t *testing.T) {
			m := corpusFS(t, p.repo, p.base+"/plan.json", p.base+"/plan-ledger.jsonl", p.head+"/plan.json", p.head+"/plan-ledger.jsonl")
			side := func(dir string) fstest.MapFS {
				return fstest.MapFS{".swarm/plan.json": m[dir+"/plan.json"], ".swarm/plan-ledger.jsonl": m[dir+"/plan-ledger.jsonl"]}
			}
			r := eval(PlanFreeze{}, &Input{Phase: 1, Base: load(side(p.base)), Head: load(side(p.head))})
			for _, f := range r.Findings {
				switch {
				case f.Rule == RuleTaskRemoved && f.Severity == SeverityWarning:
					t.Logf("%s", f.Message) // real plans that dropped tasks before task_removed existed
				case f.Rule == RuleLedgerRewritten, f.Rule == RuleLedgerUnexplained, f.Rule == RuleLedgerHash, f.Rule == RuleLedgerSeq, f.Rule == RuleProfileLocked, f.Rule == RuleTaskRemoved:
					t.Errorf("%s: %s", f.Rule, f.Message)
				}
			}
			if !strings.Contains(r.Summary, "0 unexplained") {
				t.Errorf("summary:\n%s", r.Summary)
			}
		})
	}
}
