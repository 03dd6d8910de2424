package gates

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// PlanFreeze is swarm/plan-freeze: the head plan must be the plan the critic
// approved, and the plan's history must be intact. In order:
//
//   - the ledger extends the merge base's byte for byte, its seq numbers
//     count up by one, every embedded plan re-hashes to its plan_hash_after,
//     every event is explained by the replay of spec section 3.7, and
//     plan.json re-hashes to the last plan_hash_after;
//   - a locked execution_profile never changes;
//   - the newest plan-critic approval snapshot for the head plan's id
//     (spec sections 3.5-3.6) has verdict APPROVED, and its embedded plan has
//     the head plan's structure hash; what changed since is listed field by
//     field, classified as the PLAN FREEZE rules classify it
//     (swarm.ComparePlans); fr_refs and phase type changes, outside the hash,
//     are flagged too;
//   - tasks removed since an approval (or since the merge base) were removed
//     through the plugin (a task_removed event) if unfinished;
//   - .swarm/spec-staleness.json is absent (the plugin blocks plan saves
//     while it exists), or a human acknowledged the drift through swarm-gate;
//   - the approval's source satisfies the base config's plan_freeze.approval.
//
// A human override recorded by swarm-gate for the head structure hash turns
// approval failures (not integrity failures) into Overridden.
type PlanFreeze struct{}

// Name implements Gate.
func (PlanFreeze) Name() string { return "swarm/plan-freeze" }

// Rule ids of swarm/plan-freeze findings.
const (
	RuleNoApproval         = "plan-freeze/no-critic-approval"
	RuleApprovalVerdict    = "plan-freeze/approval-not-approved"
	RulePlanChanged        = "plan-freeze/plan-changed-since-approval"
	RuleBookkeepingChanged = "plan-freeze/bookkeeping-changed-since-approval"
	RuleUnhashedChanged    = "plan-freeze/unhashed-field-changed-since-approval"
	RuleApprovalSource     = "plan-freeze/approval-source-not-accepted"
	RuleTaskRemoved        = "plan-freeze/task-removed-without-ledger-event"
	RuleSpecStale          = "plan-freeze/spec-stale"
	// RuleAgentAttested is a notice: the approval plan-freeze accepts is
	// one the pull request adds (agent-attested), shown at the top of the
	// aggregate check.
	RuleAgentAttested      = "plan-freeze/agent-attested-approval"
	RuleProfileLocked      = "plan-freeze/execution-profile-locked"
	RuleLedgerHash         = "plan-freeze/ledger-hash-mismatch"
	RuleLedgerUnexplained  = "plan-freeze/ledger-event-unexplained"
	RulePlanOutsideLedger  = "plan-freeze/plan-edited-outside-ledger"
	RuleLedgerRewritten    = "plan-freeze/ledger-rewritten"
	RuleLedgerSeq          = "plan-freeze/ledger-seq"
	RuleLedgerResetting    = "plan-freeze/ledger-resetting"
	RuleAgentOverride      = "plan-freeze/agent-self-approval"
	RuleCompletedReset     = "plan-freeze/completed-task-reset"
	RuleCompletedRemoved   = "plan-freeze/completed-task-removed"
	RuleCompletedRewritten = "plan-freeze/completed-task-rewritten"
	RuleDuplicateKey       = "plan-freeze/duplicate-key"
)

// titles of plan-freeze failures, by the rule of their first failing finding.
var planFreezeTitles = map[string]string{
	RuleNoApproval:         "no plan-critic approval for this plan",
	RuleApprovalVerdict:    "the latest plan-critic approval is not APPROVED",
	RulePlanChanged:        "the plan changed since the critic approved it",
	RuleBookkeepingChanged: "bookkeeping fields changed since the critic approved the plan",
	RuleUnhashedChanged:    "fr_refs or phase type changed since the critic approved the plan",
	RuleApprovalSource:     "the approval's source is not one the policy accepts",
	RuleTaskRemoved:        "a task was removed outside the ledger",
	RuleSpecStale:          "the spec changed after the plan was saved",
	RuleProfileLocked:      "the execution profile changed after it was locked",
	RuleLedgerHash:         "the ledger does not re-hash: an embedded plan was edited",
	RuleLedgerUnexplained:  "the ledger has an event its replay cannot explain",
	RulePlanOutsideLedger:  "plan.json was changed outside the ledger",
	RuleLedgerRewritten:    "the ledger was rewritten: it does not extend the merge base's",
	RuleLedgerSeq:          "the ledger's seq numbers are out of order",
	RuleLedgerResetting:    "a ledger reset marker (plan-ledger.resetting) is present",
	RuleAgentOverride:      "the agent approved its own material change: re-run the critic or ask a maintainer for /swarm approve-plan-critic",
	RuleCompletedReset:     "completed work was reset: a task completed on the base branch is no longer completed",
	RuleCompletedRemoved:   "completed work was removed: a task completed on the base branch is gone from the plan",
	RuleCompletedRewritten: "completed work was redefined: a finished task's definition changed",
	RulePlanDeleted:        "the pull request deletes the plan",
	RuleDuplicateKey:       "a key is repeated in plan.json or a ledger line: the plugin reads the last value, the diff shows both",
	RulePlanReplaced:       "plan replaced: a new plan without a plan-critic approval",
}

