package gates

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// PhaseWrap is swarm/phase-wrap: can the phase close? It re-checks, from the
// .swarm/ files alone, what the plugin's phase_complete tool checks before it
// closes a phase (src/tools/phase-complete.ts and its gates, spec section
// 8.2), in the plugin's order and with its failure codes, and then two
// checks of its own: every task of the phase completed (or blocked with a
// reason), and every completed task with passing evidence (swarm/evidence's
// rule). See PhaseWrapChecklist for the steps.
//
// It is an on-demand check (OnDemand): `swarm-gate phase-wrap` and
// `check --gates swarm/phase-wrap` run it, the default `check` does not,
// since a pull request in the middle of a phase cannot close it yet.
type PhaseWrap struct{}

// Name implements Gate.
func (PhaseWrap) Name() string { return "swarm/phase-wrap" }

// OnDemand implements OnDemandGate.
func (PhaseWrap) OnDemand() bool { return true }

// Failure codes of phase-wrap steps. Those named like the plugin's are the
// plugin's; TASKS_INCOMPLETE, TASK_EVIDENCE_MISSING, TASK_EVIDENCE_REJECTED,
// TASK_EVIDENCE_INVALID, TASK_EVIDENCE_STALE and REQUIRED_AGENTS_MISSING are swarm-gate's (the
// plugin reports missing agents as status "incomplete" without a code, and
// has no task checks).
const (
	CodeRetrospectiveMissing = "RETROSPECTIVE_MISSING"
	CodeCompletionIncomplete = "COMPLETION_INCOMPLETE"
	CodeRequiredAgents       = "REQUIRED_AGENTS_MISSING"
	CodeTasksIncomplete      = "TASKS_INCOMPLETE"
	// CodeTaskEvidence: a completed task without evidence for a required
	// gate (or no evidence at all, or no required_gates).
	CodeTaskEvidence = "TASK_EVIDENCE_MISSING"
	// CodeTaskEvidenceRejected: the newest record of a required gate
	// rejects (rejected, fail, NEEDS_REVISION).
	CodeTaskEvidenceRejected = "TASK_EVIDENCE_REJECTED"
	// CodeTaskEvidenceInvalid: a verdict that is neither approving nor
	// rejecting (or not a string), or a task id the plugin does not accept.
	CodeTaskEvidenceInvalid = "TASK_EVIDENCE_INVALID"
	// CodeTaskEvidenceStale: the newest review or test record of a
	// required gate is older than the task's current definition.
	CodeTaskEvidenceStale = "TASK_EVIDENCE_STALE"
)

// RulePhaseWrapPrefix prefixes the rule of each failed step's finding:
// phase-wrap/<step>, e.g. phase-wrap/retrospective.
const RulePhaseWrapPrefix = "phase-wrap/"

// councilMaxAge is how old council evidence may be (the plugin's 24 hours).
const councilMaxAge = 24 * time.Hour

// finalCouncilMembers are the five members a final council needs.
var finalCouncilMembers = []string{"critic", "reviewer", "sme", "test_engineer", "explorer"}

// Evaluate implements Gate.
func (g PhaseWrap) Evaluate(_ context.Context, in *Input) Result {
	if r, ok := noPlan(g.Name(), in); ok {
		return r
	}
	cl, err := PhaseWrapChecklist(in)
	if err != nil {
		return CouldNotEvaluate(g.Name(), err)
	}
	var findings []Finding
	for _, it := range cl.Items {
		if it.Status != CheckFail && it.Status != CheckError {
			continue
		}
		path := it.File
		if path == "" {
			path = swarm.PlanPath
		}
		msg := it.Detail
		if it.Code != "" {
			msg = it.Code + ": " + msg
		}
		findings = append(findings, Finding{Path: path, Line: it.Line, EndLine: it.Line, Rule: RulePhaseWrapPrefix + it.Step, Severity: SeverityError, Message: msg})
	}
	summary := ChecklistMarkdown(cl)
	switch cl.Status() {
	case CheckError:
		for _, it := range cl.Items {
			if it.Status == CheckError {
				r := CouldNotEvaluate(g.Name(), it.Err)
				r.Summary += "\n\n" + summary
				r.Findings = findings
				return r
			}
		}
	case CheckFail:
		return Result{Outcome: Failed, Title: fmt.Sprintf("phase %d cannot close: %s", cl.Phase, strings.Join(cl.Codes(), ", ")), Summary: summary, Findings: findings}
	}
	return Result{Outcome: Passed, Title: fmt.Sprintf("phase %d can close: %s", cl.Phase, cl.Tally()), Summary: summary, Findings: []Finding{}}
}

