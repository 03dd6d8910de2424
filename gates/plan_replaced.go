package gates

import (
	"errors"
	"fmt"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// RulePlanReplaced is a head ledger of another plan id whose archived
// sibling holds the merge base's ledger: the plugin's plan replacement.
const RulePlanReplaced = "plan-freeze/plan-replaced"

// replacement is a plan replacement the pull request carries: when the
// plan's identity (title or swarm) changes, the plugin's savePlan renames
// the old ledger to plan-ledger.archived-<ms>-<rand>.jsonl and starts a new
// one (src/plan/manager.ts), so the head ledger does not extend the merge
// base's, and that is not a rewrite.
type replacement struct {
	archive      string // the archive's path
	oldID, newID string
	baseEvents   int // events of the merge base's ledger
	extra        int // events the archive has after the merge base's
}

// findReplacement reports the plan replacement of a head ledger that does
// not extend the merge base's: a head ledger whose first event names
// another plan id, and an archive in the head that extends the merge base's
// ledger byte for byte. nil when the ledgers are not a replacement; an
// error when an archive that could be the one cannot be read.
func findReplacement(in *Input, base, head *swarm.Ledger) (*replacement, error) {
	if base == nil || head == nil || len(base.Events) == 0 || len(head.Events) == 0 || swarm.CheckAppendOnly(base, head).Extends {
		return nil, nil
	}
	oldID, newID := base.Events[0].PlanID, head.Events[0].PlanID
	if oldID == newID {
		return nil, nil
	}
	var errs []error
	for _, a := range in.Head.Archives {
		if a.Err != nil {
			errs = append(errs, a.Err)
			continue
		}
		if swarm.CheckAppendOnly(base, a.Ledger).Extends {
			return &replacement{archive: a.Path, oldID: oldID, newID: newID, baseEvents: len(base.Events), extra: len(a.Ledger.Events) - len(base.Events)}, nil
		}
	}
	if in.Head.ArchivesErr != nil {
		errs = append(errs, in.Head.ArchivesErr)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("the ledger names plan %q where the merge base's names %q, which is a plan replacement if an archived ledger holds the merge base's, but an archive could not be read: %w", newID, oldID, errors.Join(errs...))
	}
	return nil, nil
}

// finding is the replacement's finding: it fails without a plan-critic
// approval of the new plan (a new plan is a material change), and lists
// the merge base's completed tasks the new plan does not carry as
// completed.
func (r *replacement) finding(in *Input, plan *swarm.Plan, approval *swarm.LedgerEvent) Finding {
	msg := fmt.Sprintf("plan replaced: %s → %s; the base ledger is archived as %s (%s", r.oldID, r.newID, r.archive, plural(r.baseEvents, "event", "events"))
	if r.extra > 0 {
		msg += fmt.Sprintf(", and %s written before the replacement", plural(r.extra, "more event", "more events"))
	}
	msg += ")"
	sev := SeverityNotice
	if approval == nil {
		sev = SeverityError
		msg += "; a new plan is a material change, and no plan-critic approval of it is in the new ledger: run the critic on the new plan (plan.md)"
	} else {
		msg += fmt.Sprintf("; the critic approved the new plan at seq %d", approval.Seq)
	}
	if dropped := droppedWork(in.Base.Plan, plan); len(dropped) > 0 {
		if sev == SeverityNotice {
			sev = SeverityWarning
		}
		msg += "; completed work of the old plan that the new plan does not carry as completed: " + strings.Join(dropped, ", ")
	}
	return Finding{Path: swarm.LedgerPath, Line: 1, EndLine: 1, Rule: RulePlanReplaced, Severity: sev, Message: msg,
		Key: fkey(RulePlanReplaced, r.oldID, r.newID, r.archive)}
}

// droppedWork lists the tasks completed in old whose id is not a completed
// task of cur: `1.2 ("Add the parser")`.
func droppedWork(old, cur *swarm.Plan) []string {
	if old == nil || cur == nil {
		return nil
	}
	var out []string
	for _, ph := range old.Phases {
		for _, t := range ph.Tasks {
			if t.Status != "completed" && t.Status != "closed" {
				continue
			}
			if nt, _ := cur.FindTask(t.ID); nt != nil && (nt.Status == "completed" || nt.Status == "closed") {
				continue
			}
			out = append(out, fmt.Sprintf("%s (%q)", t.ID, clipN(t.Description, 60)))
		}
	}
	if len(out) > maxListedChanges {
		out = append(out[:maxListedChanges], fmt.Sprintf("and %d more", len(out)-maxListedChanges))
	}
	return out
}

// brokenArchives reports the head's archived ledgers that cannot be read:
// one the pull request adds or changes stops the gate (an error naming it);
// one the merge base already has, broken the same way, is a warning.
func brokenArchives(in *Input) ([]Finding, error) {
	var out []Finding
	for _, a := range in.Head.Archives {
		if a.Err == nil {
			continue
		}
		same := false
		for _, b := range in.Base.Archives {
			if b.Path == a.Path && b.Err != nil && b.Err.Error() == a.Err.Error() {
				same = true
			}
		}
		if !same {
			return nil, fmt.Errorf("an archived ledger the pull request adds or changes cannot be read: %w", a.Err)
		}
		out = append(out, Finding{Path: a.Path, Line: 1, EndLine: 1, Rule: RuleUnreadable, Severity: SeverityWarning,
			Message: "already on the base branch: this archived ledger cannot be read (" + a.Err.Error() + "); the plugin does not read archives, so it only matters if the plan is replaced again"})
	}
	return out, nil
}