// approvalRules are the rules a human override can clear: they are about
// whether the plan is approved, not about whether its history is intact.
var approvalRules = map[string]bool{
	RuleNoApproval: true, RuleApprovalVerdict: true, RulePlanChanged: true,
	RuleBookkeepingChanged: true, RuleUnhashedChanged: true, RuleApprovalSource: true,
	// Rework a maintainer accepts: the override names who and why.
	RuleCompletedReset: true, RuleCompletedRemoved: true, RuleCompletedRewritten: true,
	RulePlanReplaced: true, RuleAgentOverride: true,
}

const approveHint = "run the critic on plan.md, or `/swarm approve-plan-critic <reason>` if an APPROVED verdict was lost"

// ApproveHint is approveHint for other packages: the SARIF rule help of the
// approval rules says the same as the gates' "Next step".
const ApproveHint = approveHint

// Evaluate implements Gate.
func (g PlanFreeze) Evaluate(_ context.Context, in *Input) Result {
	if r, ok := noPlan(g.Name(), in); ok {
		return r
	}
	plan, err := headPlan(in)
	if err != nil {
		return CouldNotEvaluate(g.Name(), err)
	}
	if in.Head.LedgerErr != nil {
		return CouldNotEvaluate(g.Name(), in.Head.LedgerErr)
	}
	if in.Base.LedgerErr != nil {
		// %v, not %w: the file is the merge base's, so it is not an
		// annotation on the pull request's copy.
		return CouldNotEvaluate(g.Name(), fmt.Errorf("the merge base's %v", in.Base.LedgerErr))
	}
	cfg := in.config()
	ledger := in.Head.Ledger
	var findings []Finding
	var notes []string

	baseLedger := in.Base.Ledger
	switch {
	case in.Head.LedgerResetting:
		findings = append(findings, Finding{Path: swarm.LedgerResettingPath, Line: 1, EndLine: 1, Rule: RuleLedgerResetting, Severity: SeverityError, Key: fkey(RuleLedgerResetting),
			Message: swarm.LedgerResettingPath + " exists, so the plugin treats the ledger as empty (a reset in progress); the ledger cannot be checked against the merge base. If no reset is in progress the marker is a leftover: delete it and push again"})
		baseLedger = nil // the append-only check is meaningless against an empty ledger
	case ledger == nil && baseLedger != nil && len(baseLedger.Events) > 0:
		findings = append(findings, Finding{Path: swarm.LedgerPath, Line: 1, EndLine: 1, Rule: RuleLedgerRewritten, Severity: SeverityError,
			Message: fmt.Sprintf("the pull request deletes %s, which has %s at the merge base; the ledger is append-only: restore it", swarm.LedgerPath, plural(len(baseLedger.Events), "event", "events"))})
	}
	archiveFindings, archiveErr := brokenArchives(in)
	if archiveErr != nil {
		return CouldNotEvaluate(g.Name(), archiveErr)
	}
	findings = append(findings, archiveFindings...)
	replaced, err := findReplacement(in, baseLedger, ledger)
	if err != nil {
		return CouldNotEvaluate(g.Name(), err)
	}
	if ledger != nil {
		if replaced == nil {
			findings = append(findings, appendOnly(baseLedger, ledger)...)
		}
		findings = append(findings, ledgerIntegrity(ledger, plan)...)
		findings = append(findings, duplicateKeys(plan)...)
		rep := swarm.ReplayLedgerWithPlan(ledger, plan.Value)
		findings = append(findings, replayFindings(rep, plan)...)
		notes = append(notes, replayNote(ledger, rep, in.Base.Ledger))
		findings = append(findings, removedTasks(in, ledger, rep, plan)...)
	}
	staleFindings, staleNotes, err := specStale(in, plan)
	if err != nil {
		return CouldNotEvaluate(g.Name(), err)
	}
	findings = append(findings, staleFindings...)

	approvalFindings, approvalNotes, approval := checkApproval(in, cfg, ledger, plan)
	findings = append(findings, approvalFindings...)
	findings = append(findings, completedWork(in, plan, approval)...)
	if replaced != nil {
		findings = append(findings, replaced.finding(in, plan, approval))
	}
	notes = append(notes, approvalNotes...)
	notes = append(notes, "**Policy**: approvals accepted: "+string(cfg.PlanFreeze.Approval)+"; from "+mdtext.Inline(cfg.Source)+".")

	failing := failingFindings(findings)
	override := in.override(CommandApprovePlanCritic, plan.Digests.Structure)
	if override != nil {
		notes = append(notes, overrideNote(override))
	}
	for _, o := range in.Overrides {
		if o.Command == CommandApprovePlanCritic && o.StructureHash != plan.Digests.Structure {
			notes = append(notes, fmt.Sprintf("**Voided override**: `/swarm approve-plan-critic` by @%s at %s was bound to structure hash %s; the plan's structure changed since (now %s), so it no longer applies: record a new one if the new plan is approved.",
				mdtext.Inline(o.Actor), mdtext.Inline(o.RecordedAt), planhash.Short(o.StructureHash), planhash.Short(plan.Digests.Structure)))
		}
	}
	notes = append(notes, staleNotes...)
	summary := strings.Join(notes, "\n\n")
	switch {
	case len(failing) == 0 && approval != nil && isAgentOverride(approval.Approval):
		return Result{Outcome: Passed, Findings: findings, Summary: summary,
			Title: fmt.Sprintf("plan matches an approval the agent recorded itself (seq %d, manual override, user_confirmed: false, %s)", approval.Seq, approvalOrigin(in, approval, override))}
	case len(failing) == 0 && approval != nil && isSelfApproval(in, approval):
		return Result{Outcome: Passed, Findings: findings, Summary: summary,
			Title: fmt.Sprintf("plan matches a manual override this pull request adds (seq %d, user_confirmed: true, %s)", approval.Seq, approvalOrigin(in, approval, override))}
	case len(failing) == 0 && approval != nil:
		if override == nil && !baseAnchored(in.Base.Ledger, approval) {
			findings = append(findings, Finding{Path: swarm.LedgerPath, Line: approval.Line, EndLine: approval.Line, Rule: RuleAgentAttested, Severity: SeverityNotice,
				Message: fmt.Sprintf("the plan-critic approval of this plan (seq %d) is a ledger line this pull request adds: the agent's own word that the critic approved, which plan_freeze.approval: %s accepts; with approval: human or base-anchored it would not count", approval.Seq, cfg.PlanFreeze.Approval)})
		}
		return Result{Outcome: Passed, Findings: findings, Summary: summary,
			Title: fmt.Sprintf("plan matches the critic-approved snapshot (seq %d, %s)", approval.Seq, approvalOrigin(in, approval, override))}
	case len(failing) == 0 && override != nil:
		return Result{Outcome: Overridden, Findings: findings, Summary: summary, Title: "approved by a human override: @" + override.Actor}
	case len(failing) == 0:
		if reason, off := in.QAGateOff("critic_pre_plan"); off {
			return Result{Outcome: Passed, Findings: findings, Summary: summary, Title: "no plan-critic approval required: " + reason}
		}
		return Result{Outcome: Passed, Findings: findings, Summary: summary,
			Title: "legacy plan without a plan-critic approval, accepted by policy (plan_freeze.legacy_plans: allow)"}
	case override != nil && onlyApprovalRules(failing):
		for i := range findings {
			if findings[i].Severity == SeverityError && approvalRules[findings[i].Rule] {
				findings[i].Severity = SeverityNotice
				findings[i].Message = "overridden by @" + override.Actor + ": " + findings[i].Message
			}
		}
		return Result{Outcome: Overridden, Findings: findings, Summary: summary, Title: "approved by a human override: @" + override.Actor}
	}
	title := planFreezeTitles[headline(failing).Rule]
	switch h := headline(failing); h.Rule {
	case RulePlanReplaced:
		title, _, _ = strings.Cut(h.Message, "; a new plan")
	case RuleSpecStale:
		title = specStaleTitle(h)
	}
	if n := len(failing); n > 1 {
		title += fmt.Sprintf(" (+%s)", plural(n-1, "more finding", "more findings"))
	}
	return Result{Outcome: Failed, Title: title, Summary: summary, Findings: findings}
}