// ChecklistMarkdown writes the checklist as a Markdown list for a check
// run's summary.
func ChecklistMarkdown(cl *Checklist) string {
	var b strings.Builder
	verdict := "yes"
	switch cl.Status() {
	case CheckFail:
		verdict = "no: " + strings.Join(cl.Codes(), ", ")
	case CheckError:
		verdict = "could not evaluate: " + strings.Join(cl.Causes(), "; ")
	}
	fmt.Fprintf(&b, "Can phase %d close? **%s** (%s)\n\n", cl.Phase, mdtext.Inline(verdict), cl.Tally())
	for i, it := range cl.Items {
		fmt.Fprintf(&b, "%d. **%s** %s", i+1, it.Status, it.Step)
		if it.File != "" {
			fmt.Fprintf(&b, " (%s)", mdtext.Code(it.File))
		}
		b.WriteString(": ")
		if it.Code != "" {
			b.WriteString(mdtext.Code(it.Code) + " ")
		}
		b.WriteString(mdtext.Inline(it.Detail) + "\n")
		for _, w := range it.Warnings {
			b.WriteString("   - warning: " + mdtext.Inline(w) + "\n")
		}
	}
	b.WriteString("\n" + mdtext.Inline(cl.Profile) + ".")
	return b.String()
}

// PhaseWrapChecklist answers "can phase in.Phase close?" from the head's
// .swarm/ files. The steps, in the plugin's phase_complete order:
//
//  1. retrospective: retro-{N}/evidence.json, else any retro-M bundle, has
//     an entry {type:"retrospective", phase_number:N, verdict:"pass"}, the
//     verdict compared exactly as the plugin's isValidRetroEntry does ("PASS"
//     does not count) (RETROSPECTIVE_MISSING);
//  2. completion-verify: the recorded {N}/completion-verify.json verdict
//     (COMPLETION_INCOMPLETE); the plugin re-runs completion_verify against
//     the source tree, which swarm-gate does not, so without the file the
//     step is SKIPPED;
//  3. drift: as swarm/drift's verdict (DRIFT_VERIFICATION_MISSING,
//     DRIFT_VERIFICATION_REJECTED, and swarm-gate's DRIFT_TASK_VERDICT); the
//     newest entry decides (verifierVerdict). Unlike swarm/drift, missing
//     evidence is a FAIL here even while tasks are open: swarm/drift says
//     "not due yet" then, since a pull request in the middle of a phase has
//     not reached phase_complete;
//  4. hallucination-guard, when hallucination_guard is on
//     (HALLUCINATION_VERIFICATION_MISSING, _REJECTED), read as drift is;
//  5. mutation-gate, when mutation_test is on (MUTATION_GATE_MISSING,
//     MUTATION_GATE_FAIL; warn passes with a warning);
//  6. phase-council, when phase_council is on (PHASE_COUNCIL_REQUIRED,
//     _REJECTED, _CONCERNS, _INVALID, _INVALID_TIMESTAMP,
//     _FUTURE_TIMESTAMP, _STALE_EVIDENCE, _MISSING_QUORUM,
//     _INSUFFICIENT_QUORUM, _MISSING_PHASE, _PHASE_MISMATCH);
//  7. final-council, .swarm/evidence/final-council.json, on the plan's last
//     phase when final_council is on (FINAL_COUNCIL_REQUIRED, _REJECTED,
//     _CONCERNS, _INVALID_VERDICT, _MISSING_QUORUM, _TIMESTAMP_REQUIRED,
//     _FUTURE_TIMESTAMP, _STALE_EVIDENCE, FINAL_COUNCIL_PLAN_ID_REQUIRED,
//     final_council_plan_mismatch, FINAL_COUNCIL_PLAN_HASH_MISMATCH,
//     FINAL_COUNCIL_PLAN_IDENTITY_MISMATCH); CONCERNS blocks unless
//     phase_wrap.final_council_concerns: allow;
//  8. required-agents: phase.required_agents, else the policy's list
//     (default coder, reviewer, test_engineer), plus docs when required,
//     each dispatched per the newest phase_complete event of the phase in
//     events.jsonl (older ones are listed, not counted: the plugin counts
//     the agents since its last phase_complete) or named by its tasks' gate
//     evidence; the plugin's fallback clears missing coder/reviewer/
//     test_engineer when every task is completed with all its gates passed
//     (REQUIRED_AGENTS_MISSING, swarm-gate's);
//  9. tasks: every task of the phase completed or closed, or blocked with a
//     blocked_reason (TASKS_INCOMPLETE, swarm-gate's);
//  10. task-evidence: every completed task of the phase passes
//     swarm/evidence's rule (swarm-gate's TASK_EVIDENCE_MISSING,
//     TASK_EVIDENCE_REJECTED, TASK_EVIDENCE_INVALID, after the first failing
//     task's reason).
//
// A failing step points at the line of the field it is about (the verdict,
// the summary that says NEEDS_REVISION, the quorumSize, the newest
// phase_complete event) where there is one. The councils' 24-hour window is
// measured against in.HeadTime. It returns an error only when the plan or
// the phase cannot be used; a damaged evidence file makes its step ERROR.
func PhaseWrapChecklist(in *Input) (*Checklist, error) {
	plan, phase, err := headPhase(in)
	if err != nil {
		return nil, err
	}
	cfg := in.config()
	cl := &Checklist{Phase: phase.ID, LastPhase: plan.Phases[len(plan.Phases)-1].ID, Profile: cfg.qaProfileSource()}
	add := func(it CheckItem) { cl.Items = append(cl.Items, it) }
	add(retroCheck(in, phase.ID))
	add(completionCheck(in, phase.ID))
	drift, findings := driftCheck(in, phase)
	for _, f := range findings {
		if f.Severity != SeverityError {
			drift.Warnings = appendUnique(drift.Warnings, f.Message)
		}
	}
	add(drift)
	add(verifierCheck(in, phase.ID, "hallucination-guard", cfg.QAGates.HallucinationGuard, "hallucination_guard", swarm.PhaseHallucinationGuard, "hallucination", "HALLUCINATION_VERIFICATION"))
	add(mutationCheck(in, phase.ID))
	add(phaseCouncilCheck(in, phase.ID))
	add(finalCouncilCheck(in, plan, phase.ID, cl.LastPhase))
	add(agentsCheck(in, phase))
	add(tasksCheck(phase))
	add(taskEvidenceCheck(in, phase))
	return cl, nil
}

