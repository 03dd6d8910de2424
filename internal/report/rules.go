package report

import (
	"strings"
	"sync"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/sast"
	"github.com/swarm-gate/swarm-gate/internal/secrets"
)

// ProjectURL is the project's repository: SARIF's tool.driver.informationUri
// and the base of the rule help's links into the README.
const ProjectURL = "https://github.com/swarm-gate/swarm-gate"

// RuleDoc is the catalogue entry of one rule id: what SARIF's
// reportingDescriptor carries so that GitHub code scanning can explain an
// alert (shortDescription, fullDescription, help, properties).
type RuleDoc struct {
	ID    string
	Gate  string // the check that reports it, e.g. "swarm/critic"
	Short string // one sentence: what the finding means
	Full  string // Short plus what the check enforces (at most 1024 bytes)
	// HelpText and HelpMarkdown say what the rule means, why it blocks and
	// how to fix it.
	HelpText, HelpMarkdown string
	Tags                   []string
	// SecuritySeverity is GitHub's score "0.1".."10.0" for security rules
	// (SAST and secrets), else "".
	SecuritySeverity string
	// Known is false for a rule the catalogue has no entry of (a rule of
	// another scanner's SARIF log): the help then is the check's.
	Known bool
}

// gateDoc describes one check: what it enforces, why a finding blocks and
// what to do in general; anchor is its README section.
type gateDoc struct {
	what, why, fix, anchor string
	tags                   []string
}

var gateDocs = map[string]gateDoc{
	"swarm/plan-freeze": {
		what:   "swarm/plan-freeze checks that the plan the pull request carries is the one the plan critic approved, changed only as the plugin's PLAN FREEZE rules allow, and that the append-only ledger .swarm/plan-ledger.jsonl extends the merge base's.",
		why:    "Work done against a plan nobody approved, or a rewritten history, cannot be trusted: the agents' plan is the contract the pull request is reviewed against.",
		fix:    gates.ApproveHint + "; keep the ledger append-only and change the plan only through it",
		anchor: "what-it-checks", tags: []string{"swarm", "plan", "correctness"},
	},
	"swarm/critic": {
		what:   "swarm/critic checks that the critic's verdict on the head plan is APPROVED: a plan-critic approval in the ledger for this version of the plan, not a self-approval, and no review receipt that rejects after it.",
		why:    "An unapproved or rejected plan means the agents' work has no independent review behind it.",
		fix:    "revise plan.md as the critic asks and run the critic again, or a maintainer comments `/swarm approve-plan-critic <reason>`",
		anchor: "what-it-checks", tags: []string{"swarm", "plan", "review"},
	},
	"swarm/scope": {
		what:   "swarm/scope checks that every file the pull request changes lies inside the scope (files_touched) of the phase's tasks.",
		why:    "A change outside the declared scope is work the plan and its approval never covered.",
		fix:    "move the change to a pull request of the phase that owns the file, or add the file to a task's files_touched through a ledger event the critic approves",
		anchor: "what-it-checks", tags: []string{"swarm", "scope", "maintainability"},
	},
	"swarm/placeholders": {
		what:   "swarm/placeholders checks the lines the pull request adds for placeholders: TODO/FIXME/TBD/XXX/HACK comments, placeholder strings, stub bodies and template brackets left in .swarm/plan.md.",
		why:    "A placeholder on an added line is unfinished work presented as done.",
		fix:    "finish the code (or the plan text) and remove the placeholder; a deliberate one takes a `swarm-gate:allow placeholder <reason>` marker",
		anchor: "what-it-checks", tags: []string{"swarm", "maintainability", "placeholder"},
	},
	"swarm/sast": {
		what:   "swarm/sast reports the security findings the pull request introduces at or above the severity threshold: the plugin's Tier A rules, other scanners' SARIF results on added lines, and secrets found by gitleaks' default rules.",
		why:    "A new security finding or committed secret at or above the threshold fails the check; pre-existing and moved findings never do.",
		fix:    "fix the code as the rule's remediation says (rotate and remove a committed secret), or triage the finding in the phase's SAST baseline with a rationale on the base branch",
		anchor: "what-it-checks", tags: []string{"swarm", "security"},
	},
	"swarm/evidence": {
		what:   "swarm/evidence checks that every completed task of the phase has approving evidence for each of its required gates in .swarm/evidence/, newer than the task's definition, and that task dependencies are completed first.",
		why:    "A task marked completed without passing review and test evidence is a claim nobody verified.",
		fix:    "run the task's missing gates (reviewer, test_engineer, ...) so they write their evidence, or set the task back to in progress",
		anchor: "what-it-checks", tags: []string{"swarm", "evidence", "review"},
	},
	"swarm/drift": {
		what:   "swarm/drift checks the phase's drift verification (.swarm/evidence/<phase>/drift-verifier.json) and that the plan traces every MUST/SHALL requirement of .swarm/spec.md.",
		why:    "Drift from the spec means the phase builds something other than what was specified.",
		fix:    "run the drift verifier on the phase and address what it reports, or add tasks that trace the untraced requirements",
		anchor: "what-it-checks", tags: []string{"swarm", "spec", "correctness"},
	},
	"swarm/plan-lint": {
		what:   "swarm/plan-lint is advisory unless the policy says plan_lint: fail: large tasks, too few phases, template placeholders in the plan, separate test tasks and out-of-order dependencies.",
		why:    "A plan of this shape is hard to review and to verify task by task.",
		fix:    "split or reorder the tasks in plan.md and have the critic review the plan again",
		anchor: "what-it-checks", tags: []string{"swarm", "plan", "maintainability"},
	},
	"swarm/phase-wrap": {
		what:   "swarm/phase-wrap checks that the phase can close as the plugin's phase_complete would: retrospective, completion verification, drift, hallucination guard, mutation gate, councils, required agents and every task's evidence.",
		why:    "A phase that closes with a step missing skips a check the plugin requires.",
		fix:    "run the missing step of the phase (its evidence file is named in the finding) and re-run `swarm-gate phase-wrap`",
		anchor: "can-the-phase-close-swarm-gate-phase-wrap", tags: []string{"swarm", "phase"},
	},
}

