package gates

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// Drift is swarm/drift: the spec-drift verdict of the phase and the spec's
// traceability to the plan.
//
// The verdict mirrors the plugin's drift gate
// (src/tools/phase-complete/gates/drift-gate.ts, spec section 8.2 step 2):
// it reads .swarm/evidence/{phase}/drift-verifier.json, both real variants
// ({entries:[{type:"drift-verification", verdict, summary, timestamp}]} and
// the older {verdict, entries:[{type:"drift-verifier", ...}]}); an entry
// whose type contains "drift" with verdict rejected, or whose summary
// contains NEEDS_REVISION (the plugin's own rule, reproduced and named in
// the output), rejects the phase. Then, stricter than the plugin (which
// passes when any entry is "approved" and none is "rejected"), the newest
// entry decides: it must be "approved", exactly as the plugin compares it;
// a newer NEEDS_REVISION, fail or other verdict after an approval fails,
// and a verdict that is not a string fails closed (verifierVerdict).
// Per-task verdicts (ALIGNED, MINOR_DRIFT, MAJOR_DRIFT, OFF_SPEC) are read
// from a structured field of the newest entry when it has one
// (swarm.EvidenceEntry.TaskVerdicts), never from the summary; MINOR_DRIFT
// warns unless drift.minor_drift: fail; an element that cannot be read (no
// task id, an ambiguous numeric id) fails closed. Missing evidence fails
// when .swarm/spec.md exists and the phase is ready to close (every task
// completed, closed or blocked); before that, or without a spec (the plugin
// only warns then), the verdict is not applicable. drift_check off in the
// QA gate profile, or a phase of type "non-code", skips it.
//
// Traceability (the plugin's save_plan coverage, spec section 9): every
// FR-### and every MUST/SHALL SC-### that spec.md defines maps to a task of
// the plan (task fr_refs, or the id named in the description or acceptance);
// an unmapped MUST/SHALL (or an FR with no keyword) fails, an unmapped
// SHOULD/MAY warns; tasks of the phase that name no FR or SC are listed as
// possible gold-plating (notices), and an fr_refs entry of a phase task
// that names no id spec.md defines is a warning.
type Drift struct{}

// Name implements Gate.
func (Drift) Name() string { return "swarm/drift" }

// Rule ids of swarm/drift findings.
const (
	RuleDriftMissing              = "drift/missing"
	RuleDriftRejected             = "drift/rejected"
	RuleDriftSummaryNeedsRevision = "drift/summary-needs-revision"
	RuleDriftTaskVerdict          = "drift/task-verdict"
	RuleDriftUntracedRequirement  = "drift/untraced-requirement"
	RuleDriftUntracedCriterion    = "drift/untraced-criterion"
	RuleDriftUntracedTask         = "drift/untraced-task"
	RuleDriftInvalidID            = "drift/invalid-id"
	RuleDriftUnknownRef           = "drift/unknown-ref"
	RuleDriftSpecDeleted          = "drift/spec-deleted"
	RuleDriftRequirementRemoved   = "drift/requirement-removed"
)

// Plugin failure codes of the drift step.
const (
	CodeDriftMissing  = "DRIFT_VERIFICATION_MISSING"
	CodeDriftRejected = "DRIFT_VERIFICATION_REJECTED"
	// CodeDriftTaskVerdict is swarm-gate's: a per-task verdict of
	// MAJOR_DRIFT or OFF_SPEC (or MINOR_DRIFT under drift.minor_drift: fail).
	CodeDriftTaskVerdict = "DRIFT_TASK_VERDICT"
)

