package gates

import (
	"context"
	"fmt"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/planhash"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// PlanFreeze is swarm/plan-freeze: the head plan must be the plan the critic
// approved (same structure hash as the newest plan-critic approval snapshot
// in the ledger, spec sections 3.5-3.6), and the ledger must be intact (every
// embedded plan re-hashes to its plan_hash_after; plan.json re-hashes to the
// last plan_hash_after).
type PlanFreeze struct{}

// Name implements Gate.
func (PlanFreeze) Name() string { return "swarm/plan-freeze" }

// Rule ids of swarm/plan-freeze findings.
const (
	RuleNoApproval        = "plan-freeze/no-critic-approval"
	RuleApprovalVerdict   = "plan-freeze/approval-not-approved"
	RulePlanChanged       = "plan-freeze/plan-changed-since-approval"
	RuleLedgerHash        = "plan-freeze/ledger-hash-mismatch"
	RulePlanOutsideLedger = "plan-freeze/plan-edited-outside-ledger"
	RuleLedgerRewritten   = "plan-freeze/ledger-rewritten"
	RuleLedgerSeq         = "plan-freeze/ledger-seq"
)

// titles of plan-freeze failures, by the rule of their first finding.
var planFreezeTitles = map[string]string{
	RuleNoApproval:        "no plan-critic approval for this plan",
	RuleApprovalVerdict:   "the latest plan-critic approval is not APPROVED",
	RulePlanChanged:       "the plan changed since the critic approved it",
	RuleLedgerHash:        "the ledger does not re-hash: an embedded plan was edited",
	RulePlanOutsideLedger: "plan.json was changed outside the ledger",
	RuleLedgerRewritten:   "the ledger was rewritten: it does not extend the merge base's",
	RuleLedgerSeq:         "the ledger's seq numbers are out of order",
}

const approveHint = "run the critic on plan.md, or `/swarm approve-plan-critic <reason>` if an APPROVED verdict was lost"

// Evaluate implements Gate.
func (g PlanFreeze) Evaluate(_ context.Context, in *Input) Result {
	plan, err := headPlan(in)
	if err != nil {
		return errorResult(g.Name(), err)
	}
	if in.Head.LedgerErr != nil {
		return errorResult(g.Name(), in.Head.LedgerErr)
	}
	ledger := in.Head.Ledger
	if ledger != nil && len(ledger.Events) == 0 {
		return Result{
			Outcome: Failed,
			Title:   "no plan-critic approval: " + swarm.LedgerPath + " is empty",
			Summary: "The ledger has no events, so the critic never approved this plan. Next step: " + approveHint + ".",
			Findings: []Finding{{Path: swarm.LedgerPath, Rule: RuleNoApproval, Severity: SeverityError,
				Message: "PLAN_CRITIC_GATE_VIOLATION: Cannot delegate to coder before plan critic approval. " + swarm.LedgerPath + " is empty; " + approveHint + "."}},
		}
	}
	if ledger == nil {
		return Result{
			Outcome: Failed,
			Title:   "no plan-critic approval: " + swarm.LedgerPath + " is missing",
			Summary: "The plan has no ledger, so the critic never approved it through the plugin's plan-critic gate. Next step: " + approveHint + ".",
			Findings: []Finding{{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleNoApproval, Severity: SeverityError,
				Message: "PLAN_CRITIC_GATE_VIOLATION: Cannot delegate to coder before plan critic approval. " + swarm.LedgerPath + " is missing; " + approveHint + "."}},
		}
	}
	if in.Base.LedgerErr != nil {
		// %v, not %w: the file is the merge base's, so it is not an
		// annotation on the pull request's copy.
		return errorResult(g.Name(), fmt.Errorf("the merge base's %v", in.Base.LedgerErr))
	}
	var findings []Finding
	findings = append(findings, appendOnly(in.Base.Ledger, ledger)...)
	findings = append(findings, ledgerIntegrity(ledger, plan)...)

	id := plan.ID()
	approval, drift := ledger.LastPlanCriticApproval(id)
	var notes []string
	switch {
	case approval == nil:
		msg := fmt.Sprintf("PLAN_CRITIC_GATE_VIOLATION: Cannot delegate to coder before plan critic approval. %s has no plan-critic approval for plan %s; %s.", swarm.LedgerPath, id, approveHint)
		if drift > 0 {
			msg += fmt.Sprintf(" (It has %s, which approve a phase's drift check, not the plan.)", plural(drift, "drift-verifier approval", "drift-verifier approvals"))
		}
		findings = append(findings, Finding{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleNoApproval, Severity: SeverityError, Message: msg})
	case approval.Approval.Verdict != "APPROVED":
		findings = append(findings, Finding{Path: swarm.LedgerPath, Line: approval.Line, EndLine: approval.Line, Rule: RuleApprovalVerdict, Severity: SeverityError,
			Message: fmt.Sprintf("PLAN_CRITIC_GATE_VIOLATION: Latest approved-plan snapshot does not contain plan critic VERDICT: APPROVED evidence (seq %d has verdict %q); %s.", approval.Seq, approval.Approval.Verdict, approveHint)})
	default:
		approved := approval.Plan
		notes = append(notes, fmt.Sprintf("Approval: seq %d (%s), payload_hash %s; %s.", approval.Seq, approvalKind(approval.Approval), payloadHashKind(approval), provenance(in.Base.Ledger, approval)))
		if approved.Digests.Structure != plan.Digests.Structure {
			changes := swarm.DiffPlans(approved, plan)
			msg := fmt.Sprintf("PLAN_CRITIC_GATE_VIOLATION: Current plan differs from the last critic-approved snapshot (seq %d): structure hash %s, approved %s.",
				approval.Seq, planhash.Short(plan.Digests.Structure), planhash.Short(approved.Digests.Structure))
			findings = append(findings, Finding{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RulePlanChanged, Severity: SeverityError,
				Message: msg + " Next step: re-run the critic on the changed plan, or `/swarm approve-plan-critic <reason>`."})
			for _, c := range changes {
				findings = append(findings, Finding{Path: swarm.PlanPath, Line: c.Line, EndLine: c.Line, Rule: RulePlanChanged, Severity: SeverityError, Message: c.Text})
			}
		}
	}
	summary := strings.Join(notes, "\n")
	if len(findings) == 0 {
		origin := "agent-attested"
		if baseAnchored(in.Base.Ledger, approval) {
			origin = "base-anchored"
		}
		return Result{Outcome: Passed,
			Title:   fmt.Sprintf("plan matches the critic-approved snapshot (seq %d, %s)", approval.Seq, origin),
			Summary: summary + fmt.Sprintf("\nStructure hash %s; %d ledger events checked.", planhash.Short(plan.Digests.Structure), len(ledger.Events))}
	}
	title := planFreezeTitles[findings[0].Rule]
	if n := len(findings); n > 1 {
		title += fmt.Sprintf(" (+%s)", plural(n-1, "more finding", "more findings"))
	}
	return Result{Outcome: Failed, Title: title, Summary: summary, Findings: findings}
}

// baseAnchored reports whether the approval's line is already in the merge
// base's ledger (which the head ledger extends byte for byte).
func baseAnchored(base *swarm.Ledger, approval *swarm.LedgerEvent) bool {
	return base != nil && approval.Line <= len(base.Events)
}

// provenance says whether an approval was already on the base side or was
// added by this pull request (trust model, DESIGN.md section 3.5).
func provenance(base *swarm.Ledger, approval *swarm.LedgerEvent) string {
	if baseAnchored(base, approval) {
		return "recorded on the base side (base-anchored)"
	}
	return "added in this pull request (agent-attested: the agent's own ledger entry)"
}

// appendOnly checks DESIGN.md section 3.3: the head ledger must extend the
// merge base's byte for byte. It names the first line that differs.
func appendOnly(base, head *swarm.Ledger) []Finding {
	if base == nil || len(base.Data) == 0 {
		return nil
	}
	if len(head.Data) >= len(base.Data) && string(head.Data[:len(base.Data)]) == string(base.Data) {
		return nil
	}
	line := 1
	for i := 0; i < len(base.Data) && i < len(head.Data) && base.Data[i] == head.Data[i]; i++ {
		if base.Data[i] == '\n' {
			line++
		}
	}
	msg := fmt.Sprintf("the ledger was rewritten: line %d differs from the merge base's %s (%d lines there), but the ledger is append-only; restore the base lines and append new events after them", line, swarm.LedgerPath, len(base.Events))
	if len(head.Data) < len(base.Data) && string(base.Data[:len(head.Data)]) == string(head.Data) {
		msg = fmt.Sprintf("the ledger was truncated: it has %d bytes, the merge base's has %d; the ledger is append-only", len(head.Data), len(base.Data))
	}
	return []Finding{{Path: swarm.LedgerPath, Line: line, EndLine: line, Rule: RuleLedgerRewritten, Severity: SeverityError, Message: msg}}
}

func approvalKind(a *swarm.Approval) string {
	if a.Method == "manual_override" {
		return "plan_critic_gate, manual override"
	}
	return "plan_critic_gate"
}

func payloadHashKind(ev *swarm.LedgerEvent) string {
	switch ev.PayloadHash {
	case ev.Plan.Digests.Structure:
		return "= structure hash of the embedded plan"
	case ev.Plan.Digests.Ledger:
		return "= ledger hash of the embedded plan (pre-#2523 plugin)"
	case "":
		return "absent"
	}
	return "matches neither hash of the embedded plan"
}

// ledgerIntegrity turns swarm.VerifyLedger's problems into findings.
func ledgerIntegrity(l *swarm.Ledger, plan *swarm.Plan) []Finding {
	var out []Finding
	for _, p := range swarm.VerifyLedger(l, plan) {
		if p.Kind == "plan-json" {
			out = append(out, Finding{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RulePlanOutsideLedger, Severity: SeverityError,
				Message: p.Msg + "; save plan changes through the plugin's tools (save_plan, update_task_status) so that the ledger records them, or restore plan.json"})
			continue
		}
		rule := RuleLedgerHash
		if p.Kind == "seq-order" {
			rule = RuleLedgerSeq
		}
		out = append(out, Finding{Path: swarm.LedgerPath, Line: p.Line, EndLine: p.Line, Rule: rule, Severity: SeverityError, Message: p.String()})
	}
	return out
}
