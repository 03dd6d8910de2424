package gates

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/sast"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// Evidence is swarm/evidence: every task of the phase marked completed at
// head, and every task of any other phase that this pull request marks
// completed (it was not completed at the merge base), has evidence for each
// of its required gates, and the newest record of each says it passed.
//
// It reads the three forms the plugin has written (spec section 8.1):
//   - the gate file .swarm/evidence/{taskId}.json {taskId, required_gates,
//     gates:{<gate>:{sessionId, timestamp, agent, verdict?}}} (the plugin's
//     src/gate-evidence.ts; task_id is accepted for taskId): required_gates
//     must be non-empty and each must have a record (hasPassedAllGates);
//   - the legacy flat file .swarm/evidence/{taskId}.json {task_id, type,
//     verdict?}, one record of gate type;
//   - the task bundle .swarm/evidence/{taskId}/evidence.json {task_id,
//     entries:[{type, verdict, timestamp}]} (src/evidence/manager.ts), and
//     its variant with top-level {reviewer:{verdict}, test_engineer:{verdict}}.
//
// Record types review and test count for reviewer and test_engineer (the
// plugin's evidence_check aliases). A task without a gate file needs
// reviewer and test_engineer (those of them the QA gate profile has on).
// Verdicts are read from verdict fields only (verdict, or result), never from
// summaries, case-insensitively: the newest record of a gate decides (by
// timestamp when every record has one, else in file order); a record with
// no verdict counts as a pass, as the plugin counts presence; a verdict that
// is not a string (false, null, ["rejected"], {...}) or a word that is
// neither approving nor rejecting fails closed. A task whose id is not of
// the plugin's form (N.N[.N...], swarm.TaskIDPattern) fails: the plugin
// reads no evidence for it. A bundle whose task_id names another task is
// unreadable, like a gate file whose taskId does not match its name.
//
// The same completed tasks are checked against their depends (task
// order, task_order.go): a dependency that is not completed (or closed),
// one that names no task, and a circular dependency the task is part of.
// Each fails when the dependency is in the task's own phase (for a missing
// one: when its id names that phase; for a loop: when all of it is) and is
// a warning across phases, where the other phase's pull request may be the
// one to fix it.
type Evidence struct{}

// Name implements Gate.
func (Evidence) Name() string { return "swarm/evidence" }

// Rule ids of swarm/evidence findings.
const (
	RuleEvidenceMissing = "evidence/missing"
	RuleEvidenceNoGates = "evidence/no-required-gates"
	// RuleEvidenceGatesShrank is a gate file whose required_gates lost a
	// gate the merge base's version lists: the plugin only ever adds to it.
	RuleEvidenceGatesShrank         = "evidence/required-gates-shrank"
	RuleEvidenceGatesNarrow         = "evidence/required-gates-without-review"
	RuleEvidenceGateMissing         = "evidence/gate-missing"
	RuleEvidenceRejected            = "evidence/rejected"
	RuleEvidenceUnrecognizedVerdict = "evidence/unrecognized-verdict"
	RuleEvidenceInvalidTaskID       = "evidence/invalid-task-id"
	RuleEvidenceDependsOpen         = "evidence/completed-before-dependency"
	RuleEvidenceDependsGone         = "evidence/missing-dependency"
	RuleEvidenceDependsLoop         = "evidence/circular-dependency"
	RuleEvidenceDependsNotShown     = "evidence/task-order-not-shown"
	RuleEvidenceDuplicateKey        = "evidence/duplicate-key"
	// RuleEvidenceClosedByPR is a task the pull request marks closed: the
	// plugin's /swarm close sets that on unfinished work, and a closed task
	// needs no evidence (issue 20, weaknesses item 2).
	RuleEvidenceClosedByPR = "evidence/closed-by-pull-request"
	// RuleEvidencePredatesPR is a task the pull request completes whose
	// newest review or test record is already on the merge base while the
	// pull request changes the task's files (issue 20, weaknesses item 3).
	RuleEvidencePredatesPR = "evidence/predates-pull-request"
)

// evidenceDependsRules are swarm/evidence's rules for the task-order
// problems.
var evidenceDependsRules = map[dependsKind]string{
	dependsOpen: RuleEvidenceDependsOpen, dependsMissing: RuleEvidenceDependsGone, dependsCycle: RuleEvidenceDependsLoop,
}