// specStaleTitle is the title for a failing spec-stale finding: the marker
// is named only when the head has one.
func specStaleTitle(f Finding) string {
	switch {
	case strings.HasPrefix(f.Message, "spec drift acknowledged by deleting the marker"):
		return "spec drift hidden: the pull request deletes " + swarm.SpecStalenessPath + " while the plan is stale"
	case strings.HasPrefix(f.Message, swarm.SpecPath+" is gone"):
		return swarm.SpecPath + " was deleted, but the plan was saved against it"
	case f.Path == swarm.SpecStalenessPath:
		return "the spec changed after the plan was saved (" + swarm.SpecStalenessPath + ")"
	}
	return planFreezeTitles[RuleSpecStale]
}

// failingFindings are the findings with severity error.
func failingFindings(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Severity == SeverityError {
			out = append(out, f)
		}
	}
	return out
}

func onlyApprovalRules(fs []Finding) bool {
	for _, f := range fs {
		if !approvalRules[f.Rule] {
			return false
		}
	}
	return true
}

func overrideNote(o *Override) string {
	s := fmt.Sprintf("**Human override**: `/swarm %s` by @%s at %s", o.Command, mdtext.Inline(o.Actor), mdtext.Inline(o.RecordedAt))
	if o.Reason != "" {
		s += ": " + mdtext.Inline(o.Reason)
	}
	if o.URL != "" {
		s += " ([record](" + o.URL + "))"
	}
	return s + fmt.Sprintf("; bound to structure hash %s.", planhash.Short(o.StructureHash))
}

