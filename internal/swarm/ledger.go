package swarm

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

// Ledger is a parsed .swarm/plan-ledger.jsonl (the plugin's
// src/plan/ledger.ts): the append-only history of the plan.
type Ledger struct {
	Path   string
	Events []LedgerEvent // in file order
	// Data is always nil: the ledger is read line by line and not kept
	// whole (see ReadLedger); CheckAppendOnly compares two ledgers' bytes.
	//
	// Deprecated: use CheckAppendOnly.
	Data []byte

	lines []lineSum // one per line of the file
	size  int64     // bytes in the file
	bom   bool      // the file starts with a byte order mark
}

// LedgerEvent is one line of the ledger.
type LedgerEvent struct {
	Line int // 1-based line in the file
	// Raw is the line's exact bytes (no terminator) for an event that
	// carries a payload (a snapshot, an approval, an embedded plan), nil for
	// the others, whose lines are not kept.
	Raw []byte

	Seq            int
	Timestamp      string
	PlanID         string
	EventType      string // plan_created, task_status_changed, snapshot, ...
	Source         string // initLedger, savePlan, critic_approved, ...
	PlanHashBefore string
	PlanHashAfter  string
	SchemaVersion  string // "1.0.0" or "1.1.0"
	TaskID         string
	PhaseID        int
	FromStatus     string
	ToStatus       string

	// Payload is the raw payload object, nil when absent.
	Payload *jsjson.Value
	// Plan is payload.plan when present and valid; PlanErr says why an
	// embedded plan could not be read.
	Plan    *Plan
	PlanErr error
	// PayloadHash is payload.payload_hash ("" when absent).
	PayloadHash string
	// Approval is payload.approval, nil when absent.
	Approval *Approval
	// DuplicateKeys are keys repeated in one object of the line (both lines
	// are Line): the plugin's JSON.stringify never writes one, so such a
	// line was edited by hand. See Plan.DuplicateKeys.
	DuplicateKeys []DuplicateKey
}

// Approval is the approval record of a critic_approved snapshot. Two shapes
// exist (spec section 3.4): plan-critic approvals carry Source
// "plan_critic_gate"; drift-verifier approvals carry a Phase and no Source.
type Approval struct {
	Verdict       string
	Source        string
	Method        string // "manual_override" for /swarm approve-plan-critic
	Reason        string
	SessionID     string
	CallID        string
	ApprovedAt    string
	Summary       string
	Phase         int
	HasPhase      bool
	UserConfirmed *bool
}

// IsPlanCritic reports whether the approval came from the plan-critic gate.
func (a *Approval) IsPlanCritic() bool { return a != nil && a.Source == "plan_critic_gate" }

// IsDriftVerifier reports whether the approval is a drift-verifier phase
// approval (a phase and no source).
func (a *Approval) IsDriftVerifier() bool { return a != nil && a.Source == "" && a.HasPhase }

// ParseLedger parses plan-ledger.jsonl content. Every line must be a JSON
// object with the required event fields (seq, timestamp, plan_id,
// event_type, source, plan_hash_before, plan_hash_after, schema_version); the
// first line that is not gives an *ArtifactError and the events before it.
// An embedded payload.plan that does not fit the plan schema is not an error
// here: it is kept in the event's PlanErr for the gates to report. The
// limits of ReadLedger apply.
func ParseLedger(name string, data []byte) (*Ledger, error) {
	return ReadLedger(name, bytes.NewReader(data))
}

