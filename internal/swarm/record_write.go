package swarm

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

// This file writes what the plugin's own `/swarm approve-plan-critic
// <reason>` command writes (src/commands/approve-plan-critic.ts through
// forceRecordPlanCriticApproval in src/hooks/delegation-gate.ts; spec
// sections 3.4 and 4), so that swarm-gate can commit a human's approval to a
// pull request's branch in a form the agent's plugin accepts:
//
//  1. one plan-ledger line, JSON.stringify of
//     {event_type:"snapshot", source:"critic_approved", plan_id,
//     payload:{plan, payload_hash, approval}, seq, timestamp,
//     plan_hash_before, plan_hash_after, schema_version}
//     (takeSnapshotEvent's caller fields first, then appendLedgerEvent's);
//  2. one events.jsonl line,
//     {type:"plan_critic_gate_manual_approval", timestamp, sessionID,
//     plan_id, user_confirmed, reason} (appendCoreEventSync).
//
// Both files are appended to: their existing bytes are kept exactly.

// LedgerSchemaVersion is the plugin's LEDGER_SCHEMA_VERSION since
// task_removed (v7.19), the version every plugin that has the
// approve-plan-critic command writes.
const LedgerSchemaVersion = "1.1.0"

// MaxApprovalReason is the longest reason the plugin records, in UTF-16 code
// units (JavaScript string length): its command cuts the reason with
// reason.trim().slice(0, 500) and its tool refuses longer ones.
const MaxApprovalReason = 500

// ManualApproval is a human's plan-critic approval to record.
type ManualApproval struct {
	// Reason is the human's reason: 1 to MaxApprovalReason UTF-16 code
	// units after JavaScript's trim (it is recorded trimmed).
	Reason string
	// SessionID names who recorded it, as approval.session_id and the
	// events line's sessionID; swarm-gate uses ApprovalSessionID.
	SessionID string
	// ApprovedAt is approval.approved_at and the events line's timestamp
	// (the plugin's recordedAt).
	ApprovedAt time.Time
	// WrittenAt is the ledger event's timestamp (the plugin's
	// appendLedgerEvent takes its own clock reading, a moment later).
	WrittenAt time.Time
}

// ApprovalSessionID is the session_id swarm-gate records for the approval
// made by pull request comment commentID: "swarm-gate:comment:<id>". It is
// also how a redelivered command finds its approval already in the ledger.
func ApprovalSessionID(commentID int64) string {
	return "swarm-gate:comment:" + strconv.FormatInt(commentID, 10)
}

// ApprovalFiles are the head's files the record is appended to.
type ApprovalFiles struct {
	Plan   []byte // .swarm/plan.json
	Ledger []byte // .swarm/plan-ledger.jsonl
	// HasLedger is false when the ledger does not exist.
	HasLedger bool
	Events    []byte // .swarm/events.jsonl
	// HasEvents is false when events.jsonl does not exist; it is then
	// created with the plugin's manifest header line.
	HasEvents bool
}

// ApprovalRecord is the result of AppendManualApproval.
type ApprovalRecord struct {
	// Ledger and Events are the files' new contents: the old bytes, then
	// the new line and "\n" (with a "\n" first when the old content did
	// not end with one).
	Ledger, Events []byte
	// LedgerLine and EventsLine are the appended lines, without "\n".
	LedgerLine, EventsLine []byte
	// Seq is the snapshot's seq (the highest seq so far plus one).
	Seq    int
	PlanID string
	// StructureHash is the payload_hash; LedgerHash is plan_hash_before and
	// plan_hash_after (the ledger hash of plan.json as stored).
	StructureHash, LedgerHash string
}

// RecordError says why the plugin's approval record cannot be appended to a
// head; Error is a sentence fit for a reply.
type RecordError struct{ Msg string }

func (e *RecordError) Error() string { return e.Msg }

func recordErr(format string, args ...any) error {
	return &RecordError{Msg: fmt.Sprintf(format, args...)}
}