// ruleDocs are the gate rules: one sentence of meaning, and how to fix when
// it says more than the gate's general advice.
var ruleDocs = map[string]struct{ short, fix string }{
	// Shared by several checks.
	gates.RuleUnreadable:     {"An artifact the check needs could not be read or parsed, so the check could not evaluate it.", "fix the file named in the finding (valid JSON or JSONL, within the size limits) and push"},
	gates.RuleTooLargeToScan: {"A changed file is too large to read, so it was not scanned.", "split the file or keep generated output out of the pull request; a maintainer may accept the risk by override"},

	// swarm/plan-freeze
	gates.RuleNoApproval:           {"The plan has no plan-critic approval in the ledger.", ""},
	gates.RuleApprovalVerdict:      {"The newest plan-critic approval's verdict is not APPROVED.", "revise the plan as the critic asks and run the critic again"},
	gates.RuleApprovalSource:       {"The approval's source is not one the policy accepts.", "have the plan approved through the plugin's plan-critic gate, or by a maintainer's `/swarm approve-plan-critic <reason>`"},
	gates.RulePlanChanged:          {"The plan's structure changed since the critic approved it.", "re-run the critic on the changed plan, or `/swarm approve-plan-critic <reason>` if it already approved this version"},
	gates.RuleBookkeepingChanged:   {"A bookkeeping field of the plan changed since the approval in a way the freeze rules do not allow.", "undo the change, or re-run the critic on the changed plan"},
	gates.RuleUnhashedChanged:      {"A plan field outside the approval's hash changed since the approval.", "undo the change, or re-run the critic on the changed plan"},
	gates.RuleLedgerRewritten:      {"The ledger does not extend the merge base's byte for byte: history was rewritten or deleted.", "restore the merge base's ledger lines and append new events after them"},
	gates.RuleLedgerResetting:      {"A ledger reset marker (.swarm/plan-ledger.resetting) is committed: a reset was interrupted.", "finish or undo the ledger reset and remove the marker"},
	gates.RuleLedgerHash:           {"An embedded plan in a ledger event does not re-hash to the hash the event records.", "restore the event as the plugin wrote it"},
	gates.RuleLedgerSeq:            {"The ledger's seq numbers skip or repeat.", "restore the missing events; never edit seq numbers by hand"},
	gates.RuleLedgerUnexplained:    {"A ledger event cannot be explained by replaying the ledger.", "restore the event as the plugin wrote it, or record the change through the plugin"},
	gates.RulePlanOutsideLedger:    {"plan.json was edited outside the ledger: it is not the plan the ledger replays to.", "make the change through the plugin, which records it in the ledger"},
	gates.RuleProfileLocked:        {"A locked execution profile changed.", "undo the profile change; a locked profile changes only with a new plan the critic approves"},
	gates.RuleTaskRemoved:          {"An unfinished task was removed without a task_removed ledger event.", "remove the task through the plugin, which records a task_removed event"},
	gates.RuleCompletedReset:       {"A task completed on the merge base was reset to an unfinished status.", "restore the task's completed status, or a maintainer overrides the rework"},
	gates.RuleCompletedRemoved:     {"A task completed on the merge base was removed.", "restore the task, or a maintainer overrides the rework"},
	gates.RuleCompletedRewritten:   {"A task completed on the merge base had its description, acceptance, depends or files_touched rewritten.", "restore the task's definition, or have the critic approve the new one"},
	gates.RuleEvidenceClosedByPR:   {"The pull request marks a task closed: closed needs no evidence and ends the phase, but in the plugin only a person's /swarm close sets it, on unfinished work.", "mark the task completed with its evidence, or blocked with a blocked_reason"},
	gates.RuleEvidencePredatesPR:   {"A task the pull request completes rests on a review or test record the merge base already holds, while the pull request changes the task's files: the record predates the work.", "run the reviewer and test_engineer again after the last change"},
	gates.RuleEvidenceDuplicateKey: {"An evidence file repeats a key in one object (a second \"verdict\"): the plugin keeps the last value, a reader may take the first; the plugin never writes a key twice.", "delete the repetition and record the verdict through the plugin"},
	gates.RuleDuplicateKey:         {"plan.json or a ledger line repeats a key in one object: the plugin's JSON.parse keeps the last value, a reader of the diff may take the first; the plugin never writes a key twice.", "delete the repetition you do not mean"},
	gates.RuleSpecStale:            {"The plan is stale against the spec: its specHash is not the hash of .swarm/spec.md.", "update the plan for the new spec and have the critic review it, or a maintainer comments `/swarm acknowledge-spec-drift <reason>`"},
	gates.RulePlanReplaced:         {"The plan was replaced without a plan-critic approval of the new plan.", "have the critic approve the replacement plan"},
	gates.RulePlanDeleted:          {"The pull request deletes plan.json or the whole .swarm/ folder while the merge base has a plan.", "restore .swarm/plan.json; a plan ends by completing its phases, not by deletion"},
	gates.RuleAgentAttested:        {"The approval was attested by an agent, not by the critic's gate or a maintainer.", "have the plan approved through the plugin's plan-critic gate"},
	gates.RuleAgentOverride:        {"An agent approved its own change: a manual override no critic gave and no maintainer's comment backs.", "run the critic on the change, or a maintainer comments `/swarm approve-plan-critic <reason>`"},
	gates.RuleCriticNoVerdict:      {"The critic has no recorded verdict on this plan.", ""},
	gates.RuleCriticNotApproved:    {"The critic's verdict on this plan is not APPROVED.", ""},
	gates.RuleCriticNotIntact:      {"The critic's approval event is not intact (its content or hash does not check out).", "restore the approval event as the plugin wrote it, or run the critic again"},
	gates.RuleCriticStale:          {"The critic approved an earlier version of the plan.", "re-run the critic on the changed plan, or `/swarm approve-plan-critic <reason>`"},
	gates.RuleCriticReceiptReject:  {"A critic review receipt rejects the plan after the approval.", "address the receipt's objections and run the critic again"},
	gates.RuleCriticReceiptEdited:  {"The pull request rewrites a critic review receipt of the merge base; the plugin writes each receipt once, so the base version still counts.", "restore the receipt as the merge base has it; a new review writes a new receipt"},
	gates.RuleCriticSelfApproved:   {"The plan's approval is a self-approval of a material change.", "run the critic on the change, or a maintainer comments `/swarm approve-plan-critic <reason>`"},
	gates.RuleOutOfScope:           {"A changed file lies outside the scope of the phase's tasks.", ""},
	gates.RuleScopeConflict:        {"A task's files_touched conflicts with its declared scope (SCOPE_CONFLICT).", "make the task's files_touched and scope agree in the plan"},
	gates.RuleScopeNotDeclared:     {"No task of the phase declares a scope (SCOPE_NOT_DECLARED).", "add files_touched to the phase's tasks in the plan"},
	gates.RuleUntouchedCompleted:   {"A task was completed without changes to any of its files.", "make the task's changes, or set it back to in progress"},
	gates.RuleWidenedByPR:          {"The pull request widened a task's scope itself.", "widen the scope through a plan change the critic approves on the base branch"},
	gates.RuleSelfApprovedWidening: {"A task's scope was widened under a self-approval.", "have the critic approve the wider scope"},
	gates.RuleScopeNotShown:        {"More changed files outside the scope than the limit of 1,000 findings a run: the rest are counted, not shown.", "move or scope the files shown and re-run to see the others"},
	gates.RuleUncleanPath:          {"A changed path is not clean (absolute, with .. or a backslash) and cannot be placed in a scope.", "rename the file to a clean repository-relative path"},
	gates.RuleInvalidEntry:         {"A scope entry is invalid and matches nothing.", "fix the entry in the task's files_touched"},
	gates.RuleStaleBinding:         {"A scope binding names a file that no longer exists.", "update or remove the stale entry"},

	// swarm/placeholders
	gates.RuleCommentTodo:           {"An added line has a TODO comment.", ""},
	gates.RuleCommentFixme:          {"An added line has a FIXME comment.", ""},
	gates.RuleCommentOther:          {"An added line has a TBD, XXX or HACK comment.", ""},
	gates.RuleTextPlaceholder:       {"An added line has a placeholder value or \"not implemented\" in a string.", ""},
	gates.RuleCodeThrowTodo:         {"An added line throws a TODO error instead of doing the work.", ""},
	gates.RuleCodeStubReturn:        {"A function whose whole body is a constant return: a stub.", "implement the function; a deliberate constant takes a `swarm-gate:allow placeholder <reason>` marker"},
	gates.RuleCodeStubBody:          {"A function whose body is a stub (panic(\"not implemented\"), todo!(), raise NotImplementedError, ...).", ""},
	gates.RuleSuppressionNoReason:   {"A swarm-gate:allow placeholder marker has no reason or is misspelt.", "write the marker as `swarm-gate:allow placeholder <reason>`"},
	gates.RulePlaceholderNotShown:   {"More placeholder findings than the limits of 100 a file and 1,000 a run: the rest are counted, not shown.", "finish the work the findings shown mark and re-run to see the others"},
	gates.RulePlaceholderNotScanned: {"A changed file could not be scanned for placeholders (binary content or over the size limit).", "keep the file small and textual, or a maintainer accepts it by override"},
	gates.RulePlanBracketTask:       {"plan.md still has a [task] template bracket.", "replace the bracket with the plan's real text"},
	gates.RulePlanBracketProject:    {"plan.md still has a [Project] template bracket.", "replace the bracket with the plan's real text"},
	gates.RulePlanBracketDate:       {"plan.md still has a [date] template bracket.", "replace the bracket with the plan's real text"},
	gates.RulePlanBracketReason:     {"plan.md still has a [reason] template bracket.", "replace the bracket with the plan's real text"},
	gates.RulePlanBracketDesc:       {"plan.md still has a [description] template bracket.", "replace the bracket with the plan's real text"},

	// swarm/sast's own rules
	gates.RuleSASTTriageWithoutRationale: {"A SAST baseline triage entry has no rationale.", "give every triaged finding a rationale in the baseline"},
	gates.RuleSASTBaselineAddedByPR:      {"The pull request adds or edits the SAST baseline that is meant to come from the merge base.", "triage findings in the baseline on the base branch, not in the pull request that introduces them"},
	gates.RuleSASTNotScanned:             {"A changed file was not scanned (over the per-run file limit or unreadable).", "split the pull request, or scan the files another way and pass that scanner's SARIF with --sarif"},
	gates.RuleSecretsNotShown:            {"More secret findings than the limits allow: the rest are not shown.", "remove the secrets shown and re-run to see the others"},

	// swarm/evidence
	gates.RuleEvidenceMissing:             {"A completed task lacks evidence for one of its required gates.", ""},
	gates.RuleEvidenceGateMissing:         {"A completed task's evidence has no record of one of its required gates.", ""},
	gates.RuleEvidenceNoGates:             {"A completed task's evidence lists no required gates.", "write the task's evidence with its required_gates, as the plugin does"},
	gates.RuleEvidenceGatesShrank:         {"A task's gate file lists fewer required_gates than the merge base's version; the plugin only adds to the list.", "restore the gates the merge base requires and record their evidence through the plugin"},
	gates.RuleEvidenceGatesNarrow:         {"A task whose files are code has a gate file whose required_gates lacks reviewer (such as [docs]); the QA gate profile's gates are still required.", "have the reviewer and test_engineer run on the task through the plugin"},
	gates.RuleEvidenceRejected:            {"The newest evidence record of a gate does not approve (rejected, fail, NEEDS_REVISION).", "address the reviewer's or tester's findings and run that gate again"},
	gates.RuleEvidenceUnrecognizedVerdict: {"An evidence record's verdict cannot be read.", "have the gate write its evidence again with a verdict the plugin's schema allows"},
	gates.RuleEvidenceStale:               {"The newest review or test record is older than the task's current definition.", "run the task's review and test gates again on the current definition"},
	gates.RuleEvidenceInvalidTaskID:       {"A completed task's id is not of the plugin's form (1.2, 2.1.3).", "fix the task id in the plan"},
	gates.RuleEvidenceDependsOpen:         {"A completed task depends on a task that is not completed.", "complete the dependency first, or set the task back"},
	gates.RuleEvidenceDependsGone:         {"A completed task depends on an id no task has.", "fix the task's depends in the plan"},
	gates.RuleEvidenceDependsLoop:         {"Tasks depend on each other in a circle.", "break the cycle in the tasks' depends"},
	gates.RuleEvidenceDependsNotShown:     {"More task-order problems than the limit of 200 a plan: the rest are counted, not shown.", "fix the depends of the problems shown and re-run to see the others"},

	// swarm/drift
	gates.RuleDriftMissing:              {"The phase's drift verification is missing although the phase is ready to close.", ""},
	gates.RuleDriftRejected:             {"The drift verifier rejected the phase, or its newest entry is not approved.", ""},
	gates.RuleDriftSummaryNeedsRevision: {"The drift verifier approved with NEEDS_REVISION in its summary.", "address what the summary asks and run the drift verifier again"},
	gates.RuleDriftTaskVerdict:          {"A per-task drift verdict is MAJOR_DRIFT or OFF_SPEC, or cannot be read.", "bring the task back in line with the spec and run the drift verifier again"},
	gates.RuleDriftUntracedRequirement:  {"A MUST/SHALL requirement of spec.md maps to no task of the plan.", "add a task that traces the requirement, or change the spec"},
	gates.RuleDriftUntracedCriterion:    {"A success criterion of spec.md maps to no task of the plan.", "add a task that traces the criterion, or change the spec"},
	gates.RuleDriftUntracedTask:         {"A task traces to no requirement of spec.md.", "reference the requirement the task serves"},
	gates.RuleDriftUnknownRef:           {"A task references a requirement id spec.md does not have.", "fix the reference"},
	gates.RuleDriftInvalidID:            {"A requirement id in spec.md is not of the form FR-### or SC-###.", "fix the id in spec.md"},
	gates.RuleDriftSpecDeleted:          {"The pull request deletes spec.md while the merge base's plan traces to it.", "restore .swarm/spec.md, or a maintainer comments `/swarm acknowledge-spec-drift <reason>`"},
	gates.RuleDriftRequirementRemoved:   {"The pull request removes a MUST/SHALL requirement the merge base's plan traces to from spec.md, and no maintainer acknowledged the revision.", "restore the requirement in .swarm/spec.md, or revise the spec through the plugin so that the plan is re-saved against it"},

	// swarm/plan-lint
	gates.RulePlanLintLargeTask:   {"A task touches 6 or more files.", "split the task"},
	gates.RulePlanLintFewPhases:   {"The plan has too few phases for its number of tasks.", "split the plan into more phases"},
	gates.RulePlanLintPlaceholder: {"A task's title or description has a template placeholder.", "replace the placeholder with the task's real text"},
	gates.RulePlanLintTestTask:    {"A separate \"write tests for X\" task: tests belong to the task they test.", "fold the tests into the task they test"},
	gates.RulePlanLintDependsOpen: {"A completed task depends on a task that is not completed.", "complete the dependency first"},
	gates.RulePlanLintDependsGone: {"A task depends on an id no task has.", "fix the task's depends"},
	gates.RulePlanLintDependsLoop: {"Tasks depend on each other in a circle.", "break the cycle"},
	gates.RulePlanLintDependsMore: {"More task-order problems than the limit of 200 a plan: the rest are counted, not shown.", "fix the depends of the problems shown and re-run to see the others"},
}

