package swarm

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
)

// LedgerEventTypes are the event types the plugin writes (spec section 3.2);
// its replay rejects any other.
var LedgerEventTypes = map[string]bool{
	"plan_created": true, "task_added": true, "task_removed": true, "task_updated": true,
	"task_status_changed": true, "task_reordered": true, "phase_completed": true,
	"plan_rebuilt": true, "plan_exported": true, "plan_reset": true, "snapshot": true,
	"execution_profile_set": true, "execution_profile_locked": true,
}

// How a replay step was explained (ReplayStep.How).
const (
	// HowEmbedded: the event carries payload.plan, the plan re-hashes to the
	// event's plan_hash_after and its payload_hash is one the plugin writes.
	HowEmbedded = "embedded"
	// HowApplied: applying the event's batch to the replayed state gives a
	// plan whose ledger hash is the batch's plan_hash_after.
	HowApplied = "applied"
	// HowAudit: the batch holds only audit-only types (no state change) and
	// the replayed state already hashes to its plan_hash_after.
	HowAudit = "audit"
	// HowResave: the mutation alone does not reproduce plan_hash_after, but
	// the next embedded plan hashes to it, shows what the batch's events did
	// and differs from the replayed plan in structure: savePlan wrote
	// structural edits together with the status change, and the snapshot
	// that follows carries them (spec section 3.3, "structural edits").
	HowResave = "resave"
	// HowRetry: the event repeats the one before it (the next seq, every
	// other field and the payload identical): a retried write, which changes
	// nothing. It shares the verdict of the event it repeats.
	HowRetry = "retry"
	// HowReset: a plan_reset event; the replayed state is cleared.
	HowReset = "reset"
	// HowUnexplained: nothing above explains the event (Explained is false
	// and Problem says what did not match).
	HowUnexplained = "unexplained"
)

// Replay is the result of ReplayLedger: a verdict for every ledger event and
// what the replay learnt about the plan's history.
type Replay struct {
	// Steps has one step per ledger event, in file order.
	Steps []ReplayStep
	// Unexplained holds the steps with Explained == false, in file order.
	Unexplained []ReplayStep

	// Execution profile lock (spec section 1 execution_profile, section 3.7
	// execution_profile_locked).
	//
	// LockedSeq is the seq of the first event after which the replayed
	// state's execution_profile.locked is true, 0 if that never happens. The
	// lock shows in the state as soon as plan.json carries it: save_plan
	// writes plan.json (and its snapshot) before it appends the
	// execution_profile_set / execution_profile_locked audit events, so
	// LockedSeq may be the seq of a snapshot that precedes them.
	LockedSeq int
	// LockedProfile is the profile as it was when it first became locked
	// (a copy; nil if it never did).
	LockedProfile *jsjson.Value
	// ProfileViolations are the events after the lock whose resulting
	// state's normalised profile (planhash.ExecutionProfileJSON) differs from
	// the locked one: the plugin's save_plan refuses such changes with
	// EXECUTION_PROFILE_LOCKED. Two changes are not violations, as the plugin
	// allows them: the planning_profile ratchet balanced -> strict with every
	// other field unchanged (the ratcheted profile becomes the one compared
	// against), and a plan_reset, which clears the lock (a later lock is
	// tracked afresh; LockedSeq and LockedProfile keep the first).
	ProfileViolations []ReplayStep
	// Removed maps a task id to the seq of the task_removed event that
	// removed it from the replayed plan (the last such event if the task was
	// removed more than once).
	Removed map[string]int
	// FinalHash is the ledger hash (spec section 2.2) of the final replayed
	// state, "" when there is none (no embedded plan to start from, a final
	// plan_reset) or it cannot be hashed.
	FinalHash string
}

// ReplayStep is the verdict on one ledger event.
type ReplayStep struct {
	Seq, Line int
	EventType string
	// How is one of the How* constants: HowEmbedded, HowApplied, HowResave,
	// HowReset, HowAudit, or HowUnexplained.
	How       string
	Explained bool
	// Problem is, for an unexplained step, one sentence naming what did not
	// match (hashes shortened with planhash.Short); "" otherwise.
	Problem string
}