// checkApproval finds the plan-critic approval and compares it with the head
// plan. It returns the findings, summary notes, and the approval when one
// holds (nil otherwise).
func checkApproval(in *Input, cfg *Config, ledger *swarm.Ledger, plan *swarm.Plan) ([]Finding, []string, *swarm.LedgerEvent) {
	id := plan.ID()
	if ledger == nil || len(ledger.Events) == 0 {
		why := swarm.LedgerPath + " is missing"
		switch {
		case in.Head.LedgerResetting:
			why = swarm.LedgerResettingPath + " exists, so the plugin treats the ledger as empty"
		case ledger != nil:
			why = swarm.LedgerPath + " is empty"
		}
		if reason, off := in.QAGateOff("critic_pre_plan"); off {
			f := Finding{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleNoApproval, Severity: SeverityNotice,
				Message: "no plan-critic approval (" + why + "), and none is required: " + reason}
			return []Finding{f}, []string{"**No approval required**: " + mdtext.Inline(reason) + "."}, nil
		}
		f := Finding{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleNoApproval, Severity: SeverityError, Key: fkey(RuleNoApproval, plan.Digests.Structure),
			Message: "PLAN_CRITIC_GATE_VIOLATION: Cannot delegate to coder before plan critic approval. " + why + "; " + approveHint + "."}
		return []Finding{f}, []string{"**Approval**: none: " + why + ", so the critic never approved this plan through the plugin's plan-critic gate. Next step: " + approveHint + "."}, nil
	}
	approval, drift := ledger.LastPlanCriticApproval(id)
	if approval == nil {
		return noApproval(in, cfg, ledger, plan, drift)
	}
	var findings []Finding
	notes := []string{approvalNote(in, approval)}
	if n := skippedAfter(ledger, approval, id); n != "" {
		notes = append(notes, n)
	}
	if approval.Approval.Verdict != "APPROVED" {
		findings = append(findings, Finding{Path: swarm.LedgerPath, Line: approval.Line, EndLine: approval.Line, Rule: RuleApprovalVerdict, Severity: SeverityError,
			Key:     fkey(RuleApprovalVerdict, eventKey(approval), plan.Digests.Structure),
			Message: fmt.Sprintf("PLAN_CRITIC_GATE_VIOLATION: Latest approved-plan snapshot does not contain plan critic VERDICT: APPROVED evidence (seq %d has verdict %q); %s.", approval.Seq, approval.Approval.Verdict, approveHint)})
		return findings, notes, nil
	}
	changes := swarm.ComparePlans(approval.Plan, plan)
	cf, cn := changeFindings(cfg, approval, plan, changes)
	findings = append(findings, cf...)
	notes = append(notes, cn)
	findings = append(findings, sourcePolicy(in, cfg, approval)...)
	if isSelfApproval(in, approval) {
		f, n, _ := agentOverride(in, cfg, ledger, approval, plan)
		findings = append(findings, f)
		notes = append(notes, n)
	}
	if len(failingFindings(findings)) > 0 {
		return findings, notes, nil
	}
	return findings, notes, approval
}