func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// retroCheck is phase_complete's retrospective gate.
func retroCheck(in *Input, n int) CheckItem {
	const step = "retrospective"
	ev := in.Head.Evidence
	primary := swarm.RetroPath(n)
	if ev.DirErr != nil {
		return checkUnreadable(step, ev.DirErr)
	}
	order := []int{}
	nums := ev.RetroNumbers()
	if slices.Contains(nums, n) {
		order = append(order, n)
	}
	for _, m := range nums {
		if m != n {
			order = append(order, m)
		}
	}
	var notes []string
	var broken []error
	noteLine := 0 // line of the first note about the primary file
	note := func(m, line int, format string, args ...any) {
		notes = append(notes, fmt.Sprintf(format, args...))
		if m == n && noteLine == 0 {
			noteLine = line
		}
	}
	for _, m := range order {
		p := swarm.RetroPath(m)
		b, err := ev.Bundle(p)
		if err != nil {
			broken = append(broken, err)
			continue
		}
		if b == nil {
			continue
		}
		for _, e := range b.Entries {
			if e.Type != "retrospective" {
				continue
			}
			pn, ok := e.Int("phase_number")
			switch {
			case !ok:
				if m == n {
					l := e.FieldLine("phase_number")
					note(m, l, "retro-%d's retrospective (line %d) has no numeric phase_number", m, l)
				}
			case pn != n:
				if m == n {
					l := e.FieldLine("phase_number")
					note(m, l, "retro-%d holds a retrospective for phase %d, not %d (line %d)", m, pn, n, l)
				}
			case e.VerdictInvalid != "":
				l := e.FieldLine("verdict")
				note(m, l, "retro-%d's retrospective for phase %d has verdict %s, not the string \"pass\" (line %d)", m, n, e.VerdictInvalid, l)
			case strings.EqualFold(e.Verdict, "pass") && e.Verdict != "pass":
				l := e.FieldLine("verdict")
				note(m, l, "retro-%d's retrospective for phase %d has verdict %q, not \"pass\" (line %d): the plugin compares the verdict exactly (verdict === 'pass'), so it would refuse this retrospective", m, n, e.Verdict, l)
			case e.Verdict != "pass":
				l := e.FieldLine("verdict")
				note(m, l, "retro-%d's retrospective for phase %d has verdict %q, not pass (line %d)", m, n, e.Verdict, l)
			default:
				it := checkPass(step, p, "retrospective for phase %d, verdict %s", n, e.Verdict)
				it.Line = e.Line
				for _, err := range broken {
					it.Warnings = append(it.Warnings, "unreadable: "+err.Error())
				}
				if m != n {
					it.Warnings = append(it.Warnings, fmt.Sprintf("found in retro-%d, not %s (the plugin accepts any retro-N bundle)", m, primary))
				}
				return it
			}
		}
	}
	if len(broken) > 0 {
		return checkUnreadable(step, broken[0])
	}
	detail := fmt.Sprintf("no retro-N bundle has an entry {type: retrospective, phase_number: %d, verdict: pass}", n)
	if !slices.Contains(nums, n) {
		detail = primary + " is absent, and " + detail
	}
	if len(notes) > 0 {
		detail += ": " + strings.Join(notes, "; ")
	}
	return checkFail(step, CodeRetrospectiveMissing, primary, noteLine, "%s", detail)
}