// Evaluate implements Gate.
func (g Evidence) Evaluate(_ context.Context, in *Input) Result {
	if r, ok := noPlan(g.Name(), in); ok {
		return r
	}
	plan, phase, err := headPhase(in)
	if err != nil {
		return CouldNotEvaluate(g.Name(), err)
	}
	phases := phasesUnderCheck(in, plan, phase)
	completed := tasksToCheck(in, phases)
	closed := closedByPR(in)
	if len(completed) == 0 && len(closed) > 0 {
		return Result{Outcome: Failed, Title: closedTitle(closed), Findings: closed,
			Summary: "No task is completed; " + closedSummary}
	}
	if len(completed) == 0 {
		n := 0
		for _, ph := range phases {
			n += len(ph.Tasks)
		}
		return Result{Outcome: NotApplicable, Title: fmt.Sprintf("no completed tasks in %s yet", phaseList(phases)),
			Summary: fmt.Sprintf("%s %s %s, none marked completed, so no evidence is required yet.", upperFirst(phaseList(phases)), verbS(len(phases), "has", "have"), plural(n, "task", "tasks"))}
	}
	if in.Head.Evidence.DirErr != nil {
		return CouldNotEvaluate(g.Name(), in.Head.Evidence.DirErr)
	}
	if in.Head.LedgerErr != nil {
		// The ledger dates the tasks' definitions: without it stale
		// evidence would pass.
		return CouldNotEvaluate(g.Name(), in.Head.LedgerErr)
	}
	var findings []Finding
	var unreadable []error
	ok := 0
	defs := headDefinitions(in)
	for _, t := range completed {
		te := checkTaskEvidence(in, t, defs)
		findings = append(findings, te.findings...)
		if te.unreadable != nil {
			unreadable = append(unreadable, te.unreadable)
		} else if te.ok {
			ok++
		}
	}
	summary := fmt.Sprintf("Checked %s (those of %s, and those of other phases this pull request completes): %s; %d with all required gate evidence.",
		plural(len(completed), "completed task", "completed tasks"), phaseList(phases), listSome(codes(taskIDs(completed)), 30), ok)
	if len(phases) > 1 {
		summary += fmt.Sprintf(" The pull request changes the status of tasks of %s, so each is checked.", phaseList(phases))
	}
	summary += "\n\nVerdicts are read from the records' verdict fields (the newest record of each gate decides), never from summaries. A task without a gate file needs " +
		strings.Join(defaultRequiredGates(in.config().QAGates), " and ") + " (" + in.config().qaProfileSource() + ")."
	order, orderErrs := taskOrderFindings(plan, completed)
	if len(order) > 0 {
		summary += "\n\nTask order: a completed task's depends must be completed (or closed), name tasks of the plan and not loop back to it; this fails when the dependency is in the task's own phase and is a warning across phases."
	}
	if len(unreadable) > 0 {
		r := CouldNotEvaluate(g.Name(), unreadable[0])
		r.Summary += "\n\n" + summary
		r.Findings = append(r.Findings, findings...)
		r.Findings = append(r.Findings, order...)
		return r
	}
	failedTasks := len(completed) - ok
	findings = append(findings, order...)
	findings = append(findings, closed...)
	if len(closed) > 0 {
		summary += "\n\n" + upperFirst(closedSummary)
	}
	switch {
	case failedTasks > 0:
		title := fmt.Sprintf("%s without passing evidence", plural(failedTasks, "completed task", "completed tasks"))
		if orderErrs > 0 {
			title += fmt.Sprintf("; %s", plural(orderErrs, "task-order problem", "task-order problems"))
		}
		if len(closed) > 0 {
			title += "; " + closedTitle(closed)
		}
		summary += "\n\nNext step: for each task a finding names, have the agent run the gate it names (reviewer, test_engineer, ...) again on the finished work and commit the evidence that writes under `.swarm/evidence/`, or set the task back to in_progress until it passes."
		return Result{Outcome: Failed, Title: title, Summary: summary, Findings: findings}
	case len(closed) > 0:
		return Result{Outcome: Failed, Title: closedTitle(closed), Summary: summary, Findings: findings}
	case orderErrs > 0:
		title := plural(orderErrs, "task-order problem", "task-order problems") + ": "
		for _, f := range order {
			if f.Severity == SeverityError {
				title += clipN(f.Message, 120)
				break
			}
		}
		return Result{Outcome: Failed, Title: title, Summary: summary, Findings: findings}
	}
	title := fmt.Sprintf("all %s have their gate evidence", plural(len(completed), "completed task", "completed tasks"))
	if len(completed) == 1 {
		title = "the completed task has its gate evidence"
	}
	if len(order) > 0 {
		title += fmt.Sprintf(" (%s about task order)", plural(len(order), "warning", "warnings"))
	}
	if findings == nil {
		findings = []Finding{}
	}
	return Result{Outcome: Passed, Title: title, Summary: summary, Findings: findings}
}