// AppendManualApproval builds the plugin's manual plan-critic approval
// record (user_confirmed true, as the human-run command writes it) for the
// plan in f and appends it to f's ledger and events log.
//
// It refuses, with a *RecordError, what the plugin would refuse or what
// swarm-gate could not append faithfully: a missing, unreadable or
// schema-invalid plan.json (the plugin's PLAN_NOT_FOUND and PLAN_CORRUPT,
// including NUL bytes, invalid UTF-8 and a byte order mark); a plan.json
// without a field the plugin always writes (a task's status, size, depends
// or files_touched; a phase's status or tasks), whose stored hash the plugin
// would compute differently; a missing ledger (the plugin appends only to an
// initialized ledger); a ledger or events log that swarm-gate's own loaders
// cannot read; a reason outside 1..MaxApprovalReason code units; and a
// result that does not re-read, replay and re-hash (the record is checked
// with ParseLedger, ReplayLedgerWithPlan and ParseEventLog before it is
// returned).
func AppendManualApproval(f ApprovalFiles, a ManualApproval) (*ApprovalRecord, error) {
	reason := jsjson.Trim(a.Reason)
	if n := len(utf16.Encode([]rune(reason))); n == 0 || n > MaxApprovalReason {
		return nil, recordErr("the reason is %d characters (UTF-16 code units) after trimming; the plugin records 1 to %d", n, MaxApprovalReason)
	}
	if a.SessionID == "" {
		return nil, recordErr("the approval has no session id")
	}
	plan, raw, err := pluginPlan(f.Plan)
	if err != nil {
		return nil, err
	}
	if !f.HasLedger {
		return nil, recordErr("%s does not exist at the head; the plugin records a plan-critic approval only in an initialized ledger (it answers \"Ledger not initialized\")", LedgerPath)
	}
	ledger, err := ParseLedger(LedgerPath, f.Ledger)
	if err != nil {
		return nil, recordErr("the head's ledger cannot be read, so nothing is appended to it: %v", err)
	}
	if len(ledger.Events) == 0 {
		return nil, recordErr("%s is empty at the head; the plugin records a plan-critic approval only in an initialized ledger", LedgerPath)
	}
	if f.HasEvents {
		if _, err := ParseEventLog(EventsPath, f.Events); err != nil {
			return nil, recordErr("the head's events log cannot be read, so nothing is appended to it: %v", err)
		}
	}
	seq := 0
	for _, ev := range ledger.Events {
		seq = max(seq, ev.Seq)
	}
	seq++
	rec := &ApprovalRecord{Seq: seq, PlanID: plan.ID(), StructureHash: plan.Digests.Structure, LedgerHash: plan.Digests.Ledger}

	line := []byte(`{"event_type":"snapshot","source":"critic_approved","plan_id":`)
	line = jsjson.AppendString(line, rec.PlanID)
	line = append(line, `,"payload":{"plan":`...)
	line = jsjson.Append(line, EmbeddedPlan(raw))
	line = append(line, `,"payload_hash":`...)
	line = jsjson.AppendString(line, rec.StructureHash)
	line = append(line, `,"approval":{"verdict":"APPROVED","source":"plan_critic_gate","method":"manual_override","reason":`...)
	line = jsjson.AppendString(line, reason)
	line = append(line, `,"user_confirmed":true,"session_id":`...)
	line = jsjson.AppendString(line, a.SessionID)
	line = append(line, `,"approved_at":`...)
	line = jsjson.AppendString(line, JSISOTime(a.ApprovedAt))
	line = append(line, `}},"seq":`...)
	line = strconv.AppendInt(line, int64(seq), 10)
	line = append(line, `,"timestamp":`...)
	line = jsjson.AppendString(line, JSISOTime(a.WrittenAt))
	line = append(line, `,"plan_hash_before":`...)
	line = jsjson.AppendString(line, rec.LedgerHash)
	line = append(line, `,"plan_hash_after":`...)
	line = jsjson.AppendString(line, rec.LedgerHash)
	line = append(line, `,"schema_version":`...)
	line = jsjson.AppendString(line, LedgerSchemaVersion)
	line = append(line, '}')
	rec.LedgerLine = line
	rec.Ledger = appendLine(f.Ledger, line)

	ev := []byte(`{"type":"plan_critic_gate_manual_approval","timestamp":`)
	ev = jsjson.AppendString(ev, JSISOTime(a.ApprovedAt))
	ev = append(ev, `,"sessionID":`...)
	ev = jsjson.AppendString(ev, a.SessionID)
	ev = append(ev, `,"plan_id":`...)
	ev = jsjson.AppendString(ev, rec.PlanID)
	ev = append(ev, `,"user_confirmed":true,"reason":`...)
	ev = jsjson.AppendString(ev, reason)
	ev = append(ev, '}')
	rec.EventsLine = ev
	if f.HasEvents {
		rec.Events = appendLine(f.Events, ev)
	} else {
		rec.Events = append(append(eventsManifest(a.WrittenAt), '\n'), ev...)
		rec.Events = append(rec.Events, '\n')
	}
	if err := rec.check(plan, ledger); err != nil {
		return nil, err
	}
	return rec, nil
}