// completionCheck reads the recorded completion_verify result of the phase.
func completionCheck(in *Input, n int) CheckItem {
	const step = "completion-verify"
	p := swarm.PhaseEvidencePath(n, swarm.PhaseCompletionVerify)
	b, err := in.Head.Evidence.Bundle(p)
	if err != nil {
		return checkUnreadable(step, err)
	}
	const rerun = "the plugin re-runs completion_verify against the source tree when the phase closes; swarm-gate reads only .swarm/"
	if b == nil {
		return checkSkipped(step, p, "no completion_verify result recorded; %s", rerun)
	}
	var last *swarm.EvidenceEntry
	for i := range b.Entries {
		if e := &b.Entries[i]; strings.Contains(e.Type, "completion") && e.HasVerdict {
			last = e
		}
	}
	if last == nil {
		return checkSkipped(step, p, "the file has no completion_verify entry with a verdict; %s", rerun)
	}
	if ph, ok := last.Int("phase"); ok && ph != n {
		return checkFail(step, CodeCompletionIncomplete, p, last.FieldLine("phase"), "the newest completion_verify entry is for phase %d, not %d", ph, n)
	}
	checked, _ := last.Int("tasks_checked")
	skippedN, _ := last.Int("tasks_skipped")
	blocked, _ := last.Int("tasks_blocked")
	switch classifyVerdict(last.Verdict) {
	case verdictApproving:
		it := checkPass(step, p, "verdict %s%s: %d checked, %d skipped, %d blocked", last.Verdict, timestampSuffix(last.Timestamp), checked, skippedN, blocked)
		it.Line = last.Line
		return it
	case verdictRejecting:
		var ids []string
		if bt := last.Value.Get("blocked_tasks"); bt != nil {
			for _, el := range bt.Elems {
				id, _ := el.Get("task_id").AsString()
				reason, _ := el.Get("reason").AsString()
				ids = append(ids, strings.TrimSpace(id+" "+clipN(reason, 80)))
			}
		}
		return checkFail(step, CodeCompletionIncomplete, p, last.FieldLine("verdict"), "verdict %s: %d blocked task(s): %s", last.Verdict, blocked, listSome(ids, 10))
	}
	return checkFail(step, CodeCompletionIncomplete, p, last.FieldLine("verdict"), "unrecognized verdict %q (want pass or fail)", last.Verdict)
}

// verifierCheck is the hallucination gate: entries whose type contains
// kind, read as verifierVerdict reads them.
func verifierCheck(in *Input, n int, step string, on bool, key, file, kind, codePrefix string) CheckItem {
	if !on {
		return checkSkipped(step, "", "%s is off in the QA gate profile", key)
	}
	p := swarm.PhaseEvidencePath(n, file)
	b, err := in.Head.Evidence.Bundle(p)
	if err != nil {
		return checkUnreadable(step, err)
	}
	if b == nil {
		return checkFail(step, codePrefix+"_MISSING", p, 0, "%s is on and the file is absent", key)
	}
	vr := verifierVerdict(step, p, b, kind, codePrefix+"_REJECTED", kind+" verifier", "write_"+kind+"_evidence")
	if vr.found == nil {
		return checkFail(step, codePrefix+"_MISSING", p, 0, "%s is on and the file has no %s entry with a verdict", key, kind)
	}
	return vr.item
}

// phaseCompletions returns the newest phase_complete event of the phase in
// events.jsonl (the last in the file) and the older ones; nil when there is
// none or the file cannot be read.
func phaseCompletions(in *Input, phase int) (newest *swarm.PhaseCompletion, older []swarm.PhaseCompletion) {
	if in.Head.Events == nil || in.Head.EventsErr != nil {
		return nil, nil
	}
	pcs := in.Head.Events.PhaseCompletions(phase)
	if len(pcs) == 0 {
		return nil, nil
	}
	return &pcs[len(pcs)-1], pcs[:len(pcs)-1]
}

// mutationCheck is the mutation gate.
func mutationCheck(in *Input, n int) CheckItem {
	const step = "mutation-gate"
	if !in.config().QAGates.MutationTest {
		return checkSkipped(step, "", "mutation_test is off in the QA gate profile")
	}
	p := swarm.PhaseEvidencePath(n, swarm.PhaseMutationGate)
	b, err := in.Head.Evidence.Bundle(p)
	if err != nil {
		return checkUnreadable(step, err)
	}
	var found *swarm.EvidenceEntry
	var warns []string
	if b != nil {
		for i := range b.Entries {
			e := &b.Entries[i]
			if e.Type != "mutation-gate" || !e.HasVerdict {
				continue
			}
			found = e
			switch strings.ToLower(e.Verdict) {
			case "fail":
				return checkFail(step, "MUTATION_GATE_FAIL", p, e.FieldLine("verdict"), "entry %d has verdict %q", e.Index+1, e.Verdict)
			case "pass", "skip":
			case "warn":
				warns = append(warns, fmt.Sprintf("mutation gate verdict warn (entry %d)", e.Index+1))
			default:
				return checkFail(step, "MUTATION_GATE_FAIL", p, e.FieldLine("verdict"), "unrecognized verdict %q (want pass, warn, fail or skip)", e.Verdict)
			}
		}
	}
	if found == nil {
		return checkFail(step, "MUTATION_GATE_MISSING", p, 0, "mutation_test is on and no mutation-gate entry is recorded")
	}
	kill := ""
	if k, ok := found.Num("killRate"); ok {
		kill = fmt.Sprintf(", kill rate %.2f", k)
	}
	it := checkPass(step, p, "verdict %s%s", found.Verdict, kill)
	it.Line, it.Warnings = found.Line, warns
	return it
}

