package gates

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// orderPlan is testPlan (1.1 <- 1.2 in phase 1, 2.1 in phase 2) with the
// statuses and depends of each task replaced: status[id] and depends[id]
// (a JSON array) where given. A task 1.3 (pending, no depends) is added
// after 1.2 when either names it.
func orderPlan(t *testing.T, status map[string]string, depends map[string]string) string {
	t.Helper()
	p := testPlan
	if _, ok := status["1.3"]; ok || depends["1.3"] != "" {
		p = edit(t, p, `"fr_refs": ["FR-002"]}`, `"fr_refs": ["FR-002"]},
        {"id": "1.3", "phase": 1, "status": "pending", "size": "small", "description": "Print the totals", "depends": [], "files_touched": ["cmd/y.go"]}`)
	}
	defaults := map[string]string{"1.1": `[]`, "1.2": `["1.1"]`, "1.3": `[]`, "2.1": `[]`}
	for _, id := range []string{"1.1", "1.2", "1.3", "2.1"} {
		ph := id[:1]
		if s, ok := status[id]; ok {
			p = edit(t, p, fmt.Sprintf(`"id": %q, "phase": %s, "status": "pending"`, id, ph), fmt.Sprintf(`"id": %q, "phase": %s, "status": %q`, id, ph, s))
		}
		if d, ok := depends[id]; ok {
			// The depends of a task follow its description, which is unique.
			at := strings.Index(p, fmt.Sprintf(`"id": %q`, id))
			old := `"depends": ` + defaults[id]
			i := strings.Index(p[at:], old)
			if i < 0 {
				t.Fatalf("task %s has no %s", id, old)
			}
			p = p[:at+i] + `"depends": ` + d + p[at+i+len(old):]
		}
	}
	return p
}

// withEvidence is a .swarm folder with plan and passing reviewer evidence
// for each of ids.
func withEvidence(plan string, ids ...string) fstest.MapFS {
	m := fstest.MapFS{".swarm/plan.json": {Data: []byte(plan)}}
	for _, id := range ids {
		m[".swarm/evidence/"+id+".json"] = &fstest.MapFile{Data: []byte(fmt.Sprintf(`{"taskId":%q,"required_gates":["reviewer"],"gates":{"reviewer":{"verdict":"approved"}}}`, id))}
	}
	return m
}