// Evaluate implements Gate.
func (g Drift) Evaluate(ctx context.Context, in *Input) Result {
	if r, ok := noPlan(g.Name(), in); ok {
		return r
	}
	plan, phase, err := headPhase(in)
	if err != nil {
		return CouldNotEvaluate(g.Name(), err)
	}
	events, err := eventsProblem(in)
	if err != nil {
		return CouldNotEvaluate(g.Name(), err)
	}
	item, findings := driftCheck(in, phase)
	if item.Status == CheckError {
		return CouldNotEvaluate(g.Name(), item.Err)
	}
	findings = append(findings, events...)
	if item.Code == CodeDriftMissing {
		if open := unfinishedTasks(phase); len(open) > 0 {
			item = checkSkipped("drift", item.File, "no drift verification yet, which is due when phase %d closes: %s still open", phase.ID, plural(len(open), "task is", "tasks are"))
		}
	}
	if item.Status == CheckFail {
		findings = append([]Finding{{Path: item.File, Line: item.Line, EndLine: item.Line, Rule: driftRule(item), Severity: SeverityError, Message: item.Code + ": " + item.Detail,
			Key: fkey(driftRule(item), fmt.Sprint(phase.ID), item.Detail)}}, findings...)
	}
	// The other phases whose tasks the pull request moves are checked too:
	// one it closes needs its drift verification as well.
	var others []string
	for _, ph := range phasesUnderCheck(in, plan, phase) {
		if err := ctx.Err(); err != nil {
			return CouldNotEvaluate(g.Name(), err)
		}
		if ph.ID == phase.ID {
			continue
		}
		it, _ := driftCheck(in, ph)
		if it.Code == CodeDriftMissing && len(unfinishedTasks(ph)) > 0 {
			continue // not due yet
		}
		switch it.Status {
		case CheckError:
			return CouldNotEvaluate(g.Name(), it.Err)
		case CheckFail:
			others = append(others, fmt.Sprintf("phase %d: %s", ph.ID, it.Code))
			findings = append(findings, Finding{Path: it.File, Line: it.Line, EndLine: it.Line, Rule: driftRule(it), Severity: SeverityError,
				Message: fmt.Sprintf("phase %d (its tasks change status in this pull request too): %s: %s", ph.ID, it.Code, it.Detail),
				Key:     fkey(driftRule(it), fmt.Sprint(ph.ID), it.Detail)})
		}
	}
	if in.Head.HasSpec && in.Head.SpecErr == nil && in.Head.SpecDoc == nil {
		return CouldNotEvaluate(g.Name(), fmt.Errorf("%s was not parsed", swarm.SpecPath))
	}
	if in.Head.SpecErr != nil {
		return CouldNotEvaluate(g.Name(), in.Head.SpecErr)
	}
	var trace traceResult
	if in.Head.SpecDoc != nil {
		if trace, err = traceability(ctx, in, plan, phase); err != nil {
			return CouldNotEvaluate(g.Name(), err)
		}
		findings = append(findings, trace.findings...)
	}
	deleted, err := specDeleted(ctx, in)
	if err != nil {
		return CouldNotEvaluate(g.Name(), err)
	}
	if deleted != nil {
		findings = append([]Finding{*deleted}, findings...)
	}
	removed, err := requirementsRemoved(ctx, in)
	if err != nil {
		return CouldNotEvaluate(g.Name(), err)
	}
	if removed != nil {
		findings = append([]Finding{*removed}, findings...)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**Drift verifier** (%s): %s %s\n\n", mdtext.Code(swarm.PhaseEvidencePath(phase.ID, swarm.PhaseDriftVerifier)), item.Status, mdtext.Inline(item.Detail))
	if in.Head.SpecDoc != nil {
		b.WriteString("**Traceability** of " + mdtext.Code(swarm.SpecPath) + " to " + mdtext.Code(swarm.PlanPath) + ": " + mdtext.Inline(trace.summary) + "\n\n")
	} else {
		b.WriteString("**Traceability**: no " + mdtext.Code(swarm.SpecPath) + " at head, so there is no spec to trace.\n\n")
	}
	b.WriteString(mdtext.Inline(in.config().qaProfileSource()) + ".")
	res := Result{Summary: b.String(), Findings: findings}
	errs := 0
	for _, f := range findings {
		if f.Severity == SeverityError {
			errs++
		}
	}
	switch {
	case deleted != nil && deleted.Severity == SeverityError:
		res.Outcome, res.Title = Failed, "the pull request deletes "+swarm.SpecPath+", which the plan traces to"
		if errs > 1 {
			res.Title += fmt.Sprintf(" (+%s)", plural(errs-1, "more finding", "more findings"))
		}
	case removed != nil && removed.Severity == SeverityError:
		res.Outcome, res.Title = Failed, "the pull request removes requirements the plan traces to from "+swarm.SpecPath
		if errs > 1 {
			res.Title += fmt.Sprintf(" (+%s)", plural(errs-1, "more finding", "more findings"))
		}
	case item.Status == CheckFail:
		res.Outcome, res.Title = Failed, fmt.Sprintf("phase %d drift: %s", phase.ID, clipN(item.Code+": "+item.Detail, 160))
		if len(others) > 0 {
			res.Title += " (also " + strings.Join(others, ", ") + ")"
		}
	case len(others) > 0:
		res.Outcome, res.Title = Failed, "drift: "+strings.Join(others, ", ")
	case errs > 0:
		res.Outcome, res.Title = Failed, fmt.Sprintf("%s of %s %s to no task of the plan", plural(errs, "requirement", "requirements"), swarm.SpecPath, verbS(errs, "maps", "map"))
	case item.Status == CheckPass:
		res.Outcome, res.Title = Passed, fmt.Sprintf("phase %d drift verification approved", phase.ID)
		if in.Head.SpecDoc != nil {
			res.Title += "; " + trace.title
		}
	case in.Head.SpecDoc != nil && len(in.Head.SpecDoc.Requirements) > 0:
		res.Outcome, res.Title = Passed, trace.title+" (drift verdict: "+clipN(item.Detail, 100)+")"
	case in.Head.SpecDoc != nil:
		res.Outcome, res.Title = NotApplicable, trace.title+"; "+clipN(item.Detail, 120)
	default:
		res.Outcome, res.Title = NotApplicable, clipN(item.Detail, 160)
	}
	return res
}

func driftRule(it CheckItem) string {
	switch {
	case it.Code == CodeDriftMissing:
		return RuleDriftMissing
	case it.Code == CodeDriftTaskVerdict:
		return RuleDriftTaskVerdict
	case strings.Contains(it.Detail, "its summary contains NEEDS_REVISION"):
		return RuleDriftSummaryNeedsRevision
	}
	return RuleDriftRejected
}

// unfinishedTasks are the phase's tasks that are neither completed, closed
// nor blocked.
func unfinishedTasks(ph *swarm.Phase) []swarm.Task {
	var out []swarm.Task
	for _, t := range ph.Tasks {
		if t.Status != "completed" && t.Status != "closed" && t.Status != "blocked" {
			out = append(out, t)
		}
	}
	return out
}

// driftCheck evaluates the drift verifier's evidence for the phase as the
// plugin's drift gate does, plus structured per-task verdicts. The findings
// are the per-task verdict warnings.
func driftCheck(in *Input, phase *swarm.Phase) (CheckItem, []Finding) {
	const step = "drift"
	cfg := in.config()
	path := swarm.PhaseEvidencePath(phase.ID, swarm.PhaseDriftVerifier)
	if !cfg.QAGates.DriftCheck {
		return checkSkipped(step, "", "drift_check is off in the QA gate profile"), nil
	}
	if phase.Type == "non-code" {
		return checkSkipped(step, swarm.PlanPath, "phase %d is of type non-code: the plugin skips drift verification", phase.ID), nil
	}
	b, err := in.Head.Evidence.Bundle(path)
	if err != nil {
		return checkUnreadable(step, err), nil
	}
	missing := func(why string) CheckItem {
		if ev := ledgerDriftApproval(in, phase.ID); ev != nil {
			// write_drift_evidence records an APPROVED verdict in the ledger
			// too; the evidence file is often not committed.
			a := ev.Approval
			if i := strings.Index(a.Summary, "NEEDS_REVISION"); i >= 0 {
				return checkFail(step, CodeDriftRejected, swarm.LedgerPath, ev.Line, "%s; the ledger's drift-verifier approval of phase %d (seq %d) has NEEDS_REVISION in its summary, which the plugin's drift gate reads as a rejection: %q",
					why, phase.ID, ev.Seq, quoteAround(a.Summary, i, len("NEEDS_REVISION"), 70))
			}
			it := checkPass(step, swarm.LedgerPath, "approved per the ledger: the drift verifier's approval of phase %d (seq %d, approved at %s), which write_drift_evidence records with the evidence file; %s",
				phase.ID, ev.Seq, approvedAt(ev), why)
			it.Line = ev.Line
			return it
		}
		if in.Head.HasSpec {
			it := checkFail(step, CodeDriftMissing, path, 0, "%s and %s exists: the plugin blocks phase_complete without drift evidence when there is a spec", why, swarm.SpecPath)
			if pc, _ := phaseCompletions(in, phase.ID); pc != nil && pc.Status == "success" {
				it.Detail += fmt.Sprintf("; yet the plugin closed phase %d (%s line %d: phase_complete, status success), so its own run did not block on drift (drift_check off in its QA gate profile, Turbo mode, an older plugin version, or evidence that was not committed): commit the evidence, or set qa_gates.drift_check: false in the policy if drift checking is off for this plan",
					phase.ID, swarm.EventsPath, pc.Line)
			}
			return it
		}
		return checkSkipped(step, path, "%s; without %s the plugin only warns", why, swarm.SpecPath)
	}
	if b == nil {
		return missing("no drift verification recorded (the file is absent)"), nil
	}
	vr := verifierVerdict(step, path, b, "drift", CodeDriftRejected, "drift verifier", "write_drift_evidence")
	if vr.found == nil {
		why := "no entry of a drift type with a verdict"
		if b.HasVerdict {
			why += fmt.Sprintf(" (the top-level verdict %q does not count: the plugin reads entries only)", b.Verdict)
		}
		return missing(why), nil
	}
	if vr.item.Status == CheckFail {
		return vr.item, nil
	}
	if b.HasVerdict && classifyVerdict(b.Verdict) == verdictRejecting {
		return checkFail(step, CodeDriftRejected, path, b.VerdictLine, "the file's top-level verdict is %q", b.Verdict), nil
	}
	it := vr.item
	var findings []Finding
	var bad, unreadable []string
	// Per-task verdicts are read from the deciding (newest) entry.
	for _, tv := range vr.found.TaskVerdicts() {
		sev := SeverityError
		var msg string
		v := strings.ToUpper(strings.TrimSpace(tv.Verdict))
		if tv.Problem != "" {
			msg = fmt.Sprintf("entry %d: %s; swarm-gate fails closed on a per-task verdict it cannot read", vr.found.Index+1, tv.Problem)
			v = "unreadable (" + tv.Field + ")"
		} else {
			switch v {
			case "ALIGNED":
				continue
			case "MINOR_DRIFT":
				if !cfg.Drift.FailMinorDrift {
					sev = SeverityWarning
				}
			case "MAJOR_DRIFT", "OFF_SPEC":
			default:
				v = fmt.Sprintf("%q (not one of ALIGNED, MINOR_DRIFT, MAJOR_DRIFT, OFF_SPEC)", tv.Verdict)
			}
			msg = fmt.Sprintf("task %s: drift verdict %s (%s)", tv.TaskID, v, tv.Field)
		}
		findings = append(findings, Finding{Path: path, Line: tv.Line, EndLine: tv.Line, Rule: RuleDriftTaskVerdict, Severity: sev, Message: msg})
		switch {
		case sev == SeverityWarning:
			it.Warnings = append(it.Warnings, msg)
		case tv.Problem != "":
			unreadable = append(unreadable, tv.Problem)
		default:
			bad = append(bad, tv.TaskID+" "+v)
		}
	}
	if len(bad)+len(unreadable) > 0 {
		line := it.Line
		for _, f := range findings {
			if f.Severity == SeverityError {
				line = f.Line
				break
			}
		}
		var parts []string
		if len(bad) > 0 {
			parts = append(parts, "task verdicts say "+strings.Join(bad, "; "))
		}
		if len(unreadable) > 0 {
			parts = append(parts, "a per-task verdict cannot be read, so swarm-gate fails closed: "+strings.Join(unreadable, "; "))
		}
		it = checkFail(step, CodeDriftTaskVerdict, path, line, "the phase is approved, but %s", strings.Join(parts, "; and "))
		// The per-task errors are carried by the item's own finding.
		findings = slices.DeleteFunc(findings, func(f Finding) bool { return f.Severity == SeverityError })
	}
	return it, findings
}

// verifierResult is what a verifier's evidence file (drift-verifier.json,
// hallucination-guard.json) says.
type verifierResult struct {
	item  CheckItem            // PASS, or FAIL with the code; zero Step when found is nil
	found *swarm.EvidenceEntry // the deciding (newest) entry; nil when none has a verdict
}

// verifierVerdict reads the entries of a verifier's evidence file whose type
// contains kind, as the plugin's drift and hallucination gates do, and then
// one rule stricter:
//
//   - the plugin's rule, on every entry: a verdict "rejected", or a summary
//     containing NEEDS_REVISION, rejects (codeRejected);
//   - an entry whose verdict is present but not a string fails closed (the
//     plugin skips it);
//   - the newest entry decides (by timestamp when every entry has one, else
//     the last in the file): it must have the verdict "approved", exactly,
//     as the plugin compares it (write_drift_evidence and
//     write_hallucination_evidence store it lower-case). The plugin passes
//     when any entry is "approved" and none is "rejected", so an approval
//     followed by NEEDS_REVISION or fail closes the phase there; swarm-gate
//     refuses it and says so.
func verifierVerdict(step, path string, b *swarm.EvidenceBundle, kind, codeRejected, who, writer string) verifierResult {
	var entries []*swarm.EvidenceEntry
	for i := range b.Entries {
		e := &b.Entries[i]
		if strings.Contains(e.Type, kind) && (e.HasVerdict || e.VerdictInvalid != "") {
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return verifierResult{}
	}
	fail := func(e *swarm.EvidenceEntry, line int, format string, args ...any) verifierResult {
		return verifierResult{item: checkFail(step, codeRejected, path, line, format, args...), found: e}
	}
	var pluginApproved *swarm.EvidenceEntry
	for _, e := range entries {
		switch {
		case e.VerdictInvalid != "":
			return fail(e, e.FieldLine("verdict"), "entry %d has verdict %s, which is not a string: an unrecognized verdict, so swarm-gate fails closed (the plugin skips such an entry)", e.Index+1, e.VerdictInvalid)
		case strings.EqualFold(e.Verdict, "rejected"):
			return fail(e, e.FieldLine("verdict"), "the %s rejected the phase: entry %d has verdict %q", who, e.Index+1, e.Verdict)
		}
		if i := strings.Index(e.Summary, "NEEDS_REVISION"); i >= 0 {
			return fail(e, e.FieldLine("summary"), "entry %d has verdict %q, but its summary contains NEEDS_REVISION, which the plugin's %s gate reads as a rejection: %q",
				e.Index+1, e.Verdict, strings.TrimSuffix(who, " verifier"), quoteAround(e.Summary, i, len("NEEDS_REVISION"), 70))
		}
		if e.Verdict == "approved" {
			pluginApproved = e
		}
	}
	newest := newestEntry(entries)
	label := fmt.Sprintf("entry %d%s", newest.Index+1, timestampSuffix(newest.Timestamp))
	where := label
	if len(entries) > 1 {
		where = "the newest entry (" + label + ")"
		label += fmt.Sprintf(", the newest of %d", len(entries))
	}
	switch {
	case newest.Verdict == "approved":
		it := checkPass(step, path, "approved (%s)", label)
		it.Line = newest.Line
		return verifierResult{item: it, found: newest}
	case strings.EqualFold(newest.Verdict, "approved"):
		return fail(newest, newest.FieldLine("verdict"), "%s has verdict %q, not \"approved\": the plugin compares the verdict exactly (%s stores it lower-case), so it would not count this approval", where, newest.Verdict, writer)
	case pluginApproved != nil:
		return fail(newest, newest.FieldLine("verdict"), "%s has verdict %q after entry %d approved: the newest entry decides. The plugin's gate rejects only the verdict \"rejected\" and would close the phase on entry %d's approval; swarm-gate is stricter",
			where, newest.Verdict, pluginApproved.Index+1, pluginApproved.Index+1)
	}
	return fail(newest, newest.FieldLine("verdict"), "the %s verdict %q (%s) is not approved", who, newest.Verdict, where)
}

// newestEntry is the newest of the entries: by timestamp when every entry
// has one that parses, else the last in file order (entries are appended).
func newestEntry(entries []*swarm.EvidenceEntry) *swarm.EvidenceEntry {
	newest := entries[len(entries)-1]
	var best time.Time
	for i, e := range entries {
		t, ok := parseISOTime(e.Timestamp)
		if !ok {
			return entries[len(entries)-1]
		}
		if i == 0 || !t.Before(best) {
			best, newest = t, e
		}
	}
	return newest
}

// quoteAround quotes s around [i, i+n) with up to r bytes of context each side,
// cut at rune boundaries.
func quoteAround(s string, i, n, r int) string {
	from, to := max(0, i-r), min(len(s), i+n+r)
	for from > 0 && from < len(s) && s[from]&0xc0 == 0x80 {
		from--
	}
	for to < len(s) && s[to]&0xc0 == 0x80 {
		to++
	}
	out := s[from:to]
	if from > 0 {
		out = "..." + out
	}
	if to < len(s) {
		out += "..."
	}
	return out
}

// timestampSuffix formats an optional timestamp as " at <ts>".
func timestampSuffix(ts string) string {
	if ts == "" {
		return ""
	}
	return " at " + ts
}

// specDeleted is the finding of a pull request that deletes spec.md (nil
// when it does not): traceability cannot be dodged by deleting the spec.
// It fails when the merge base's plan traces to requirements of the base
// spec, naming them, and warns when it traces to none.
func specDeleted(ctx context.Context, in *Input) (*Finding, error) {
	if in.Base == nil || !in.Base.HasSpec || in.Base.SpecDoc == nil || in.Head.HasSpec || in.Head.SpecErr != nil {
		return nil, nil
	}
	var tasks []swarm.Task
	if in.Base.Plan != nil {
		for _, ph := range in.Base.Plan.Phases {
			tasks = append(tasks, ph.Tasks...)
		}
	}
	ix, err := newTraceIndex(ctx, tasks, in.Base.SpecDoc.Requirements)
	if err != nil {
		return nil, err
	}
	var traced []string
	for _, r := range in.Base.SpecDoc.Requirements {
		if ix.names(r) {
			traced = append(traced, r.ID)
		}
	}
	f := &Finding{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleDriftSpecDeleted, Key: fkey(RuleDriftSpecDeleted)}
	n := len(in.Base.SpecDoc.Requirements)
	if len(traced) == 0 {
		f.Severity = SeverityWarning
		f.Message = fmt.Sprintf("the pull request deletes %s (%s on the merge base, none traced by the plan there), so nothing traces the plan to a spec any more; check that dropping the spec was intended", swarm.SpecPath, plural(n, "requirement or criterion", "requirements and criteria"))
		return f, nil
	}
	f.Severity = SeverityError
	f.Message = fmt.Sprintf("the pull request deletes %s while the merge base's plan traces to it: %s (%s) of the %d the spec defined disappear with it, and nothing checks the plan against them any more; restore %s, or replace it with the new spec and re-save the plan against it",
		swarm.SpecPath, plural(len(traced), "traced requirement", "traced requirements"), listSome(traced, 30), n, swarm.SpecPath)
	return f, nil
}

// requirementsRemoved is the finding of a pull request that deletes MUST or
// SHALL requirements (or criteria) from spec.md that the merge base's plan
// traces to (nil when it does not): deleting spec.md whole fails
// (specDeleted), and so must deleting the one requirement an agent did not
// implement. When the head plan keeps the merge base's specHash, plan-freeze
// fails the plan as stale instead (with acknowledge-spec-drift as the
// override); when it records none, or one the pull request re-saved against
// the revised spec (the agent's own acknowledgment, which needs no
// approval: specHash is outside the structure hash), nothing else would
// name the requirement gone. drift.traceability: warn makes it a warning.
func requirementsRemoved(ctx context.Context, in *Input) (*Finding, error) {
	if in.Base == nil || in.Base.SpecDoc == nil || in.Head.SpecDoc == nil || in.Base.Plan == nil || in.Head.Plan == nil {
		return nil, nil
	}
	if h := in.Head.Plan.SpecHash; h != "" && h == in.Base.Plan.SpecHash {
		// The plan still records the merge base's spec: plan-freeze fails
		// it as stale, and a maintainer's acknowledge-spec-drift is the
		// way past that.
		return nil, nil
	}
	var tasks []swarm.Task
	for _, ph := range in.Base.Plan.Phases {
		tasks = append(tasks, ph.Tasks...)
	}
	ix, err := newTraceIndex(ctx, tasks, in.Base.SpecDoc.Requirements)
	if err != nil {
		return nil, err
	}
	defined := specIndex(in.Head.SpecDoc)
	var gone []string
	for _, r := range in.Base.SpecDoc.Requirements {
		if (r.Obligation == "MUST" || r.Obligation == "SHALL") && ix.names(r) && !specDefines(defined, r.ID) {
			gone = append(gone, r.ID)
		}
	}
	if len(gone) == 0 {
		return nil, nil
	}
	sev := SeverityError
	if in.config().Drift.WarnTraceability {
		sev = SeverityWarning
	}
	return &Finding{Path: swarm.SpecPath, Line: 1, EndLine: 1, Rule: RuleDriftRequirementRemoved, Severity: sev, Key: fkey(RuleDriftRequirementRemoved, strings.Join(gone, ",")),
		Message: fmt.Sprintf("the pull request removes %s (%s) from %s, which the merge base's plan traces to, and no maintainer acknowledged the revision (the plan records no specHash, or one this pull request re-saved): nothing checks the plan against %s any more; restore %s; a spec that really drops it needs a maintainer's decision (drift.traceability: warn in the base branch's policy lets it pass)",
			plural(len(gone), "MUST/SHALL requirement", "MUST/SHALL requirements"), listSome(gone, 30), swarm.SpecPath, map[bool]string{true: "it", false: "them"}[len(gone) == 1], map[bool]string{true: "it", false: "them"}[len(gone) == 1])}, nil
}

// traceResult is the traceability part of swarm/drift.
type traceResult struct {
	findings []Finding
	title    string
	summary  string
}

var anyReqID = regexp.MustCompile(`(?i)\b(FR|SC)-\d{3}\b`)

// traceability maps the spec's requirements and criteria to the plan's
// tasks. It fails only with ctx's error when ctx is done.
func traceability(ctx context.Context, in *Input, plan *swarm.Plan, phase *swarm.Phase) (traceResult, error) {
	var tr traceResult
	spec := in.Head.SpecDoc
	cfg := in.config()
	var tasks []swarm.Task
	for _, ph := range plan.Phases {
		tasks = append(tasks, ph.Tasks...)
	}
	strict := SeverityError
	if cfg.Drift.WarnTraceability {
		strict = SeverityWarning
	}
	ix, err := newTraceIndex(ctx, tasks, spec.Requirements)
	if err != nil {
		return tr, err
	}
	var nFR, nSC, mapped int
	var unmappedMust, unmappedShould []string
	for i, r := range spec.Requirements {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return tr, err
			}
		}
		if r.Kind == "FR" {
			nFR++
		} else {
			nSC++
		}
		sev := strict
		switch r.Obligation {
		case "SHOULD", "MAY":
			sev = SeverityWarning
		case "":
			if r.Kind == "SC" {
				continue // not an obligation
			}
		}
		if ix.names(r) {
			mapped++
			continue
		}
		rule, what := RuleDriftUntracedRequirement, "requirement"
		if r.Kind == "SC" {
			rule, what = RuleDriftUntracedCriterion, "success criterion"
		}
		ob := r.Obligation
		if ob == "" {
			ob = "no obligation keyword"
		}
		tr.findings = append(tr.findings, Finding{Path: swarm.SpecPath, Line: r.Line, EndLine: r.Line, Rule: rule, Severity: sev, Key: fkey(rule, r.ID, ob),
			Message: fmt.Sprintf("%s %s (%s) maps to no task of the plan: no task lists it in fr_refs or names it in its description or acceptance: %s", what, r.ID, ob, r.Text)})
		if sev == SeverityError {
			unmappedMust = append(unmappedMust, r.ID)
		} else {
			unmappedShould = append(unmappedShould, r.ID)
		}
	}
	for _, r := range spec.Zero {
		tr.findings = append(tr.findings, Finding{Path: swarm.SpecPath, Line: r.Line, EndLine: r.Line, Rule: RuleDriftInvalidID, Severity: SeverityWarning,
			Message: fmt.Sprintf("%s is not a valid id (the plugin's lint_spec rejects %s-000)", r.ID, r.Kind)})
	}
	var untraced []string
	if len(spec.Requirements) > 0 {
		for _, t := range phase.Tasks {
			if len(t.FRRefs) == 0 && !anyReqID.MatchString(t.Description+"\n"+t.Acceptance) {
				untraced = append(untraced, t.ID)
				tr.findings = append(tr.findings, Finding{Path: swarm.PlanPath, Line: t.Line, EndLine: t.Line, Rule: RuleDriftUntracedTask, Severity: SeverityNotice,
					Message: fmt.Sprintf("task %s names no FR or SC id (no fr_refs, none in its description or acceptance): possible gold-plating, work the spec does not ask for", t.ID)})
			}
		}
	}
	var unknownRefs []string
	if len(spec.Requirements) > 0 {
		defined := specIndex(spec)
		for _, t := range phase.Tasks {
			if err := ctx.Err(); err != nil {
				return tr, err
			}
			for _, ref := range t.FRRefs {
				if !specDefines(defined, ref) {
					unknownRefs = append(unknownRefs, t.ID+" "+strings.TrimSpace(ref))
					tr.findings = append(tr.findings, Finding{Path: swarm.PlanPath, Line: t.Line, EndLine: t.Line, Rule: RuleDriftUnknownRef, Severity: SeverityWarning,
						Message: fmt.Sprintf("task %s's fr_refs names %q, which %s does not define: a typo, or a requirement the spec lost", t.ID, strings.TrimSpace(ref), swarm.SpecPath)})
				}
			}
		}
	}
	obligations := mapped + len(unmappedMust) + len(unmappedShould)
	switch {
	case len(spec.Requirements) == 0:
		tr.title = "the spec defines no FR-### or SC-### ids"
		tr.summary = swarm.SpecPath + " defines no FR-### requirement or SC-### criterion, so there is nothing to trace."
	case len(unmappedMust) > 0:
		tr.title = fmt.Sprintf("%s %s to no task", plural(len(unmappedMust), "requirement", "requirements"), verbS(len(unmappedMust), "maps", "map"))
	case len(unmappedShould) > 0:
		tr.title = fmt.Sprintf("every MUST requirement maps to a task (%d SHOULD/MAY unmapped)", len(unmappedShould))
	default:
		tr.title = "every requirement maps to a task"
	}
	if tr.summary == "" {
		tr.summary = fmt.Sprintf("%s and %s defined; %d of %d obligations map to a task of the plan", plural(nFR, "FR requirement", "FR requirements"), plural(nSC, "SC criterion", "SC criteria"), mapped, obligations)
		if len(unmappedMust) > 0 {
			tr.summary += "; unmapped MUST/SHALL (failing): " + listSome(unmappedMust, 20)
		}
		if len(unmappedShould) > 0 {
			tr.summary += "; unmapped SHOULD/MAY (warnings): " + listSome(unmappedShould, 20)
		}
		tr.summary += fmt.Sprintf("; %s of phase %d %s no FR or SC (possible gold-plating)", plural(len(untraced), "task", "tasks"), phase.ID, verbS(len(untraced), "names", "name"))
		if len(untraced) > 0 {
			tr.summary += ": " + listSome(untraced, 20)
		}
		if len(unknownRefs) > 0 {
			tr.summary += fmt.Sprintf("; %s in phase %d's fr_refs not defined by the spec (warnings): %s", plural(len(unknownRefs), "id", "ids"), phase.ID, listSome(unknownRefs, 20))
		}
		tr.summary += "."
	}
	return tr, nil
}

