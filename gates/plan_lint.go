package gates

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// PlanLint is swarm/plan-lint: advisory checks of the head plan's shape
// against the plugin's planning protocol. It is advisory by default: its
// findings are warnings and the check is neutral (not_applicable); with
// `plan_lint: fail` they are errors and fail it. The rules:
//
//   - plan-lint/large-task: a task with 6 or more files_touched (a LARGE
//     task, a planning error in the protocol: split it); the size field is
//     the planner's own estimate and is not second-guessed;
//   - plan-lint/too-few-phases: a single-phase plan with 5 or more tasks, or
//     a plan of 10 or more tasks in fewer than 3 phases (each phase is a pull
//     request; too few phases make them too big to review);
//   - plan-lint/bracket-placeholder: a template placeholder in brackets left
//     in the plan title, a phase name or a task description: the plugin's
//     placeholder_scan plan words ([task], [Project], [date], [reason],
//     [description]) and the slot names of plan templates (templateWords),
//     any case, outside inline code; other bracketed words ([slug] in
//     app/[slug]/page.tsx, [x] check boxes, links, indexes) are not
//     placeholders;
//   - plan-lint/separate-test-task: a task that only writes tests ("Write
//     tests for X"): the protocol has test_engineer test each task within it;
//   - plan-lint/completed-before-dependency: a completed task whose depends
//     names a task that is not completed (or closed), naming the task, the
//     dependency and its status;
//   - plan-lint/missing-dependency: a depends id that names no task;
//   - plan-lint/circular-dependency: tasks whose depends loop back to them
//     (a task that depends on itself included), named in depends order.
//
// The depends rules (task_order.go) are swarm/evidence's too, where they
// fail for the completed tasks it checks.
type PlanLint struct{}

// Name implements Gate.
func (PlanLint) Name() string { return "swarm/plan-lint" }

// Rule ids of swarm/plan-lint findings.
const (
	RulePlanLintLargeTask   = "plan-lint/large-task"
	RulePlanLintFewPhases   = "plan-lint/too-few-phases"
	RulePlanLintPlaceholder = "plan-lint/bracket-placeholder"
	RulePlanLintTestTask    = "plan-lint/separate-test-task"
	RulePlanLintDependsOpen = "plan-lint/completed-before-dependency"
	RulePlanLintDependsGone = "plan-lint/missing-dependency"
	RulePlanLintDependsLoop = "plan-lint/circular-dependency"
	RulePlanLintDependsMore = "plan-lint/task-order-not-shown"
)

// planLintDependsRules are plan-lint's rules for the task-order problems.
var planLintDependsRules = map[dependsKind]string{
	dependsOpen: RulePlanLintDependsOpen, dependsMissing: RulePlanLintDependsGone, dependsCycle: RulePlanLintDependsLoop,
}

// largeTaskFiles is the files_touched count from which a task is LARGE.
const largeTaskFiles = 6

// templateWords are the bracketed words that are template placeholders, in
// lower case: the five of the plugin's placeholder_scan plan rules
// (PLAN_PLACEHOLDER_PATTERNS in src/tools/placeholder-scan.ts: [task],
// [Project], [date], [reason], [description]), plus the slot names a plan
// copied from a template keeps ([Phase Name], [Task description], ...). A
// bracketed word outside this list ([slug], [id], [Component]) is a path
// segment, a literal or prose, not a placeholder.
var templateWords = map[string]bool{
	"task": true, "project": true, "date": true, "reason": true, "description": true,
	"name": true, "title": true, "phase name": true, "phase title": true, "task name": true, "task description": true,
	"project name": true, "feature name": true, "tbd": true, "todo": true, "placeholder": true,
}

var (
	// bracketPlaceholder is a bracketed word or short phrase: [task],
	// [Project], [Feature Name]. Markdown links ([x](url)), check boxes and
	// indexes (a[i]) are told apart by the caller.
	bracketPlaceholder = regexp.MustCompile(`\[([A-Za-z][A-Za-z0-9 _./-]{1,38}[A-Za-z0-9_])\]`)
	// inlineCodeSpan is a Markdown code span on one line.
	inlineCodeSpan = regexp.MustCompile("`+[^`]*`+")
	testOnlyTask   = regexp.MustCompile(`(?i)^\s*(?:(?:write|add|create|implement|author)\s+(?:the\s+|some\s+|more\s+)?(?:(?:unit|integration|e2e|end-to-end|automated|regression|component|acceptance|smoke)\s+)*tests?\b|(?:unit\s+|integration\s+)?tests?\s+for\b)`)
)