func ledgerEvent(jl jsonLine) (LedgerEvent, error) {
	v := jl.Value
	ev := LedgerEvent{Line: jl.Line, Raw: jl.Raw}
	seq := v.Get("seq")
	if seq == nil {
		return ev, errors.New(`missing required field "seq"`)
	}
	n, ok := seq.AsInt()
	if !ok || n < 1 {
		return ev, fmt.Errorf(`"seq" must be an integer >= 1, found %s`, jsjson.Stringify(seq))
	}
	ev.Seq = n
	for _, f := range []struct {
		key string
		dst *string
	}{
		{"timestamp", &ev.Timestamp}, {"plan_id", &ev.PlanID}, {"event_type", &ev.EventType},
		{"source", &ev.Source}, {"plan_hash_before", &ev.PlanHashBefore},
		{"plan_hash_after", &ev.PlanHashAfter}, {"schema_version", &ev.SchemaVersion},
	} {
		fv := v.Get(f.key)
		if fv == nil {
			return ev, fmt.Errorf("missing required field %q", f.key)
		}
		s, ok := fv.AsString()
		if !ok {
			return ev, fmt.Errorf("%q must be a string, found %s", f.key, fv.Kind)
		}
		*f.dst = s
	}
	for _, d := range jsjson.Duplicates(v) {
		ev.DuplicateKeys = append(ev.DuplicateKeys, DuplicateKey{Path: d.Path, Key: d.Key, FirstLine: jl.Line, Line: jl.Line})
	}
	ev.TaskID, _ = v.Get("task_id").AsString()
	ev.PhaseID, _ = v.Get("phase_id").AsInt()
	ev.FromStatus, _ = v.Get("from_status").AsString()
	ev.ToStatus, _ = v.Get("to_status").AsString()
	p := v.Get("payload")
	if p == nil {
		return ev, nil
	}
	if p.Kind != jsjson.Object {
		return ev, fmt.Errorf(`"payload" must be an object, found %s`, p.Kind)
	}
	ev.Payload = p
	ev.PayloadHash, _ = p.Get("payload_hash").AsString()
	if pv := p.Get("plan"); pv != nil {
		plan, err := PlanFromValue(pv, func(int) int { return jl.Line })
		if err != nil {
			ev.PlanErr = fmt.Errorf("embedded payload.plan: %w", err)
		} else {
			ev.Plan = plan
		}
	}
	if av := p.Get("approval"); av != nil && av.Kind == jsjson.Object {
		a := &Approval{}
		a.Verdict, _ = av.Get("verdict").AsString()
		a.Source, _ = av.Get("source").AsString()
		a.Method, _ = av.Get("method").AsString()
		a.Reason, _ = av.Get("reason").AsString()
		a.SessionID, _ = av.Get("session_id").AsString()
		a.CallID, _ = av.Get("call_id").AsString()
		a.ApprovedAt, _ = av.Get("approved_at").AsString()
		a.Summary, _ = av.Get("summary").AsString()
		a.Phase, a.HasPhase = av.Get("phase").AsInt()
		if uc := av.Get("user_confirmed"); uc != nil && uc.Kind == jsjson.Bool {
			b := uc.Bool
			a.UserConfirmed = &b
		}
		ev.Approval = a
	}
	return ev, nil
}

// Last returns the last event, or nil for an empty ledger.
func (l *Ledger) Last() *LedgerEvent {
	if l == nil || len(l.Events) == 0 {
		return nil
	}
	return &l.Events[len(l.Events)-1]
}

func itoa(n int) string { return strconv.Itoa(n) }

// LastPlanCriticApproval is the plugin's loadLastPlanCriticApprovedSnapshot
// (spec section 3.5): scanning newest first, the first snapshot with source
// critic_approved whose approval came from the plan-critic gate, for planID
// (both the event's plan_id and the id derived from its embedded plan), with
// an embedded plan. Drift-verifier approvals never match; skipped is how
// many of those were passed over, for messages. It returns nil when there is
// no such snapshot.
func (l *Ledger) LastPlanCriticApproval(planID string) (approval *LedgerEvent, skippedDrift int) {
	if l == nil {
		return nil, 0
	}
	for i := len(l.Events) - 1; i >= 0; i-- {
		ev := &l.Events[i]
		if ev.EventType != "snapshot" || ev.Source != "critic_approved" {
			continue
		}
		if ev.Approval.IsDriftVerifier() {
			skippedDrift++
		}
		if ev.PlanID == planID && ev.Plan != nil && ev.Plan.ID() == planID && ev.Approval.IsPlanCritic() {
			return ev, skippedDrift
		}
	}
	return nil, skippedDrift
}
