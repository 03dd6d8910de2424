package gates

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// side is one side's .swarm/ files for the delta tables.
func side(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for k, v := range files {
		m[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return m
}

const deltaSpec = "# Spec\n\n## Requirements\n\n- FR-001: The export MUST write CSV.\n- FR-002: The command MUST print rows.\n"

// TestDeltaAgainstMergeBase is the "judge the pull request" rule, gate by
// gate: what already held on the merge base is a warning that says so;
// what the pull request introduces fails; what it fixes is counted.
func TestDeltaAgainstMergeBase(t *testing.T) {
	done12 := edit(t, edit(t, testPlan, `"status": "pending", "size": "small", "description": "Wire`, `"status": "completed", "size": "small", "description": "Wire`),
		`"status": "pending", "size": "small", "description": "Write`, `"status": "completed", "size": "small", "description": "Write`)
	done11 := edit(t, testPlan, `"status": "pending", "size": "small", "description": "Write`, `"status": "completed", "size": "small", "description": "Write`)
	noRefs := strings.ReplaceAll(strings.ReplaceAll(testPlan, `, "fr_refs": ["FR-001"]`, ""), `, "fr_refs": ["FR-002"]`, "")
	noRef2 := strings.ReplaceAll(testPlan, `, "fr_refs": ["FR-002"]`, "")
	withTask := edit(t, testPlan, `"files_touched": ["README.md"]}`, `"files_touched": ["README.md"]}, {"id": "2.2", "phase": 2, "status": "pending", "size": "small", "description": "More docs", "depends": [], "files_touched": ["docs/"]}`)
	noScope := strings.NewReplacer(`"files_touched": ["src/a.go"]`, `"files_touched": []`, `"files_touched": ["cmd/x.go"]`, `"files_touched": []`).Replace(testPlan)
	code := &changeset.ChangeSet{Files: []changeset.File{{Status: changeset.Modified, OldPath: "src/a.go", NewPath: "src/a.go", Added: []changeset.AddedLine{{Line: 1, Text: "x"}}}}}
	cases := []struct {
		name        string
		gate        Gate
		base, head  fstest.MapFS // nil base: none (the pull request adds .swarm/)
		changes     *changeset.ChangeSet
		want        Outcome
		title       string // a part of the title
		introduced  int
		preExisting int
		fixed       int
		note        string // a part of the summary
	}{
		{name: "a plan unapproved on the base branch, only statuses changed: shown, not blamed", gate: Critic{},
			base: side(map[string]string{".swarm/plan.json": testPlan}), head: side(map[string]string{".swarm/plan.json": done11}),
			want: Passed, title: "already on the base branch: no critic verdict", preExisting: 1},
		{name: "the same plan, materially changed: the pull request's unapproved change", gate: Critic{},
			base: side(map[string]string{".swarm/plan.json": testPlan}), head: side(map[string]string{".swarm/plan.json": withTask}),
			want: Failed, title: "no critic verdict", introduced: 1},
		{name: "a plan the pull request adds: everything is new", gate: PlanFreeze{},
			head: side(map[string]string{".swarm/plan.json": testPlan}),
			want: Failed, title: "no plan-critic approval", introduced: 1, note: "The merge base has no .swarm/ folder"},
		{name: "requirements unmapped on the base branch stay warnings; the one the pull request unmaps fails", gate: Drift{},
			base: side(map[string]string{".swarm/plan.json": noRef2, ".swarm/spec.md": deltaSpec}), head: side(map[string]string{".swarm/plan.json": noRefs, ".swarm/spec.md": deltaSpec}),
			want: Failed, title: "(1 finding already on the base branch)", introduced: 1, preExisting: 1},
		{name: "a requirement the pull request maps is counted as fixed", gate: Drift{},
			base: side(map[string]string{".swarm/plan.json": noRefs, ".swarm/spec.md": deltaSpec}), head: side(map[string]string{".swarm/plan.json": noRef2, ".swarm/spec.md": deltaSpec}),
			want: Passed, title: "already on the base branch", preExisting: 1, fixed: 1},
		{name: "a task completed without evidence on the base branch is shown; one completed now fails", gate: Evidence{},
			base: side(map[string]string{".swarm/plan.json": done11}), head: side(map[string]string{".swarm/plan.json": done12}),
			want: Failed, title: "(1 finding already on the base branch)", introduced: 1, preExisting: 1},
		{name: "no scope on the base branch's phase: shown, not blamed", gate: Scope{}, changes: code,
			base: side(map[string]string{".swarm/plan.json": noScope}), head: side(map[string]string{".swarm/plan.json": noScope}),
			want: Passed, title: "already on the base branch: phase 1 declares no scope", preExisting: 1},
		{name: "the pull request drops the phase's scope: introduced", gate: Scope{}, changes: code,
			base: side(map[string]string{".swarm/plan.json": testPlan}), head: side(map[string]string{".swarm/plan.json": noScope}),
			want: Failed, title: "phase 1 declares no scope", introduced: 1},
		{name: "an unreadable merge base: every finding counts as introduced, and the summary says why", gate: Drift{},
			base: side(map[string]string{".swarm/plan.json": "{"}), head: side(map[string]string{".swarm/plan.json": noRefs, ".swarm/spec.md": deltaSpec}),
			want: Failed, title: "2 requirements", introduced: 2, note: "could not be evaluated on the merge base"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := &Input{Phase: 1, Head: load(c.head), Changes: c.changes}
			if c.base != nil {
				in.Base = load(c.base)
			}
			r := eval(c.gate, in)
			if r.Outcome != c.want || !strings.Contains(r.Title, c.title) {
				t.Fatalf("%s %q, want %s with %q\n%s", r.Outcome, r.Title, c.want, c.title, findingsText(r))
			}
			d := r.Delta
			if d == nil {
				t.Fatalf("no delta counts\n%s", r.Summary)
			}
			if d.Introduced != c.introduced || d.PreExisting != c.preExisting || d.Fixed != c.fixed {
				t.Errorf("delta %+v, want introduced %d, pre-existing %d, fixed %d", *d, c.introduced, c.preExisting, c.fixed)
			}
			pre := 0
			for _, f := range r.Findings {
				switch f.Delta {
				case DeltaPreExisting:
					pre++
					if f.Severity != SeverityWarning || !strings.HasPrefix(f.Message, PreExistingPrefix) {
						t.Errorf("pre-existing finding not a warning that says so: %s %q", f.Severity, f.Message)
					}
				case DeltaIntroduced:
					if f.Severity != SeverityError {
						t.Errorf("introduced finding is %s", f.Severity)
					}
				}
			}
			if pre != c.preExisting {
				t.Errorf("%d findings marked pre-existing, want %d", pre, c.preExisting)
			}
			if !strings.Contains(r.Summary, "**Against the merge base**") || !strings.Contains(r.Summary, c.note) {
				t.Errorf("summary lacks the delta note %q:\n%s", c.note, r.Summary)
			}
		})
	}
}

// TestNoPlan covers the plugin's plan-less projects and pull requests that
// delete the plan.
func TestNoPlan(t *testing.T) {
	onlyContext := side(map[string]string{".swarm/context.md": "# ctx\n"})
	withPlan := side(map[string]string{".swarm/plan.json": testPlan})
	for _, g := range []Gate{PlanFreeze{}, Critic{}, Scope{}, Evidence{}, Drift{}, PlanLint{}, PhaseWrap{}} {
		t.Run(g.Name()+": no plan on either side", func(t *testing.T) {
			r := eval(g, &Input{Head: load(onlyContext), Base: load(onlyContext), PhaseSource: PhaseFromNoPlan})
			if r.Outcome != NotApplicable || !strings.Contains(r.Title, "neither the merge base nor the head has .swarm/plan.json") {
				t.Errorf("%s %q", r.Outcome, r.Title)
			}
		})
		t.Run(g.Name()+": the pull request deletes .swarm/", func(t *testing.T) {
			r := eval(g, &Input{Head: empty(), Base: load(withPlan), PhaseSource: PhaseFromNoPlan})
			want := NotApplicable
			if g.Name() == (PlanFreeze{}).Name() {
				want = Failed
				if len(r.Findings) != 1 || r.Findings[0].Rule != RulePlanDeleted || !strings.Contains(r.Findings[0].Message, "deletes the whole .swarm/ folder") || !strings.Contains(r.Findings[0].Message, "3 tasks, 0 completed") {
					t.Errorf("want one plan-deleted finding naming what was deleted:\n%s", findingsText(r))
				}
			}
			if r.Outcome != want {
				t.Errorf("%s %q, want %s", r.Outcome, r.Title, want)
			}
		})
	}
	r := eval(PlanFreeze{}, &Input{Head: load(onlyContext), Base: load(withPlan)})
	if r.Outcome != Failed || !strings.Contains(r.Findings[0].Message, "deletes .swarm/plan.json") {
		t.Errorf("plan.json deleted, .swarm/ kept: %s\n%s", r.Outcome, findingsText(r))
	}
}

// TestPlanlessLedger: without plan.json on either side, the merge base's
// ledger is still append-only (a tester truncated it and passed).
func TestPlanlessLedger(t *testing.T) {
	l := newLedger(t, testPlan).approve(testPlan)
	full := string(l.data())
	first, _, _ := strings.Cut(full, "\n")
	base := side(map[string]string{".swarm/plan-ledger.jsonl": full})
	for _, c := range []struct {
		name    string
		head    map[string]string
		outcome Outcome
		says    string
	}{
		{"the ledger truncated", map[string]string{".swarm/plan-ledger.jsonl": first + "\n"}, Failed, "the ledger was truncated"},
		{"the ledger deleted", map[string]string{".swarm/context.md": "x\n"}, Failed, "the pull request deletes .swarm/plan-ledger.jsonl, which has 2 events"},
		{"the whole .swarm/ deleted", map[string]string{}, Failed, "deletes .swarm/plan-ledger.jsonl"},
		{"the ledger kept", map[string]string{".swarm/plan-ledger.jsonl": full}, NotApplicable, ""},
		{"the ledger extended", map[string]string{".swarm/plan-ledger.jsonl": full + strings.Replace(first, `"seq":1`, `"seq":3`, 1) + "\n"}, NotApplicable, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := eval(PlanFreeze{}, &Input{Head: load(side(c.head)), Base: load(base), PhaseSource: PhaseFromNoPlan})
			if r.Outcome != c.outcome || !strings.Contains(findingsText(r), c.says) {
				t.Errorf("%s %q, want %s saying %q:\n%s", r.Outcome, r.Title, c.outcome, c.says, findingsText(r))
			}
		})
	}
	// The other gates have nothing to check without a plan.
	r := eval(Evidence{}, &Input{Head: load(side(map[string]string{".swarm/plan-ledger.jsonl": first + "\n"})), Base: load(base), PhaseSource: PhaseFromNoPlan})
	if r.Outcome != NotApplicable {
		t.Errorf("evidence: %s %q", r.Outcome, r.Title)
	}
}

