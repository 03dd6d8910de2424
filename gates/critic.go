package gates

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// Critic is swarm/critic: the critic's verdict on the head plan, reported
// apart from swarm/plan-freeze so that branch protection can require either.
// The verdict comes from the newest plan-critic approval snapshot for the
// head plan's id (spec section 3.5) and, where present, from the critic's
// review receipts in .swarm/review-receipts/ (a critic receipt that rejects
// after the approval wins). It passes when the verdict is APPROVED for the
// head plan's structure hash. Ledger integrity is swarm/plan-freeze's job.
type Critic struct{}

// Name implements Gate.
func (Critic) Name() string { return "swarm/critic" }

// Rule ids of swarm/critic findings.
const (
	RuleCriticNoVerdict     = "critic/no-verdict"
	RuleCriticNotApproved   = "critic/not-approved"
	RuleCriticStale         = "critic/approved-an-earlier-plan"
	RuleCriticReceiptReject = "critic/receipt-rejected"
)

// Verdicts of the critic on a plan, as the protocol names them.
const (
	VerdictApproved      = "APPROVED"
	VerdictNeedsRevision = "NEEDS_REVISION"
	VerdictRejected      = "REJECTED"
)

// Evaluate implements Gate.
func (g Critic) Evaluate(_ context.Context, in *Input) Result {
	plan, err := headPlan(in)
	if err != nil {
		return errorResult(g.Name(), err)
	}
	if in.Head.LedgerErr != nil {
		return errorResult(g.Name(), in.Head.LedgerErr)
	}
	rc := in.Head.Receipts
	if rc != nil && rc.DirErr != nil {
		return errorResult(g.Name(), rc.DirErr)
	}
	if rc != nil && len(rc.Broken) > 0 {
		return errorResult(g.Name(), rc.Broken[0])
	}
	cfg := in.config()
	override := in.override(CommandApprovePlanCritic, plan.Digests.Structure)
	ledger := in.Head.Ledger
	var approval *swarm.LedgerEvent
	drift := 0
	if ledger != nil {
		approval, drift = ledger.LastPlanCriticApproval(plan.ID())
	}
	critics, others := criticReceipts(rc)
	receiptsNote := fmt.Sprintf("**Review receipts**: %s from the critic, %s from other reviewers (not about the plan).", plural(len(critics), "receipt", "receipts"), plural(others, "receipt", "receipts"))

	var res Result
	switch {
	case approval == nil:
		why := "no plan-critic approval snapshot for plan id " + mdtext.Code(plan.ID()) + " in " + swarm.LedgerPath
		if ledger == nil {
			why = swarm.LedgerPath + " is missing"
		}
		if drift > 0 {
			why += fmt.Sprintf(" (%s, which approve a phase's drift check, not the plan)", plural(drift, "drift-verifier approval", "drift-verifier approvals"))
		}
		if ledger != nil && isLegacyLedger(ledger) && cfg.PlanFreeze.AllowLegacyPlans {
			return Result{Outcome: NotApplicable, Title: "legacy plan: no critic verdict required by policy",
				Summary: "The ledger predates the plugin's plan-critic gate (schema 1.0.0) and the policy accepts legacy plans (plan_freeze.legacy_plans: allow), so there is no critic verdict to check: " + why + ".\n\n" + receiptsNote}
		}
		res = Result{Outcome: Failed, Title: "no critic verdict on this plan",
			Summary: "Verdict: **none**: " + why + ". Next step: " + approveHint + ".",
			Findings: []Finding{{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleCriticNoVerdict, Severity: SeverityError,
				Message: "the critic has no recorded verdict on this plan; " + approveHint}}}
	case approval.Approval.Verdict != VerdictApproved:
		v := normalizeVerdict(approval.Approval.Verdict)
		title := "critic verdict: " + v
		if v == VerdictApproved {
			// "approved" and the like: the plugin's gate accepts only the
			// exact token, so neither do we.
			v = fmt.Sprintf("%q, which the plugin's gate does not accept (it requires exactly APPROVED)", approval.Approval.Verdict)
			title = "critic verdict not recorded as APPROVED"
		}
		res = Result{Outcome: Failed, Title: title,
			Summary: fmt.Sprintf("Verdict: **%s** (ledger seq %d, recorded as %s). Next step: revise plan.md as the critic asks and run the critic again.", v, approval.Seq, mdtext.Code(approval.Approval.Verdict)),
			Findings: []Finding{{Path: swarm.LedgerPath, Line: approval.Line, EndLine: approval.Line, Rule: RuleCriticNotApproved, Severity: SeverityError,
				Message: fmt.Sprintf("the critic's latest verdict on the plan is %s (seq %d); revise the plan and run the critic again", v, approval.Seq)}}}
	case approval.Plan.Digests.Structure != plan.Digests.Structure:
		n := 0
		for _, c := range swarm.ComparePlans(approval.Plan, plan) {
			if c.InvalidatesApproval() {
				n++
			}
		}
		res = Result{Outcome: Failed, Title: "the critic approved an earlier version of the plan",
			Summary: fmt.Sprintf("Verdict: **APPROVED** at seq %d, but for structure hash %s; the head plan's is %s (%s since: swarm/plan-freeze lists them). Next step: re-run the critic on the changed plan, or `/swarm approve-plan-critic <reason>`.",
				approval.Seq, planhash.Short(approval.Plan.Digests.Structure), planhash.Short(plan.Digests.Structure), plural(n, "change", "changes")),
			Findings: []Finding{{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleCriticStale, Severity: SeverityError,
				Message: fmt.Sprintf("the critic approved the plan at seq %d, but the plan changed since (%s that trip the structure hash); re-run the critic", approval.Seq, plural(n, "change", "changes"))}}}
	default:
		if rej := rejectedAfter(critics, approval.Approval.ApprovedAt); rej != nil {
			res = Result{Outcome: Failed, Title: "critic verdict: REJECTED by a review receipt after the approval",
				Summary: fmt.Sprintf("Verdict: **REJECTED**: the approval at seq %d (%s) is followed by the critic's receipt %s (%s, %s).",
					approval.Seq, mdtext.Inline(approval.Approval.ApprovedAt), mdtext.Code(rej.Path), mdtext.Inline(rej.ReviewedAt), plural(rej.BlockingFindings, "blocking finding", "blocking findings")),
				Findings: []Finding{{Path: rej.Path, Line: 1, EndLine: 1, Rule: RuleCriticReceiptReject, Severity: SeverityError,
					Message: fmt.Sprintf("the critic rejected (reviewed at %s) after approving the plan at seq %d; address its blocking findings and run the critic again", rej.ReviewedAt, approval.Seq)}}}
			break
		}
		res = Result{Outcome: Passed,
			Title:   fmt.Sprintf("critic verdict: APPROVED (seq %d, %s)", approval.Seq, approvalOrigin(in, approval, nil)),
			Summary: fmt.Sprintf("Verdict: **APPROVED** for structure hash %s. %s", planhash.Short(plan.Digests.Structure), approvalNote(in, approval))}
	}
	res.Summary += "\n\n" + receiptsNote
	if res.Outcome == Failed && override != nil {
		for i := range res.Findings {
			res.Findings[i].Severity = SeverityNotice
			res.Findings[i].Message = "overridden by @" + override.Actor + ": " + res.Findings[i].Message
		}
		res.Outcome = Overridden
		res.Title = "approved by a human override: @" + override.Actor
		res.Summary += "\n\n" + overrideNote(override)
	}
	return res
}