// closedSummary explains RuleEvidenceClosedByPR in a gate's summary.
const closedSummary = "a task this pull request marks closed needs no evidence and counts as finished for its phase, but in the plugin only a person's `/swarm close` sets closed, on the tasks a session leaves unfinished (close_reason `session_terminated`; no agent tool can set it), so swarm/evidence fails on it."

// closedByPR are the findings for the tasks of the head plan, in any phase,
// that the pull request marks closed: closed at head, not closed (or
// absent) on the merge base. The plugin sets closed only in /swarm close,
// a person's command that marks every unfinished task closed
// (close_reason "session_terminated") and then removes plan.json; its
// update_task_status tool offers pending, in_progress, completed and
// blocked. A closed task needs no evidence and counts as done for its
// phase (phase-wrap, the plan's current phase), so closing one is how
// unfinished, unreviewed work would pass as finished.
func closedByPR(in *Input) []Finding {
	var out []Finding
	for _, ph := range in.Head.Plan.Phases {
		for _, t := range ph.Tasks {
			if t.Status != "closed" {
				continue
			}
			was := "the merge base has no plan"
			if bp := in.Base.Plan; bp != nil {
				was = "the merge base has no such task"
				if bt, _ := bp.FindTask(t.ID); bt != nil {
					if bt.Status == "closed" {
						continue
					}
					was = "it was " + bt.Status + " on the merge base"
				}
			}
			out = append(out, Finding{Path: swarm.PlanPath, Line: t.Line, EndLine: t.Line, Rule: RuleEvidenceClosedByPR, Severity: SeverityError,
				Key: fkey(RuleEvidenceClosedByPR, t.ID),
				Message: fmt.Sprintf("task %s is marked closed by this pull request (%s), so it needs no evidence and counts as finished for phase %d: in the plugin only a person's `/swarm close` sets closed, on work left unfinished (close_reason \"session_terminated\"), and no agent tool can set it. If the work is done, mark it completed and record its review and test evidence; if it is set aside, mark it blocked with a blocked_reason",
					t.ID, was, ph.ID)})
		}
	}
	return out
}

// closedTitle is a gate title for RuleEvidenceClosedByPR findings.
func closedTitle(closed []Finding) string {
	ids := make([]string, 0, len(closed))
	for _, f := range closed {
		ids = append(ids, strings.Split(f.Key, "\x00")[1])
	}
	return fmt.Sprintf("%s marked closed by this pull request without evidence (%s): closed is /swarm close's mark for unfinished work", plural(len(closed), "task", "tasks"), listSome(ids, 8))
}

// taskOrderFindings are the task-order problems of the completed tasks
// swarm/evidence checks: errors when the dependency is in the task's own
// phase, warnings across phases; errs counts the errors.
func taskOrderFindings(plan *swarm.Plan, completed []swarm.Task) (findings []Finding, errs int) {
	judged := map[string]bool{}
	for _, t := range completed {
		judged[t.ID] = true
	}
	problems, more := dependsProblems(plan, func(t *swarm.Task, _ int) bool { return t.Status == "completed" && judged[t.ID] })
	for _, p := range problems {
		rule := evidenceDependsRules[p.kind]
		sev := SeverityWarning
		if p.samePhase {
			sev = SeverityError
			errs++
		}
		findings = append(findings, Finding{Path: swarm.PlanPath, Line: p.task.Line, EndLine: p.task.Line, Rule: rule, Severity: sev, Message: p.message(), Key: p.key(rule)})
	}
	sev := SeverityWarning
	if more.samePhase > 0 {
		sev = SeverityError
		errs += more.samePhase
	}
	return append(findings, more.finding(RuleEvidenceDependsNotShown, sev)...), errs
}