// TestCompletedWork names what a pull request does to work the merge base
// records as done, and how much it weighs (plan_freeze.status_regression).
func TestCompletedWork(t *testing.T) {
	done := edit(t, testPlan, `"status": "pending", "size": "small", "description": "Write`, `"status": "completed", "size": "small", "description": "Write`)
	phase2Done := edit(t, edit(t, done, `"name": "Docs",
      "status": "pending"`, `"name": "Docs",
      "status": "complete"`), `"status": "pending", "size": "small", "description": "Document`, `"status": "completed", "size": "small", "description": "Document`)
	drop11 := `{"id": "1.1", "phase": 1, "status": "completed", "size": "small", "description": "Write C:\\tmp\\out.csv — naïve <b>&amp;</b>", "depends": [], "acceptance": "round trip passes", "files_touched": ["src/a.go"], "fr_refs": ["FR-001"]},`
	evidence := `{"taskId": "1.1", "required_gates": ["reviewer"], "gates": {"reviewer": {"sessionId": "s", "timestamp": "2026-01-01T00:00:00Z", "agent": "reviewer"}}}`
	cases := []struct {
		name       string
		base, head map[string]string
		policy     RegressionPolicy
		rule       string
		sev        Severity
		says       string
	}{
		{"reset in a phase still open: a warning", map[string]string{".swarm/plan.json": done}, map[string]string{".swarm/plan.json": testPlan}, "",
			RuleCompletedReset, SeverityWarning, "task 1.1: completed → pending: completed work reset (no ledger event of this pull request records it"},
		{"reset in a phase complete on the base branch: fails", map[string]string{".swarm/plan.json": phase2Done}, map[string]string{".swarm/plan.json": edit(t, phase2Done, `"status": "completed", "size": "small", "description": "Document`, `"status": "in_progress", "size": "small", "description": "Document`)}, "",
			RuleCompletedReset, SeverityError, "phase 2 was complete on the base branch"},
		{"reset with its evidence deleted: fails", map[string]string{".swarm/plan.json": done, ".swarm/evidence/1.1.json": evidence}, map[string]string{".swarm/plan.json": testPlan}, "",
			RuleCompletedReset, SeverityError, "its evidence is deleted too (.swarm/evidence/1.1.json)"},
		{"policy fail: any reset fails", map[string]string{".swarm/plan.json": done}, map[string]string{".swarm/plan.json": testPlan}, RegressionFail,
			RuleCompletedReset, SeverityError, "completed → pending"},
		{"policy warn: even a deleted-evidence reset warns", map[string]string{".swarm/plan.json": done, ".swarm/evidence/1.1.json": evidence}, map[string]string{".swarm/plan.json": testPlan}, RegressionWarn,
			RuleCompletedReset, SeverityWarning, "its evidence is deleted too"},
		{"a completed task removed", map[string]string{".swarm/plan.json": done}, map[string]string{".swarm/plan.json": edit(t, done, drop11, "")}, RegressionFail,
			RuleCompletedRemoved, SeverityError, "task 1.1: completed → (removed): completed work removed from the plan"},
		{"a completed task redefined, with no approval: fails, before and after", map[string]string{".swarm/plan.json": done}, map[string]string{".swarm/plan.json": edit(t, done, `"acceptance": "round trip passes"`, `"acceptance": "it compiles"`)}, "",
			RuleCompletedRewritten, SeverityError, `completed task 1.1 redefined: the pull request rewrites its acceptance "round trip passes" → "it compiles"`},
		{"status unchanged, definition unchanged: nothing", map[string]string{".swarm/plan.json": done}, map[string]string{".swarm/plan.json": done}, "", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.PlanFreeze.StatusRegression = c.policy
			r := eval(PlanFreeze{}, &Input{Phase: 1, Base: load(side(c.base)), Head: load(side(c.head)), Config: cfg})
			var got []Finding
			for _, f := range r.Findings {
				if strings.HasPrefix(f.Rule, "plan-freeze/completed-task-") {
					got = append(got, f)
				}
			}
			if c.rule == "" {
				if len(got) > 0 {
					t.Fatalf("unexpected findings:\n%s", findingsText(r))
				}
				return
			}
			if len(got) != 1 || got[0].Rule != c.rule || got[0].Severity != c.sev || !strings.Contains(got[0].Message, c.says) {
				t.Fatalf("want one %s %s saying %q:\n%s", c.sev, c.rule, c.says, findingsText(r))
			}
		})
	}
}