func TestTaskOrder(t *testing.T) {
	done := "completed"
	cases := []struct {
		name     string
		base     map[string]string // statuses on the merge base (nil: no plan there)
		status   map[string]string
		depends  map[string]string
		phase    int
		evidence Outcome  // swarm/evidence's outcome
		severity Severity // of its swarm/evidence finding: error when the dependency is in the task's phase ("" no finding; plan-lint only warns)
		rule     string   // the task-order rule, without the gate (evidence/..., plan-lint/...)
		mention  string
	}{
		{name: "a dependency pending in the same phase", status: map[string]string{"1.2": done}, phase: 1,
			evidence: Failed, severity: SeverityError, rule: "completed-before-dependency", mention: "task 1.2 is completed but depends on 1.1, which is pending"},
		{name: "a dependency in another phase", status: map[string]string{"2.1": done}, depends: map[string]string{"2.1": `["1.2"]`}, phase: 2,
			evidence: Passed, severity: SeverityWarning, rule: "completed-before-dependency", mention: "task 2.1 is completed but depends on 1.2 of phase 1, which is pending"},
		{name: "a dependency in progress", status: map[string]string{"1.1": "in_progress", "1.2": done}, phase: 1,
			evidence: Failed, severity: SeverityError, rule: "completed-before-dependency", mention: "depends on 1.1, which is in_progress"},
		{name: "a dependency completed", status: map[string]string{"1.1": done, "1.2": done}, phase: 1, evidence: Passed},
		{name: "a dependency closed (swarm close) counts as done", base: map[string]string{"1.1": "closed"}, status: map[string]string{"1.1": "closed", "1.2": done}, phase: 1, evidence: Passed},
		{name: "a pending task waiting for its dependency is fine", status: map[string]string{"1.1": done}, phase: 1, evidence: Passed},
		{name: "an unknown dependency of the same phase", status: map[string]string{"1.1": done, "1.2": done}, depends: map[string]string{"1.2": `["1.1","1.9"]`}, phase: 1,
			evidence: Failed, severity: SeverityError, rule: "missing-dependency", mention: "task 1.2 depends on missing 1.9: no task of the plan has that id"},
		{name: "an unknown dependency of no phase", status: map[string]string{"1.1": done, "1.2": done}, depends: map[string]string{"1.2": `["7.1"]`}, phase: 1,
			evidence: Passed, severity: SeverityWarning, rule: "missing-dependency", mention: "depends on missing 7.1"},
		{name: "a phase id as a dependency", status: map[string]string{"2.1": done}, depends: map[string]string{"2.1": `["1"]`}, phase: 2,
			evidence: Passed, severity: SeverityWarning, rule: "missing-dependency", mention: "that is phase 1's id"},
		{name: "an empty dependency id", status: map[string]string{"1.1": done}, depends: map[string]string{"1.1": `[""]`}, phase: 1,
			evidence: Passed, severity: SeverityWarning, rule: "missing-dependency", mention: `task 1.1 depends on missing "": an empty id names no task`},
		{name: "a self-dependency", status: map[string]string{"1.1": done, "1.2": done}, depends: map[string]string{"1.2": `["1.1","1.2"]`}, phase: 1,
			evidence: Failed, severity: SeverityError, rule: "circular-dependency", mention: "task 1.2 depends on itself (circular dependency 1.2 → 1.2)"},
		{name: "a 2-cycle across phases", status: map[string]string{"1.1": done, "2.1": done}, depends: map[string]string{"1.1": `["2.1"]`, "2.1": `["1.1"]`}, phase: 2,
			evidence: Passed, severity: SeverityWarning, rule: "circular-dependency", mention: "circular dependency 1.1 → 2.1 → 1.1"},
		{name: "a 3-cycle", status: map[string]string{"1.1": done, "1.2": done, "1.3": done}, depends: map[string]string{"1.1": `["1.3"]`, "1.3": `["1.2"]`}, phase: 1,
			evidence: Failed, severity: SeverityError, rule: "circular-dependency", mention: "circular dependency 1.1 → 1.3 → 1.2 → 1.1 (each depends on the next)"},
		{name: "a 3-cycle across phases", status: map[string]string{"1.1": done, "1.2": done, "2.1": done}, depends: map[string]string{"1.1": `["2.1"]`, "2.1": `["1.2"]`}, phase: 2,
			evidence: Passed, severity: SeverityWarning, rule: "circular-dependency", mention: "circular dependency 1.1 → 2.1 → 1.2 → 1.1"},
		{name: "a dependency already violated on the merge base", base: map[string]string{"1.2": done}, status: map[string]string{"1.1": "in_progress", "1.2": done}, phase: 1,
			evidence: Passed, severity: SeverityWarning, rule: "completed-before-dependency", mention: PreExistingPrefix + "task 1.2 is completed but depends on 1.1, which is in_progress"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := orderPlan(t, c.status, c.depends)
			var ids []string
			for id, s := range c.status {
				if s == done {
					ids = append(ids, id)
				}
			}
			head := load(withEvidence(plan, ids...))
			base := empty()
			if c.base != nil {
				var bids []string
				for id, s := range c.base {
					if s == done {
						bids = append(bids, id)
					}
				}
				base = load(withEvidence(orderPlan(t, c.base, c.depends), bids...))
			}
			r := eval(Evidence{}, &Input{Phase: c.phase, Phases: []int{c.phase}, Base: base, Head: head})
			if r.Outcome != c.evidence {
				t.Fatalf("evidence: outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.evidence, findingsText(r))
			}
			checkOrderFinding(t, "evidence", r, "evidence/"+c.rule, c.severity, c.mention)
			if c.severity != "" && !strings.Contains(r.Title, "task-order problem") && !strings.Contains(r.Title, "about task order") {
				t.Errorf("evidence title %q does not say the task order", r.Title)
			}

			lint := eval(PlanLint{}, &Input{Phase: c.phase, Base: base, Head: head})
			want := NotApplicable
			if c.severity == "" {
				want = Passed
			}
			if lint.Outcome != want {
				t.Fatalf("plan-lint: outcome %s (%s), want %s\n%s", lint.Outcome, lint.Title, want, findingsText(lint))
			}
			lintMention := strings.TrimPrefix(c.mention, PreExistingPrefix)
			checkOrderFinding(t, "plan-lint", lint, "plan-lint/"+c.rule, severityIf(c.severity != "", SeverityWarning), lintMention)

			cfg := DefaultConfig()
			cfg.PlanLint.Enforce = true
			enforced := eval(PlanLint{}, &Input{Phase: c.phase, Base: base, Head: head, Config: cfg})
			if c.severity != "" && c.base == nil && enforced.Outcome != Failed {
				t.Errorf("plan_lint: fail: outcome %s, want failed", enforced.Outcome)
			}
			if c.base != nil && enforced.Outcome != Passed {
				t.Errorf("plan_lint: fail with the finding on the merge base: outcome %s (%s), want passed", enforced.Outcome, enforced.Title)
			}
		})
	}
}