// ReplayLedger replays the ledger as spec section 3.7 recommends, mirroring
// the plugin's replay in src/plan/ledger.ts (reconstructPlanFromEvents and
// applyEventToPlan) plus savePlan's implicit phase-status derivation, and
// explains every event:
//
//   - An event that embeds a plan (snapshot, newer plan_created) must
//     re-hash to its plan_hash_after, with a payload_hash equal to that
//     ledger hash or, for critic_approved snapshots only, the structure hash;
//     the plan becomes the replayed state.
//   - A plan_reset clears the state.
//   - Other consecutive events with the same (plan_hash_before,
//     plan_hash_after) form a batch (one savePlan call). The batch is applied
//     to the state known under its plan_hash_before (else to the current
//     state): task_status_changed sets the task's status (a to_status outside
//     the plugin's enum is ignored, as the plugin does), task_removed removes
//     the task, phase_completed marks the phase "complete",
//     execution_profile_set replaces the profile with
//     payload.execution_profile, execution_profile_locked sets locked: true,
//     and the audit-only types change nothing. If the batch changed task
//     statuses or removed tasks, every phase status is re-derived (spec
//     section 3.3). The batch is explained when the result hashes to its
//     plan_hash_after ("applied"/"audit"), or else when the next embedded
//     plan hashes to it ("resave"). Every event of a batch gets the batch's
//     verdict.
//
// One check is added to section 3.7: a batch is a structural re-save only if
// the next embedded plan agrees with the batch's own events (see
// resaveMismatch); otherwise a to_status edited after the fact would be
// "explained" by any snapshot that follows it. A plan_reset is never
// batched with other events.
//
// The ledger's own parsed values are never modified. ReplayLedger does not
// panic on any input: what it cannot replay (an embedded plan of the wrong
// shape, a missing state, an unknown event type) is an unexplained step with
// a Problem. A nil ledger gives an empty Replay.
func ReplayLedger(l *Ledger) *Replay {
	r := &Replay{Removed: map[string]int{}}
	if l == nil {
		return r
	}
	p := &replayer{r: r, evs: l.Events, known: map[string]*jsjson.Value{}, next: nextEmbeddedIndex(l.Events)}
	for i := 0; i < len(p.evs); {
		ev := &p.evs[i]
		if p.work > MaxReplayWork {
			// Bounded time on a hostile ledger: what is left is not
			// replayed, and says so (the gate fails closed on it).
			p.record(ReplayStep{Seq: ev.Seq, Line: ev.Line, EventType: ev.EventType, How: HowUnexplained,
				Problem: fmt.Sprintf("not replayed: replaying the events before it copied more than %d plan values (the limit; a real ledger needs some thousands), so this event and the %d after it were not checked", MaxReplayWork, len(p.evs)-i-1)}, false, nil)
			break
		}
		switch {
		case embeddedPlan(ev) != nil:
			p.embedded(ev)
			i++
		case ev.EventType == "plan_reset":
			p.state, p.reset = nil, ev.Seq
			p.record(ReplayStep{Seq: ev.Seq, Line: ev.Line, EventType: ev.EventType, How: HowReset, Explained: true}, true, nil)
			i++
		default:
			j := i + 1
			for j < len(p.evs) && sameBatch(ev, &p.evs[j]) {
				j++
			}
			p.batch(i, j)
			i = j
		}
	}
	if p.state != nil {
		r.FinalHash, _ = planhash.LedgerHash(p.state)
	}
	return r
}

type replayer struct {
	r      *Replay
	evs    []LedgerEvent
	state  *jsjson.Value            // the replayed plan (our own copy), nil when unknown or reset
	known  map[string]*jsjson.Value // ledger hash -> replayed plan with that hash (at most maxKnown)
	hashes map[*jsjson.Value]string // ledger hashes of embedded plans, computed once
	order  []string                 // keys of known, oldest first
	next   []int                    // next[k]: index of the first event at or after k that embeds a plan, len(evs) if none
	work   int                      // plan values copied so far (see MaxReplayWork)
	lock   profileLock
	reset  int // seq of the last plan_reset, 0 if none
}