// TestRedefinitionUnderApproval: a finished task redefined in a plan the
// critic approved with the new definition is listed as a warning.
func TestRedefinitionUnderApproval(t *testing.T) {
	done := edit(t, testPlan, `"status": "pending", "size": "small", "description": "Write`, `"status": "completed", "size": "small", "description": "Write`)
	redefined := edit(t, done, `"acceptance": "round trip passes"`, `"acceptance": "it compiles"`)
	base := newLedger(t, testPlan).approve(testPlan)
	baseFS := base.fs(done)
	head := newLedger(t, testPlan).approve(testPlan).approve(redefined)
	r := eval(PlanFreeze{}, &Input{Phase: 1, Base: load(baseFS), Head: load(head.fs(redefined))})
	for _, f := range r.Findings {
		if f.Rule == RuleCompletedRewritten {
			if f.Severity != SeverityWarning || !strings.Contains(f.Message, "the critic-approved plan at seq") {
				t.Errorf("%s %q", f.Severity, f.Message)
			}
			return
		}
	}
	t.Errorf("no redefinition finding:\n%s", findingsText(r))
}

// TestScopeNoOpenPhase: after the last phase closes, a pull request that
// changes no task carries no phase, so there is no phase scope to hold it to.
func TestScopeNoOpenPhase(t *testing.T) {
	all := strings.ReplaceAll(strings.ReplaceAll(testPlan, `"status": "pending"`, `"status": "completed"`), `"name": "Export ✓",
      "status": "completed"`, `"name": "Export ✓",
      "status": "complete"`)
	code := &changeset.ChangeSet{Files: []changeset.File{{Status: changeset.Added, NewPath: "research/run.py", Added: []changeset.AddedLine{{Line: 1, Text: "x"}}}}}
	art := load(side(map[string]string{".swarm/plan.json": all}))
	r := eval(Scope{}, &Input{Phase: 1, PhaseSource: PhaseFromCurrentPhase, Base: art, Head: art, Changes: code})
	if r.Outcome != NotApplicable || !strings.Contains(r.Title, "no open phase") {
		t.Errorf("%s %q", r.Outcome, r.Title)
	}
	// Named explicitly, the phase's scope applies.
	r = eval(Scope{}, &Input{Phase: 1, PhaseSource: PhaseFromFlag, Base: art, Head: art, Changes: code})
	if r.Outcome != Failed || !hasRule(r, RuleOutOfScope) {
		t.Errorf("with --phase: %s %q", r.Outcome, r.Title)
	}
}