// skippedAfter notes the critic_approved snapshots newer than the approval
// that the plan-critic lookup passed over, so that a reviewer knows they
// exist and why they do not count.
func skippedAfter(l *swarm.Ledger, approval *swarm.LedgerEvent, id string) string {
	var drift, other []string
	for i := range l.Events {
		ev := &l.Events[i]
		if ev.Seq <= approval.Seq || ev.EventType != "snapshot" || ev.Source != "critic_approved" {
			continue
		}
		switch {
		case ev.Approval.IsDriftVerifier():
			drift = append(drift, fmt.Sprint(ev.Seq))
		default:
			other = append(other, fmt.Sprint(ev.Seq))
		}
	}
	var parts []string
	if len(drift) > 0 {
		parts = append(parts, "seq "+listSome(drift, 10)+" (drift-verifier approvals of a phase, not of the plan)")
	}
	if len(other) > 0 {
		parts = append(parts, "seq "+listSome(other, 10)+" (not a plan-critic approval for plan id "+mdtext.Code(id)+": another plan id, no embedded plan, or no plan_critic_gate source)")
	}
	if len(parts) == 0 {
		return ""
	}
	return "Newer critic_approved snapshots passed over: " + strings.Join(parts, "; ") + "."
}

// isSelfApproval reports an approval no critic gave and no human comment
// backs: a manual override the agent recorded itself (the plugin's
// approve_plan_critic tool, user_confirmed false), or any manual override
// the pull request adds (the plugin also records the editor's
// /swarm approve-plan-critic, user_confirmed true, and swarm-gate cannot
// tell it from the agent's word), unless a maintainer's comment command
// (an Override, verified from the pull request) is bound to the structure
// hash the override approved.
func isSelfApproval(in *Input, ev *swarm.LedgerEvent) bool {
	a := ev.Approval
	if a == nil || a.Method != "manual_override" || ev.Plan == nil {
		return false
	}
	if in.override(CommandApprovePlanCritic, ev.Plan.Digests.Structure) != nil {
		return false
	}
	return isAgentOverride(a) || !baseAnchored(in.Base.Ledger, ev)
}

// agentOverride reports a self-approval (isSelfApproval) and what changed
// since the last approval that was not one. The critic-gate protocol lets
// a manual override cover bookkeeping-grade changes only: when a material
// change (or a change outside the hash), or a plan no critic ever
// approved, rests on it alone, it fails by default (material is true);
// plan_freeze.agent_overrides: allow makes it a warning, fail fails every
// self-approval.
func agentOverride(in *Input, cfg *Config, l *swarm.Ledger, approval *swarm.LedgerEvent, plan *swarm.Plan) (f Finding, note string, material bool) {
	var prior *swarm.LedgerEvent
	for i := len(l.Events) - 1; i >= 0; i-- {
		ev := &l.Events[i]
		if ev.Seq < approval.Seq && ev.EventType == "snapshot" && ev.Source == "critic_approved" && ev.Approval.IsPlanCritic() &&
			ev.Approval.Verdict == "APPROVED" && !isSelfApproval(in, ev) && ev.Plan != nil && ev.Plan.ID() == plan.ID() {
			prior = ev
			break
		}
	}
	reason := ""
	if approval.Approval.Reason != "" {
		reason = fmt.Sprintf(" (reason: %q)", clipN(approval.Approval.Reason, 200))
	}
	who := fmt.Sprintf("the approval at seq %d is a manual override the agent recorded itself%s (the plugin's approve_plan_critic tool: method manual_override, user_confirmed false), not a critic verdict", approval.Seq, reason)
	if !isAgentOverride(approval.Approval) {
		who = fmt.Sprintf("the approval at seq %d is a manual override this pull request adds%s (method manual_override, user_confirmed true), with no maintainer's `/swarm approve-plan-critic` comment behind it: swarm-gate cannot tell it from the agent's word", approval.Seq, reason)
	}
	var since string
	var changes []swarm.PlanChange
	count := map[swarm.ChangeClass]int{}
	if prior == nil {
		material = true
		since = "no critic approval precedes it, so no critic has reviewed this plan"
	} else {
		changes = swarm.ComparePlans(prior.Plan, plan)
		for _, c := range changes {
			count[c.Class]++
		}
		material = count[swarm.ChangeMaterial]+count[swarm.ChangeUnhashed] > 0
		since = fmt.Sprintf("since the last critic approval (seq %d): %d material, %d bookkeeping-grade, %d outside the hash", prior.Seq, count[swarm.ChangeMaterial], count[swarm.ChangeBookkeeping], count[swarm.ChangeUnhashed])
	}
	sev := SeverityWarning
	switch cfg.PlanFreeze.AgentOverrides {
	case AgentOverridesFail:
		sev = SeverityError
	case AgentOverridesDefault:
		if material {
			sev = SeverityError
		}
	}
	msg := who + "; " + since
	if sev == SeverityError && material && cfg.PlanFreeze.AgentOverrides == AgentOverridesDefault {
		msg = "the agent approved its own material change: re-run the critic or ask a maintainer for `/swarm approve-plan-critic`; a manual override covers bookkeeping-grade changes only (the critic-gate protocol). " + msg +
			" (plan_freeze.agent_overrides: allow accepts it with a warning)"
	} else {
		msg += "; have the critic review the plan, or a maintainer record `/swarm approve-plan-critic <reason>` (plan_freeze.agent_overrides: fail makes every self-approval a failure)"
	}
	note = "**Self-approval**: " + mdtext.Inline(who) + "."
	if prior == nil {
		note += " No critic approval precedes it."
	} else {
		note += fmt.Sprintf(" What changed since the last critic approval (seq %d), which no critic has seen:\n\n", prior.Seq) +
			strings.TrimPrefix(changesNote(prior, changes, count), fmt.Sprintf("**Since approval (seq %d)**: ", prior.Seq))
	}
	return Finding{Path: swarm.LedgerPath, Line: approval.Line, EndLine: approval.Line, Rule: RuleAgentOverride, Severity: sev, Message: msg,
		Key: fkey(RuleAgentOverride, eventKey(approval), plan.Digests.Structure)}, note, material
}