// Evaluate implements Gate.
func (g PlanLint) Evaluate(_ context.Context, in *Input) Result {
	if r, ok := noPlan(g.Name(), in); ok {
		return r
	}
	plan, err := headPlan(in)
	if err != nil {
		return CouldNotEvaluate(g.Name(), err)
	}
	enforce := in.config().PlanLint.Enforce
	sev := SeverityWarning
	if enforce {
		sev = SeverityError
	}
	var findings []Finding
	add := func(line int, rule, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		findings = append(findings, Finding{Path: swarm.PlanPath, Line: line, EndLine: line, Rule: rule, Severity: sev, Message: msg, Key: fkey(rule, msg)})
	}
	total := 0
	for _, ph := range plan.Phases {
		total += len(ph.Tasks)
	}
	firstLine := 0
	if len(plan.Phases) > 0 {
		firstLine = plan.Phases[0].Line
	}
	switch {
	case len(plan.Phases) == 1 && total >= 5:
		add(firstLine, RulePlanLintFewPhases, "the plan puts all %d tasks in one phase: split it into phases (each phase is one pull request)", total)
	case total >= 10 && len(plan.Phases) < 3:
		add(firstLine, RulePlanLintFewPhases, "the plan has %d tasks in only %d phases: use at least 3 phases for 10 or more tasks", total, len(plan.Phases))
	}
	for _, p := range bracketPlaceholders(plan.Title) {
		add(0, RulePlanLintPlaceholder, "the plan title has the template placeholder %s", p)
	}
	for _, ph := range plan.Phases {
		for _, p := range bracketPlaceholders(ph.Name) {
			add(ph.Line, RulePlanLintPlaceholder, "phase %d's name has the template placeholder %s", ph.ID, p)
		}
		for _, t := range ph.Tasks {
			if len(t.FilesTouched) >= largeTaskFiles {
				add(t.Line, RulePlanLintLargeTask, "task %s touches %d files (%d or more make a LARGE task, a planning error in the protocol): split it", t.ID, len(t.FilesTouched), largeTaskFiles)
			}
			for _, p := range bracketPlaceholders(t.Description) {
				add(t.Line, RulePlanLintPlaceholder, "task %s's description has the template placeholder %s", t.ID, p)
			}
			if testOnlyTask.MatchString(t.Description) {
				add(t.Line, RulePlanLintTestTask, "task %s is a separate test-writing task (%q): the protocol has test_engineer test each task as part of it; fold these tests into the tasks they test", t.ID, clipN(t.Description, 80))
			}
		}
	}
	problems, more := dependsProblems(plan, func(*swarm.Task, int) bool { return true })
	for _, p := range problems {
		rule := planLintDependsRules[p.kind]
		findings = append(findings, Finding{Path: swarm.PlanPath, Line: p.task.Line, EndLine: p.task.Line, Rule: rule, Severity: sev, Message: p.message(), Key: p.key(rule)})
	}
	findings = append(findings, more.finding(RulePlanLintDependsMore, sev)...)
	mode := "advisory (the default): findings are warnings and the check is neutral; `plan_lint: fail` in the policy enforces them"
	if enforce {
		mode = "enforced (`plan_lint: fail`)"
	}
	summary := fmt.Sprintf("Linted %s: %s in %s. Mode: %s.", mdtext.Code(swarm.PlanPath), plural(total, "task", "tasks"), plural(len(plan.Phases), "phase", "phases"), mode)
	switch {
	case len(findings) == 0:
		return Result{Outcome: Passed, Title: fmt.Sprintf("the plan's %s and %s pass the planning lint", plural(len(plan.Phases), "phase", "phases"), plural(total, "task", "tasks")), Summary: summary, Findings: []Finding{}}
	case enforce:
		return Result{Outcome: Failed, Title: fmt.Sprintf("%s in the plan", plural(len(findings), "planning problem", "planning problems")), Summary: summary, Findings: findings}
	}
	return Result{Outcome: NotApplicable, Title: fmt.Sprintf("advisory: %s in the plan (not enforced)", plural(len(findings), "planning problem", "planning problems")), Summary: summary, Findings: findings}
}

// bracketPlaceholders returns the template placeholders in s, each word
// once (the first occurrence, in any case): bracketed
// templateWords outside inline code, skipping Markdown links, indexes (a[i],
// x[0]) and path segments (app/[name]/page.tsx, pages/[name].tsx).
func bracketPlaceholders(s string) []string {
	// Blank out code spans, keeping offsets.
	s = inlineCodeSpan.ReplaceAllStringFunc(s, func(c string) string { return strings.Repeat(" ", len(c)) })
	var out []string
	seen := map[string]bool{} // each placeholder once: a description may repeat one a million times
	for pos := 0; pos < len(s); {
		m := bracketPlaceholder.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		for i := range m {
			m[i] += pos
		}
		pos = m[1]
		start, end := m[0], m[1]
		if start > 0 {
			if c := s[start-1]; c == '_' || c == ']' || c == ')' || c == '/' || c == '\\' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
				continue
			}
		}
		if end < len(s) && (s[end] == '(' || s[end] == '/' || s[end] == '\\') {
			continue
		}
		if end+1 < len(s) && s[end] == '.' && isIdentByte(s[end+1]) {
			continue // a file name: [name].tsx
		}
		word := strings.ToLower(s[m[2]:m[3]])
		if !templateWords[word] || seen[word] {
			continue
		}
		seen[word] = true
		out = append(out, s[start:end])
	}
	return out
}

// isIdentByte reports whether c is an ASCII letter, digit or underscore.
func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}