// phaseWrapSteps are the steps of swarm/phase-wrap's checklist (rule
// phase-wrap/<step>), each with the evidence it wants.
var phaseWrapSteps = map[string]string{
	"retrospective":       "The phase has no passing retrospective.",
	"completion-verify":   "The phase's completion verification is missing or does not pass.",
	"drift":               "The phase's drift verification is missing or does not pass.",
	"hallucination-guard": "The phase's hallucination guard verification is missing or does not pass.",
	"mutation-gate":       "The phase's mutation gate is missing or does not pass.",
	"phase-council":       "The phase council's verdict is missing, too old or does not approve.",
	"final-council":       "The final council (critic, reviewer, sme, test_engineer, explorer) is missing or does not approve.",
	"required-agents":     "An agent the phase requires has not run.",
	"tasks":               "A task of the phase is neither completed nor blocked with a reason.",
	"task-evidence":       "A completed task of the phase lacks passing evidence.",
}

// gateOf is the check that reports a rule, from its prefix.
func gateOf(id string) string {
	for prefix, gate := range map[string]string{
		"plan-freeze/": "swarm/plan-freeze", "critic/": "swarm/critic", "scope/": "swarm/scope",
		"placeholder/": "swarm/placeholders", "sast/": "swarm/sast", "secret/": "swarm/sast",
		"evidence/": "swarm/evidence", "drift/": "swarm/drift", "plan-lint/": "swarm/plan-lint",
		gates.RulePhaseWrapPrefix: "swarm/phase-wrap",
	} {
		if strings.HasPrefix(id, prefix) {
			return gate
		}
	}
	return ""
}