// TestDriftEveryClosedPhase: a pull request that closes two phases needs
// the drift verification of both, not only of the phase it carries.
func TestDriftEveryClosedPhase(t *testing.T) {
	all := strings.ReplaceAll(testPlan, `"status": "pending", "size"`, `"status": "completed", "size"`)
	head := load(side(map[string]string{".swarm/plan.json": all, ".swarm/spec.md": deltaSpec}))
	base := load(side(map[string]string{".swarm/plan.json": testPlan, ".swarm/spec.md": deltaSpec}))
	r := eval(Drift{}, &Input{Phase: 1, Phases: []int{1, 2}, PhaseSource: PhaseFromStatusChanges, Base: base, Head: head})
	if r.Outcome != Failed || !strings.Contains(r.Title, "also phase 2: DRIFT_VERIFICATION_MISSING") {
		t.Fatalf("%s %q\n%s", r.Outcome, r.Title, findingsText(r))
	}
	// Carried alone, phase 2 is not checked.
	r = eval(Drift{}, &Input{Phase: 1, PhaseSource: PhaseFromFlag, Base: base, Head: head})
	if strings.Contains(r.Title, "phase 2") {
		t.Errorf("phase 2 checked without being among the changed phases: %q", r.Title)
	}
}

// TestDeltaUnderError: a gate that could not evaluate one file still marks
// the findings the merge base already has, and stays an error.
func TestDeltaUnderError(t *testing.T) {
	both := edit(t, edit(t, testPlan, `"status": "pending", "size": "small", "description": "Write`, `"status": "completed", "size": "small", "description": "Write`),
		`"status": "pending", "size": "small", "description": "Wire`, `"status": "completed", "size": "small", "description": "Wire`)
	base := side(map[string]string{".swarm/plan.json": both})
	head := side(map[string]string{".swarm/plan.json": both, ".swarm/evidence/1.1.json": "{\n"})
	r := eval(Evidence{}, &Input{Phase: 1, Base: load(base), Head: load(head)})
	if r.Outcome != Error {
		t.Fatalf("%s %q", r.Outcome, r.Title)
	}
	var pre bool
	for _, f := range r.Findings {
		if f.Rule == RuleEvidenceMissing && strings.Contains(f.Message, "task 1.2") {
			pre = f.Delta == DeltaPreExisting && f.Severity == SeverityWarning
		}
	}
	if !pre {
		t.Errorf("task 1.2's missing evidence is on the base branch, not marked so:\n%s", findingsText(r))
	}
}
