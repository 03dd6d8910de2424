package gates

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

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
// the output), rejects the phase; an approved entry is needed. Per-task
// verdicts (ALIGNED, MINOR_DRIFT, MAJOR_DRIFT, OFF_SPEC) are read from a
// structured field when an entry has one (swarm.EvidenceEntry.TaskVerdicts),
// never from the summary; MINOR_DRIFT warns unless drift.minor_drift: fail.
// Missing evidence fails when .swarm/spec.md exists and the phase is ready
// to close (every task completed, closed or blocked); before that, or
// without a spec (the plugin only warns then), the verdict is not
// applicable. drift_check off in the QA gate profile, or a phase of type
// "non-code", skips it.
//
// Traceability (the plugin's save_plan coverage, spec section 9): every
// FR-### and every MUST/SHALL SC-### that spec.md defines maps to a task of
// the plan (task fr_refs, or the id named in the description or acceptance);
// an unmapped MUST/SHALL (or an FR with no keyword) fails, an unmapped
// SHOULD/MAY warns; tasks of the phase that name no FR or SC are listed as
// possible gold-plating (notices).
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
func (g Drift) Evaluate(_ context.Context, in *Input) Result {
	plan, phase, err := headPhase(in)
	if err != nil {
		return errorResult(g.Name(), err)
	}
	item, findings := driftCheck(in, phase)
	if item.Status == CheckError {
		return errorResult(g.Name(), item.Err)
	}
	if item.Code == CodeDriftMissing {
		if open := unfinishedTasks(phase); len(open) > 0 {
			item = checkSkipped("drift", item.File, "no drift verification yet, which is due when phase %d closes: %s still open", phase.ID, plural(len(open), "task is", "tasks are"))
		}
	}
	if item.Status == CheckFail {
		findings = append([]Finding{{Path: item.File, Line: item.Line, EndLine: item.Line, Rule: driftRule(item), Severity: SeverityError, Message: item.Code + ": " + item.Detail}}, findings...)
	}
	if in.Head.HasSpec && in.Head.SpecErr == nil && in.Head.SpecDoc == nil {
		return errorResult(g.Name(), fmt.Errorf("%s was not parsed", swarm.SpecPath))
	}
	if in.Head.SpecErr != nil {
		return errorResult(g.Name(), in.Head.SpecErr)
	}
	var trace traceResult
	if in.Head.SpecDoc != nil {
		trace = traceability(in, plan, phase)
		findings = append(findings, trace.findings...)
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
	case item.Status == CheckFail:
		res.Outcome, res.Title = Failed, fmt.Sprintf("phase %d drift: %s", phase.ID, clipN(item.Code+": "+item.Detail, 160))
	case errs > 0:
		res.Outcome, res.Title = Failed, fmt.Sprintf("%s of %s map to no task of the plan", plural(errs, "requirement", "requirements"), swarm.SpecPath)
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
	case strings.Contains(it.Detail, "NEEDS_REVISION"):
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
		if in.Head.HasSpec {
			return checkFail(step, CodeDriftMissing, path, 0, "%s and %s exists: the plugin blocks phase_complete without drift evidence when there is a spec", why, swarm.SpecPath)
		}
		return checkSkipped(step, path, "%s; without %s the plugin only warns", why, swarm.SpecPath)
	}
	if b == nil {
		return missing("no drift verification recorded (the file is absent)"), nil
	}
	var found, approved *swarm.EvidenceEntry
	for i := range b.Entries {
		e := &b.Entries[i]
		if !strings.Contains(e.Type, "drift") || !e.HasVerdict {
			continue
		}
		found = e
		if strings.EqualFold(e.Verdict, "rejected") {
			return checkFail(step, CodeDriftRejected, path, e.Line, "the drift verifier rejected phase %d: entry %d has verdict %q", phase.ID, e.Index+1, e.Verdict), nil
		}
		if i := strings.Index(e.Summary, "NEEDS_REVISION"); i >= 0 {
			return checkFail(step, CodeDriftRejected, path, e.Line, "entry %d has verdict %q, but its summary contains NEEDS_REVISION, which the plugin's drift gate reads as a rejection: %q",
				e.Index+1, e.Verdict, quoteAround(e.Summary, i, len("NEEDS_REVISION"), 70)), nil
		}
		if strings.EqualFold(e.Verdict, "approved") {
			approved = e
		}
	}
	if found == nil {
		why := "no entry of a drift type with a verdict"
		if b.HasVerdict {
			why += fmt.Sprintf(" (the top-level verdict %q does not count: the plugin reads entries only)", b.Verdict)
		}
		return missing(why), nil
	}
	if b.HasVerdict && classifyVerdict(b.Verdict) == verdictRejecting {
		return checkFail(step, CodeDriftRejected, path, b.VerdictLine, "the file's top-level verdict is %q", b.Verdict), nil
	}
	if approved == nil {
		return checkFail(step, CodeDriftRejected, path, found.Line, "the drift verdict %q is not approved", found.Verdict), nil
	}
	it := checkPass(step, path, "approved (entry %d%s)", approved.Index+1, timestampSuffix(approved.Timestamp))
	it.Line = approved.Line
	var findings []Finding
	var bad []string
	for _, e := range b.Entries {
		if !strings.Contains(e.Type, "drift") {
			continue
		}
		for _, tv := range e.TaskVerdicts() {
			v := strings.ToUpper(strings.TrimSpace(tv.Verdict))
			sev := SeverityError
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
			msg := fmt.Sprintf("task %s: drift verdict %s", tv.TaskID, v)
			findings = append(findings, Finding{Path: path, Line: e.Line, EndLine: e.Line, Rule: RuleDriftTaskVerdict, Severity: sev, Message: msg})
			if sev == SeverityError {
				bad = append(bad, tv.TaskID+" "+v)
			} else {
				it.Warnings = append(it.Warnings, msg)
			}
		}
	}
	if len(bad) > 0 {
		it = checkFail(step, CodeDriftTaskVerdict, path, it.Line, "the phase is approved, but task verdicts say %s", strings.Join(bad, "; "))
		// The per-task errors are carried by the item's own finding.
		findings = slices.DeleteFunc(findings, func(f Finding) bool { return f.Severity == SeverityError })
	}
	return it, findings
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

// traceResult is the traceability part of swarm/drift.
type traceResult struct {
	findings []Finding
	title    string
	summary  string
}

var anyReqID = regexp.MustCompile(`(?i)\b(FR|SC)-\d{3}\b`)

// traceability maps the spec's requirements and criteria to the plan's tasks.
func traceability(in *Input, plan *swarm.Plan, phase *swarm.Phase) traceResult {
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
	var nFR, nSC, mapped int
	var unmappedMust, unmappedShould []string
	for _, r := range spec.Requirements {
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
		if ids := tasksNaming(tasks, r); len(ids) > 0 {
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
		tr.findings = append(tr.findings, Finding{Path: swarm.SpecPath, Line: r.Line, EndLine: r.Line, Rule: rule, Severity: sev,
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
	obligations := mapped + len(unmappedMust) + len(unmappedShould)
	switch {
	case len(spec.Requirements) == 0:
		tr.title = "the spec defines no FR-### or SC-### ids"
		tr.summary = swarm.SpecPath + " defines no FR-### requirement or SC-### criterion, so there is nothing to trace."
	case len(unmappedMust) > 0:
		tr.title = fmt.Sprintf("%s map to no task", plural(len(unmappedMust), "requirement", "requirements"))
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
		tr.summary += fmt.Sprintf("; %s of phase %d name no FR or SC (possible gold-plating)", plural(len(untraced), "task", "tasks"), phase.ID)
		if len(untraced) > 0 {
			tr.summary += ": " + listSome(untraced, 20)
		}
		tr.summary += "."
	}
	return tr
}

// tasksNaming are the ids of the tasks that map to a requirement: its id or
// bare id in fr_refs, or its id as a word in description + acceptance (both
// case-insensitive), as the plugin's save_plan coverage matches.
func tasksNaming(tasks []swarm.Task, r swarm.Requirement) []string {
	word := regexp.MustCompile(`(?i)(^|[^0-9A-Za-z_/-])` + regexp.QuoteMeta(r.ID) + `($|[^0-9A-Za-z_])`)
	var out []string
	for _, t := range tasks {
		hit := false
		for _, ref := range t.FRRefs {
			ref = strings.TrimSpace(ref)
			if strings.EqualFold(ref, r.ID) || strings.EqualFold(ref, r.Bare) {
				hit = true
			}
		}
		if hit || word.MatchString(t.Description+"\n"+t.Acceptance) {
			out = append(out, t.ID)
		}
	}
	return out
}