// secretDescriptions are gitleaks' rule descriptions by rule id.
var secretDescriptions = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	if cfg, err := secrets.DefaultConfig(); err == nil {
		for id, r := range cfg.Rules {
			m[id] = r.Description
		}
	}
	return m
})

// sastSeverity is GitHub's security-severity for a Tier A severity, in the
// middle of GitHub's band for it.
var sastSeverity = map[sast.Severity]string{sast.Critical: "9.5", sast.High: "8.0", sast.Medium: "5.5", sast.Low: "2.0"}

// secretSeverity is a committed credential's security-severity: critical,
// as the plugin rates its own hardcoded-secret rules.
const secretSeverity = "9.0"

// LookupRule returns the catalogue entry of a rule id that the check gate
// reported (gate names the check when the id does not: a finding without a
// rule, or swarm-gate/... rules several checks share). An unknown id (a
// rule of another scanner's SARIF log) gets its check's description, with
// Known false.
func LookupRule(gate, id string) RuleDoc {
	if g := gateOf(id); g != "" {
		gate = g
	} else if _, ok := gateDocs[id]; ok {
		gate = id
	}
	d := RuleDoc{ID: id, Gate: gate}
	gd, gateKnown := gateDocs[gate]
	fix := gd.fix
	d.Tags = append([]string(nil), gd.tags...)
	switch {
	case id == gate && gateKnown:
		d.Short, d.Known = "The "+gate+" check failed or could not evaluate.", true
	case ruleDocs[id].short != "":
		r := ruleDocs[id]
		d.Short, d.Known = r.short, true
		if r.fix != "" {
			fix = r.fix
		}
	case strings.HasPrefix(id, gates.RulePhaseWrapPrefix) && phaseWrapSteps[strings.TrimPrefix(id, gates.RulePhaseWrapPrefix)] != "":
		d.Short, d.Known = phaseWrapSteps[strings.TrimPrefix(id, gates.RulePhaseWrapPrefix)], true
	case sast.RuleByID(id) != nil:
		r := sast.RuleByID(id)
		d.Short, d.Known = sentence(r.Message), true
		fix = strings.TrimSuffix(r.Remediation, ".")
		d.SecuritySeverity = sastSeverity[r.Severity]
		d.Tags = append(d.Tags, sastTags(id, r.Secret)...)
	case strings.HasPrefix(id, "secret/") && secretDescriptions()[strings.TrimPrefix(id, "secret/")] != "":
		d.Short, d.Known = sentence(secretDescriptions()[strings.TrimPrefix(id, "secret/")])+" (gitleaks rule "+strings.TrimPrefix(id, "secret/")+")", true
		fix = "revoke and rotate the credential (it is in the git history now), remove it from the file, and read it from the environment or a secrets manager"
		d.SecuritySeverity = secretSeverity
		d.Tags = append(d.Tags, "secret", "external/cwe/cwe-798")
	case gate == "swarm/sast":
		d.Short = "A result of another scanner's SARIF log (rule " + id + ")."
		fix = "fix the code as that scanner's rule documentation says, or triage the finding in the phase's SAST baseline"
	default:
		d.Short = "A finding of " + orUnknown(gate) + " (rule " + id + ")."
	}
	if gd.what == "" {
		gd = gateDoc{what: "swarm-gate re-checks an AI-agent workflow's artifacts on every pull request.", why: "A failed check blocks the merge.", fix: "fix what the finding says, then push", anchor: "what-it-checks"}
		if fix == "" {
			fix = gd.fix
		}
		d.Tags = append(d.Tags, "swarm")
	}
	d.Full = clip(d.Short+" "+gd.what, 1024)
	link := ProjectURL + "#" + gd.anchor
	d.HelpText = d.Short + "\n\nThe check: " + gd.what + "\n\nWhy it blocks: " + gd.why +
		" A finding the merge base already has is only a warning; an overridden check shows its findings as suppressed.\n\nHow to fix: " + plainFix(fix) + ".\n\nMore: " + link
	d.HelpMarkdown = d.Short + "\n\n**The check:** " + gd.what + "\n\n**Why it blocks:** " + gd.why +
		" A finding the merge base already has is only a warning; an overridden check shows its findings as suppressed.\n\n**How to fix:** " + fix + ".\n\nSee [the README](" + link + ")."
	return d
}