func severityIf(ok bool, s Severity) Severity {
	if ok {
		return s
	}
	return ""
}

// checkOrderFinding checks that r has exactly one task-order finding (of
// rule, with severity and mention) or none when severity is "".
func checkOrderFinding(t *testing.T, gate string, r Result, rule string, severity Severity, mention string) {
	t.Helper()
	var got []Finding
	for _, f := range r.Findings {
		if strings.Contains(f.Rule, "dependency") {
			got = append(got, f)
		}
	}
	if severity == "" {
		if len(got) > 0 {
			t.Errorf("%s: unexpected task-order findings\n%s", gate, findingsText(r))
		}
		return
	}
	if len(got) != 1 {
		t.Fatalf("%s: %d task-order findings, want 1\n%s", gate, len(got), findingsText(r))
	}
	f := got[0]
	if f.Rule != rule || f.Severity != severity || !strings.Contains(f.Message, mention) {
		t.Errorf("%s: got %s %s %q\nwant %s %s mentioning %q", gate, f.Rule, f.Severity, f.Message, rule, severity, mention)
	}
	if f.Key == "" || strings.Contains(f.Key, "pending") || strings.Contains(f.Key, "in_progress") {
		t.Errorf("%s: key %q must name the task and dependency, not a status", gate, f.Key)
	}
	if f.Line == 0 {
		t.Errorf("%s: finding without a line", gate)
	}
}

// TestTaskOrderOnlyPhasesUnderCheck: swarm/evidence judges the completed
// tasks it checks, not a violation left in a phase the pull request does
// not touch; plan-lint lints the whole plan.
func TestTaskOrderOnlyPhasesUnderCheck(t *testing.T) {
	plan := orderPlan(t, map[string]string{"1.2": "completed", "2.1": "completed"}, nil)
	base := load(withEvidence(orderPlan(t, map[string]string{"1.2": "completed"}, nil), "1.2"))
	head := load(withEvidence(plan, "1.2", "2.1"))
	r := eval(Evidence{}, &Input{Phase: 2, Phases: []int{2}, Base: base, Head: head})
	if r.Outcome != Passed || hasRule(r, RuleEvidenceDependsOpen) {
		t.Errorf("evidence judged phase 1 while checking phase 2: %s (%s)\n%s", r.Outcome, r.Title, findingsText(r))
	}
	if lint := eval(PlanLint{}, &Input{Phase: 2, Base: base, Head: head}); !hasRule(lint, RulePlanLintDependsOpen) {
		t.Errorf("plan-lint rules %v, want %s", rules(lint), RulePlanLintDependsOpen)
	}
}