// noApproval explains a ledger without a plan-critic approval for the head
// plan's id: none at all (drift approvals only, or a legacy ledger), or one
// for another plan id because the title or swarm changed.
func noApproval(in *Input, cfg *Config, ledger *swarm.Ledger, plan *swarm.Plan, drift int) ([]Finding, []string, *swarm.LedgerEvent) {
	id := plan.ID()
	msg := fmt.Sprintf("PLAN_CRITIC_GATE_VIOLATION: Cannot delegate to coder before plan critic approval. %s has no plan-critic approval for plan %s; %s.", swarm.LedgerPath, id, approveHint)
	note := "**Approval**: none for plan id " + mdtext.Code(id) + "."
	if drift > 0 {
		msg += fmt.Sprintf(" (It has %s, which approve a phase's drift check, not the plan.)", plural(drift, "drift-verifier approval", "drift-verifier approvals"))
	}
	if other := lastPlanCriticAnyID(ledger); other != nil {
		msg += fmt.Sprintf(" The newest plan-critic approval (seq %d) is for plan id %s: the plan's identity changed since (its title or swarm), which the plugin treats as a new plan.", other.Seq, other.PlanID)
		var lines []string
		for _, c := range swarm.ComparePlans(other.Plan, plan) {
			if c.Subject == "plan" && (c.Field == "title" || c.Field == "swarm") {
				lines = append(lines, "- "+mdtext.Inline(c.Text()))
			}
		}
		note += fmt.Sprintf(" The newest plan-critic approval, seq %d, is for plan id %s:\n%s", other.Seq, mdtext.Code(other.PlanID), strings.Join(lines, "\n"))
	}
	if ref, what := referencePlan(ledger, id); ref != nil {
		changes := swarm.ComparePlans(ref.Plan, plan)
		count := map[swarm.ChangeClass]int{}
		for _, c := range changes {
			count[c.Class]++
		}
		note += "\n\nFor reference, what changed since " + what + " (these approve nothing for the plan, but show what the critic would have to review):\n\n" +
			strings.TrimPrefix(changesNote(ref, changes, count), fmt.Sprintf("**Since approval (seq %d)**: ", ref.Seq))
	}
	if reason, off := in.QAGateOff("critic_pre_plan"); off {
		f := Finding{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleNoApproval, Severity: SeverityNotice,
			Message: "no plan-critic approval, and none is required: " + reason + " (the plugin then lets the coder start without one)"}
		return []Finding{f}, []string{"**No approval required**: " + mdtext.Inline(reason) + ".\n\n" + note}, nil
	}
	legacy := isLegacyLedger(ledger)
	if legacy {
		if cfg.PlanFreeze.AllowLegacyPlans {
			return nil, []string{"**Legacy plan accepted by policy**: this ledger predates the plugin's mechanical plan-critic gate (every event is schema_version 1.0.0), and the policy accepts such plans without a plan-critic approval (plan_freeze.legacy_plans: allow).\n\n" + note}, nil
		}
		msg += " This ledger predates the plugin's mechanical plan-critic gate (every event is schema_version 1.0.0): upgrade the plugin and run the critic, or set plan_freeze.legacy_plans: allow in the base branch's .github/swarm-gate.yml to accept legacy plans."
	}
	note += "\n\nNext step: " + approveHint + "."
	f := Finding{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleNoApproval, Severity: SeverityError, Message: msg, Key: fkey(RuleNoApproval, plan.Digests.Structure)}
	return []Finding{f}, []string{note}, nil
}

