package gates

import (
	"fmt"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// RuleEvidenceStale is evidence older than the task's current definition.
const RuleEvidenceStale = "evidence/stale"

// taskDefinition is the ledger event that last added or redefined a task:
// the first embedded plan of the ledger that holds it, or a later one whose
// description or acceptance for it differ from the one before while the
// task was not yet completed there.
type taskDefinition struct {
	seq, line int
	at        time.Time
	timed     bool   // the event's timestamp could be read
	ts        string // the timestamp as written
	what      string // "added", "description changed", ...
}

// taskDefinitions maps each task id of the ledger's embedded plans (of the
// head plan's id) to its latest definition. A ledger without embedded plans
// (a legacy one) gives an empty map: there is nothing to date evidence by.
//
// Events from index from on (those the pull request adds) are dated no
// earlier than floor (the merge base ledger's newest time; zero: none):
// the agent writes their timestamps, and a redefinition, or a replacement
// plan's first event, backdated before the base's last event would make
// evidence the base already had postdate it.
func taskDefinitions(l *swarm.Ledger, planID string, from int, floor time.Time) map[string]taskDefinition {
	out := map[string]taskDefinition{}
	if l == nil {
		return out
	}
	type def struct{ description, acceptance string }
	seen := map[string]def{}
	for i := range l.Events {
		ev := &l.Events[i]
		if ev.Plan == nil || ev.Plan.ID() != planID {
			continue
		}
		at, timed := parseISOTime(ev.Timestamp)
		floored := false
		if timed && i >= from && at.Before(floor) {
			at, floored = floor, true
		}
		for _, ph := range ev.Plan.Phases {
			for _, t := range ph.Tasks {
				d := def{t.Description, t.Acceptance}
				prev, ok := seen[t.ID]
				// A save that drops a field redefines nothing (real ledgers
				// drop acceptance and restore it in later saves): the
				// definition keeps the text it had.
				if ok && d.description == "" {
					d.description = prev.description
				}
				if ok && d.acceptance == "" {
					d.acceptance = prev.acceptance
				}
				what := ""
				switch {
				case !ok:
					what = "added"
				case prev.description != d.description && prev.acceptance != d.acceptance:
					what = "description and acceptance changed"
				case prev.description != d.description:
					what = "description changed"
				case prev.acceptance != d.acceptance:
					what = "acceptance changed"
				}
				seen[t.ID] = d
				// Rewriting a task once it is done does not undo the checks
				// of the work (plan-freeze names a finished task redefined);
				// evidence dates against definitions made before that.
				if what != "" && what != "added" && (t.Status == "completed" || t.Status == "closed") {
					continue
				}
				if what != "" {
					if floored {
						what += fmt.Sprintf(" by this pull request, whose timestamp %s is before the merge base's newest ledger event, so it counts from that event's time", ev.Timestamp)
					}
					out[t.ID] = taskDefinition{seq: ev.Seq, line: ev.Line, at: at, timed: timed, ts: ev.Timestamp, what: what}
				}
			}
		}
	}
	return out
}

// futureSlack is how far after the head commit's time an evidence record
// may be dated (clocks of the agent's machine and of git's commit differ).
const futureSlack = time.Hour

// verifyingGates are the gates whose record certifies the work of a task
// (review and tests): only they must postdate its definition. An explorer
// or SME record is written while the plan is still being made.
var verifyingGates = map[string]bool{"reviewer": true, "test_engineer": true}

// headDefinitions is taskDefinitions of the head ledger for the head plan;
// of the merge base's ledger when the head has none (a pull request that
// deletes the ledger, which plan-freeze names, is still held to the
// definitions the base records). A head with a plan-ledger.resetting
// marker, whose ledger reads as empty, is dated by the merge base's too: a
// marker the pull request adds must not clear every definition.
func headDefinitions(in *Input) map[string]taskDefinition {
	if in.Head.Plan == nil {
		return map[string]taskDefinition{}
	}
	l := in.Head.Ledger
	if l == nil && in.Head.LedgerErr == nil || in.Head.LedgerResetting && in.Base != nil && in.Base.Ledger != nil {
		l = in.Base.Ledger
	}
	// floor stays zero (nothing is re-dated) when l is the merge base's
	// own ledger.
	from, floor := 0, time.Time{}
	if b := in.Base; b != nil && b.Ledger != nil && l != b.Ledger {
		for i := range b.Ledger.Events {
			if at, ok := parseISOTime(b.Ledger.Events[i].Timestamp); ok && at.After(floor) {
				floor = at
			}
		}
		if swarm.CheckAppendOnly(b.Ledger, l).Extends {
			from = len(b.Ledger.Events)
		}
	}
	return taskDefinitions(l, in.Head.Plan.ID(), from, floor)
}

// staleEvidence is the finding of a task's newest record of a gate that is
// older than the task's current definition, or nil when it is not (only
// verifyingGates are dated). A
// record with no readable time cannot be shown to be newer: it counts as
// stale (fail closed), and says so.
//
// A record dated after the head commit (headTime, when known, plus
// futureSlack for clocks) cannot be true, and a date in the future would
// postdate every redefinition: it is stale too.
func staleEvidence(t *swarm.Task, gate string, r *evidenceRecord, d taskDefinition, ok bool, headTime time.Time) *Finding {
	if !ok || !verifyingGates[gate] {
		return nil
	}
	if r.timed && !headTime.IsZero() && r.at.After(headTime.Add(futureSlack)) {
		return &Finding{Path: r.file, Line: r.line, EndLine: r.line, Rule: RuleEvidenceStale, Severity: SeverityError,
			Key: fkey(RuleEvidenceStale, t.ID, gate, r.file, "future"),
			Message: fmt.Sprintf("task %s: the newest %s evidence in %s is dated %s, after the head commit (%s), which holds it; a record cannot be written after the commit that contains it, so its time cannot show that it postdates the task's definition; run the gate again",
				t.ID, gate, r.file, r.ts, headTime.UTC().Format(time.RFC3339))}
	}
	if !d.timed {
		// Nothing can be shown to postdate a definition of unknown time:
		// fail closed on the ledger line (a timestamp of "" or "soon").
		return &Finding{Path: swarm.LedgerPath, Line: d.line, EndLine: d.line, Rule: RuleEvidenceStale, Severity: SeverityError,
			Key: fkey(RuleEvidenceStale, t.ID, gate, "undated definition", fmt.Sprint(d.seq)),
			Message: fmt.Sprintf("task %s: its current definition (%s seq %d, %s) has the timestamp %q, which is not an ISO 8601 time, so no %s evidence can be shown to postdate it; the ledger's events are written by the plugin with their time",
				t.ID, swarm.LedgerPath, d.seq, d.what, d.ts, gate)}
	}
	var why string
	switch {
	case !r.timed && r.ts == "":
		why = "has no timestamp, so it cannot be shown to postdate"
	case !r.timed:
		return nil // an unreadable timestamp is reported as such
	case r.at.Before(d.at):
		why = fmt.Sprintf("(%s) is older than", r.ts)
	default:
		return nil
	}
	return &Finding{Path: r.file, Line: r.line, EndLine: r.line, Rule: RuleEvidenceStale, Severity: SeverityError,
		Key: fkey(RuleEvidenceStale, t.ID, gate, r.file, r.ts, fmt.Sprint(d.seq)),
		Message: fmt.Sprintf("task %s: the newest %s evidence in %s %s the task's current definition (%s seq %d, %s: %s), so it does not show that the task as it now reads passed %s; run the gate again for the task as it is now",
			t.ID, gate, r.file, why, swarm.LedgerPath, d.seq, d.at.UTC().Format(time.RFC3339), d.what, gate)}
}
