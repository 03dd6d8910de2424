package gates

import (
	"fmt"
	"slices"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// Phase sources besides the explicit ones (gate.go): how InferPhase picked
// the phase when no flag, branch or label named it.
const (
	// PhaseFromStatusChanges: the phase whose tasks the pull request
	// changes the status of (most tasks; ties to the lowest phase).
	PhaseFromStatusChanges PhaseSource = "status_changes"
	// PhaseFromActivePhase: the plugin's active phase, the first phase
	// that is not complete.
	PhaseFromActivePhase PhaseSource = "active_phase"
	// PhaseFromNoPlan: neither side has a plan, or the pull request
	// deletes it; the phase is 0 and the gates that need a plan say why.
	PhaseFromNoPlan PhaseSource = "no_plan"
)

// StatusChanges counts, per phase of the head plan, the tasks whose status
// the pull request changes: the status differs from the merge base's, or
// the task is new and not pending. base may be nil (no plan there). The
// keys are phase ids; phases without changes are absent. forward counts
// the changes that move work on (to in_progress, completed or closed);
// all counts every change, resets included.
func StatusChanges(base, head *swarm.Plan) (forward, all map[int]int) {
	forward, all = map[int]int{}, map[int]int{}
	if head == nil {
		return forward, all
	}
	for _, ph := range head.Phases {
		for _, t := range ph.Tasks {
			before := "pending"
			if base != nil {
				if bt, _ := base.FindTask(t.ID); bt != nil {
					before = bt.Status
				}
			}
			if t.Status == before {
				continue
			}
			all[ph.ID]++
			switch t.Status {
			case "in_progress", "completed", "closed":
				forward[ph.ID]++
			}
		}
	}
	return forward, all
}

// InferPhase picks the phase a pull request carries when no flag, branch or
// label names it (issue "judge the pull request"): the phase whose tasks
// the pull request changes the status of (most tasks, ties to the lowest),
// else the plugin's active phase (the first phase not complete: its status
// is not complete, completed or closed, and not all of its tasks are
// completed or closed), else current_phase, else the last phase. Changes
// that move work on (to in_progress, completed, closed) count first: a
// pull request that resets tasks of one phase while completing tasks of
// another carries the other (swarm/plan-freeze names the resets); only
// when no task moves on do resets pick the phase. changed lists the phases
// with the counted changes, ascending. head must not be nil.
func InferPhase(base, head *swarm.Plan) (phase int, src PhaseSource, changed []int) {
	forward, all := StatusChanges(base, head)
	counts := forward
	if len(counts) == 0 {
		counts = all
	}
	for id := range counts {
		changed = append(changed, id)
	}
	slices.Sort(changed)
	best := 0
	for _, id := range changed {
		if best == 0 || counts[id] > counts[best] {
			best = id
		}
	}
	if best > 0 {
		return best, PhaseFromStatusChanges, changed
	}
	for _, ph := range head.Phases {
		if !phaseTerminal(&ph) {
			return ph.ID, PhaseFromActivePhase, nil
		}
	}
	if head.CurrentPhase > 0 {
		return head.CurrentPhase, PhaseFromCurrentPhase, nil
	}
	if n := len(head.Phases); n > 0 {
		return head.Phases[n-1].ID, PhaseFromActivePhase, nil
	}
	return 0, PhaseFromNoPlan, nil
}

// phaseTerminal is the plugin's terminal phase (resolveActivePhaseId): its
// status is complete, completed or closed, or it has tasks and all of
// them are completed or closed.
func phaseTerminal(ph *swarm.Phase) bool {
	switch ph.Status {
	case "complete", "completed", "closed":
		return true
	}
	if len(ph.Tasks) == 0 {
		return false
	}
	for _, t := range ph.Tasks {
		if t.Status != "completed" && t.Status != "closed" {
			return false
		}
	}
	return true
}

// phasesUnderCheck are the phases whose tasks swarm/scope and
// swarm/evidence check: the pull request's phase, plus every other phase
// whose tasks it changes the status of (Input.Phases), in ascending order,
// each present in the head plan.
func phasesUnderCheck(in *Input, plan *swarm.Plan, primary *swarm.Phase) []*swarm.Phase {
	out := []*swarm.Phase{primary}
	for _, id := range in.Phases {
		if id == primary.ID {
			continue
		}
		if ph := plan.FindPhase(id); ph != nil {
			out = append(out, ph)
		}
	}
	slices.SortFunc(out, func(a, b *swarm.Phase) int { return a.ID - b.ID })
	return out
}

// phaseList names phases for titles: "phase 2" or "phases 2, 3".
func phaseList(phs []*swarm.Phase) string {
	if len(phs) == 1 {
		return fmt.Sprintf("phase %d", phs[0].ID)
	}
	ids := make([]string, len(phs))
	for i, ph := range phs {
		ids[i] = fmt.Sprint(ph.ID)
	}
	return "phases " + strings.Join(ids, ", ")
}

// RulePlanDeleted marks a pull request that deletes the plan (or the whole
// .swarm/ folder) while the merge base has one.
const RulePlanDeleted = "plan-freeze/plan-deleted"

// noPlan is the result of a gate that needs a plan when the head has none
// (and none is unreadable): not applicable when neither side has a plan;
// when the pull request deletes the merge base's plan, swarm/plan-freeze
// fails with one finding naming what was deleted and the others are not
// applicable. ok is false when the head has a plan (or an unreadable one):
// the gate goes on.
func noPlan(name string, in *Input) (Result, bool) {
	h := in.Head
	if h.Present && (h.Plan != nil || h.PlanErr != nil) {
		return Result{}, false
	}
	b := in.Base
	if b.Plan == nil {
		if r, ok := planlessLedger(name, in); ok {
			return r, true
		}
		what := "neither the merge base nor the head has " + swarm.PlanPath
		if !b.Present && !h.Present {
			what = "neither the merge base nor the head has a .swarm/ folder"
		}
		return Result{Outcome: NotApplicable, Title: "no plan: " + what, Findings: []Finding{},
			Summary: "There is no plan on either side of this pull request (" + what + "; the plugin's early or plan-less projects have only plan.md, context.md or spec.md), so there is nothing to check against a plan. swarm/placeholders and swarm/sast still check the change."}, true
	}
	deleted := swarm.PlanPath
	if !h.Present {
		deleted = "the whole .swarm/ folder"
	}
	if name != (PlanFreeze{}).Name() {
		return Result{Outcome: NotApplicable, Title: "the pull request deletes the plan", Findings: []Finding{},
			Summary: "The pull request deletes " + deleted + ", which the merge base has; swarm/plan-freeze reports it. There is no head plan to check this gate against."}, true
	}
	total, done := 0, 0
	for _, ph := range b.Plan.Phases {
		for _, t := range ph.Tasks {
			total++
			if t.Status == "completed" {
				done++
			}
		}
	}
	what := fmt.Sprintf("%s (plan %q: %s, %d completed)", swarm.PlanPath, b.Plan.Title, plural(total, "task", "tasks"), done)
	if b.Ledger != nil && len(b.Ledger.Events) > 0 && (!h.Present || h.Ledger == nil) {
		what += fmt.Sprintf(" and %s (%s)", swarm.LedgerPath, plural(len(b.Ledger.Events), "event", "events"))
	}
	msg := "the pull request deletes " + what
	if !h.Present {
		msg = "the pull request deletes the whole .swarm/ folder, with " + what
	}
	msg += ", which the merge base has: the plan and its history are the record the gates check, so deleting them hides what was planned and approved. Restore them, or, if the project stops using opencode-swarm, have a maintainer approve the removal (override this check)"
	return Result{Outcome: Failed, Title: "the pull request deletes the plan", Summary: "The merge base has a plan; the head has none. " + msg + ".",
		Findings: []Finding{{Path: swarm.PlanPath, Rule: RulePlanDeleted, Severity: SeverityError, Message: msg}}}, true
}

// planlessLedger is plan-freeze's verdict when neither side has a plan but
// the merge base has a ledger: the ledger is append-only with or without
// plan.json, so deleting or rewriting it still fails.
func planlessLedger(name string, in *Input) (Result, bool) {
	b, h := in.Base, in.Head
	if name != (PlanFreeze{}).Name() || b.Ledger == nil || len(b.Ledger.Events) == 0 {
		return Result{}, false
	}
	if h.LedgerErr != nil {
		return CouldNotEvaluate(name, h.LedgerErr), true
	}
	var findings []Finding
	if h.Ledger == nil || !h.Present {
		findings = []Finding{{Path: swarm.LedgerPath, Line: 1, EndLine: 1, Rule: RuleLedgerRewritten, Severity: SeverityError, Key: fkey(RuleLedgerRewritten, "deleted"),
			Message: fmt.Sprintf("the pull request deletes %s, which has %s at the merge base; the ledger is append-only: restore it", swarm.LedgerPath, plural(len(b.Ledger.Events), "event", "events"))}}
	} else if !h.LedgerResetting {
		findings = appendOnly(b.Ledger, h.Ledger)
	}
	if len(findings) == 0 {
		return Result{}, false
	}
	return Result{Outcome: Failed, Title: planFreezeTitles[RuleLedgerRewritten], Findings: findings,
		Summary: "Neither side has " + swarm.PlanPath + ", but the merge base has " + swarm.LedgerPath + " (" + plural(len(b.Ledger.Events), "event", "events") + "), and the ledger is append-only whether or not plan.json is committed."}, true
}

// planWorkDone reports whether every phase of the plan is done, judged by
// its tasks, not by the phases' own status
// field: a phase whose tasks are not all completed or closed is open work
// even when its status says "complete". A pull request can set that status
// with a phase_completed event (a status change, which needs no approval),
// so swarm/scope's "no open phase" must not rest on it, or the pull request
// would switch off its own scope check.
func planWorkDone(plan *swarm.Plan) bool {
	for i := range plan.Phases {
		ph := &plan.Phases[i]
		if len(ph.Tasks) == 0 {
			if !phaseTerminal(ph) {
				return false
			}
			continue
		}
		for _, t := range ph.Tasks {
			if t.Status != "completed" && t.Status != "closed" {
				return false
			}
		}
	}
	return len(plan.Phases) > 0
}