// traceIndex answers which requirements the plan's tasks map to, built in
// one pass over the tasks, so that tracing is linear in the size of the
// spec and the plan. A task maps to a requirement by its id or bare id in
// fr_refs, or by its id as a word in description + acceptance (both
// case-insensitive), as the plugin's save_plan coverage matches: a word is
// not preceded by [0-9A-Za-z_/-] and not followed by [0-9A-Za-z_].
type traceIndex struct {
	refs map[string]bool // folded fr_refs entries of any task
	text map[string]bool // folded requirement ids named as a word in a task's text
}

// reqIDToken finds the FR-### / SC-### tail of an id in folded text.
var reqIDToken = regexp.MustCompile(`(?:fr|sc)-[0-9]{3}`)

// foldID folds s as regexp (?i) and strings.EqualFold compare it with an
// ASCII id: A-Z to a-z, and the two non-ASCII letters that fold to ASCII
// (U+017F long s, U+212A Kelvin sign) to s and k. Other runes are kept, so
// they match no id.
func foldID(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case 'A' <= r && r <= 'Z':
			return r + 'a' - 'A'
		case r == '\u017f':
			return 's'
		case r == '\u212a':
			return 'k'
		}
		return r
	}, s)
}

// idHash hashes s from its end, so that hashes of the suffixes ending at one
// place extend one byte at a time (h = h*B + c).
func idHash(s string) uint64 {
	var h uint64
	for i := len(s) - 1; i >= 0; i-- {
		h = h*1099511628211 + uint64(s[i])
	}
	return h
}