// freshness checks a council timestamp against the head commit time. It
// returns the failing suffix (INVALID_TIMESTAMP, FUTURE_TIMESTAMP,
// STALE_EVIDENCE) and a detail, or "" when fresh; a warning when the head
// time is unknown.
func freshness(in *Input, ts string) (suffix, detail, warning string) {
	t, ok := parseISOTime(ts)
	if !ok {
		return "INVALID_TIMESTAMP", fmt.Sprintf("timestamp %q is missing or not an ISO time", ts), ""
	}
	if in.HeadTime.IsZero() {
		return "", "", "the head commit time is unknown, so the 24-hour freshness was not checked"
	}
	now := in.HeadTime
	switch {
	case t.After(now):
		return "FUTURE_TIMESTAMP", fmt.Sprintf("timestamp %s is after the head commit (%s)", ts, now.UTC().Format(time.RFC3339)), ""
	case now.Sub(t) > councilMaxAge:
		return "STALE_EVIDENCE", fmt.Sprintf("timestamp %s is more than 24 hours before the head commit (%s)", ts, now.UTC().Format(time.RFC3339)), ""
	}
	return "", "", ""
}

// phaseCouncilCheck is the phase council gate.
func phaseCouncilCheck(in *Input, n int) CheckItem {
	const step = "phase-council"
	cfg := in.config()
	if !cfg.QAGates.PhaseCouncil {
		return checkSkipped(step, "", "phase_council is off in the QA gate profile")
	}
	p := swarm.PhaseEvidencePath(n, swarm.PhaseCouncil)
	b, err := in.Head.Evidence.Bundle(p)
	if err != nil {
		return checkUnreadable(step, err)
	}
	var last *swarm.EvidenceEntry
	var warns []string
	if b != nil {
		for i := range b.Entries {
			e := &b.Entries[i]
			if e.Type != "phase-council" || !e.HasVerdict {
				continue
			}
			last = e
			if suffix, detail, w := freshness(in, e.Timestamp); suffix != "" {
				return checkFail(step, "PHASE_COUNCIL_"+suffix, p, e.FieldLine("timestamp"), "%s", detail)
			} else if w != "" {
				warns = appendUnique(warns, w)
			}
			switch strings.ToUpper(e.Verdict) {
			case "REJECT":
				return checkFail(step, "PHASE_COUNCIL_REJECTED", p, e.FieldLine("verdict"), "verdict %q%s", e.Verdict, councilFixes(e))
			case "CONCERNS":
				if cfg.PhaseWrap.BlockPhaseCouncilConcerns {
					return checkFail(step, "PHASE_COUNCIL_CONCERNS", p, e.FieldLine("verdict"), "verdict %q (phase_wrap.phase_council_concerns: block)", e.Verdict)
				}
				warns = append(warns, "phase council verdict CONCERNS (allowed, as the plugin's phaseConcernsAllowComplete default)")
			case "APPROVE":
			default:
				return checkFail(step, "PHASE_COUNCIL_INVALID", p, e.FieldLine("verdict"), "unrecognized verdict %q (want APPROVE, CONCERNS or REJECT)", e.Verdict)
			}
		}
	}
	if last == nil {
		return checkFail(step, "PHASE_COUNCIL_REQUIRED", p, 0, "phase_council is on and no phase-council entry is recorded")
	}
	q, ok := last.Num("quorumSize")
	switch {
	case !ok:
		return checkFail(step, "PHASE_COUNCIL_MISSING_QUORUM", p, last.FieldLine("quorumSize"), "quorumSize must be a number of at least 3 (found %s)", quorumText(last))
	case q < 3:
		return checkFail(step, "PHASE_COUNCIL_INSUFFICIENT_QUORUM", p, last.FieldLine("quorumSize"), "quorum %g is below the minimum of 3", q)
	}
	phaseKey := "phase_number"
	ph, ok := last.Num(phaseKey)
	if !ok && !last.Has(phaseKey) {
		phaseKey = "phase"
		ph, ok = last.Num(phaseKey)
	}
	switch {
	case !ok && last.Has(phaseKey):
		return checkFail(step, "PHASE_COUNCIL_MISSING_PHASE", p, last.FieldLine(phaseKey), "%s must be a number (found %s)", phaseKey, valueText(last, phaseKey))
	case !ok:
		return checkFail(step, "PHASE_COUNCIL_MISSING_PHASE", p, last.Line, "the entry has no phase_number")
	case ph != float64(n):
		return checkFail(step, "PHASE_COUNCIL_PHASE_MISMATCH", p, last.FieldLine(phaseKey), "the council reviewed phase %g, not %d", ph, n)
	}
	it := checkPass(step, p, "verdict %s, quorum %g%s", last.Verdict, q, timestampSuffix(last.Timestamp))
	it.Line, it.Warnings = last.Line, warns
	return it
}

// councilFixes formats a council entry's required fixes for a message.
func councilFixes(e *swarm.EvidenceEntry) string {
	n := e.Len("requiredFixes") + e.Len("required_fixes")
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d required fix(es)", n)
}