// check re-reads the record with swarm-gate's own loaders: the new ledger
// parses, its last event is the approval for the plan, every event of the
// new ledger that the old one explained is still explained and the new
// one is explained too, and the events log parses with the new line last.
func (rec *ApprovalRecord) check(plan *Plan, old *Ledger) error {
	l, err := ParseLedger(LedgerPath, rec.Ledger)
	if err != nil {
		return recordErr("swarm-gate's own loader cannot re-read the ledger with the approval appended: %v", err)
	}
	last := l.Last()
	if last == nil || last.Seq != rec.Seq || last.Plan == nil || last.Plan.Digests.Structure != rec.StructureHash ||
		last.Plan.Digests.Ledger != rec.LedgerHash || last.PayloadHash != rec.StructureHash {
		return recordErr("the appended snapshot does not re-read as the approval of the plan (swarm-gate bug: please report it)")
	}
	if ap, _ := l.LastPlanCriticApproval(plan.ID()); ap != last {
		return recordErr("the appended snapshot is not the plan-critic approval the plugin would find for plan id %s", plan.ID())
	}
	before := ReplayLedgerWithPlan(old, plan.Value)
	after := ReplayLedgerWithPlan(l, plan.Value)
	if len(after.Unexplained) > len(before.Unexplained) {
		return recordErr("the ledger's replay does not explain the appended snapshot: %s", after.Unexplained[len(after.Unexplained)-1].Problem)
	}
	log, err := ParseEventLog(EventsPath, rec.Events)
	if err != nil || len(log.Events) == 0 || log.Events[len(log.Events)-1].Type != "plan_critic_gate_manual_approval" {
		return recordErr("swarm-gate's own loader cannot re-read the events log with the approval appended: %v", err)
	}
	return nil
}

// appendLine appends line and "\n" to old, first adding the "\n" old lacks
// (a torn or hand-edited last line), as the plugin's event store
// re-establishes line framing; the old bytes stay a prefix of the result.
func appendLine(old, line []byte) []byte {
	out := make([]byte, 0, len(old)+len(line)+2)
	out = append(out, old...)
	if len(old) > 0 && old[len(old)-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(out, line...)
	return append(out, '\n')
}

// eventsManifest is the header line the plugin's event store writes when it
// creates events.jsonl (emptyManifest in src/events/core-events.ts).
func eventsManifest(at time.Time) []byte {
	b := []byte(`{"v":1,"type":"swarm-events-manifest","schemaVersion":1,"folded":{"totalEvents":0,"byType":{},"corrupt":0,"dropped":0,"oldestTimestamp":null,"newestTimestamp":null},"updatedAt":`)
	b = jsjson.AppendString(b, JSISOTime(at))
	return append(b, '}')
}

// JSISOTime formats t as JavaScript's Date.prototype.toISOString: UTC,
// milliseconds, "Z" (2026-01-02T03:04:05.678Z).
func JSISOTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// pluginPlan reads plan.json as the plugin's loadPlanJsonOnly does and
// checks it holds every field the plugin's own writer puts in, so that the
// hash the plugin computes of the stored file (computeCurrentPlanHash,
// without schema defaults) is the ledger hash swarm-gate computes.
func pluginPlan(data []byte) (*Plan, *jsjson.Value, error) {
	switch {
	case data == nil:
		return nil, nil, recordErr("%s does not exist at the head, so there is no plan to approve (the plugin's PLAN_NOT_FOUND)", PlanPath)
	case bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) || bytes.Contains(data, []byte("\uFFFD")):
		return nil, nil, recordErr("%s holds NUL bytes or invalid UTF-8, which the plugin rejects (PLAN_CORRUPT)", PlanPath)
	case bytes.HasPrefix(data, []byte("\uFEFF")):
		return nil, nil, recordErr("%s starts with a byte order mark, which the plugin's JSON.parse rejects (PLAN_CORRUPT); save it without one", PlanPath)
	}
	plan, err := ParsePlan(PlanPath, data)
	if err != nil {
		return nil, nil, recordErr("the head plan does not fit the plugin's schema (PLAN_CORRUPT): %v", err)
	}
	if missing := missingWrittenFields(plan.Value); len(missing) > 0 {
		more := ""
		if len(missing) > 3 {
			more = fmt.Sprintf(" and %d more", len(missing)-3)
			missing = missing[:3]
		}
		return nil, nil, recordErr("%s lacks %s%s, which the plugin always writes; the plugin would hash the stored file differently, so swarm-gate does not write its record: re-save the plan with the plugin", PlanPath, strings.Join(missing, ", "), more)
	}
	return plan, plan.Value, nil
}