// MaxReplayWork bounds a replay's work, counted in plan values (JSON
// nodes) copied: each batch of events is applied to a copy of the plan, so
// a hostile ledger of many events over a large embedded plan could take
// hours. A real ledger (some hundred events over plans of some thousand
// values) stays far below it.
const MaxReplayWork = 50_000_000

// maxKnown bounds how many replayed plans are kept by hash for batches that
// start from an earlier state (real ledgers have some hundred).
const maxKnown = 1024

// remember keeps plan as the replayed state with ledger hash h, dropping
// the oldest kept state beyond maxKnown.
func (p *replayer) remember(h string, plan *jsjson.Value) {
	if _, ok := p.known[h]; !ok {
		if len(p.order) >= maxKnown {
			delete(p.known, p.order[0])
			p.order = p.order[1:]
		}
		p.order = append(p.order, h)
	}
	p.known[h] = plan
}

// hashOf is planhash.LedgerHash of an embedded plan ("" when it cannot be
// hashed), computed once per plan however many batches look at it.
func (p *replayer) hashOf(v *jsjson.Value) string {
	if v == nil {
		return ""
	}
	if h, ok := p.hashes[v]; ok {
		return h
	}
	if p.hashes == nil {
		p.hashes = map[*jsjson.Value]string{}
	}
	h, _ := planhash.LedgerHash(v)
	p.hashes[v] = h
	return h
}

// nextEmbeddedIndex computes replayer.next.
func nextEmbeddedIndex(evs []LedgerEvent) []int {
	next := make([]int, len(evs)+1)
	next[len(evs)] = len(evs)
	for k := len(evs) - 1; k >= 0; k-- {
		next[k] = next[k+1]
		if embeddedPlan(&evs[k]) != nil {
			next[k] = k
		}
	}
	return next
}

// profileLock is the execution profile a locked plan must keep.
type profileLock struct {
	active bool
	ref    *jsjson.Value
	json   []byte
}

// embeddedPlan returns the event's payload.plan (any JSON value), or nil.
func embeddedPlan(ev *LedgerEvent) *jsjson.Value {
	if pv := ev.Payload.Get("plan"); pv != nil {
		return pv
	}
	if ev.Plan != nil {
		return ev.Plan.Value
	}
	return nil
}

// isRetry reports whether ev repeats prev as a retried append does: the
// next seq, and every other field (the timestamp aside) and the payload the
// same.
func isRetry(prev, ev *LedgerEvent) bool {
	if ev.Seq != prev.Seq+1 || ev.PlanID != prev.PlanID || ev.EventType != prev.EventType || ev.Source != prev.Source ||
		ev.PlanHashBefore != prev.PlanHashBefore || ev.PlanHashAfter != prev.PlanHashAfter || ev.SchemaVersion != prev.SchemaVersion ||
		ev.TaskID != prev.TaskID || ev.PhaseID != prev.PhaseID || ev.FromStatus != prev.FromStatus || ev.ToStatus != prev.ToStatus {
		return false
	}
	if (ev.Payload == nil) != (prev.Payload == nil) {
		return false
	}
	return ev.Payload == nil || bytes.Equal(jsjson.Stringify(ev.Payload), jsjson.Stringify(prev.Payload))
}

// sameBatch reports whether next belongs to the batch that ev starts.
func sameBatch(ev, next *LedgerEvent) bool {
	return embeddedPlan(next) == nil && next.EventType != "plan_reset" &&
		next.PlanHashBefore == ev.PlanHashBefore && next.PlanHashAfter == ev.PlanHashAfter
}

// record appends a step and follows the execution profile through the state
// the event left (planGone: the event left no plan).
func (p *replayer) record(st ReplayStep, planGone bool, profile *jsjson.Value) {
	p.r.Steps = append(p.r.Steps, st)
	if !st.Explained {
		p.r.Unexplained = append(p.r.Unexplained, st)
	}
	p.observeProfile(st, planGone, profile)
}

