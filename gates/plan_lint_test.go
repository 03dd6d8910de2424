package gates

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

func TestPlanLintCorpus(t *testing.T) {
	cases := []struct {
		repo  string
		want  Outcome
		rules []string
	}{
		// One phase of 5 tasks, and 1.4 "Create automated tests for ...".
		{"basel-ax__saleor-tma-frontend", NotApplicable, []string{RulePlanLintFewPhases, RulePlanLintTestTask}},
		// Phase 3 is six "Create tests/unit/... with tests for ..." tasks.
		{"micschr0__photochron", NotApplicable, []string{RulePlanLintTestTask}},
		// One phase of 10 tasks.
		{"VerduzcoTristan__landingpage", NotApplicable, []string{RulePlanLintFewPhases}},
		{"phlawlessDevelopment__bomberz", Passed, nil},
		{"DediGadot__IMU-Parkinson", Passed, nil},
	}
	for _, c := range cases {
		t.Run(c.repo, func(t *testing.T) {
			r := eval(PlanLint{}, &Input{Phase: 1, Head: corpus(t, c.repo)})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			for _, rule := range c.rules {
				if !hasRule(r, rule) {
					t.Errorf("rules %v, want %s", rules(r), rule)
				}
			}
			for _, f := range r.Findings {
				if f.Severity != SeverityWarning {
					t.Errorf("advisory finding with severity %s", f.Severity)
				}
			}
		})
	}
}

func lintPlan(title string, phases ...string) string {
	return fmt.Sprintf(`{"schema_version":"1.0.0","title":%q,"swarm":"s","phases":[%s]}`, title, strings.Join(phases, ","))
}

func lintPhase(id int, name string, tasks ...string) string {
	return fmt.Sprintf(`{"id":%d,"name":%q,"tasks":[%s]}`, id, name, strings.Join(tasks, ","))
}

func lintTask(id, desc string, files ...string) string {
	fs := "[]"
	if len(files) > 0 {
		fs = `["` + strings.Join(files, `","`) + `"]`
	}
	return fmt.Sprintf(`{"id":%q,"phase":%s,"description":%q,"files_touched":%s}`, id, id[:1], desc, fs)
}