// missingWrittenFields lists the defaulted fields absent from a plan.
func missingWrittenFields(plan *jsjson.Value) []string {
	var out []string
	for i, ph := range arrayItems(plan.Get("phases")) {
		p := "phases[" + strconv.Itoa(i) + "]"
		for _, k := range []string{"status", "tasks"} {
			if !ph.Has(k) {
				out = append(out, p+"."+k)
			}
		}
		for j, t := range arrayItems(ph.Get("tasks")) {
			tp := p + ".tasks[" + strconv.Itoa(j) + "]"
			for _, k := range []string{"status", "size", "depends", "files_touched"} {
				if !t.Has(k) {
					out = append(out, tp+"."+k)
				}
			}
		}
	}
	return out
}

// EmbeddedPlan returns plan (parsed plan.json, already accepted by
// ParsePlan) as the plugin embeds it in a snapshot: the output of its zod
// PlanSchema.parse, which lists the schema's keys in schema order, fills in
// the defaults and drops unknown keys:
//
//	{schema_version, title, swarm, current_phase?, phases, migration_status?,
//	 specMtime?, specHash?, execution_profile?}
//	phase {id, name, status="pending", tasks=[], type?, required_agents?}
//	task  {id, phase, status="pending", size="small", description,
//	       depends=[], acceptance?, files_touched=[], evidence_path?,
//	       blocked_reason?, fr_refs?}
//
// execution_profile is kept as stored (its members in their order): the
// plugin version that wrote the plan decides which profile keys exist
// (4-key, 5-key and 6-key profiles are all real), and the ledger hash covers
// the profile as stored, so re-ordering it or adding a newer version's
// defaults would change the plan's hash.
func EmbeddedPlan(plan *jsjson.Value) *jsjson.Value {
	out := pick(plan, []field{{key: "schema_version"}, {key: "title"}, {key: "swarm"}, {key: "current_phase"}})
	phases := &jsjson.Value{Kind: jsjson.Array}
	for _, ph := range arrayItems(plan.Get("phases")) {
		p := pick(ph, []field{{key: "id"}, {key: "name"}, {key: "status", def: str("pending")}})
		tasks := &jsjson.Value{Kind: jsjson.Array}
		for _, t := range arrayItems(ph.Get("tasks")) {
			tasks.Elems = append(tasks.Elems, pick(t, []field{{key: "id"}, {key: "phase"}, {key: "status", def: str("pending")},
				{key: "size", def: str("small")}, {key: "description"}, {key: "depends", def: emptyArray},
				{key: "acceptance"}, {key: "files_touched", def: emptyArray}, {key: "evidence_path"},
				{key: "blocked_reason"}, {key: "fr_refs"}}))
		}
		p.Members = append(p.Members, jsjson.Member{Key: "tasks", Value: tasks})
		p.Members = append(p.Members, pick(ph, []field{{key: "type"}, {key: "required_agents"}}).Members...)
		phases.Elems = append(phases.Elems, p)
	}
	out.Members = append(out.Members, jsjson.Member{Key: "phases", Value: phases})
	out.Members = append(out.Members, pick(plan, []field{{key: "migration_status"}, {key: "specMtime"}, {key: "specHash"}, {key: "execution_profile"}}).Members...)
	return out
}

// arrayItems returns the elements of an array (nil for anything else).
func arrayItems(v *jsjson.Value) []*jsjson.Value {
	if v == nil || v.Kind != jsjson.Array {
		return nil
	}
	return v.Elems
}

// field is one schema key; def (a constructor) fills an absent key.
type field struct {
	key string
	def func() *jsjson.Value
}

func str(s string) func() *jsjson.Value {
	return func() *jsjson.Value { return &jsjson.Value{Kind: jsjson.String, Str: s} }
}

func emptyArray() *jsjson.Value { return &jsjson.Value{Kind: jsjson.Array} }

// pick returns a new object with obj's members for fields, in fields'
// order; an absent key with a default gets it, one without is left out.
func pick(obj *jsjson.Value, fields []field) *jsjson.Value {
	out := &jsjson.Value{Kind: jsjson.Object}
	for _, f := range fields {
		v := obj.Get(f.key)
		if v == nil && f.def != nil {
			v = f.def()
		}
		if v != nil {
			out.Members = append(out.Members, jsjson.Member{Key: f.key, Value: v})
		}
	}
	return out
}

// ManualApprovalBySession returns the newest manual-override plan-critic
// approval recorded with sessionID (see ApprovalSessionID), or nil: how a
// redelivered command finds that its approval is already in the ledger.
func (l *Ledger) ManualApprovalBySession(sessionID string) *LedgerEvent {
	if l == nil || sessionID == "" {
		return nil
	}
	for i := len(l.Events) - 1; i >= 0; i-- {
		ev := &l.Events[i]
		if ev.EventType == "snapshot" && ev.Source == "critic_approved" && ev.Approval.IsPlanCritic() &&
			ev.Approval.Method == "manual_override" && ev.Approval.SessionID == sessionID {
			return ev
		}
	}
	return nil
}