// tasksToCheck are the completed tasks of the phase plus the tasks of other
// phases that the pull request marks completed: a pull request must not be
// able to complete another phase's tasks without evidence by naming a
// different phase. When the merge base's plan is missing or unreadable,
// every completed task of the head plan counts as newly completed.
func tasksToCheck(in *Input, phases []*swarm.Phase) []swarm.Task {
	var out []swarm.Task
	checked := map[int]bool{}
	for _, phase := range phases {
		checked[phase.ID] = true
		for _, t := range phase.Tasks {
			if t.Status == "completed" {
				out = append(out, t)
			}
		}
	}
	base := in.Base.Plan
	for _, ph := range in.Head.Plan.Phases {
		if checked[ph.ID] {
			continue
		}
		for _, t := range ph.Tasks {
			if t.Status != "completed" {
				continue
			}
			if base != nil {
				if bt, _ := base.FindTask(t.ID); bt != nil && bt.Status == "completed" {
					continue
				}
			}
			out = append(out, t)
		}
	}
	return out
}

// defaultRequiredGates are the gates a completed task without a gate file
// needs: the plugin's evidence_check defaults, reviewer and test_engineer,
// those of them the QA gate profile has on.
func defaultRequiredGates(q QAGates) []string {
	var out []string
	if q.Reviewer {
		out = append(out, "reviewer")
	}
	if q.TestEngineer {
		out = append(out, "test_engineer")
	}
	return out
}

// gateName normalises a gate or evidence type to the gate it counts for:
// lower case, review -> reviewer, test -> test_engineer.
func gateName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "review":
		return "reviewer"
	case "test":
		return "test_engineer"
	}
	return s
}

// evidenceRecord is one record that a task passed (or did not pass) a gate.
type evidenceRecord struct {
	gate, verdict, file string
	invalid             string // a verdict that is not a string, as JSON
	line                int    // line of the verdict field, else of the record
	at                  time.Time
	timed               bool
	ts                  string // the timestamp as written ("" when absent)
	agent               string
	bundle              bool // an EvidenceBundle entry, whose schema requires a verdict
}

// taskEvidence is what the evidence files say about one completed task.
type taskEvidence struct {
	ok         bool
	findings   []Finding
	unreadable error
	files      []string // the evidence files read
	agents     []string // agents and gates the records name
}

