package gates

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// Evidence is swarm/evidence: every task of the phase marked completed at
// head, and every task of any other phase that this pull request marks
// completed (it was not completed at the merge base), has its gate evidence
// file .swarm/evidence/{taskId}.json, with a non-empty required_gates list
// and a record for each required gate (the plugin's hasPassedAllGates,
// src/gate-evidence.ts; spec section 8.1).
type Evidence struct{}

// Name implements Gate.
func (Evidence) Name() string { return "swarm/evidence" }

// Rule ids of swarm/evidence findings.
const (
	RuleEvidenceMissing     = "evidence/missing"
	RuleEvidenceNoGates     = "evidence/no-required-gates"
	RuleEvidenceGateMissing = "evidence/gate-missing"
)

// Evaluate implements Gate.
func (g Evidence) Evaluate(_ context.Context, in *Input) Result {
	_, phase, err := headPhase(in)
	if err != nil {
		return errorResult(g.Name(), err)
	}
	completed := tasksToCheck(in, phase)
	if len(completed) == 0 {
		return Result{Outcome: NotApplicable, Title: fmt.Sprintf("no completed tasks in phase %d yet", phase.ID),
			Summary: fmt.Sprintf("Phase %d has %s, none marked completed, so no evidence is required yet.", phase.ID, plural(len(phase.Tasks), "task", "tasks"))}
	}
	if in.Head.Evidence.DirErr != nil {
		return errorResult(g.Name(), in.Head.Evidence.DirErr)
	}
	var findings []Finding
	var unreadable []error
	ok := 0
	for _, t := range completed {
		file := swarm.EvidenceDir + "/" + t.ID + ".json"
		add := func(rule, msg string) {
			findings = append(findings, Finding{Path: swarm.PlanPath, Line: t.Line, EndLine: t.Line, Rule: rule, Severity: SeverityError, Message: msg})
		}
		tg, err := in.Head.Evidence.TaskGateFile(t.ID)
		switch {
		case err != nil:
			unreadable = append(unreadable, err)
		case tg == nil:
			msg := fmt.Sprintf("task %s is completed but has no gate evidence: %s is missing", t.ID, file)
			if bundle := swarm.EvidenceDir + "/" + t.ID + "/evidence.json"; slices.Contains(in.Head.Evidence.Files, bundle) {
				msg += fmt.Sprintf(" (%s exists, but this version reads only the gate file form)", bundle)
			}
			add(RuleEvidenceMissing, msg)
		case len(tg.RequiredGates) == 0:
			add(RuleEvidenceNoGates, fmt.Sprintf("task %s is completed but %s lists no required_gates, so no gate can have passed", t.ID, file))
		default:
			var missing []string
			for _, rg := range tg.RequiredGates {
				if !tg.Has(rg) {
					missing = append(missing, rg)
				}
			}
			if len(missing) > 0 {
				add(RuleEvidenceGateMissing, fmt.Sprintf("task %s is completed but %s has no record for required gate(s) %s", t.ID, file, strings.Join(missing, ", ")))
			} else {
				ok++
			}
		}
	}
	summary := fmt.Sprintf("Checked %s (those of phase %d, and those of other phases this pull request completes): %s; %d with all required gate evidence.",
		plural(len(completed), "completed task", "completed tasks"), phase.ID, listSome(codes(taskIDs(completed)), 30), ok)
	if len(unreadable) > 0 {
		r := errorResult(g.Name(), unreadable[0])
		r.Summary += "\n\n" + summary
		r.Findings = append(r.Findings, findings...)
		return r
	}
	if len(findings) > 0 {
		return Result{Outcome: Failed, Title: fmt.Sprintf("%s without required evidence", plural(len(findings), "completed task", "completed tasks")), Summary: summary, Findings: findings}
	}
	title := fmt.Sprintf("all %s have their gate evidence", plural(len(completed), "completed task", "completed tasks"))
	if len(completed) == 1 {
		title = "the completed task has its gate evidence"
	}
	return Result{Outcome: Passed, Title: title, Summary: summary, Findings: []Finding{}}
}

// tasksToCheck are the completed tasks of the phase plus the tasks of other
// phases that the pull request marks completed: a pull request must not be
// able to complete another phase's tasks without evidence by naming a
// different phase. When the merge base's plan is missing or unreadable,
// every completed task of the head plan counts as newly completed.
func tasksToCheck(in *Input, phase *swarm.Phase) []swarm.Task {
	var out []swarm.Task
	for _, t := range phase.Tasks {
		if t.Status == "completed" {
			out = append(out, t)
		}
	}
	base := in.Base.Plan
	for _, ph := range in.Head.Plan.Phases {
		if ph.ID == phase.ID {
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
