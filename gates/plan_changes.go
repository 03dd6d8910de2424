package gates

import (
	"fmt"
	"slices"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// maxListedChanges caps the changes listed in a summary; every change that
// fails the gate is still a finding.
const maxListedChanges = 30

// changeFindings turns the differences between the approved plan and the
// head plan into findings (what invalidates the approval, and fr_refs or
// phase type changes, which the plugin cannot see) and a summary note.
func changeFindings(cfg *Config, approval *swarm.LedgerEvent, plan *swarm.Plan, changes []swarm.PlanChange) ([]Finding, string) {
	count := map[swarm.ChangeClass]int{}
	for _, c := range changes {
		count[c.Class]++
	}
	var findings []Finding
	if n := count[swarm.ChangeMaterial] + count[swarm.ChangeBookkeeping]; n > 0 {
		head := fmt.Sprintf("PLAN_CRITIC_GATE_VIOLATION: Current plan differs from the last critic-approved snapshot (seq %d): structure hash %s, approved %s; %s since.",
			approval.Seq, planhash.Short(plan.Digests.Structure), planhash.Short(approval.Plan.Digests.Structure), plural(n, "change", "changes"))
		rule := RulePlanChanged
		if count[swarm.ChangeMaterial] == 0 {
			rule = RuleBookkeepingChanged
			head += " Only bookkeeping-grade fields changed (size, evidence_path, blocked_reason, title, current_phase, files_touched); the protocol accepts these with a manual-override approval that post-dates them: `/swarm approve-plan-critic <reason>`."
		} else {
			head += " Next step: re-run the critic on the changed plan (plan.md), or `/swarm approve-plan-critic <reason>` if it already approved this version."
		}
		findings = append(findings, Finding{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: rule, Severity: SeverityError, Message: head,
			Key: fkey(rule, eventKey(approval), plan.Digests.Structure)})
	}
	for _, c := range changes {
		var rule string
		sev := SeverityError
		msg := c.Text()
		switch c.Class {
		case swarm.ChangeMaterial:
			rule, msg = RulePlanChanged, msg+" (material: the critic must review it)"
		case swarm.ChangeBookkeeping:
			rule, msg = RuleBookkeepingChanged, msg+" (bookkeeping-grade: accepted only with `/swarm approve-plan-critic <reason>` after the change)"
		case swarm.ChangeUnhashed:
			rule = RuleUnhashedChanged
			msg += " (outside the structure hash, so the plugin's gate does not see it, but it changes what the approved plan means: re-run the critic, or `/swarm approve-plan-critic <reason>`)"
			if cfg.PlanFreeze.WarnUnhashedChanges {
				sev = SeverityWarning
			}
		default:
			continue
		}
		findings = append(findings, Finding{Path: swarm.PlanPath, Line: c.Line, EndLine: c.Line, Rule: rule, Severity: sev, Message: msg,
			Key: fkey(rule, eventKey(approval), c.Text())})
	}
	return findings, changesNote(approval, changes, count)
}

// changesNote summarises the changes since the approval by class and lists
// them, status changes last.
func changesNote(approval *swarm.LedgerEvent, changes []swarm.PlanChange, count map[swarm.ChangeClass]int) string {
	if len(changes) == 0 {
		return fmt.Sprintf("**Since approval (seq %d)**: no changes.", approval.Seq)
	}
	s := fmt.Sprintf("**Since approval (seq %d)**: %d material, %d bookkeeping-grade, %d outside the hash (fr_refs, phase type), %s (never invalidate an approval).",
		approval.Seq, count[swarm.ChangeMaterial], count[swarm.ChangeBookkeeping], count[swarm.ChangeUnhashed], plural(count[swarm.ChangeStatus], "status-only change", "status-only changes"))
	var lines []string
	for _, class := range []swarm.ChangeClass{swarm.ChangeMaterial, swarm.ChangeBookkeeping, swarm.ChangeUnhashed, swarm.ChangeStatus} {
		for _, c := range changes {
			if c.Class == class {
				lines = append(lines, fmt.Sprintf("- %s _(%s)_", mdtext.Inline(c.Text()), class))
			}
		}
	}
	if len(lines) > maxListedChanges {
		lines = append(lines[:maxListedChanges], fmt.Sprintf("- … and %d more", len(lines)-maxListedChanges))
	}
	return s + "\n\n" + strings.Join(lines, "\n")
}

// removedTasks checks that tasks dropped since a plan-critic approval, or
// since the merge base, were removed through the plugin (a task_removed
// ledger event, which save_plan writes since schema 1.1.0). An unfinished
// task dropped without one fails; a finished one is a warning, as is any
// removal in a legacy (schema 1.0.0) ledger, whose plugin had no such event.
func removedTasks(in *Input, ledger *swarm.Ledger, rep *swarm.Replay, plan *swarm.Plan) []Finding {
	type ref struct {
		task  swarm.Task
		where string
	}
	refs := map[string]ref{}
	var order []string
	note := func(t swarm.Task, where string) {
		if _, ok := refs[t.ID]; !ok {
			order = append(order, t.ID)
		}
		refs[t.ID] = ref{t, where} // later references win: the newest status
	}
	id := plan.ID()
	for i := range ledger.Events {
		ev := &ledger.Events[i]
		if ev.EventType == "snapshot" && ev.Source == "critic_approved" && ev.Approval.IsPlanCritic() && ev.Plan != nil && ev.Plan.ID() == id {
			for _, ph := range ev.Plan.Phases {
				for _, t := range ph.Tasks {
					note(t, fmt.Sprintf("the plan the critic approved at seq %d", ev.Seq))
				}
			}
		}
	}
	if bp := in.Base.Plan; bp != nil && bp.ID() == id {
		for _, ph := range bp.Phases {
			for _, t := range ph.Tasks {
				note(t, "the merge base's plan")
			}
		}
	}
	legacy := isLegacyLedger(ledger)
	var out []Finding
	var legacyIDs []string
	for _, tid := range order {
		if t, _ := plan.FindTask(tid); t != nil {
			continue
		}
		if bp := in.Base.Plan; bp != nil && bp.ID() == id {
			if bt, _ := bp.FindTask(tid); bt != nil && bt.Status == "completed" {
				continue // completedWork names it
			}
		}
		if _, ok := rep.Removed[tid]; ok {
			continue
		}
		r := refs[tid]
		if legacy {
			legacyIDs = append(legacyIDs, tid)
			continue
		}
		sev := SeverityError
		msg := fmt.Sprintf("task %s (%s: %q) is in %s but not in the head plan, and no task_removed event in %s records its removal: ", tid, r.task.Status, clipN(r.task.Description, 80), r.where, swarm.LedgerPath)
		if r.task.Status == "completed" || r.task.Status == "closed" {
			sev = SeverityWarning
			msg += "it was finished, but its removal should still go through save_plan so that the ledger records it"
		} else {
			msg += "an unfinished task was dropped silently; restore it, or remove it with the plugin's save_plan (which records task_removed) and have the critic approve the new plan"
		}
		out = append(out, Finding{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleTaskRemoved, Severity: sev, Message: msg, Key: fkey(RuleTaskRemoved, tid)})
	}
	if len(legacyIDs) > 0 {
		out = append(out, Finding{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleTaskRemoved, Severity: SeverityWarning,
			Message: fmt.Sprintf("%s dropped from the plan (%s), with no task_removed event; this ledger predates such events (schema 1.0.0), so check by hand that dropping them was intended",
				plural(len(legacyIDs), "task was", "tasks were"), listSome(legacyIDs, 20))})
	}
	return out
}

// completedWork names what the pull request does to work the merge base
// records as done (issue "what an agent hides is named"): a task completed
// there that the head plan resets (pending, in_progress, blocked) or drops
// is a status regression, which fails by plan_freeze.status_regression
// (by default when the task's phase was complete on the merge base or its
// evidence is deleted too, else a warning); a task whose description,
// acceptance, depends or files_touched the pull request rewrites is a
// redefinition, listed before and after, which fails unless an approval
// covers the head plan (approval, nil when none holds). Only a plan of the
// same plan id is compared, except that with status_regression: fail a
// plan of another id (a replacement: a new title or swarm, which the
// replacement's finding lists as a warning) is checked for regressions too,
// or retitling the plan would reset finished work past that policy.
// Transient resets inside the pull request do not count when the head is
// whole again.
func completedWork(in *Input, plan *swarm.Plan, approval *swarm.LedgerEvent) []Finding {
	base := in.Base.Plan
	if base == nil {
		return nil
	}
	samePlan := base.ID() == plan.ID()
	policy := in.config().PlanFreeze.StatusRegression
	if !samePlan && policy != RegressionFail {
		return nil
	}
	var out []Finding
	for _, bph := range base.Phases {
		for _, bt := range bph.Tasks {
			if bt.Status != "completed" {
				continue
			}
			ht, _ := plan.FindTask(bt.ID)
			if ht == nil || (ht.Status != "completed" && ht.Status != "closed") {
				out = append(out, regression(in, policy, &bph, &bt, ht))
			}
			if ht == nil || !samePlan {
				continue
			}
			if changes := redefinition(&bt, ht); len(changes) > 0 {
				f := Finding{Path: swarm.PlanPath, Line: ht.Line, EndLine: ht.Line, Rule: RuleCompletedRewritten, Severity: SeverityError,
					Message: fmt.Sprintf("completed task %s redefined: the pull request rewrites %s after the work was accepted, so its evidence no longer shows that what it now says was done; restore the definition, or add a new task for the new work", bt.ID, strings.Join(changes, "; "))}
				if approval != nil {
					f.Severity = SeverityWarning
					f.Message += fmt.Sprintf(" (the critic-approved plan at seq %d includes the new definition)", approval.Seq)
				}
				out = append(out, f)
			}
		}
	}
	return out
}

// regression is the finding of a task completed on the merge base that the
// head resets (ht its head version) or drops (ht nil).
func regression(in *Input, policy RegressionPolicy, bph *swarm.Phase, bt *swarm.Task, ht *swarm.Task) Finding {
	what, rule, line := fmt.Sprintf("task %s: completed → %s", bt.ID, "(removed)"), RuleCompletedRemoved, 1
	if ht != nil {
		what, rule, line = fmt.Sprintf("task %s: completed → %s", bt.ID, ht.Status), RuleCompletedReset, ht.Line
	}
	why := []string{}
	if phaseTerminal(bph) {
		why = append(why, fmt.Sprintf("phase %d was complete on the base branch", bph.ID))
	}
	if gone := deletedEvidence(in, bt.ID); len(gone) > 0 {
		why = append(why, "its evidence is deleted too ("+strings.Join(gone, ", ")+")")
	}
	sev := SeverityWarning
	switch {
	case policy == RegressionFail, policy == RegressionDefault && len(why) > 0:
		sev = SeverityError
	}
	msg := what + ": completed work " + map[bool]string{true: "removed from the plan", false: "reset"}[ht == nil] + " " + regressionEvent(in, bt.ID, ht)
	if len(why) > 0 {
		msg += "; " + strings.Join(why, ", and ")
	}
	msg += "; if the work must be redone, say so in the pull request and have a maintainer accept it (`/swarm approve-plan-critic <reason>`), else restore it"
	if ht == nil && removedInLedger(in, bt.ID) {
		msg += " (the ledger records task_removed, but removing finished work still needs a reviewer's eye)"
	}
	return Finding{Path: swarm.PlanPath, Line: line, EndLine: line, Rule: rule, Severity: sev, Message: msg}
}

// regressionEvent names the ledger event the pull request added that moved
// the task off completed, or says there is none.
func regressionEvent(in *Input, id string, ht *swarm.Task) string {
	l := in.Head.Ledger
	if l != nil {
		n := 0
		if in.Base.Ledger != nil {
			n = min(len(in.Base.Ledger.Events), len(l.Events))
		}
		for i := len(l.Events) - 1; i >= n; i-- {
			ev := &l.Events[i]
			if ev.TaskID == id && ((ev.EventType == "task_status_changed" && ev.FromStatus == "completed") || (ht == nil && ev.EventType == "task_removed")) {
				return fmt.Sprintf("(%s line %d, seq %d: %s)", swarm.LedgerPath, ev.Line, ev.Seq, ev.EventType)
			}
		}
	}
	return "(no ledger event of this pull request records it: plan.json was edited, or a snapshot replaced the plan)"
}

// deletedEvidence lists the task's evidence files the merge base has and
// the head does not.
func deletedEvidence(in *Input, id string) []string {
	var out []string
	for _, p := range []string{swarm.EvidenceDir + "/" + id + ".json", swarm.TaskBundlePath(id)} {
		if slices.Contains(in.Base.Evidence.Files, p) && !slices.Contains(in.Head.Evidence.Files, p) {
			out = append(out, p)
		}
	}
	return out
}

// redefinition lists the definition fields of a task that differ, before
// and after: `description "old…" → "new…"`.
func redefinition(a, b *swarm.Task) []string {
	var out []string
	text := func(field, x, y string) {
		if x != y {
			out = append(out, fmt.Sprintf("its %s %q → %q", field, clipN(x, 60), clipN(y, 60)))
		}
	}
	list := func(field string, x, y []string) {
		if !slices.Equal(x, y) {
			out = append(out, fmt.Sprintf("its %s [%s] → [%s]", field, strings.Join(x, ", "), strings.Join(y, ", ")))
		}
	}
	text("description", a.Description, b.Description)
	text("acceptance", a.Acceptance, b.Acceptance)
	list("depends", a.Depends, b.Depends)
	list("files_touched", a.FilesTouched, b.FilesTouched)
	return out
}

// removedInLedger reports whether the head ledger records task_removed for
// the task in an event the merge base does not have.
func removedInLedger(in *Input, id string) bool {
	l := in.Head.Ledger
	if l == nil {
		return false
	}
	n := 0
	if in.Base.Ledger != nil {
		n = len(in.Base.Ledger.Events)
	}
	for i := min(n, len(l.Events)); i < len(l.Events); i++ {
		if ev := &l.Events[i]; ev.EventType == "task_removed" && ev.TaskID == id {
			return true
		}
	}
	return false
}