func (p *replayer) embedded(ev *LedgerEvent) {
	st := ReplayStep{Seq: ev.Seq, Line: ev.Line, EventType: ev.EventType, How: HowUnexplained}
	pv := embeddedPlan(ev)
	d, err := planhash.Compute(pv)
	if err != nil {
		// The plugin's replay skips a plan that fails validation and keeps
		// the state it had.
		st.Problem = fmt.Sprintf("the embedded payload.plan cannot be hashed: %v", err)
		p.record(st, p.state == nil, p.state.Get("execution_profile"))
		return
	}
	plan := cloneValueN(pv, &p.work)
	p.state = plan
	p.remember(d.Ledger, plan)
	phv := ev.Payload.Get("payload_hash")
	ph, phOK := phv.AsString()
	switch {
	case !LedgerEventTypes[ev.EventType]:
		st.Problem = fmt.Sprintf("event_type %q is not one the plugin writes, and its replay rejects unknown types", ev.EventType)
	case d.Ledger != ev.PlanHashAfter:
		st.Problem = fmt.Sprintf("the embedded plan hashes to %s but plan_hash_after is %s (the line was edited after it was written)",
			planhash.Short(d.Ledger), planhash.Short(ev.PlanHashAfter))
	case phv != nil && !phOK:
		st.Problem = fmt.Sprintf("payload_hash is a %s, not a string", phv.Kind)
	case phv != nil && ph == d.Structure && ph != d.Ledger && ev.Source != "critic_approved":
		st.Problem = fmt.Sprintf("payload_hash %s is the embedded plan's structure hash, which only critic_approved snapshots carry (source is %q)", planhash.Short(ph), ev.Source)
	case phv != nil && ph != d.Ledger && (ph != d.Structure || ev.Source != "critic_approved"):
		st.Problem = fmt.Sprintf("payload_hash %s is neither the embedded plan's ledger hash %s nor (for critic_approved snapshots) its structure hash %s",
			planhash.Short(ph), planhash.Short(d.Ledger), planhash.Short(d.Structure))
	default:
		st.How, st.Explained = HowEmbedded, true
	}
	p.record(st, false, plan.Get("execution_profile"))
}

// batch replays events [i, j), which share plan_hash_before and
// plan_hash_after.
func (p *replayer) batch(i, j int) {
	first := &p.evs[i]
	before, after := first.PlanHashBefore, first.PlanHashAfter
	base, ok := p.known[before]
	if !ok {
		base = p.state
	}
	cur := cloneValueN(base, &p.work)
	var notes []string
	profiles := make([]*jsjson.Value, 0, j-i)
	mutated, derive, unknown := false, false, false
	retry := make([]bool, j-i)
	for k := i; k < j; k++ {
		ev := &p.evs[k]
		if k > i && isRetry(&p.evs[k-1], ev) {
			retry[k-i] = true
			profiles = append(profiles, cur.Get("execution_profile"))
			continue
		}
		if note := fromStatusMismatch(cur, ev); note != "" {
			// The plugin's replay ignores from_status, but savePlan writes
			// the status the task had: a different one means an edited line.
			notes = append(notes, note)
			unknown = true
		}
		kind, note := p.apply(cur, ev)
		if note != "" {
			notes = append(notes, note)
		}
		switch kind {
		case applyMutation:
			mutated = true
		case applyTaskChange:
			mutated, derive = true, true
		case applyUnknown:
			unknown = true
		}
		profiles = append(profiles, cur.Get("execution_profile"))
	}
	if derive {
		derivePhaseStatuses(cur)
	}

	how, problem := p.verdict(cur, i, j, mutated, unknown, notes)
	if how == HowApplied || how == HowAudit {
		p.remember(after, cur)
	}
	if cur != nil {
		p.state = cur
	}
	for k := i; k < j; k++ {
		ev := &p.evs[k]
		st := ReplayStep{Seq: ev.Seq, Line: ev.Line, EventType: ev.EventType, How: how, Explained: how != HowUnexplained, Problem: problem}
		if retry[k-i] && st.Explained {
			st.How = HowRetry
		}
		p.record(st, cur == nil, profiles[k-i])
	}
}