// finalCouncilCheck is the final council gate (last phase only).
func finalCouncilCheck(in *Input, plan *swarm.Plan, n, last int) CheckItem {
	const step = "final-council"
	cfg := in.config()
	p := swarm.FinalCouncilPath
	if n != last {
		return checkSkipped(step, "", "phase %d is not the plan's last phase (%d): the final council runs when the last phase closes", n, last)
	}
	if !cfg.QAGates.FinalCouncil {
		return checkSkipped(step, "", "final_council is off in the QA gate profile")
	}
	b, err := in.Head.Evidence.Bundle(p)
	if err != nil {
		return checkUnreadable(step, err)
	}
	var warns []string
	var found *swarm.EvidenceEntry
	if b != nil {
		for i := range b.Entries {
			e := &b.Entries[i]
			if e.Type != "final-council" || !e.HasVerdict {
				continue
			}
			found = e
			if it, bad := finalCouncilEntry(in, plan, e, p, &warns); bad {
				return it
			}
		}
	}
	if found == nil {
		return checkFail(step, "FINAL_COUNCIL_REQUIRED", p, 0, "final_council is on and no final-council entry is recorded")
	}
	it := checkPass(step, p, "verdict %s, quorum of the five members%s", found.Verdict, timestampSuffix(found.Timestamp))
	it.Line, it.Warnings = found.Line, warns
	return it
}

// finalCouncilEntry checks one final-council entry; bad is true with the
// failing item when it blocks.
func finalCouncilEntry(in *Input, plan *swarm.Plan, e *swarm.EvidenceEntry, p string, warns *[]string) (CheckItem, bool) {
	const step = "final-council"
	cfg := in.config()
	// f fails at the line of the field the failure is about.
	f := func(field, code, format string, args ...any) (CheckItem, bool) {
		return checkFail(step, code, p, e.FieldLine(field), format, args...), true
	}
	planID := e.Str("plan_id")
	switch {
	case planID == "":
		return f("plan_id", "FINAL_COUNCIL_PLAN_ID_REQUIRED", "the entry has no plan_id binding it to a plan")
	case planID != plan.ID():
		return f("plan_id", "final_council_plan_mismatch", "the entry is for plan %q, not %q", planID, plan.ID())
	}
	if h := e.Str("plan_hash"); h != "" && h != plan.Digests.Ledger {
		return f("plan_hash", "FINAL_COUNCIL_PLAN_HASH_MISMATCH", "plan_hash %s is not the head plan's ledger hash %s: the plan changed after the council", planhash.Short(h), planhash.Short(plan.Digests.Ledger))
	}
	if h := e.Str("plan_identity_hash"); h != "" && h != planhash.IdentityHash(plan.Swarm, plan.Title) {
		return f("plan_identity_hash", "FINAL_COUNCIL_PLAN_IDENTITY_MISMATCH", "plan_identity_hash %s is not the head plan's", planhash.Short(h))
	}
	if e.Timestamp == "" {
		return f("timestamp", "FINAL_COUNCIL_TIMESTAMP_REQUIRED", "the entry has no timestamp")
	}
	if suffix, detail, w := freshness(in, e.Timestamp); suffix != "" {
		if suffix == "INVALID_TIMESTAMP" {
			suffix = "TIMESTAMP_REQUIRED"
		}
		return f("timestamp", "FINAL_COUNCIL_"+suffix, "%s", detail)
	} else if w != "" {
		*warns = appendUnique(*warns, w)
	}
	q, ok := e.Num("quorumSize")
	if !ok || q < 5 {
		return f("quorumSize", "FINAL_COUNCIL_MISSING_QUORUM", "quorumSize must be a number of at least 5 (found %s)", quorumText(e))
	}
	voted := uniqueInOrder(e.Strings("membersVoted"))
	absent := e.Strings("membersAbsent")
	var lacking []string
	for _, m := range finalCouncilMembers {
		if !slices.Contains(voted, m) {
			lacking = append(lacking, m)
		}
	}
	if len(lacking) > 0 || len(voted) != len(finalCouncilMembers) || len(absent) > 0 {
		return f("membersVoted", "FINAL_COUNCIL_MISSING_QUORUM", "membersVoted must be exactly %s with no absentees (voted: %s; missing: %s; absent: %s)",
			strings.Join(finalCouncilMembers, ", "), noneIfEmpty(voted), noneIfEmpty(lacking), noneIfEmpty(absent))
	}
	switch strings.ToLower(e.Verdict) {
	case "rejected", "reject":
		return f("verdict", "FINAL_COUNCIL_REJECTED", "verdict %q%s", e.Verdict, councilFixes(e))
	case "concerns":
		if !cfg.PhaseWrap.AllowFinalCouncilConcerns {
			return f("verdict", "FINAL_COUNCIL_CONCERNS", "verdict %q blocks the last phase (swarm-gate's default, stricter than the plugin's; phase_wrap.final_council_concerns: allow lets it pass)", e.Verdict)
		}
		*warns = append(*warns, "final council verdict CONCERNS (allowed by phase_wrap.final_council_concerns: allow)")
	case "approved", "approve":
	default:
		return f("verdict", "FINAL_COUNCIL_INVALID_VERDICT", "unrecognized verdict %q (want approved, concerns or rejected)", e.Verdict)
	}
	return CheckItem{}, false
}