// criticReceipts returns the receipts written by the critic (agent "critic"
// or a prefixed "<swarm>_critic") and how many others there are.
func criticReceipts(rc *swarm.Receipts) ([]swarm.ReviewReceipt, int) {
	if rc == nil {
		return nil, 0
	}
	var out []swarm.ReviewReceipt
	for _, r := range rc.Items {
		a := strings.ToLower(r.ReviewerAgent)
		if a == "critic" || strings.HasSuffix(a, "_critic") {
			out = append(out, r)
		}
	}
	return out, len(rc.Items) - len(out)
}

// rejectedAfter returns the newest critic receipt whose verdict does not
// approve and that was reviewed after approvedAt, or nil. Receipts whose
// time cannot be read count as after (fail closed).
func rejectedAfter(critics []swarm.ReviewReceipt, approvedAt string) *swarm.ReviewReceipt {
	at, atErr := time.Parse(time.RFC3339Nano, approvedAt)
	for i := len(critics) - 1; i >= 0; i-- {
		r := &critics[i]
		if normalizeVerdict(r.Verdict) == VerdictApproved {
			continue
		}
		rt, err := time.Parse(time.RFC3339Nano, r.ReviewedAt)
		if err != nil || atErr != nil || rt.After(at) {
			return r
		}
	}
	return nil
}

// normalizeVerdict maps the spellings seen in real files onto the
// protocol's three verdicts; anything else is returned upper-cased.
func normalizeVerdict(v string) string {
	u := strings.ToUpper(strings.TrimSpace(v))
	switch strings.ReplaceAll(strings.ReplaceAll(u, "-", "_"), " ", "_") {
	case "APPROVED", "APPROVE", "PASS":
		return VerdictApproved
	case "NEEDS_REVISION", "CHANGES_REQUESTED", "REVISE":
		return VerdictNeedsRevision
	case "REJECTED", "REJECT", "FAIL":
		return VerdictRejected
	}
	return u
}