// checkTaskEvidence applies swarm/evidence's rule to one completed task.
func checkTaskEvidence(in *Input, t swarm.Task, defs map[string]taskDefinition) taskEvidence {
	var te taskEvidence
	ev := in.Head.Evidence
	gateFile := swarm.EvidenceDir + "/" + t.ID + ".json"
	bundlePath := swarm.TaskBundlePath(t.ID)
	tg, err := ev.TaskGateFile(t.ID)
	if err != nil {
		te.unreadable = err
		return te
	}
	tb, err := ev.Bundle(bundlePath)
	if err != nil {
		te.unreadable = err
		return te
	}
	onPlan := func(rule, msg string, about ...string) {
		te.findings = append(te.findings, Finding{Path: swarm.PlanPath, Line: t.Line, EndLine: t.Line, Rule: rule, Severity: SeverityError, Message: msg,
			Key: fkey(rule, append([]string{t.ID}, about...)...)})
	}
	if !swarm.ValidTaskID(t.ID) {
		var present []string
		for _, f := range []string{gateFile, bundlePath} {
			if slices.Contains(ev.Files, f) {
				present = append(present, f)
			}
		}
		skipped := fmt.Sprintf("neither %s nor %s would count", gateFile, bundlePath)
		if len(present) > 0 {
			skipped = strings.Join(present, " and ") + " was skipped"
		}
		onPlan(RuleEvidenceInvalidTaskID, fmt.Sprintf("task %s is completed, but %q is not a valid task id (the plugin's pattern %s, e.g. 1.2 or 2.1.3): the plugin reads no evidence for it, so %s; renumber the task",
			t.ID, t.ID, swarm.TaskIDPattern, skipped))
		return te
	}
	if tg == nil && tb == nil {
		onPlan(RuleEvidenceMissing, fmt.Sprintf("task %s is completed but has no evidence: neither %s nor %s exists", t.ID, gateFile, bundlePath))
		return te
	}
	// A repeated "verdict" shows a reader one value while the plugin reads
	// the other.
	dupFailed := false
	dupKeys := func(path string, dups []swarm.DuplicateKey) {
		for _, d := range dups {
			dupFailed = true
			te.findings = append(te.findings, duplicateKeyFinding(RuleEvidenceDuplicateKey, path, d, "task "+t.ID+": ", "in one object of "+path,
				"record the evidence through the plugin", t.ID, path))
		}
	}
	if tg != nil {
		dupKeys(gateFile, tg.DuplicateKeys)
	}
	if tb != nil {
		dupKeys(bundlePath, tb.DuplicateKeys)
	}
	var recs []evidenceRecord
	add := func(gate, verdict, invalid, file string, line int, ts, agent string, bundle bool) {
		at, timed := parseISOTime(ts)
		recs = append(recs, evidenceRecord{gate: gateName(gate), verdict: verdict, invalid: invalid, file: file, line: line, at: at, timed: timed, ts: ts, agent: agent, bundle: bundle})
	}
	var required []string
	switch {
	case tg != nil && !tg.Legacy:
		te.files = append(te.files, gateFile)
		if len(tg.RequiredGates) == 0 {
			onPlan(RuleEvidenceNoGates, fmt.Sprintf("task %s is completed but %s lists no required_gates, so no gate can have passed", t.ID, gateFile))
			return te
		}
		for _, g := range tg.RequiredGates {
			required = append(required, gateName(g))
		}
		// required_gates is grow-only in the plugin: a gate the merge
		// base's file requires and the head's dropped is still required.
		if in.Base != nil && in.Base.Evidence != nil {
			if btg, err := in.Base.Evidence.TaskGateFile(t.ID); err == nil && btg != nil && !btg.Legacy {
				var dropped []string
				for _, g := range btg.RequiredGates {
					if g = gateName(g); !slices.Contains(required, g) {
						dropped = append(dropped, g)
					}
				}
				if len(dropped) > 0 {
					required = append(required, dropped...)
					onPlan(RuleEvidenceGatesShrank, fmt.Sprintf("task %s: %s no longer lists %s in required_gates, which the merge base's version requires; the plugin only ever adds to required_gates, so the file was edited by hand, and those gates are still required",
						t.ID, gateFile, strings.Join(dropped, ", ")), dropped...)
				}
			}
		}
		// The plugin derives required_gates from the first agent
		// dispatched; every list for code work (coder, designer, an
		// unknown agent) holds reviewer. A list without it for a task
		// whose files are code ([docs], [explorer]) lets code through
		// unreviewed and untested: the QA profile's gates still apply.
		if !slices.Contains(required, "reviewer") {
			if code := taskCodeFiles(in, t); len(code) > 0 {
				var added []string
				for _, g := range defaultRequiredGates(in.config().QAGates) {
					if !slices.Contains(required, g) {
						added = append(added, g)
					}
				}
				if len(added) > 0 {
					required = append(required, added...)
					onPlan(RuleEvidenceGatesNarrow, fmt.Sprintf("task %s: %s requires only %s, which the plugin writes when the first agent dispatched was not a coder, but the task's files are code (%s): %s still required, as the QA gate profile says",
						t.ID, gateFile, strings.Join(tg.RequiredGates, ", "), listSome(codeAll(code), 3), strings.Join(added, " and ")), added...)
				}
			}
		}
	default:
		required = defaultRequiredGates(in.config().QAGates)
	}
	if tg != nil {
		if tg.Legacy {
			te.files = append(te.files, gateFile)
		}
		for _, g := range tg.Gates {
			add(g.Name, g.Verdict, g.VerdictInvalid, gateFile, g.VerdictLine, g.Timestamp, g.Agent, false)
		}
	}
	if tb != nil {
		te.files = append(te.files, bundlePath)
		for _, e := range tb.Entries {
			if e.Type != "" {
				add(e.Type, e.Verdict, e.VerdictInvalid, bundlePath, e.FieldLine("verdict"), e.Timestamp, e.Agent, true)
			}
		}
		for _, g := range tb.Gates {
			add(g.Name, g.Verdict, g.VerdictInvalid, bundlePath, g.VerdictLine, g.Timestamp, g.Agent, true)
		}
	}
	allTimed := true
	for _, r := range recs {
		allTimed = allTimed && r.timed
		te.agents = append(te.agents, r.gate)
		if r.agent != "" {
			te.agents = append(te.agents, gateName(r.agent))
		}
	}
	if allTimed {
		slices.SortStableFunc(recs, func(a, b evidenceRecord) int { return a.at.Compare(b.at) })
	}
	where := strings.Join(te.files, " and ")
	var missing []string
	failed := false
	var predates []string // "gate (file, timestamp)" of records carried from the merge base
	for _, gate := range uniqueInOrder(required) {
		var last *evidenceRecord
		for i := range recs {
			if recs[i].gate == gate {
				last = &recs[i]
			}
		}
		if last == nil {
			missing = append(missing, gate)
			continue
		}
		if last.ts != "" && !last.timed {
			te.unreadable = &swarm.ArtifactError{Path: last.file, Line: last.line,
				Err: fmt.Errorf("task %s: the newest %s record's timestamp %q is not an ISO 8601 time, so it cannot be ordered or dated", t.ID, gate, last.ts)}
			return te
		}
		if f := staleEvidence(&t, gate, last, defs[t.ID], defs[t.ID] != (taskDefinition{}), in.HeadTime); f != nil {
			failed = true
			te.findings = append(te.findings, *f)
			continue
		}
		if carried := carriedFromBase(in, t, gate, last); carried != nil {
			predates = append(predates, carried...)
		}
		if last.bundle && last.invalid == "" && last.verdict == "" {
			failed = true
			te.findings = append(te.findings, Finding{Path: last.file, Line: last.line, EndLine: last.line, Rule: RuleEvidenceUnrecognizedVerdict, Severity: SeverityError,
				Key:     fkey(RuleEvidenceUnrecognizedVerdict, t.ID, gate, last.file, "no verdict"),
				Message: fmt.Sprintf("task %s: the newest %s entry of %s has no verdict (empty or missing; the plugin's evidence schema requires one): no verdict, neither approving nor rejecting; swarm-gate fails closed", t.ID, gate, last.file)})
			continue
		}
		if last.invalid != "" {
			failed = true
			te.findings = append(te.findings, Finding{Path: last.file, Line: last.line, EndLine: last.line, Rule: RuleEvidenceUnrecognizedVerdict, Severity: SeverityError,
				Key:     fkey(RuleEvidenceUnrecognizedVerdict, t.ID, gate, last.file, last.invalid),
				Message: fmt.Sprintf("task %s: the newest %s evidence has verdict %s, which is not a string: an unrecognized verdict, neither approving nor rejecting; swarm-gate fails closed", t.ID, gate, last.invalid)})
			continue
		}
		switch classifyVerdict(last.verdict) {
		case verdictRejecting:
			failed = true
			te.findings = append(te.findings, Finding{Path: last.file, Line: last.line, EndLine: last.line, Rule: RuleEvidenceRejected, Severity: SeverityError,
				Key:     fkey(RuleEvidenceRejected, t.ID, gate, last.file, last.verdict),
				Message: fmt.Sprintf("task %s is completed but its newest %s evidence does not approve it: verdict %q", t.ID, gate, last.verdict)})
		case verdictOther:
			if last.verdict == "" {
				continue // a record without a verdict: the plugin counts its presence
			}
			failed = true
			te.findings = append(te.findings, Finding{Path: last.file, Line: last.line, EndLine: last.line, Rule: RuleEvidenceUnrecognizedVerdict, Severity: SeverityError,
				Key:     fkey(RuleEvidenceUnrecognizedVerdict, t.ID, gate, last.file, last.verdict),
				Message: fmt.Sprintf("task %s: the newest %s evidence has verdict %q, which is neither approving (approved, pass) nor rejecting (rejected, fail, NEEDS_REVISION); swarm-gate fails closed", t.ID, gate, last.verdict)})
		}
	}
	if len(predates) > 0 {
		if work := taskWorkInPR(in, t); len(work) > 0 {
			failed = true
			var gates []string
			for _, d := range predates {
				g, _, _ := strings.Cut(d, " ")
				gates = append(gates, g)
			}
			onPlan(RuleEvidencePredatesPR, fmt.Sprintf("task %s is completed by this pull request, which changes %s in its scope, but its newest %s %s already on the merge base: that run came before this pull request's changes to the task's files, so it does not show that the work as it now stands passed; run %s again after the last change",
				t.ID, listSome(quoteAll(work), 5), strings.Join(predates, " and "), map[bool]string{true: "is", false: "are"}[len(predates) == 1], strings.Join(gates, " and ")), predates...)
		}
	}
	if len(missing) > 0 {
		failed = true
		onPlan(RuleEvidenceGateMissing, fmt.Sprintf("task %s is completed but %s has no record for required gate(s) %s", t.ID, where, strings.Join(missing, ", ")), missing...)
	}
	te.ok = !failed && !dupFailed
	return te
}

