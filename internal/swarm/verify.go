package swarm

import "fmt"

// LedgerProblem is one integrity problem found by VerifyLedger.
type LedgerProblem struct {
	Seq  int    // the event's seq; 0 for a problem with plan.json itself
	Line int    // line in the ledger file; 0 for a problem with plan.json
	Kind string // "seq-order", "plan-invalid", "hash-mismatch", "payload-hash", "plan-json"
	Msg  string
}

func (p LedgerProblem) String() string {
	if p.Seq > 0 {
		return fmt.Sprintf("seq %d (line %d): %s", p.Seq, p.Line, p.Msg)
	}
	return p.Msg
}

// VerifyLedger checks that seq numbers start at 1 and go up by one (the
// plugin appends seq = last + 1; a gap, repeat or reorder means lines were
// removed, duplicated or moved), re-hashes every plan embedded in the
// ledger against its plan_hash_after, checks each payload_hash (the ledger hash, or for
// critic_approved snapshots the structure hash, spec section 2.4), and, when
// plan is not nil, checks that plan.json hashes to the last plan_hash_after.
// It reports every mismatch; an empty result means the ledger verifies.
func VerifyLedger(l *Ledger, plan *Plan) []LedgerProblem {
	var out []LedgerProblem
	for i := range l.Events {
		ev := &l.Events[i]
		switch {
		case i == 0 && ev.Seq != 1:
			out = append(out, LedgerProblem{ev.Seq, ev.Line, "seq-order", fmt.Sprintf("the first event has seq %d; a ledger starts at seq 1 (earlier lines were removed)", ev.Seq)})
		case i > 0 && ev.Seq != l.Events[i-1].Seq+1:
			out = append(out, LedgerProblem{ev.Seq, ev.Line, "seq-order", fmt.Sprintf("seq %d follows seq %d; seq numbers must go up by one (lines were removed, duplicated or reordered)", ev.Seq, l.Events[i-1].Seq)})
		}
		if ev.PlanErr != nil {
			out = append(out, LedgerProblem{ev.Seq, ev.Line, "plan-invalid", ev.PlanErr.Error()})
			continue
		}
		if ev.Plan == nil {
			continue
		}
		d := ev.Plan.Digests
		if d.Ledger != ev.PlanHashAfter {
			out = append(out, LedgerProblem{ev.Seq, ev.Line, "hash-mismatch",
				fmt.Sprintf("the embedded plan hashes to %s but plan_hash_after is %s (the line was edited after it was written)", d.Ledger, ev.PlanHashAfter)})
		}
		if ph := ev.PayloadHash; ph != "" && ph == d.Structure && ph != d.Ledger && ev.Source != "critic_approved" {
			out = append(out, LedgerProblem{ev.Seq, ev.Line, "payload-hash",
				fmt.Sprintf("payload_hash %s is the embedded plan's structure hash, which only critic_approved snapshots carry (source is %q); the ledger hash is %s", ph, ev.Source, d.Ledger)})
		} else if ph != "" && ph != d.Ledger && (ph != d.Structure || ev.Source != "critic_approved") {
			out = append(out, LedgerProblem{ev.Seq, ev.Line, "payload-hash",
				fmt.Sprintf("payload_hash %s is neither the ledger hash %s nor (for critic approvals) the structure hash %s of the embedded plan", ph, d.Ledger, d.Structure)})
		}
	}
	if last := l.Last(); plan != nil && last != nil && last.PlanHashAfter != plan.Digests.Ledger {
		out = append(out, LedgerProblem{0, 0, "plan-json",
			fmt.Sprintf("%s hashes to %s, but the last ledger event (seq %d, line %d) recorded %s: plan.json was changed outside the ledger", PlanPath, plan.Digests.Ledger, last.Seq, last.Line, last.PlanHashAfter)})
	}
	return out
}
