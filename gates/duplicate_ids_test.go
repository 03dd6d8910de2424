package gates

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// A plan holding the phase under check, or one of its tasks, twice cannot
// be judged: every gate looks them up by id, so a second "phase 1" carried
// completed tasks without evidence that swarm/evidence never saw (a
// new-user pass). The phase gates fail closed naming the line.
func TestDuplicatePhaseOrTaskID(t *testing.T) {
	task := func(id, status string) string {
		return `{"id":"` + id + `","phase":1,"status":"` + status + `","description":"d","depends":[],"files_touched":["a.go"]}`
	}
	plan := func(phases ...string) fstest.MapFS {
		return fstest.MapFS{swarm.PlanPath: {Data: []byte(`{"schema_version":"1.0.0","title":"T","swarm":"default","current_phase":1,"phases":[` + strings.Join(phases, ",\n") + `]}`)}}
	}
	phase := func(id, tasks string) string {
		return `{"id":` + id + `,"name":"P","status":"in_progress","tasks":[` + tasks + `]}`
	}
	cases := []struct {
		name string
		head fstest.MapFS
		want string // in the error; "" for no duplicate error
	}{
		{"phase twice", plan(phase("1", task("1.1", "pending")), phase("1", task("1.9", "completed"))), "phase 1 appears 2 times (lines 1, 2)"},
		{"task twice in the phase", plan(phase("1", task("1.1", "pending")+",\n"+task("1.1", "completed"))), "task 1.1 appears 2 times"},
		{"task of the phase again in another", plan(phase("1", task("1.1", "pending")), phase("2", task("1.1", "completed"))), "task 1.1 appears 2 times"},
		{"another phase's duplicate", plan(phase("1", task("1.1", "pending")), phase("2", task("2.1", "pending")+",\n"+task("2.1", "pending"))), ""},
		{"no duplicate", plan(phase("1", task("1.1", "pending")), phase("2", task("2.1", "pending"))), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, g := range []Gate{Evidence{}, Scope{}, Drift{}} {
				r := eval(g, &Input{Phase: 1, Head: load(tc.head), Config: &Config{}})
				dup := r.Outcome == Error && strings.Contains(r.Title+r.Summary, "appears")
				switch {
				case tc.want == "" && dup:
					t.Errorf("%s: %s %q", g.Name(), r.Outcome, r.Title)
				case tc.want != "" && (r.Outcome != Error || !strings.Contains(r.Title+r.Summary, tc.want) || !strings.Contains(r.Title+r.Summary, swarm.PlanPath+":")):
					t.Errorf("%s: %s %q, want could not evaluate with %q and the file", g.Name(), r.Outcome, r.Title, tc.want)
				}
			}
		})
	}
}