// carriedFromBase says, for a task the pull request completes (not
// completed on the merge base), whether the newest record of a verifying
// gate is one the merge base's evidence of the task already holds (same
// file, gate, timestamp and verdict): the review or test run came before the
// pull request. It returns the record's description, or nil.
func carriedFromBase(in *Input, t swarm.Task, gate string, last *evidenceRecord) []string {
	if !verifyingGates[gate] || in.Base == nil || in.Base.Plan == nil || in.Base.Evidence == nil || in.Changes == nil || in.AtMergeBase() {
		return nil
	}
	bt, _ := in.Base.Plan.FindTask(t.ID)
	if bt == nil || bt.Status == "completed" {
		return nil // a task new to the plan has no evidence on the merge base that counts (evidence/stale dates it)
	}
	same := func(name, verdict, ts string) bool {
		return gateName(name) == gate && verdict == last.verdict && ts == last.ts
	}
	desc := []string{fmt.Sprintf("%s record (%s, %s)", gate, last.file, tsOrNone(last.ts))}
	if last.file == swarm.EvidenceDir+"/"+t.ID+".json" {
		if btg, err := in.Base.Evidence.TaskGateFile(t.ID); err == nil && btg != nil {
			for _, g := range btg.Gates {
				if same(g.Name, g.Verdict, g.Timestamp) {
					return desc
				}
			}
		}
		return nil
	}
	if btb, err := in.Base.Evidence.Bundle(last.file); err == nil && btb != nil {
		for _, e := range btb.Entries {
			if same(e.Type, e.Verdict, e.Timestamp) {
				return desc
			}
		}
		for _, g := range btb.Gates {
			if same(g.Name, g.Verdict, g.Timestamp) {
				return desc
			}
		}
	}
	return nil
}

