package gates

import (
	"context"
	"fmt"
	"slices"
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
	// RuleCriticReceiptEdited: the pull request rewrites a critic receipt
	// of the merge base (the plugin writes each once).
	RuleCriticReceiptEdited = "critic/receipt-edited"
	RuleCriticNotIntact     = "critic/approval-not-intact"
	// RuleCriticSelfApproved: the approval is a self-approval
	// (isSelfApproval) that plan_freeze.agent_overrides does not accept.
	RuleCriticSelfApproved = "critic/self-approved"
)

// Verdicts of the critic on a plan, as the protocol names them.
const (
	VerdictApproved      = "APPROVED"
	VerdictNeedsRevision = "NEEDS_REVISION"
	VerdictRejected      = "REJECTED"
)

// Evaluate implements Gate.
func (g Critic) Evaluate(_ context.Context, in *Input) Result {
	if r, ok := noPlan(g.Name(), in); ok {
		return r
	}
	plan, err := headPlan(in)
	if err != nil {
		return CouldNotEvaluate(g.Name(), err)
	}
	if reason, off := in.QAGateOff("critic_pre_plan"); off {
		return Result{Outcome: NotApplicable, Title: "the critic's plan review is off: " + reason, Findings: []Finding{},
			Summary: mdtext.Inline(reason) + ": the plugin requires no plan-critic approval before coding (resolvePlanCriticPolicyForExecution), so there is no verdict to require."}
	}
	if in.Head.LedgerErr != nil {
		return CouldNotEvaluate(g.Name(), in.Head.LedgerErr)
	}
	rc := in.Head.Receipts
	if rc != nil && rc.DirErr != nil {
		return CouldNotEvaluate(g.Name(), rc.DirErr)
	}
	if rc != nil && len(rc.Broken) > 0 {
		return CouldNotEvaluate(g.Name(), rc.Broken[0])
	}
	cfg := in.config()
	override := in.override(CommandApprovePlanCritic, plan.Digests.Structure)
	ledger := in.Head.Ledger
	var approval *swarm.LedgerEvent
	drift := 0
	if ledger != nil {
		approval, drift = ledger.LastPlanCriticApproval(plan.ID())
	}
	critics, others, deleted, edits := criticReceipts(in.Base.Receipts, rc)
	receiptsNote := fmt.Sprintf("**Review receipts** (head, plus any the pull request deleted from the merge base or edited): %s from the critic, %s from other reviewers (not about the plan).", plural(len(critics), "receipt", "receipts"), plural(others, "receipt", "receipts"))
	if deleted > 0 {
		receiptsNote += fmt.Sprintf(" %s deleted by this pull request still count.", plural(deleted, "critic receipt", "critic receipts"))
	}
	for _, e := range edits {
		receiptsNote += fmt.Sprintf(" **The pull request edits the merge base's critic receipt %s** (%s); the plugin writes a receipt once, so the merge base's version counts as well.", mdtext.Code(e.base.Path), mdtext.Inline(e.what()))
	}

	var res Result
	decisive := "" // the edited receipt whose base version rejects, if it decides
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
			Findings: []Finding{{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleCriticNoVerdict, Severity: SeverityError, Key: fkey(RuleCriticNoVerdict, plan.Digests.Structure),
				Message: "the critic has no recorded verdict on this plan; " + approveHint}}}
	case !approvalIntact(approval):
		res = Result{Outcome: Failed, Title: "the critic's approval record is not intact",
			Summary: fmt.Sprintf("The approval at seq %d does not hold together: %s. The plugin's dispatch gate would not accept it; swarm/plan-freeze has the ledger details.", approval.Seq, approvalDefect(approval)),
			Findings: []Finding{{Path: swarm.LedgerPath, Line: approval.Line, EndLine: approval.Line, Rule: RuleCriticNotIntact, Severity: SeverityError, Key: fkey(RuleCriticNotIntact, eventKey(approval)),
				Message: fmt.Sprintf("the approval at seq %d is not intact: %s; re-run the critic so that the plugin records a new approval", approval.Seq, approvalDefect(approval))}}}
	case approval.Approval.Verdict != VerdictApproved:
		v := normalizeVerdict(approval.Approval.Verdict)
		if v == "" {
			v = "(none)"
		}
		title := "critic verdict: " + v
		if v == VerdictApproved {
			// "approved" and the like: the plugin's gate accepts only the
			// exact token, so neither do we.
			v = fmt.Sprintf("%q, which the plugin's gate does not accept (it requires exactly APPROVED)", approval.Approval.Verdict)
			title = "critic verdict not recorded as APPROVED"
		}
		res = Result{Outcome: Failed, Title: title,
			Summary: fmt.Sprintf("Verdict: **%s** (ledger seq %d, recorded as %s). Next step: revise plan.md as the critic asks and run the critic again.", v, approval.Seq, mdtext.Code(approval.Approval.Verdict)),
			Findings: []Finding{{Path: swarm.LedgerPath, Line: approval.Line, EndLine: approval.Line, Rule: RuleCriticNotApproved, Severity: SeverityError, Key: fkey(RuleCriticNotApproved, eventKey(approval), plan.Digests.Structure),
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
			Findings: []Finding{{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleCriticStale, Severity: SeverityError, Key: fkey(RuleCriticStale, eventKey(approval), plan.Digests.Structure),
				Message: fmt.Sprintf("the critic approved the plan at seq %d, but the plan changed since (%s the structure hash); re-run the critic", approval.Seq, plural(n, "change that trips", "changes that trip"))}}}
	default:
		if rej := rejectedAfter(critics, approvedAt(approval)); rej != nil {
			when := "reviewed at " + rej.ReviewedAt
			if _, err := time.Parse(time.RFC3339Nano, rej.ReviewedAt); err != nil {
				when = fmt.Sprintf("review time %q unreadable, so counted as after the approval", rej.ReviewedAt)
			}
			res = Result{Outcome: Failed, Title: "critic verdict: REJECTED by a review receipt after the approval",
				Summary: fmt.Sprintf("Verdict: **REJECTED**: the approval at seq %d (%s) is followed by the critic's receipt %s (%s, %s).",
					approval.Seq, mdtext.Inline(approvedAt(approval)), mdtext.Code(rej.Path), mdtext.Inline(when), plural(rej.BlockingFindings, "blocking finding", "blocking findings")),
				Findings: []Finding{{Path: rej.Path, Line: 1, EndLine: 1, Rule: RuleCriticReceiptReject, Severity: SeverityError,
					Message: fmt.Sprintf("the critic rejected (%s) after approving the plan at seq %d; address its blocking findings (in the receipt) and run the critic again", when, approval.Seq)}}}
			// Deleting or rewriting a rejection hides it: never
			// pre-existing, whatever the merge base said.
			if e := editOf(edits, rej); e != nil {
				decisive = e.base.Path
				res.Findings[0].Message += "; the pull request edits this receipt of the merge base (" + e.what() + "), whose version still counts"
				res.Title = "critic verdict: REJECTED by a review receipt the pull request edits"
			} else if deletedByPR(in, rej.Path) {
				res.Findings[0].Message += "; the pull request deletes this receipt, which still counts"
			} else {
				res.Findings[0].Key = fkey(RuleCriticReceiptReject, rej.Path, rej.ReviewedAt, eventKey(approval))
			}
			break
		}
		if isSelfApproval(in, approval) {
			if f, _, _ := agentOverride(in, cfg, ledger, approval, plan); f.Severity == SeverityError {
				f.Rule, f.Key = RuleCriticSelfApproved, fkey(RuleCriticSelfApproved, eventKey(approval), plan.Digests.Structure)
				res = Result{Outcome: Failed, Title: "no critic verdict: the agent approved its own plan change",
					Summary:  fmt.Sprintf("Verdict: **none from the critic**: the approval at seq %d is a manual override no critic gave and no maintainer's comment backs; swarm/plan-freeze lists what changed since the last critic approval.", approval.Seq),
					Findings: []Finding{f}}
				break
			}
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
	// Any other edit is named, though the verdict does not turn on it.
	for _, e := range edits {
		if e.base.Path != decisive {
			res.Findings = append(res.Findings, Finding{Path: e.head.Path, Line: 1, EndLine: 1, Rule: RuleCriticReceiptEdited, Severity: SeverityWarning,
				Message: "the pull request edits this critic receipt of the merge base (" + e.what() + "); the plugin writes a receipt once, so the merge base's version counts as well: restore it"})
		}
	}
	return res
}

// criticReceipts returns the receipts written by the critic (agent
// "critic" or a prefixed "<swarm>_critic") at head, plus those of the merge
// base that the pull request deleted or edited (deleting or rewriting a
// rejection must not clear it), sorted by review time; how many receipts
// of other reviewers there are; how many critic receipts were deleted; and
// the edited ones, in base path order.
func criticReceipts(base, head *swarm.Receipts) (critics []swarm.ReviewReceipt, others, deleted int, edits []receiptEdit) {
	isCritic := func(r swarm.ReviewReceipt) bool {
		a := strings.ToLower(r.ReviewerAgent)
		return a == "critic" || strings.HasSuffix(a, "_critic")
	}
	atHead := map[string]swarm.ReviewReceipt{}
	if head != nil {
		for _, r := range head.Items {
			atHead[r.Path] = r
			if isCritic(r) {
				critics = append(critics, r)
			} else {
				others++
			}
		}
	}
	if base != nil {
		for _, r := range base.Items {
			h, kept := atHead[r.Path]
			switch {
			case !isCritic(r) || kept && h == r:
			case !kept:
				critics = append(critics, r)
				deleted++
			default:
				critics = append(critics, r)
				edits = append(edits, receiptEdit{base: r, head: h})
			}
		}
	}
	slices.SortStableFunc(critics, func(a, b swarm.ReviewReceipt) int { return strings.Compare(a.ReviewedAt, b.ReviewedAt) })
	slices.SortFunc(edits, func(a, b receiptEdit) int { return strings.Compare(a.base.Path, b.base.Path) })
	return critics, others, deleted, edits
}

// receiptEdit is a critic receipt of the merge base that the pull request
// keeps at the same path with other contents.
type receiptEdit struct{ base, head swarm.ReviewReceipt }

// what lists the fields the edit changes, as "verdict "rejected" →
// "approved"".
func (e receiptEdit) what() string {
	var out []string
	field := func(name string, a, b any) {
		if a != b {
			out = append(out, fmt.Sprintf("%s %q → %q", name, fmt.Sprint(a), fmt.Sprint(b)))
		}
	}
	b, h := e.base, e.head
	field("verdict", b.Verdict, h.Verdict)
	field("reviewer", b.ReviewerAgent, h.ReviewerAgent)
	field("reviewed_at", b.ReviewedAt, h.ReviewedAt)
	field("scope hash", b.ScopeHash, h.ScopeHash)
	field("scope", b.ScopeDescription, h.ScopeDescription)
	field("blocking findings", b.BlockingFindings, h.BlockingFindings)
	field("id", b.ID, h.ID)
	field("receipt_type", b.ReceiptType, h.ReceiptType)
	return strings.Join(out, ", ")
}

// editOf returns the edit whose merge-base version r is, or nil.
func editOf(edits []receiptEdit, r *swarm.ReviewReceipt) *receiptEdit {
	for i := range edits {
		if edits[i].base == *r {
			return &edits[i]
		}
	}
	return nil
}

// approvalIntact reports whether an approval snapshot holds together as
// the plugin writes it: its embedded plan re-hashes to plan_hash_after, and
// payload_hash is the embedded plan's structure hash (or, before plugin
// #2523, its ledger hash).
func approvalIntact(ev *swarm.LedgerEvent) bool { return approvalDefect(ev) == "" }

func approvalDefect(ev *swarm.LedgerEvent) string {
	d := ev.Plan.Digests
	switch {
	case d.Ledger != ev.PlanHashAfter:
		return fmt.Sprintf("its embedded plan hashes to %s, not its plan_hash_after %s", planhash.Short(d.Ledger), planhash.Short(ev.PlanHashAfter))
	case ev.PayloadHash == "":
		return "it has no payload_hash"
	case ev.PayloadHash != d.Structure && ev.PayloadHash != d.Ledger:
		return fmt.Sprintf("its payload_hash %s is neither hash of its embedded plan (structure %s)", planhash.Short(ev.PayloadHash), planhash.Short(d.Structure))
	}
	return ""
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

// deletedByPR reports whether a receipt of the merge base is gone at head.
func deletedByPR(in *Input, path string) bool {
	if in.Head.Receipts != nil {
		for _, r := range in.Head.Receipts.Items {
			if r.Path == path {
				return false
			}
		}
	}
	return true
}
