package swarm

import (
	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
)

// HowBackward: the event comes before any embedded plan (a legacy
// plan_created root records only a hash), so the forward replay has no
// state; undoing the events from the first known plan (the next embedded
// plan, or plan.json after the last event) reproduces every recorded hash.
const HowBackward = "backward"

// ReplayLedgerWithPlan is ReplayLedger plus one step spec section 3.7 leaves
// out, for ledgers whose root plan_created has no payload.plan (plugin
// versions up to early 2026): the events before the first embedded plan
// have no state to replay on. They are explained backwards from the first
// known plan after them, the next embedded plan or, when there is none,
// final (plan.json's parsed value, which must hash to the last
// plan_hash_after): batch by batch from the end, the plan must hash to the
// batch's plan_hash_after; undoing its task_status_changed events (status
// back to from_status, phase statuses re-derived) must give its
// plan_hash_before (when recorded) and the previous batch's
// plan_hash_after; the root must record the hash that is left. A batch with
// anything else to undo stays unexplained. final may be nil.
func ReplayLedgerWithPlan(l *Ledger, final *jsjson.Value) *Replay {
	r := ReplayLedger(l)
	if l == nil || len(r.Unexplained) == 0 {
		return r
	}
	// m: the first embedded plan; the events before it are the prefix
	// without state.
	m := 0
	for m < len(l.Events) && embeddedPlan(&l.Events[m]) == nil {
		m++
	}
	if m == 0 {
		return r
	}
	var anchor *jsjson.Value
	if m < len(l.Events) {
		anchor = embeddedPlan(&l.Events[m])
	} else {
		anchor = final
	}
	if anchor == nil {
		return r
	}
	cur := cloneValue(anchor)
	if h, err := planhash.LedgerHash(cur); err != nil || h != l.Events[m-1].PlanHashAfter {
		return r
	}
	explained := make([]bool, m)
	work := 0
	for j := m; j > 0 && work <= MaxReplayWork; {
		i := j - 1
		for i > 0 && sameBatch(&l.Events[i-1], &l.Events[i]) && embeddedPlan(&l.Events[i-1]) == nil {
			i--
		}
		first := &l.Events[i]
		h, err := planhash.LedgerHash(cur)
		if err != nil || h != first.PlanHashAfter {
			break
		}
		if i == 0 && j == 1 && first.EventType == "plan_created" {
			explained[0] = true
			break
		}
		prev, ok := undoBatch(cur, l.Events[i:j], &work)
		if !ok {
			break
		}
		ph, err := planhash.LedgerHash(prev)
		if err != nil || (first.PlanHashBefore != "" && ph != first.PlanHashBefore) {
			break
		}
		for k := i; k < j; k++ {
			explained[k] = true
		}
		cur, j = prev, i
	}
	r.Unexplained = r.Unexplained[:0]
	for k := range r.Steps {
		st := &r.Steps[k]
		if k < m && explained[k] && !st.Explained {
			st.How, st.Explained, st.Problem = HowBackward, true, ""
		}
		if !st.Explained {
			r.Unexplained = append(r.Unexplained, *st)
		}
	}
	return r
}

// undoBatch returns a copy of plan with the batch's status changes undone,
// or false when the batch holds an event it cannot undo.
func undoBatch(plan *jsjson.Value, evs []LedgerEvent, work *int) (*jsjson.Value, bool) {
	prev := cloneValueN(plan, work)
	for k := len(evs) - 1; k >= 0; k-- {
		ev := &evs[k]
		if ev.EventType != "task_status_changed" || !taskStatuses[ev.FromStatus] || !taskStatuses[ev.ToStatus] {
			return nil, false
		}
		task, _, _ := findTask(prev, ev.TaskID)
		if task == nil {
			return nil, false
		}
		if s, _ := task.Get("status").AsString(); s != ev.ToStatus {
			return nil, false
		}
		setMember(task, "status", &jsjson.Value{Kind: jsjson.String, Str: ev.FromStatus})
	}
	derivePhaseStatuses(prev)
	return prev, true
}