// newTraceIndex indexes the tasks for the requirements reqs. It checks ctx
// between tasks.
func newTraceIndex(ctx context.Context, tasks []swarm.Task, reqs []swarm.Requirement) (*traceIndex, error) {
	ix := &traceIndex{refs: map[string]bool{}, text: map[string]bool{}}
	ids := map[uint64][]string{}
	maxLen := 0
	for _, r := range reqs {
		id := foldID(r.ID)
		h := idHash(id)
		if !slices.Contains(ids[h], id) {
			ids[h] = append(ids[h], id)
		}
		maxLen = max(maxLen, len(id))
	}
	for _, t := range tasks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, ref := range t.FRRefs {
			ix.refs[foldID(strings.TrimSpace(ref))] = true
		}
		s := foldID(t.Description + "\n" + t.Acceptance)
		for _, m := range reqIDToken.FindAllStringIndex(s, -1) {
			k, e := m[0], m[1]
			if e < len(s) && isWordByte(s[e]) {
				continue
			}
			// Candidates end at e: the bare token, and namespace/token
			// starting at the namespace's start or after a dot in it.
			var h uint64
			for i := e - 1; i >= 0 && e-i <= maxLen; i-- {
				c := s[i]
				if i == k-1 && c != '/' || i < k-1 && !isWordByte(c) && c != '.' && c != '-' {
					break
				}
				h = h*1099511628211 + uint64(c)
				if i > k || i == k-1 {
					continue
				}
				if i > 0 && (isWordByte(s[i-1]) || s[i-1] == '/' || s[i-1] == '-') {
					continue
				}
				for _, id := range ids[h] {
					if id == s[i:e] {
						ix.text[id] = true
					}
				}
			}
		}
	}
	return ix, nil
}