func TestPlanLintHandMade(t *testing.T) {
	ok := func(id string) string { return lintTask(id, "Add the parser") }
	three := []string{lintPhase(1, "A", ok("1.1"), ok("1.2")), lintPhase(2, "B", ok("2.1")), lintPhase(3, "C", ok("3.1"))}
	cases := []struct {
		name    string
		plan    string
		enforce bool
		want    Outcome
		rule    string
		mention string
		n       int // findings, when not 0
	}{
		{name: "a clean plan", plan: lintPlan("T", three...), want: Passed},
		{name: "a task touching 6 files", plan: lintPlan("T", lintPhase(1, "A", lintTask("1.1", "Refactor", "a", "b", "c", "d", "e", "f")), lintPhase(2, "B", ok("2.1"))),
			want: NotApplicable, rule: RulePlanLintLargeTask, mention: "touches 6 files"},
		{name: "5 files is fine", plan: lintPlan("T", lintPhase(1, "A", lintTask("1.1", "Refactor", "a", "b", "c", "d", "e")), lintPhase(2, "B", ok("2.1"))), want: Passed},
		{name: "5 tasks in a single phase", plan: lintPlan("T", lintPhase(1, "A", ok("1.1"), ok("1.2"), ok("1.3"), ok("1.4"), ok("1.5"))),
			want: NotApplicable, rule: RulePlanLintFewPhases, mention: "all 5 tasks in one phase"},
		{name: "10 tasks in 2 phases", plan: lintPlan("T", lintPhase(1, "A", ok("1.1"), ok("1.2"), ok("1.3"), ok("1.4"), ok("1.5")), lintPhase(2, "B", ok("2.1"), ok("2.2"), ok("2.3"), ok("2.4"), ok("2.5"))),
			want: NotApplicable, rule: RulePlanLintFewPhases, mention: "10 tasks in only 2 phases"},
		{name: "a placeholder in the title", plan: lintPlan("[Project] rewrite", three...), want: NotApplicable, rule: RulePlanLintPlaceholder, mention: "[Project]"},
		{name: "a placeholder in a phase name", plan: lintPlan("T", lintPhase(1, "[Phase Name]", ok("1.1")), three[1], three[2]), want: NotApplicable, rule: RulePlanLintPlaceholder, mention: "[Phase Name]"},
		{name: "a placeholder in a description", plan: lintPlan("T", lintPhase(1, "A", lintTask("1.1", "Implement [task] for the API")), three[1], three[2]), want: NotApplicable, rule: RulePlanLintPlaceholder, mention: "[task]"},
		{name: "links, indexes and check boxes are not placeholders", plan: lintPlan("T", lintPhase(1, "A", lintTask("1.1", "See [the docs](https://x) and fix args[index] - [x] done [SMALL]")), three[1], three[2]), want: Passed},
		// Item 8: only template words are placeholders, and not in code.
		{name: "a path segment in brackets is not a placeholder", plan: lintPlan("T", lintPhase(1, "A", lintTask("1.1", "Add app/[slug]/page.tsx and pages/[name].tsx routes")), three[1], three[2]), want: Passed},
		{name: "brackets in inline code are not placeholders", plan: lintPlan("T", lintPhase(1, "A", lintTask("1.1", "Handle the `[task]` literal and `a [description] b`")), three[1], three[2]), want: Passed},
		{name: "a bracketed word that is no template word", plan: lintPlan("T", lintPhase(1, "A", lintTask("1.1", "Fix [Component Name] rendering in [slug]")), three[1], three[2]), want: Passed},
		{name: "the plugin's words in any case", plan: lintPlan("T", lintPhase(1, "A", lintTask("1.1", "[Task]: see [description] by [date]")), three[1], three[2]),
			want: NotApplicable, rule: RulePlanLintPlaceholder, mention: "[description]"},
		{name: "a template word outside code beside one inside", plan: lintPlan("T", lintPhase(1, "A", lintTask("1.1", "Keep `[reason]`; explain [reason]")), three[1], three[2]),
			want: NotApplicable, rule: RulePlanLintPlaceholder, mention: "template placeholder [reason]"},
		{name: "a separate test task", plan: lintPlan("T", lintPhase(1, "A", ok("1.1"), lintTask("1.2", "Write unit tests for the parser")), three[1], three[2]),
			want: NotApplicable, rule: RulePlanLintTestTask, mention: "task 1.2 is a separate test-writing task"},
		{name: "a task that adds tests with its work is fine", plan: lintPlan("T", lintPhase(1, "A", lintTask("1.1", "Add the parser with tests")), three[1], three[2]), want: Passed},
		{name: "enforced", plan: lintPlan("[Project]", three...), enforce: true, want: Failed, rule: RulePlanLintPlaceholder},
		// A 14 MB description of "[task] " gave two million findings (1.3 GB).
		{name: "each placeholder once however often it is repeated", plan: lintPlan("T", lintPhase(1, "A", lintTask("1.1", strings.Repeat("[task] [Date] [TASK] ", 100000))), three[1], three[2]),
			want: NotApplicable, rule: RulePlanLintPlaceholder, mention: "template placeholder [Date]", n: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.PlanLint.Enforce = c.enforce
			r := eval(PlanLint{}, &Input{Phase: 1, Head: load(fstest.MapFS{".swarm/plan.json": {Data: []byte(c.plan)}}), Config: cfg})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			if c.rule != "" && !hasRule(r, c.rule) {
				t.Errorf("rules %v, want %s", rules(r), c.rule)
			}
			if !strings.Contains(findingsText(r), c.mention) {
				t.Errorf("findings do not mention %q:\n%s", c.mention, findingsText(r))
			}
			if c.n > 0 && len(r.Findings) != c.n {
				t.Errorf("%d findings, want %d", len(r.Findings), c.n)
			}
			if c.enforce && r.Findings[0].Severity != SeverityError {
				t.Errorf("enforced finding severity %s", r.Findings[0].Severity)
			}
		})
	}
}
