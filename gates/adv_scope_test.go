package gates

import (
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// TestAdvScopePhaseStatusOnlyComplete: a pull request that only flips a
// phase's status to "complete" (a phase_completed ledger event: status,
// no structure change, so no approval is needed) while every task of it
// is still pending must not make the plan "complete" and turn swarm/scope
// into not_applicable for a change outside every scope.
func TestAdvScopePhaseStatusOnlyComplete(t *testing.T) {
	plan := func(phaseStatus string) string {
		return fmt.Sprintf(`{"schema_version":"1.0.0","title":"T","swarm":"s","current_phase":1,"phases":[
 {"id":1,"name":"One","status":%q,"tasks":[{"id":"1.1","phase":1,"status":"pending","description":"d","files_touched":["lib/"]}]}]}`, phaseStatus)
	}
	base := load(fstest.MapFS{".swarm/plan.json": {Data: []byte(plan("pending"))}})
	head := load(fstest.MapFS{".swarm/plan.json": {Data: []byte(plan("complete"))}})
	phase, src, phases := InferPhase(base.Plan, head.Plan)
	changes := &changeset.ChangeSet{Files: []changeset.File{{Status: changeset.Modified, OldPath: "main.go", NewPath: "main.go", OldMode: 0o100644, NewMode: 0o100644}}}
	r := eval(Scope{}, &Input{Phase: phase, PhaseSource: src, Phases: phases, Base: base, Head: head, Changes: changes})
	if r.Outcome != Failed {
		t.Fatalf("main.go is outside every task's scope and the phase's tasks are all pending, but swarm/scope is %s: %s", r.Outcome, r.Title)
	}
}