// quorumText describes an entry's quorumSize for a message: the number, or
// what stands there instead ("5" is a string, which the plugin's numeric
// comparison refuses).
func quorumText(e *swarm.EvidenceEntry) string {
	if q, ok := e.Num("quorumSize"); ok {
		return fmt.Sprintf("%g", q)
	}
	return valueText(e, "quorumSize")
}

// valueText describes a field that is not the number it should be: "none"
// when absent, else its JSON and its type.
func valueText(e *swarm.EvidenceEntry, key string) string {
	v := e.Value.Get(key)
	switch {
	case v == nil:
		return "none"
	case v.Kind == jsjson.String:
		return fmt.Sprintf("%s, a string, not a number", clipN(string(jsjson.Stringify(v)), 40))
	}
	return fmt.Sprintf("%s, a %s, not a number", clipN(string(jsjson.Stringify(v)), 40), v.Kind)
}

func noneIfEmpty(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// agentsCheck is phase_complete's required-agents check.
func agentsCheck(in *Input, phase *swarm.Phase) CheckItem {
	const step = "required-agents"
	cfg := in.config()
	required := cfg.PhaseWrap.RequiredAgents
	from := "the policy's phase_wrap.required_agents"
	if phase.RequiredAgents != nil {
		required, from = phase.RequiredAgents, fmt.Sprintf("phase %d's required_agents", phase.ID)
	}
	required = slices.Clone(required)
	if cfg.PhaseWrap.RequireDocs && !slices.Contains(required, "docs") {
		required = append(required, "docs")
		from += " + docs"
	}
	if in.Head.EventsErr != nil {
		return checkUnreadable(step, in.Head.EventsErr)
	}
	dispatched := map[string]string{} // agent -> where it was seen
	closedAt := 0                     // line of the newest phase_complete event when it has status success and no agents missing
	newest, older := phaseCompletions(in, phase.ID)
	if newest != nil {
		if newest.Status == "success" && len(newest.AgentsMissing) == 0 {
			closedAt = newest.Line
		}
		for _, a := range newest.AgentsDispatched {
			if _, ok := dispatched[a]; !ok {
				dispatched[a] = fmt.Sprintf("events.jsonl line %d", newest.Line)
			}
		}
	}
	allPassed := len(phase.Tasks) > 0
	defs := headDefinitions(in)
	for _, t := range phase.Tasks {
		te := checkTaskEvidence(in, t, defs)
		for _, a := range te.agents {
			if _, ok := dispatched[a]; !ok && te.unreadable == nil {
				dispatched[a] = "gate evidence of task " + t.ID
			}
		}
		tg, _ := in.Head.Evidence.TaskGateFile(t.ID)
		allPassed = allPassed && t.Status == "completed" && te.ok && tg != nil && !tg.Legacy
	}
	var missing []string
	for _, a := range uniqueInOrder(required) {
		if _, ok := dispatched[a]; !ok {
			missing = append(missing, a)
		}
	}
	seen := fmt.Sprintf("the tasks' gate evidence (no phase_complete event for phase %d in %s)", phase.ID, swarm.EventsPath)
	if newest != nil {
		seen = fmt.Sprintf("the newest phase_complete event for phase %d, %s line %d (%s), and the tasks' gate evidence", phase.ID, swarm.EventsPath, newest.Line, newest.Status)
		if len(older) > 0 {
			var lines []string
			for _, pc := range older {
				lines = append(lines, fmt.Sprintf("%d (%s)", pc.Line, pc.Status))
			}
			seen += fmt.Sprintf("; the older %s at %s %s %s not counted: agents dispatched for an earlier closing of the phase do not vouch for the newest, as the plugin counts only the agents since its last phase_complete",
				verbS(len(older), "event", "events"), verbS(len(older), "line", "lines"), strings.Join(lines, ", "), verbS(len(older), "is", "are"))
		}
	}
	it := CheckItem{Step: step, File: swarm.EventsPath}
	if newest != nil {
		it.Line = newest.Line
	}
	cleared := ""
	if len(missing) > 0 && allPassed && !slices.ContainsFunc(missing, func(a string) bool { return a != "coder" && a != "reviewer" && a != "test_engineer" }) {
		cleared = fmt.Sprintf("; %s not seen but cleared by the plugin's fallback (every task of the phase is completed with all its gates passed)", strings.Join(missing, ", "))
		missing = nil
	}
	if len(missing) > 0 {
		it := checkFail(step, CodeRequiredAgents, swarm.EventsPath, it.Line, "required (%s): %s; not dispatched: %s (looked in %s)",
			from, strings.Join(required, ", "), strings.Join(missing, ", "), seen)
		if closedAt > 0 {
			it.Detail += fmt.Sprintf("; the plugin closed the phase (line %d: status success, no agents missing), so its own settings did not require %s: make the policy match (phase_wrap.required_agents, phase_wrap.require_docs)", closedAt, strings.Join(missing, ", "))
		}
		return it
	}
	it.Status = CheckPass
	it.Detail = fmt.Sprintf("required (%s): %s; dispatched per %s%s", from, noneIfEmpty(required), seen, cleared)
	return it
}

// tasksCheck: every task of the phase completed or closed, or blocked with a
// reason.
func tasksCheck(phase *swarm.Phase) CheckItem {
	const step = "tasks"
	var open []string
	var blocked, closed []string
	line := 0
	for _, t := range phase.Tasks {
		switch {
		case t.Status == "completed":
		case t.Status == "closed":
			closed = append(closed, t.ID)
		case t.Status == "blocked" && strings.TrimSpace(t.BlockedReason) != "":
			blocked = append(blocked, t.ID)
		case t.Status == "blocked":
			open = append(open, t.ID+" blocked without a blocked_reason")
		default:
			open = append(open, t.ID+" "+t.Status)
		}
		if len(open) == 1 && line == 0 {
			line = t.Line
		}
	}
	if len(open) > 0 {
		return checkFail(step, CodeTasksIncomplete, swarm.PlanPath, line, "%d of %s not completed: %s", len(open), plural(len(phase.Tasks), "task", "tasks"), listSome(open, 12))
	}
	if len(phase.Tasks) == 0 {
		it := checkPass(step, swarm.PlanPath, "the phase has no tasks")
		it.Warnings = []string{"phase " + fmt.Sprint(phase.ID) + " has no tasks"}
		return it
	}
	detail := fmt.Sprintf("all %d tasks completed", len(phase.Tasks))
	if len(phase.Tasks) == 1 {
		detail = "its only task is completed"
	}
	if len(closed) > 0 {
		detail = fmt.Sprintf("%d of %d tasks completed, %d closed (%s)", len(phase.Tasks)-len(closed)-len(blocked), len(phase.Tasks), len(closed), strings.Join(closed, ", "))
	}
	if len(blocked) > 0 {
		detail += fmt.Sprintf(" or explicitly blocked (%s)", strings.Join(blocked, ", "))
	}
	it := checkPass(step, swarm.PlanPath, "%s", detail)
	if len(closed) > 0 {
		// closed is /swarm close's mark for work a session left unfinished:
		// it ends the phase, but it is not done work (swarm/evidence fails
		// on a task the pull request closes).
		it.Warnings = []string{fmt.Sprintf("closed, not completed: %s (the plugin's /swarm close marks unfinished tasks closed; they have no evidence)", strings.Join(closed, ", "))}
	}
	return it
}

// taskEvidenceCheck applies swarm/evidence's rule to the phase's completed
// tasks.
func taskEvidenceCheck(in *Input, phase *swarm.Phase) CheckItem {
	const step = "task-evidence"
	if in.Head.Evidence.DirErr != nil {
		return checkUnreadable(step, in.Head.Evidence.DirErr)
	}
	if in.Head.LedgerErr != nil {
		// The ledger dates the tasks' definitions: without it stale
		// evidence would pass.
		return checkUnreadable(step, in.Head.LedgerErr)
	}
	var done, bad []string
	var first *Finding
	var errs []error
	defs := headDefinitions(in)
	for _, t := range phase.Tasks {
		if t.Status != "completed" {
			continue
		}
		done = append(done, t.ID)
		te := checkTaskEvidence(in, t, defs)
		switch {
		case te.unreadable != nil:
			errs = append(errs, te.unreadable)
		case !te.ok:
			bad = append(bad, t.ID)
			if first == nil && len(te.findings) > 0 {
				first = &te.findings[0]
			}
		}
	}
	if len(errs) > 0 {
		return checkUnreadable(step, errors.Join(errs...))
	}
	if len(done) == 0 {
		return checkSkipped(step, swarm.EvidenceDir, "no completed task in the phase")
	}
	if len(bad) > 0 && first != nil {
		code := CodeTaskEvidence
		switch first.Rule {
		case RuleEvidenceRejected:
			code = CodeTaskEvidenceRejected
		case RuleEvidenceUnrecognizedVerdict, RuleEvidenceInvalidTaskID:
			code = CodeTaskEvidenceInvalid
		case RuleEvidenceStale:
			code = CodeTaskEvidenceStale
		}
		return checkFail(step, code, first.Path, first.Line, "%d of %s without passing evidence (%s); first: %s", len(bad), plural(len(done), "completed task", "completed tasks"), strings.Join(bad, ", "), first.Message)
	}
	if len(done) == 1 {
		return checkPass(step, swarm.EvidenceDir, "the completed task (%s) has passing gate evidence", done[0])
	}
	return checkPass(step, swarm.EvidenceDir, "all %d completed tasks have passing gate evidence", len(done))
}