// verdict decides how the replayed batch [i, j) is explained; problem is set
// for HowUnexplained.
func (p *replayer) verdict(cur *jsjson.Value, i, j int, mutated, unknown bool, notes []string) (how, problem string) {
	before, after := p.evs[i].PlanHashBefore, p.evs[i].PlanHashAfter
	var got string
	var hashErr error
	if cur != nil {
		got, hashErr = planhash.LedgerHash(cur)
		if hashErr == nil && got == after && !unknown {
			if mutated {
				return HowApplied, ""
			}
			return HowAudit, ""
		}
	}
	nextSeq, next := p.nextEmbedded(j)
	nextHash := p.hashOf(next)
	resaveProblem := ""
	if next != nil && nextHash == after && !unknown {
		resaveProblem = resaveMismatch(cur, next, p.evs[i:j])
		if resaveProblem == "" {
			return HowResave, ""
		}
	}
	var b strings.Builder
	switch {
	case cur == nil && p.reset > 0:
		fmt.Fprintf(&b, "there is no replayed plan to apply it to: the plan was reset at seq %d, no event since embeds one, and plan_hash_before %q is no earlier replayed state", p.reset, planhash.Short(before))
	case cur == nil:
		b.WriteString("there is no replayed plan to apply it to: no earlier event embeds one (a legacy plan_created root without payload.plan records only a hash)")
	case hashErr != nil:
		fmt.Fprintf(&b, "the replayed plan cannot be hashed (%v)", hashErr)
	case got == after: // the hashes agree; an unknown event type is what fails
		b.WriteString(strings.Join(notes, "; "))
		notes = nil
	default:
		fmt.Fprintf(&b, "replaying it gives a plan hashing to %s, not the recorded plan_hash_after %s", planhash.Short(got), planhash.Short(after))
	}
	for _, n := range notes {
		b.WriteString("; ")
		b.WriteString(n)
	}
	switch {
	case resaveProblem != "":
		fmt.Fprintf(&b, "; the next embedded plan (seq %d) has that hash, but %s", nextSeq, resaveProblem)
	case next != nil:
		fmt.Fprintf(&b, "; the next embedded plan (seq %d) hashes to %s", nextSeq, planhash.Short(nextHash))
	default:
		b.WriteString("; no later event embeds a plan")
	}
	return HowUnexplained, b.String()
}

// resaveMismatch checks that a batch the next embedded plan (snap) explains
// as a structural re-save is one: spec section 3.7 only asks that the
// snapshot hash to the batch's plan_hash_after, which would also "explain" a
// tampered to_status whenever a snapshot follows. So the snapshot must show
// every status the batch's events set and none of the tasks they removed,
// must carry the profile they leave, and must differ from the replayed plan
// in structure (a difference in statuses alone is a status change that no
// event records). It returns "" when the re-save is consistent, else
// the reason it is not.
func resaveMismatch(cur, snap *jsjson.Value, evs []LedgerEvent) string {
	status := map[string]string{}
	var order []string
	removed := map[string]bool{}
	profile := false
	for _, ev := range evs {
		switch ev.EventType {
		case "task_status_changed":
			if ev.TaskID != "" && taskStatuses[ev.ToStatus] {
				if _, seen := status[ev.TaskID]; !seen {
					order = append(order, ev.TaskID)
				}
				status[ev.TaskID] = ev.ToStatus
				delete(removed, ev.TaskID)
			}
		case "task_removed":
			if ev.TaskID != "" {
				removed[ev.TaskID] = true
				delete(status, ev.TaskID)
			}
		case "execution_profile_set", "execution_profile_locked":
			profile = true
		}
	}
	for _, id := range order {
		want, ok := status[id]
		if !ok {
			continue
		}
		task, _, _ := findTask(snap, id)
		if task == nil {
			continue // removed by the same save, as older plugins did without an event
		}
		got := "pending"
		if s, ok := task.Get("status").AsString(); ok {
			got = s
		}
		if got != want {
			return fmt.Sprintf("task %s is %q there, not %q as the event says", id, got, want)
		}
	}
	for id := range removed {
		if task, _, _ := findTask(snap, id); task != nil {
			return fmt.Sprintf("task %s, which the event removes, is still there", id)
		}
	}
	if profile && cur != nil && !bytes.Equal(planhash.ExecutionProfileJSON(cur.Get("execution_profile")), planhash.ExecutionProfileJSON(snap.Get("execution_profile"))) {
		return "its execution_profile is not the one the events set"
	}
	if cur != nil {
		a, errA := planhash.StructureHash(cur)
		b, errB := planhash.StructureHash(snap)
		if errA == nil && errB == nil && a == b {
			return "it has the replayed plan's structure, so it differs only in statuses that no event records"
		}
	}
	return ""
}