// tsOrNone is s, or "no timestamp".
func tsOrNone(s string) string {
	if s == "" {
		return "no timestamp"
	}
	return s
}

// taskWorkInPR are the paths the pull request changes (outside .swarm/)
// in the task's scope (its declaration or files_touched, as swarm/scope
// resolves it); for a task without a scope, every path it changes outside
// .swarm/, as any of them may be its work.
func taskWorkInPR(in *Input, t swarm.Task) []string {
	if in.Changes == nil {
		return nil
	}
	var entries map[string]bool
	if ts, _, err := resolveTaskScope(in, &t, in.Head.Plan.Digests.Structure); err == nil && ts != nil && len(ts.entries) > 0 {
		entries = toSet(ts.entries)
	}
	var out []string
	for i := range in.Changes.Files {
		for _, p := range scopePaths(&in.Changes.Files[i]) {
			if isSwarmPath(p) || slices.Contains(out, p) {
				continue
			}
			if entries == nil || InScope(entries, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// uniqueInOrder drops repeated items, keeping the first of each.
func uniqueInOrder(s []string) []string {
	var out []string
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// taskCodeFiles are the code files (by the SAST rules' extensions) among
// t's files_touched and the changed files under them.
func taskCodeFiles(in *Input, t swarm.Task) []string {
	var out []string
	isCode := func(p string) bool { _, ok := sast.LanguageOf(p); return ok }
	for _, e := range t.FilesTouched {
		if isCode(e) && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	if in.Changes == nil {
		return out
	}
	for _, f := range in.Changes.Files {
		p := f.NewPath
		if p == "" || !isCode(p) || slices.Contains(out, p) {
			continue
		}
		for _, e := range t.FilesTouched {
			if e = strings.TrimSuffix(e, "/"); e != "" && (p == e || strings.HasPrefix(p, e+"/")) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
