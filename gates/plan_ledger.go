package gates

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/planhash"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// appendOnly checks DESIGN.md section 3.3: the head ledger must extend the
// merge base's byte for byte (swarm.CheckAppendOnly compares them line by
// line). It names the first line that differs.
func appendOnly(base, head *swarm.Ledger) []Finding {
	a := swarm.CheckAppendOnly(base, head)
	if a.Extends {
		return nil
	}
	line := a.Line
	msg := fmt.Sprintf("the ledger was rewritten: line %d differs from the merge base's %s (%d lines there), but the ledger is append-only; restore the base lines and append new events after them", line, swarm.LedgerPath, len(base.Events))
	if a.Truncated {
		msg = fmt.Sprintf("the ledger was truncated: it has %d bytes, the merge base's has %d; the ledger is append-only", a.HeadBytes, a.BaseBytes)
	}
	switch {
	case a.OnlyBOM:
		msg += "; the only difference is a byte order mark added at the start of the file: an editor saved it, remove the BOM"
	case a.OnlyEOL:
		msg += "; the only difference is the line endings (CRLF instead of LF): check core.autocrlf and add `.swarm/*.jsonl -text` to .gitattributes"
	}
	return []Finding{{Path: swarm.LedgerPath, Line: line, EndLine: line, Rule: RuleLedgerRewritten, Severity: SeverityError, Message: msg}}
}

// ledgerIntegrity turns swarm.VerifyLedger's problems into findings.
func ledgerIntegrity(l *swarm.Ledger, plan *swarm.Plan) []Finding {
	var out []Finding
	for _, p := range swarm.VerifyLedger(l, plan) {
		if p.Kind == "plan-json" {
			out = append(out, Finding{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RulePlanOutsideLedger, Severity: SeverityError,
				Key:     fkey(RulePlanOutsideLedger, plan.Digests.Ledger, l.Last().PlanHashAfter),
				Message: p.Msg + "; save plan changes through the plugin's tools (save_plan, update_task_status) so that the ledger records them, or restore plan.json"})
			continue
		}
		rule := RuleLedgerHash
		if p.Kind == "seq-order" {
			rule = RuleLedgerSeq
		}
		out = append(out, Finding{Path: swarm.LedgerPath, Line: p.Line, EndLine: p.Line, Rule: rule, Severity: SeverityError, Message: p.String(), Key: fkey(rule, p.Kind, p.Msg)})
	}
	for i := range l.Events {
		ev := &l.Events[i]
		for _, d := range ev.DuplicateKeys {
			// Keyed by seq: the same line on the merge base is pre-existing.
			out = append(out, duplicateKeyFinding(RuleDuplicateKey, swarm.LedgerPath, d, fmt.Sprintf("seq %d (%s): ", ev.Seq, ev.EventType), "in the event's line",
				"restore the event as the plugin wrote it", swarm.LedgerPath, fmt.Sprint(ev.Seq), ev.EventType))
		}
	}
	return out
}

// replayFindings reports the events the replay of spec section 3.7 cannot
// explain, and changes to a locked execution profile. Events that carry a
// plan and fail to re-hash are already ledgerIntegrity's findings.
func replayFindings(rep *swarm.Replay, plan *swarm.Plan) []Finding {
	var out []Finding
	for _, st := range rep.Unexplained {
		if st.How == "embedded" {
			continue
		}
		out = append(out, Finding{Path: swarm.LedgerPath, Line: st.Line, EndLine: st.Line, Rule: RuleLedgerUnexplained, Severity: SeverityError,
			Key:     fkey(RuleLedgerUnexplained, fmt.Sprint(st.Seq), st.EventType, st.Problem),
			Message: fmt.Sprintf("seq %d (%s) is not explained by replaying the ledger (spec section 3.7): %s; an event was edited, or the plan was changed without the snapshot the plugin writes", st.Seq, st.EventType, st.Problem)})
	}
	for _, st := range rep.ProfileViolations {
		out = append(out, Finding{Path: swarm.LedgerPath, Line: st.Line, EndLine: st.Line, Rule: RuleProfileLocked, Severity: SeverityError,
			Key:     fkey(RuleProfileLocked, fmt.Sprint(st.Seq), st.EventType),
			Message: fmt.Sprintf("seq %d (%s) changes the execution_profile, which was locked at seq %d; the plugin rejects such saves", st.Seq, st.EventType, rep.LockedSeq)})
	}
	if rep.LockedProfile != nil {
		locked := planhash.ExecutionProfileJSON(rep.LockedProfile)
		if head := plan.ProfileJSON(); !bytes.Equal(locked, head) {
			out = append(out, Finding{Path: swarm.PlanPath, Line: 1, EndLine: 1, Rule: RuleProfileLocked, Severity: SeverityError,
				Key:     fkey(RuleProfileLocked, string(head), string(locked)),
				Message: fmt.Sprintf("the execution_profile is %s, but it was locked at seq %d as %s; the plugin rejects saves that change a locked profile: restore it", orNone(head), rep.LockedSeq, orNone(locked))})
		}
	}
	return out
}

func orNone(b []byte) string {
	if b == nil {
		return "(none)"
	}
	return string(b)
}

// replayNote summarises the ledger checks for the summary.
func replayNote(l *swarm.Ledger, rep *swarm.Replay, base *swarm.Ledger) string {
	how := map[string]int{}
	for _, st := range rep.Steps {
		if st.Explained {
			how[st.How]++
		}
	}
	keys := make([]string, 0, len(how))
	for k := range how {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", how[k], k)
	}
	s := fmt.Sprintf("**Ledger**: %s replayed (spec section 3.7), %d unexplained", plural(len(l.Events), "event", "events"), len(rep.Unexplained))
	if len(parts) > 0 {
		s += " (explained: " + strings.Join(parts, ", ") + ")"
	}
	switch {
	case base == nil || len(base.Events) == 0:
		s += "; the merge base has no ledger, so all of it is new in this pull request"
	default:
		s += fmt.Sprintf("; the first %s are the merge base's", plural(len(base.Events), "line", "lines"))
	}
	if rep.LockedSeq > 0 {
		s += fmt.Sprintf("; execution profile locked at seq %d", rep.LockedSeq)
	}
	return s + "."
}