// referencePlan picks what to compare the head plan with when there is no
// plan-critic approval: the oldest critic_approved snapshot of another kind
// (a drift-verifier approval: everything redefined after it went
// unreviewed), else the plan the ledger started with.
func referencePlan(l *swarm.Ledger, id string) (*swarm.LedgerEvent, string) {
	for i := range l.Events {
		ev := &l.Events[i]
		if ev.EventType == "snapshot" && ev.Source == "critic_approved" && ev.Plan != nil && ev.Plan.ID() == id {
			what := fmt.Sprintf("the first critic_approved snapshot (seq %d", ev.Seq)
			if ev.Approval.IsDriftVerifier() {
				what += fmt.Sprintf(", a drift-verifier approval of phase %d", ev.Approval.Phase)
			}
			return ev, what + ")"
		}
	}
	for i := range l.Events {
		if ev := &l.Events[i]; ev.Plan != nil && ev.Plan.ID() == id {
			return ev, fmt.Sprintf("the ledger's first plan (seq %d, %s)", ev.Seq, ev.EventType)
		}
	}
	return nil, ""
}

// lastPlanCriticAnyID is the newest plan-critic approval with an embedded
// plan, whatever its plan id.
func lastPlanCriticAnyID(l *swarm.Ledger) *swarm.LedgerEvent {
	for i := len(l.Events) - 1; i >= 0; i-- {
		ev := &l.Events[i]
		if ev.EventType == "snapshot" && ev.Source == "critic_approved" && ev.Approval.IsPlanCritic() && ev.Plan != nil {
			return ev
		}
	}
	return nil
}

// isLegacyLedger reports whether every event is schema_version 1.0.0: the
// ledger was written before task_removed (schema 1.1.0, plugin v7.19), and
// every plan-critic approval in the corpus is in a 1.1.0 ledger.
func isLegacyLedger(l *swarm.Ledger) bool {
	for _, ev := range l.Events {
		if ev.SchemaVersion != "1.0.0" {
			return false
		}
	}
	return len(l.Events) > 0
}

// approvalNote describes the approval for the summary.
func approvalNote(in *Input, ev *swarm.LedgerEvent) string {
	a := ev.Approval
	s := fmt.Sprintf("**Approval**: seq %d, `%s`", ev.Seq, approvalKind(a))
	if at := approvedAt(ev); at != "" {
		s += ", approved at " + mdtext.Inline(at)
	}
	if a.Method == "manual_override" {
		confirmed := "user_confirmed not recorded"
		if a.UserConfirmed != nil {
			confirmed = fmt.Sprintf("user_confirmed: %t", *a.UserConfirmed)
		}
		s += " (" + confirmed
		if a.Reason != "" {
			s += ", reason: " + mdtext.Inline(clipN(a.Reason, 200))
		}
		s += ")"
	}
	s += fmt.Sprintf("; payload_hash %s; %s.", payloadHashKind(ev), provenance(in.Base.Ledger, ev))
	return s
}

// approvedAt is the approval's approved_at, else the event's timestamp.
func approvedAt(ev *swarm.LedgerEvent) string {
	if ev.Approval != nil && ev.Approval.ApprovedAt != "" {
		return ev.Approval.ApprovedAt
	}
	return ev.Timestamp
}

// isAgentOverride reports whether the approval is a manual override the
// agent recorded itself: the plugin's approve_plan_critic tool writes
// method manual_override with user_confirmed false (the human's
// /swarm approve-plan-critic command in the editor writes true).
func isAgentOverride(a *swarm.Approval) bool {
	return a != nil && a.Method == "manual_override" && (a.UserConfirmed == nil || !*a.UserConfirmed)
}

// approvalOrigin is the short form of where an approval came from.
func approvalOrigin(in *Input, ev *swarm.LedgerEvent, o *Override) string {
	origin := "agent-attested"
	if baseAnchored(in.Base.Ledger, ev) {
		origin = "base-anchored"
	}
	if o != nil {
		origin += ", human override by @" + o.Actor
	}
	return origin
}