// nextEmbedded finds the first event at or after index from that embeds a
// plan and returns its seq and the plan (nil when there is none).
func (p *replayer) nextEmbedded(from int) (seq int, plan *jsjson.Value) {
	if from < 0 || from >= len(p.evs) {
		return 0, nil
	}
	k := p.next[from]
	if k >= len(p.evs) {
		return 0, nil
	}
	return p.evs[k].Seq, embeddedPlan(&p.evs[k])
}

type applyKind int

const (
	applyNone       applyKind = iota // audit-only, or nothing to apply
	applyMutation                    // a plan-level change (profile, phase)
	applyTaskChange                  // a task status change or removal: phase statuses are re-derived
	applyUnknown                     // an event type the plugin does not know: its replay fails
)

// apply applies one non-embedded event to plan in place (plan is the
// batch's private copy; nil when there is no state), mirroring the plugin's
// applyEventToPlan. note explains, for messages, why the event changed
// nothing when it should have.
func (p *replayer) apply(plan *jsjson.Value, ev *LedgerEvent) (applyKind, string) {
	kind, note := p.applyTo(plan, ev)
	if plan == nil && kind != applyUnknown {
		note = "" // "task not in the plan" says nothing when there is no plan
	}
	return kind, note
}

func (p *replayer) applyTo(plan *jsjson.Value, ev *LedgerEvent) (applyKind, string) {
	switch ev.EventType {
	case "task_status_changed":
		// The plugin applies only a task_id and a to_status it accepts.
		if ev.TaskID == "" || ev.ToStatus == "" {
			return applyTaskChange, fmt.Sprintf("seq %d has no task_id or to_status", ev.Seq)
		}
		if !taskStatuses[ev.ToStatus] {
			return applyTaskChange, fmt.Sprintf("seq %d: to_status %q is not a task status the plugin accepts, so it was ignored", ev.Seq, ev.ToStatus)
		}
		task, _, _ := findTask(plan, ev.TaskID)
		if task == nil {
			return applyTaskChange, fmt.Sprintf("seq %d: task %s is not in the replayed plan", ev.Seq, ev.TaskID)
		}
		setMember(task, "status", &jsjson.Value{Kind: jsjson.String, Str: ev.ToStatus})
		return applyTaskChange, ""
	case "task_removed":
		if ev.TaskID == "" {
			return applyTaskChange, fmt.Sprintf("seq %d has no task_id", ev.Seq)
		}
		_, tasks, idx := findTask(plan, ev.TaskID)
		if tasks == nil {
			return applyTaskChange, fmt.Sprintf("seq %d: task %s is not in the replayed plan", ev.Seq, ev.TaskID)
		}
		tasks.Elems = append(tasks.Elems[:idx:idx], tasks.Elems[idx+1:]...)
		p.r.Removed[ev.TaskID] = ev.Seq
		return applyTaskChange, ""
	case "phase_completed":
		if ev.PhaseID == 0 {
			return applyMutation, fmt.Sprintf("seq %d has no phase_id", ev.Seq)
		}
		ph := findPhase(plan, ev.PhaseID)
		if ph == nil {
			return applyMutation, fmt.Sprintf("seq %d: phase %d is not in the replayed plan", ev.Seq, ev.PhaseID)
		}
		setMember(ph, "status", &jsjson.Value{Kind: jsjson.String, Str: "complete"})
		return applyMutation, ""
	case "execution_profile_set":
		// The plugin keeps the state when the payload profile does not
		// validate; we require an object and take it as stored.
		ep := ev.Payload.Get("execution_profile")
		if ep == nil || ep.Kind != jsjson.Object {
			return applyMutation, fmt.Sprintf("seq %d has no payload.execution_profile object", ev.Seq)
		}
		if plan != nil && plan.Kind == jsjson.Object {
			setMember(plan, "execution_profile", cloneValue(ep))
		}
		return applyMutation, ""
	case "execution_profile_locked":
		// {...profile, locked: true}; no profile, no change.
		ep := plan.Get("execution_profile")
		if ep == nil || ep.Kind != jsjson.Object {
			return applyMutation, ""
		}
		ep = cloneValue(ep)
		setMember(ep, "locked", &jsjson.Value{Kind: jsjson.Bool, Bool: true})
		setMember(plan, "execution_profile", ep)
		return applyMutation, ""
	case "plan_created", "task_added", "task_updated", "task_reordered", "plan_rebuilt", "plan_exported", "snapshot":
		// Audit-only in the plugin's replay (a plan_created or snapshot
		// carrying a plan never reaches here).
		return applyNone, ""
	default:
		return applyUnknown, fmt.Sprintf("seq %d has the unknown event_type %q, which the plugin's replay rejects", ev.Seq, ev.EventType)
	}
}