// names reports whether a task of the plan maps to the requirement.
func (ix *traceIndex) names(r swarm.Requirement) bool {
	return ix.refs[foldID(r.ID)] || ix.refs[foldID(r.Bare)] || ix.text[foldID(r.ID)]
}

// specIndex is the set of the folded ids and bare ids the spec defines;
// a fr_refs entry names a requirement or criterion of the spec when its
// folded, trimmed text is in it (specDefines).
func specIndex(spec *swarm.Spec) map[string]bool {
	defined := make(map[string]bool, 2*len(spec.Requirements))
	for _, r := range spec.Requirements {
		defined[foldID(r.ID)] = true
		defined[foldID(r.Bare)] = true
	}
	return defined
}

// specDefines reports whether a fr_refs entry names a requirement or
// criterion the spec defines (its id or bare id, case-insensitive).
func specDefines(defined map[string]bool, ref string) bool {
	return defined[foldID(strings.TrimSpace(ref))]
}

// verbS picks the verb form agreeing with a count: verbS(1, "maps", "map").
func verbS(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ledgerDriftApproval is the newest drift-verifier approval of the phase in
// the head ledger (a critic_approved snapshot with approval.phase and
// verdict APPROVED, for the head plan's id), or nil.
func ledgerDriftApproval(in *Input, phase int) *swarm.LedgerEvent {
	l := in.Head.Ledger
	if l == nil || in.Head.Plan == nil {
		return nil
	}
	id := in.Head.Plan.ID()
	for i := len(l.Events) - 1; i >= 0; i-- {
		ev := &l.Events[i]
		if ev.EventType == "snapshot" && ev.Source == "critic_approved" && ev.Approval.IsDriftVerifier() && ev.Approval.Phase == phase &&
			strings.EqualFold(ev.Approval.Verdict, VerdictApproved) && ev.PlanID == id {
			return ev
		}
	}
	return nil
}

// eventsProblem judges a head events.jsonl that cannot be read, which
// swarm/drift reads for the plugin's phase_complete events: an error when
// the pull request brought the problem (the gate fails closed), a warning
// when the merge base has the same one in a file the pull request leaves
// alone.
func eventsProblem(in *Input) ([]Finding, error) {
	herr := in.Head.EventsErr
	if herr == nil {
		return nil, nil
	}
	// As for the ledger, a cut-off last line is no exception: a commit
	// holds what it holds, and the plugin rewrites nothing it appended.
	hint := "each line must be one JSON object, as the plugin appends them: restore the line, or for a last line cut short (committed while the plugin was still writing it) commit the file again once the plugin has finished"
	berr := in.Base.EventsErr
	if berr == nil || berr.Error() != herr.Error() || changesPath(in, swarm.EventsPath) {
		return nil, fmt.Errorf("%w; %s", herr, hint)
	}
	f := Finding{Path: swarm.EventsPath, Rule: RuleUnreadable, Severity: SeverityWarning, Delta: DeltaPreExisting,
		Message: PreExistingPrefix + firstLine(herr.Error()) + "; swarm/drift and swarm/phase-wrap cannot read the plugin's phase_complete events from it, and the pull request does not change it"}
	var ae *swarm.ArtifactError
	if errors.As(herr, &ae) {
		f.Line, f.EndLine = ae.Line, ae.Line
	}
	return []Finding{f}, nil
}

// changesPath reports whether the pull request adds, changes, deletes or
// renames the file at path.
func changesPath(in *Input, path string) bool {
	for i := range in.Changes.Files {
		if f := &in.Changes.Files[i]; f.NewPath == path || f.OldPath == path {
			return true
		}
	}
	return false
}