// TestTaskOrderOddPlans: odd ids, duplicate ids and very long chains do not
// panic and stay linear.
func TestTaskOrderOddPlans(t *testing.T) {
	long := strings.Repeat("9", 5000)
	chain := func(n int, loop bool) string {
		var tasks []string
		for i := 1; i <= n; i++ {
			dep := fmt.Sprintf(`"1.%d"`, i+1)
			if i == n {
				dep = ""
				if loop {
					dep = `"1.1"`
				}
			}
			tasks = append(tasks, fmt.Sprintf(`{"id":"1.%d","phase":1,"status":"completed","description":"d","depends":[%s]}`, i, dep))
		}
		return lintPlan("T", lintPhase(1, "A", tasks...))
	}
	cases := []struct {
		name, plan, mention string
	}{
		{"an empty task id depending on itself", lintPlan("T", lintPhase(1, "A", `{"id":"","phase":1,"status":"completed","description":"d","depends":[""]}`)),
			`task "" depends on itself`},
		{"a very long dependency id", lintPlan("T", lintPhase(1, "A", `{"id":"1.1","phase":1,"status":"completed","description":"d","depends":["`+long+`"]}`)),
			"depends on missing " + depID(long)},
		{"duplicate task ids", lintPlan("T", lintPhase(1, "A", `{"id":"1.1","phase":1,"status":"completed","description":"d","depends":["1.2"]}`, `{"id":"1.2","phase":1,"status":"pending","description":"d","depends":[]}`, `{"id":"1.2","phase":1,"status":"completed","description":"d","depends":["1.1"]}`)),
			"depends on 1.2, which is pending"},
		{"a chain of 4000 tasks", chain(4000, false), ""},
		{"a loop of 4000 tasks", chain(4000, true), "circular dependency 1.1 → 1.2 → 1.3 → 1.4 → 1.5 → 1.6 → 1.7 → 1.8 → 1.9 → 1.10 → … 3989 more … → 1.4000 → 1.1"},
	}
	evidenceCannot := map[string]string{"duplicate task ids": "task 1.2 appears 2 times"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := load(fstest.MapFS{".swarm/plan.json": {Data: []byte(c.plan)}})
			if head.PlanErr != nil {
				t.Fatal(head.PlanErr)
			}
			start := time.Now()
			for _, g := range []Gate{PlanLint{}, Evidence{}} {
				r := eval(g, &Input{Phase: 1, Head: head})
				if r.Outcome == Error && strings.Contains(r.Title, "internal error") {
					t.Fatalf("%s: %s", g.Name(), r.Title)
				}
				if m, ok := evidenceCannot[c.name]; ok && g.Name() == (Evidence{}).Name() {
					// A task id held twice: swarm/evidence cannot tell which
					// one to check (TestDuplicatePhaseOrTaskID).
					if r.Outcome != Error || !strings.Contains(r.Title, m) {
						t.Errorf("%s: %s %q, want could not evaluate with %q", g.Name(), r.Outcome, r.Title, m)
					}
					continue
				}
				if c.mention != "" && !strings.Contains(findingsText(r), c.mention) {
					t.Errorf("%s findings do not mention %q:\n%s", g.Name(), c.mention, clipN(findingsText(r), 2000))
				}
				if c.mention == "" && (hasRule(r, RulePlanLintDependsLoop) || hasRule(r, RuleEvidenceDependsLoop) || hasRule(r, RulePlanLintDependsOpen)) {
					t.Errorf("%s: task-order findings in a clean chain:\n%s", g.Name(), clipN(findingsText(r), 2000))
				}
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

// TestTaskOrderFindingsBounded: a depends list of thousands of ids gives at
// most maxDependsProblems findings and one that counts the rest, fails
// closed when the rest hold errors, and matches the same overflow on the
// merge base only.
func TestTaskOrderFindingsBounded(t *testing.T) {
	deps := func(phase, n int) string {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf(`"%d.%d"`, phase, 1000+i)
		}
		return strings.Join(ids, ",")
	}
	// 1.1 depends first on missing ids of phase 9 (warnings), then on
	// missing ids of its own phase (errors), all past the limit.
	plan := func(cross, same int) string {
		d := deps(9, cross)
		if same > 0 {
			d += "," + deps(1, same)
		}
		return lintPlan("T", lintPhase(1, "A", `{"id":"1.1","phase":1,"status":"completed","description":"d","depends":[`+d+`]}`), lintPhase(9, "B"))
	}
	cases := []struct {
		name        string
		cross, same int
		evidence    Outcome
		notShown    int // problems the not-shown finding counts
	}{
		{"under the limit", 10, 0, Passed, 0},
		{"past the limit, warnings only", 5000, 0, Passed, 4800},
		{"errors only past the limit", maxDependsProblems, 3000, Failed, 3000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := load(withEvidence(plan(c.cross, c.same), "1.1"))
			if head.PlanErr != nil {
				t.Fatal(head.PlanErr)
			}
			for _, g := range []Gate{PlanLint{}, Evidence{}} {
				r := eval(g, &Input{Phase: 1, Head: head})
				if g.Name() == "swarm/evidence" && r.Outcome != c.evidence {
					t.Errorf("%s: %s (%s), want %s", g.Name(), r.Outcome, r.Title, c.evidence)
				}
				if len(r.Findings) > maxDependsProblems+2 {
					t.Errorf("%s: %d findings, want at most %d", g.Name(), len(r.Findings), maxDependsProblems+2)
				}
				want := ""
				if c.notShown > 0 {
					want = fmt.Sprintf("%d task-order problems more not shown", c.notShown)
				}
				if got := findingsText(r); want != "" && !strings.Contains(got, want) || want == "" && strings.Contains(got, "not shown") {
					t.Errorf("%s: findings do not say %q:\n%s", g.Name(), want, clipN(got, 600))
				}
			}
		})
	}
	// The overflow's key is the same for the same omitted problems only.
	key := func(p string) string {
		r := eval(Evidence{}, &Input{Phase: 1, Head: load(withEvidence(p, "1.1"))})
		for _, f := range r.Findings {
			if f.Rule == RuleEvidenceDependsNotShown {
				return f.Key
			}
		}
		t.Fatalf("no %s finding: %s", RuleEvidenceDependsNotShown, r.Title)
		return ""
	}
	if a, b := key(plan(300, 300)), key(plan(300, 300)); a != b {
		t.Errorf("the same overflow has two keys: %q, %q", a, b)
	}
	if a, b := key(plan(300, 300)), key(plan(300, 301)); a == b {
		t.Errorf("an overflow with one more problem has the same key %q", a)
	}
}