// fromStatusMismatch says when a task_status_changed event's from_status is
// not the status the task has in the replayed plan, "" otherwise (or when
// there is nothing to compare: no plan, no such task, no valid from_status).
func fromStatusMismatch(plan *jsjson.Value, ev *LedgerEvent) string {
	if plan == nil || ev.EventType != "task_status_changed" || !taskStatuses[ev.FromStatus] {
		return ""
	}
	task, _, _ := findTask(plan, ev.TaskID)
	if task == nil {
		return ""
	}
	status := "pending"
	if s, ok := task.Get("status").AsString(); ok {
		status = s
	}
	if status == ev.FromStatus {
		return ""
	}
	return fmt.Sprintf("seq %d says task %s went from %q, but the task was %q", ev.Seq, ev.TaskID, ev.FromStatus, status)
}

// derivePhaseStatuses recomputes every phase status as savePlan does (spec
// section 3.3): "complete" when the phase has tasks and all are completed,
// else "in_progress" when any task is, else "blocked" when any task is, else
// "pending".
//
// Tuned on the corpus (TestReplayCorpus: 20 ledger versions, 390 events):
// the rule is needed (without it 157 more events are unexplained) and, with
// every phase re-derived whatever it stored, it explains every status batch.
// Where the corpus cannot decide, the spec's wording is followed: it has no
// "closed" task (one does not count as completed here, so a phase of closed
// tasks derives "pending"), no phase spelled "completed" (a re-derived phase
// is written "complete", and the spelling is hashed), no phase with both an
// in_progress and a blocked task (in_progress wins), and its three task-less
// phases are stored "pending", which is what they derive.
//
// current_phase is left as stored: the corpus's writers keep the cursor on
// a completed phase (35 embedded plans do so while a later phase is
// pending), so the cursor normalisation of newer writers (spec section 1)
// is not applied.
func derivePhaseStatuses(plan *jsjson.Value) {
	for _, ph := range elems(plan.Get("phases")) {
		if ph.Kind != jsjson.Object {
			continue
		}
		tasks := elems(ph.Get("tasks"))
		all, inProgress, blocked := len(tasks) > 0, false, false
		for _, t := range tasks {
			s := "pending"
			if v, ok := t.Get("status").AsString(); ok {
				s = v
			}
			all = all && s == "completed"
			inProgress = inProgress || s == "in_progress"
			blocked = blocked || s == "blocked"
		}
		status := "pending"
		switch {
		case all:
			status = "complete"
		case inProgress:
			status = "in_progress"
		case blocked:
			status = "blocked"
		}
		setMember(ph, "status", &jsjson.Value{Kind: jsjson.String, Str: status})
	}
}

