package demo

import (
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

var update = flag.Bool("update", false, "regenerate the example ledgers from the example plans")

// TestExampleLedgers checks that the embedded example is what the plugin
// would have written: each ledger verifies, and the head plan differs from
// the approved one by status only. With -update it rewrites the ledgers.
func TestExampleLedgers(t *testing.T) {
	if *update {
		writeLedgers(t)
	}
	for _, side := range []string{"base", "head"} {
		plan := readPlan(t, "_example/"+side+"/.swarm/plan.json")
		data, err := os.ReadFile("_example/" + side + "/.swarm/plan-ledger.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		l, err := swarm.ParseLedger(side+" ledger", data)
		if err != nil {
			t.Fatal(err)
		}
		if probs := swarm.VerifyLedger(l, plan); len(probs) > 0 {
			t.Errorf("%s ledger does not verify: %v (run go test ./internal/demo -update)", side, probs)
		}
	}
	base := readPlan(t, "_example/base/.swarm/plan.json")
	head := readPlan(t, "_example/head/.swarm/plan.json")
	if base.Digests.Structure != head.Digests.Structure {
		t.Error("the demo's head plan must differ from the approved plan by status only")
	}
	baseLedger, _ := os.ReadFile("_example/base/.swarm/plan-ledger.jsonl")
	headLedger, _ := os.ReadFile("_example/head/.swarm/plan-ledger.jsonl")
	if !strings.HasPrefix(string(headLedger), string(baseLedger)) {
		t.Error("the head ledger must extend the base ledger")
	}
}

func readPlan(t *testing.T, p string) *swarm.Plan {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := swarm.ParsePlan(p, data)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// writeLedgers writes the ledger events the plugin would append, with its
// key orders (spec section 3.2): plan_created and the critic approval on the
// base side, then one task_status_changed per completed task on the head.
func writeLedgers(t *testing.T) {
	base := readPlan(t, "_example/base/.swarm/plan.json")
	head := readPlan(t, "_example/head/.swarm/plan.json")
	id := base.ID()
	planJSON := func(p *swarm.Plan) string { return string(jsjson.Stringify(p.Value)) }
	q := func(s string) string { return string(jsjson.AppendString(nil, s)) }
	lines := []string{
		`{"seq":1,"timestamp":"2026-11-02T09:00:00.000Z","plan_id":` + q(id) + `,"event_type":"plan_created","source":"initLedger","plan_hash_before":"","plan_hash_after":"` + base.Digests.Ledger + `","schema_version":"1.1.0","payload":{"plan":` + planJSON(base) + `,"payload_hash":"` + base.Digests.Ledger + `"}}`,
		`{"event_type":"snapshot","source":"critic_approved","plan_id":` + q(id) + `,"payload":{"plan":` + planJSON(base) + `,"payload_hash":"` + base.Digests.Structure + `","approval":{"verdict":"APPROVED","source":"plan_critic_gate","session_id":"ses_demo000000000000000001","call_id":"call_demo_critic_1","approved_at":"2026-11-02T09:05:00.000Z"}},"seq":2,"timestamp":"2026-11-02T09:05:00.001Z","plan_hash_before":"` + base.Digests.Ledger + `","plan_hash_after":"` + base.Digests.Ledger + `","schema_version":"1.1.0"}`,
	}
	writeFile(t, "_example/base/.swarm/plan-ledger.jsonl", lines)

	// The intermediate state: task 1.1 completed, 1.2 still pending. The
	// head plan lists 1.1 before 1.2, so replacing the second "completed"
	// gives it.
	headData, err := os.ReadFile("_example/head/.swarm/plan.json")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.LastIndex(string(headData), `"status": "completed"`)
	oneDone, err := swarm.ParsePlan("intermediate", []byte(string(headData[:i])+`"status": "pending"`+string(headData[i+len(`"status": "completed"`):])))
	if err != nil {
		t.Fatal(err)
	}
	ev := func(seq int, task, ts, before, after string) string {
		return `{"plan_id":` + q(id) + `,"event_type":"task_status_changed","task_id":"` + task + `","phase_id":1,"from_status":"pending","to_status":"completed","source":"savePlan","seq":` + strconv.Itoa(seq) + `,"timestamp":"` + ts + `","plan_hash_before":"` + before + `","plan_hash_after":"` + after + `","schema_version":"1.1.0"}`
	}
	lines = append(lines,
		ev(3, "1.1", "2026-11-02T10:32:00.000Z", base.Digests.Ledger, oneDone.Digests.Ledger),
		ev(4, "1.2", "2026-11-02T11:10:00.000Z", oneDone.Digests.Ledger, head.Digests.Ledger),
	)
	writeFile(t, "_example/head/.swarm/plan-ledger.jsonl", lines)
}

func writeFile(t *testing.T, p string, lines []string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