// sastTags are a Tier A rule's tags: its CWE (as external/cwe/cwe-N, the
// form GitHub shows) where the rule's kind has one.
func sastTags(id string, secret bool) []string {
	if secret {
		return []string{"secret", "external/cwe/cwe-798"}
	}
	for _, k := range []struct{ part, cwe string }{
		{"command-injection", "78"}, {"shell-injection", "78"}, {"os-system", "78"},
		{"sqli", "89"}, {"sql-injection", "89"}, {"xss", "79"}, {"innerhtml", "79"}, {"document-write", "79"}, {"template-injection", "79"},
		{"deserialization", "502"}, {"unserialize", "502"}, {"pickle", "502"}, {"yaml-unsafe", "502"}, {"marshal", "502"},
		{"path-traversal", "22"}, {"file-read", "22"}, {"include", "98"},
		{"xxe", "611"}, {"weak-random", "338"}, {"weak-crypto", "327"}, {"weak-encryption", "327"},
		{"weak-tls", "295"}, {"ssl-validation", "295"}, {"trust-manager", "295"},
		{"eval", "95"}, {"exec", "95"}, {"assert", "95"}, {"create-function", "95"}, {"preg-replace", "95"}, {"set-timeout-string", "95"}, {"dangerous-function", "95"},
		{"buffer-overflow", "120"}, {"gets", "242"}, {"scanf", "120"}, {"sprintf", "120"}, {"strlen", "126"}, {"strdup", "476"}, {"atoi", "190"}, {"format-string", "134"},
		{"hardcoded-connection-string", "798"}, {"pprof", "200"}, {"postmessage", "346"}, {"mass-assignment", "915"}, {"unsafe-block", "676"},
		{"destructive-migration", "404"},
	} {
		if strings.Contains(id, k.part) {
			return []string{"external/cwe/cwe-" + k.cwe}
		}
	}
	return nil
}

// sentence ends s with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// plainFix drops Markdown code ticks for help.text.
func plainFix(s string) string { return strings.ReplaceAll(s, "`", "") }

func orUnknown(gate string) string {
	if gate == "" {
		return "swarm-gate"
	}
	return gate
}

// clip cuts s to at most n bytes at a rune boundary (GitHub's limit on
// descriptions is 1024 characters).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