// observeProfile follows the execution profile lock through the state an
// event left.
func (p *replayer) observeProfile(st ReplayStep, planGone bool, ep *jsjson.Value) {
	if planGone {
		p.lock = profileLock{} // plan_reset clears the lock
		return
	}
	if !p.lock.active {
		if locked := ep.Get("locked"); locked != nil && locked.Kind == jsjson.Bool && locked.Bool {
			p.lock = profileLock{active: true, ref: ep, json: planhash.ExecutionProfileJSON(ep)}
			if p.r.LockedSeq == 0 {
				p.r.LockedSeq = st.Seq
				p.r.LockedProfile = cloneValue(ep)
			}
		}
		return
	}
	got := planhash.ExecutionProfileJSON(ep)
	if bytes.Equal(got, p.lock.json) {
		return
	}
	if planningRatchet(p.lock.ref, ep) {
		p.lock.ref, p.lock.json = ep, got
		return
	}
	p.r.ProfileViolations = append(p.r.ProfileViolations, st)
}

// planningRatchet is the plugin's canRatchetLockedPlanningProfile: the one
// change save_plan allows to a locked profile is planning_profile
// "balanced" -> "strict" with every other field the same.
func planningRatchet(old, cur *jsjson.Value) bool {
	o, _ := old.Get("planning_profile").AsString()
	c, _ := cur.Get("planning_profile").AsString()
	if o != "balanced" || c != "strict" {
		return false
	}
	for _, k := range []string{"parallelization_enabled", "max_concurrent_tasks", "council_parallel", "locked", "auto_proceed", "commit_after_each_completed_task"} {
		a, b := old.Get(k), cur.Get(k)
		if (a == nil) != (b == nil) || (a != nil && !bytes.Equal(jsjson.Stringify(a), jsjson.Stringify(b))) {
			return false
		}
	}
	return true
}

// findTask returns the first task with the given id in phase order (as the
// plugin's find does), the tasks array holding it and its index.
func findTask(plan *jsjson.Value, id string) (task, tasks *jsjson.Value, idx int) {
	for _, ph := range elems(plan.Get("phases")) {
		ts := ph.Get("tasks")
		for i, t := range elems(ts) {
			if s, ok := t.Get("id").AsString(); ok && s == id {
				return t, ts, i
			}
		}
	}
	return nil, nil, -1
}

// findPhase returns the first phase with the given id, or nil.
func findPhase(plan *jsjson.Value, id int) *jsjson.Value {
	for _, ph := range elems(plan.Get("phases")) {
		if n, ok := ph.Get("id").AsInt(); ok && n == id {
			return ph
		}
	}
	return nil
}

// elems returns the elements of an array (nil for anything else).
func elems(v *jsjson.Value) []*jsjson.Value {
	if v == nil || v.Kind != jsjson.Array {
		return nil
	}
	return v.Elems
}

// setMember sets key in the object obj, in its position if present, else at
// the end (as a JavaScript assignment does). It does nothing when obj is not
// an object.
func setMember(obj *jsjson.Value, key string, v *jsjson.Value) {
	if obj == nil || obj.Kind != jsjson.Object {
		return
	}
	for i := range obj.Members {
		if obj.Members[i].Key == key {
			obj.Members[i].Value = v
			return
		}
	}
	obj.Members = append(obj.Members, jsjson.Member{Key: key, Value: v, KeyOffset: -1})
}

// cloneValue deep-copies v, so that replaying never changes the ledger's own
// parsed values (nil gives nil).
func cloneValue(v *jsjson.Value) *jsjson.Value {
	var n int
	return cloneValueN(v, &n)
}

// cloneValueN is cloneValue that adds the number of values copied to *n.
func cloneValueN(v *jsjson.Value, n *int) *jsjson.Value {
	if v == nil {
		return nil
	}
	*n++
	c := *v
	if v.Elems != nil {
		c.Elems = make([]*jsjson.Value, len(v.Elems))
		for i, el := range v.Elems {
			c.Elems[i] = cloneValueN(el, n)
		}
	}
	if v.Members != nil {
		c.Members = make([]jsjson.Member, len(v.Members))
		for i, m := range v.Members {
			c.Members[i] = jsjson.Member{Key: m.Key, Value: cloneValueN(m.Value, n), KeyOffset: m.KeyOffset}
		}
	}
	return &c
}