// sourcePolicy applies plan_freeze.approval to an approval that holds.
func sourcePolicy(in *Input, cfg *Config, ev *swarm.LedgerEvent) []Finding {
	var why string
	switch cfg.PlanFreeze.Approval {
	case ApprovalBaseAnchored:
		if baseAnchored(in.Base.Ledger, ev) {
			return nil
		}
		why = fmt.Sprintf("the approval (seq %d) was added by this pull request (agent-attested), but the policy (plan_freeze.approval: base-anchored) accepts only approvals already on the base branch or a human override; merge the approval first, or ask a maintainer to comment `/swarm approve-plan-critic <reason>`", ev.Seq)
	case ApprovalHuman:
		why = fmt.Sprintf("the policy (plan_freeze.approval: human) accepts only a human override recorded by swarm-gate; the ledger's approval (seq %d) is the agent's; ask a maintainer to comment `/swarm approve-plan-critic <reason>`", ev.Seq)
	default:
		return nil
	}
	return []Finding{{Path: swarm.LedgerPath, Line: ev.Line, EndLine: ev.Line, Rule: RuleApprovalSource, Severity: SeverityError, Message: why}}
}

// baseAnchored reports whether the approval's line, byte for byte, is the
// same line of the merge base's ledger: the approval was already on the base
// side. (Its position alone proves nothing when the ledger was rewritten.)
func baseAnchored(base *swarm.Ledger, approval *swarm.LedgerEvent) bool {
	if base == nil || approval.Line < 1 || approval.Line > len(base.Events) {
		return false
	}
	return bytes.Equal(base.Events[approval.Line-1].Raw, approval.Raw)
}

// provenance says whether an approval was already on the base side or was
// added by this pull request (trust model, DESIGN.md section 3.5).
func provenance(base *swarm.Ledger, approval *swarm.LedgerEvent) string {
	if baseAnchored(base, approval) {
		return "recorded on the base side (base-anchored)"
	}
	return "added in this pull request (agent-attested: the agent's own ledger entry)"
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

// headlineOrder ranks plan-freeze's rules for the title: what hides or
// rewrites the record first, then lost work, then approval.
var headlineOrder = []string{
	RulePlanDeleted, RulePlanReplaced, RuleLedgerRewritten, RuleLedgerResetting, RuleLedgerHash, RuleLedgerSeq, RuleLedgerUnexplained, RulePlanOutsideLedger,
	RuleDuplicateKey, RuleCompletedReset, RuleCompletedRemoved, RuleCompletedRewritten, RuleTaskRemoved, RuleProfileLocked,
	RulePlanChanged, RuleBookkeepingChanged, RuleUnhashedChanged, RuleAgentOverride,
}

// headline is the failing finding the title names: the first by
// headlineOrder, else the first one.
func headline(failing []Finding) Finding {
	for _, rule := range headlineOrder {
		for _, f := range failing {
			if f.Rule == rule {
				return f
			}
		}
	}
	return failing[0]
}

// duplicateKeys are plan.json's repeated keys: a reviewer reading the diff
// may take the first value ("status": "completed") while the plugin and
// every hash use the last.
func duplicateKeys(plan *swarm.Plan) []Finding {
	var out []Finding
	for _, d := range plan.DuplicateKeys {
		out = append(out, duplicateKeyFinding(RuleDuplicateKey, swarm.PlanPath, d, "", "in one object", "delete the repetition you do not mean", swarm.PlanPath))
	}
	return out
}

// duplicateKeyFinding is the error finding of a key repeated in one JSON
// object of path (d's lines: the repetition's is the one read). The plugin
// writes its files with JSON.stringify, which never repeats a key, so a
// repetition was typed in. lead starts the message ("task 1.2: "), place
// says where the key is ("in one object"), fix what to do; the key is
// rule, about and the key's place in the JSON.
func duplicateKeyFinding(rule, path string, d swarm.DuplicateKey, lead, place, fix string, about ...string) Finding {
	if d.FirstLine != d.Line {
		place += fmt.Sprintf(" (lines %d and %d)", d.FirstLine, d.Line)
	}
	return Finding{Path: path, Line: d.Line, EndLine: d.Line, Rule: rule, Severity: SeverityError,
		Key: fkey(rule, append(about, d.Where())...),
		Message: fmt.Sprintf("%s%s appears twice %s: the plugin's JSON.parse keeps the last value (line %d), a reader of the file may take the first; the plugin never writes a key twice, so it was edited by hand: %s",
			lead, mdtext.Code(d.Where()), place, d.Line, fix)}
}
