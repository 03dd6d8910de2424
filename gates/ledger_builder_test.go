package gates

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
)

// testPlan is a hand-made plan with the characters that break naive
// encoders: non-ASCII, <>&, backslashes and quotes.
const testPlan = `{
  "schema_version": "1.0.0",
  "title": "Café <export> & \"quotes\"",
  "swarm": "default",
  "current_phase": 1,
  "phases": [
    {
      "id": 1,
      "name": "Export ✓",
      "status": "pending",
      "tasks": [
        {"id": "1.1", "phase": 1, "status": "pending", "size": "small", "description": "Write C:\\tmp\\out.csv — naïve <b>&amp;</b>", "depends": [], "acceptance": "round trip passes", "files_touched": ["src/a.go"], "fr_refs": ["FR-001"]},
        {"id": "1.2", "phase": 1, "status": "pending", "size": "small", "description": "Wire the command", "depends": ["1.1"], "acceptance": "prints rows", "files_touched": ["cmd/x.go"], "fr_refs": ["FR-002"]}
      ]
    },
    {
      "id": 2,
      "name": "Docs",
      "status": "pending",
      "tasks": [
        {"id": "2.1", "phase": 2, "status": "pending", "size": "small", "description": "Document it", "depends": [], "files_touched": ["README.md"]}
      ]
    }
  ]
}`

// ledgerBuilder writes a plan-ledger.jsonl the way the plugin does, with
// real hashes, for hand-made cases.
type ledgerBuilder struct {
	t      *testing.T
	lines  []string
	last   string // plan_hash_after of the last event
	planID string
}

func newLedger(t *testing.T, plan string) *ledgerBuilder {
	b := &ledgerBuilder{t: t}
	v := b.parse(plan)
	b.planID = planhash.PlanID(v.Get("swarm").Str, v.Get("title").Str)
	b.embedded("plan_created", "initLedger", plan, nil)
	return b
}

func (b *ledgerBuilder) parse(plan string) *jsjson.Value {
	b.t.Helper()
	v, err := jsjson.Parse([]byte(plan))
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

func (b *ledgerBuilder) hashes(plan string) planhash.Digests {
	b.t.Helper()
	d, err := planhash.Compute(b.parse(plan))
	if err != nil {
		b.t.Fatal(err)
	}
	return d
}

func compact(t *testing.T, plan string) string {
	v, err := jsjson.Parse([]byte(plan))
	if err != nil {
		t.Fatal(err)
	}
	return string(jsjson.Stringify(v))
}

func (b *ledgerBuilder) add(fields string, after string) {
	seq := len(b.lines) + 1
	b.lines = append(b.lines, fmt.Sprintf(`{"plan_id":%q,%s,"seq":%d,"timestamp":"2026-07-17T18:%02d:00.000Z","plan_hash_before":%q,"plan_hash_after":%q,"schema_version":"1.1.0"}`,
		b.planID, fields, seq, seq%60, b.last, after))
	b.last = after
}

// embedded appends an event that carries the whole plan.
func (b *ledgerBuilder) embedded(eventType, source, plan string, approval map[string]any) *ledgerBuilder {
	d := b.hashes(plan)
	payloadHash := d.Ledger
	extra := ""
	if approval != nil {
		payloadHash = d.Structure
		a, _ := json.Marshal(approval)
		extra = `,"approval":` + string(a)
	}
	b.add(fmt.Sprintf(`"event_type":%q,"source":%q,"payload":{"plan":%s,"payload_hash":%q%s}`, eventType, source, compact(b.t, plan), payloadHash, extra), d.Ledger)
	return b
}

// snapshot appends a save_plan snapshot of plan.
func (b *ledgerBuilder) snapshot(plan string) *ledgerBuilder {
	return b.embedded("snapshot", "save_plan", plan, nil)
}

// approve appends a mechanical plan-critic approval of plan.
func (b *ledgerBuilder) approve(plan string) *ledgerBuilder {
	return b.embedded("snapshot", "critic_approved", plan, map[string]any{
		"verdict": "APPROVED", "source": "plan_critic_gate", "session_id": "ses_test", "call_id": "call_1", "approved_at": "2026-07-17T18:05:08.942Z"})
}

// manualApprove appends a /swarm approve-plan-critic approval of plan.
func (b *ledgerBuilder) manualApprove(plan, reason string) *ledgerBuilder {
	return b.embedded("snapshot", "critic_approved", plan, map[string]any{
		"verdict": "APPROVED", "source": "plan_critic_gate", "method": "manual_override", "reason": reason, "user_confirmed": true, "session_id": "ses_test", "approved_at": "2026-07-18T09:00:00.000Z"})
}

// status appends the task_status_changed event savePlan writes for a status
// change; newPlan is the plan after it.
func (b *ledgerBuilder) status(task, from, to, newPlan string) *ledgerBuilder {
	d := b.hashes(newPlan)
	b.add(fmt.Sprintf(`"event_type":"task_status_changed","task_id":%q,"from_status":%q,"to_status":%q,"source":"savePlan"`, task, from, to), d.Ledger)
	return b
}

// removed appends a task_removed event; newPlan is the plan after it.
func (b *ledgerBuilder) removed(task, newPlan string) *ledgerBuilder {
	d := b.hashes(newPlan)
	b.add(fmt.Sprintf(`"event_type":"task_removed","task_id":%q,"source":"save_plan"`, task), d.Ledger)
	return b
}

func (b *ledgerBuilder) data() []byte { return []byte(strings.Join(b.lines, "\n") + "\n") }

// fs returns a .swarm folder with the ledger and plan.json.
func (b *ledgerBuilder) fs(plan string) fstest.MapFS {
	return fstest.MapFS{".swarm/plan.json": {Data: []byte(plan)}, ".swarm/plan-ledger.jsonl": {Data: b.data()}}
}

// edit replaces old with new in plan, failing when old is absent.
func edit(t *testing.T, plan, old, new string) string {
	t.Helper()
	if !strings.Contains(plan, old) {
		t.Fatalf("plan does not contain %q", old)
	}
	return strings.Replace(plan, old, new, 1)
}

// agentApprove appends what the plugin's approve_plan_critic tool writes:
// a manual override the agent records itself (user_confirmed false).
func (b *ledgerBuilder) agentApprove(plan, reason string) *ledgerBuilder {
	return b.embedded("snapshot", "critic_approved", plan, map[string]any{
		"verdict": "APPROVED", "source": "plan_critic_gate", "method": "manual_override", "reason": reason, "user_confirmed": false, "session_id": "ses_agent", "approved_at": "2026-07-18T10:00:00.000Z"})
}
