package swarm

import (
	"slices"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
)

// TestReplayBackward covers ledgers whose root has no payload.plan (the
// msocr shape): their first events are explained backwards from plan.json,
// or from the first embedded plan, or not at all.
func TestReplayBackward(t *testing.T) {
	pending := rplan{phases: []rphase{{1, "pending", []rtask{{"1.1", "pending"}, {"1.2", "pending"}}}}}
	started := rplan{phases: []rphase{{1, "in_progress", []rtask{{"1.1", "in_progress"}, {"1.2", "pending"}}}}}
	done1 := rplan{phases: []rphase{{1, "in_progress", []rtask{{"1.1", "completed"}, {"1.2", "pending"}}}}}
	parse := func(t *testing.T, p rplan) *jsjson.Value {
		v, err := jsjson.Parse([]byte(p.json()))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	root := func(t *testing.T, l *rledger, p rplan) { l.add("plan_created", "initLedger", "", p.hash(t), "") }
	cases := []struct {
		name            string
		build           func(t *testing.T, l *rledger)
		final           rplan
		noFinal         bool
		wantUnexplained []int
	}{
		{"root and two status batches, explained from plan.json", func(t *testing.T, l *rledger) {
			root(t, l, pending)
			l.status(pending.hash(t), started.hash(t), "1.1", "pending", "in_progress")
			l.status(started.hash(t), done1.hash(t), "1.1", "in_progress", "completed")
		}, done1, false, nil},
		{"plan_hash_before not recorded", func(t *testing.T, l *rledger) {
			root(t, l, pending)
			l.status("", started.hash(t), "1.1", "pending", "in_progress")
		}, started, false, nil},
		{"explained from the first embedded plan", func(t *testing.T, l *rledger) {
			root(t, l, pending)
			l.status(pending.hash(t), started.hash(t), "1.1", "pending", "in_progress")
			l.embed(started.hash(t), started)
		}, started, true, nil},
		{"no plan.json: nothing to start from", func(t *testing.T, l *rledger) {
			root(t, l, pending)
			l.status(pending.hash(t), started.hash(t), "1.1", "pending", "in_progress")
		}, rplan{}, true, []int{1, 2}},
		{"plan.json edited outside the ledger", func(t *testing.T, l *rledger) {
			root(t, l, pending)
			l.status(pending.hash(t), started.hash(t), "1.1", "pending", "in_progress")
		}, done1, false, []int{1, 2}},
		{"from_status tampered", func(t *testing.T, l *rledger) {
			root(t, l, pending)
			l.status(pending.hash(t), started.hash(t), "1.1", "blocked", "in_progress")
		}, started, false, []int{1, 2}},
		{"root records another plan", func(t *testing.T, l *rledger) {
			root(t, l, started)
			l.status(pending.hash(t), started.hash(t), "1.1", "pending", "in_progress")
		}, started, false, []int{1}}, // seq 2 is consistent; the root is not
		{"an event that cannot be undone stops the walk", func(t *testing.T, l *rledger) {
			root(t, l, pending)
			l.add("task_removed", "save_plan", pending.hash(t), started.hash(t), `"task_id":"1.3"`)
		}, started, false, []int{1, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := &rledger{t: t}
			c.build(t, l)
			led, err := ParseLedger(LedgerPath, []byte(strings.Join(l.lines, "\n")+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			var final *jsjson.Value
			if !c.noFinal {
				final = parse(t, c.final)
			}
			r := ReplayLedgerWithPlan(led, final)
			checkReplayShape(t, r)
			if got := seqs(r.Unexplained); !slices.Equal(got, c.wantUnexplained) {
				t.Fatalf("unexplained %v, want %v (%v)", got, c.wantUnexplained, hows(r))
			}
			if c.wantUnexplained == nil && r.Steps[0].How != HowBackward {
				t.Errorf("root explained as %q, want %q", r.Steps[0].How, HowBackward)
			}
		})
	}
}

// TestReplayUnknownTypeWithPlan: an event type the plugin does not write is
// unexplained even when it carries a plan that re-hashes.
func TestReplayUnknownTypeWithPlan(t *testing.T) {
	p := rplan{phases: []rphase{{1, "pending", []rtask{{"1.1", "pending"}}}}}
	l := &rledger{t: t}
	l.embed("", p)
	h := p.hash(t)
	l.add("task_teleported", "save_plan", h, h, `"payload":{"plan":`+p.json()+`,"payload_hash":"`+h+`"}`)
	r := l.replay()
	if got := seqs(r.Unexplained); !slices.Equal(got, []int{2}) || !strings.Contains(r.Unexplained[0].Problem, `"task_teleported" is not one the plugin writes`) {
		t.Fatalf("unexplained %+v", r.Unexplained)
	}
}

// TestReplayStructureHashOutsideCriticSnapshot: a save_plan snapshot whose
// payload_hash is the structure hash says so, instead of contradicting itself.
func TestReplayStructureHashOutsideCriticSnapshot(t *testing.T) {
	p := rplan{phases: []rphase{{1, "pending", []rtask{{"1.1", "pending"}}}}}
	v, err := jsjson.Parse([]byte(p.json()))
	if err != nil {
		t.Fatal(err)
	}
	sh, err := planhash.StructureHash(v)
	if err != nil {
		t.Fatal(err)
	}
	l := &rledger{t: t}
	l.embed("", p)
	l.add("snapshot", "save_plan", p.hash(t), p.hash(t), `"payload":{"plan":`+p.json()+`,"payload_hash":"`+sh+`"}`)
	r := l.replay()
	if len(r.Unexplained) != 1 || !strings.Contains(r.Unexplained[0].Problem, "which only critic_approved snapshots carry") {
		t.Fatalf("unexplained %+v", r.Unexplained)
	}
}

// TestReplayFromStatusEdited: a from_status that is not the task's status
// at that point is an edited line, even though no hash covers it.
func TestReplayFromStatusEdited(t *testing.T) {
	pending := rplan{phases: []rphase{{1, "pending", []rtask{{"1.1", "pending"}}}}}
	started := rplan{phases: []rphase{{1, "in_progress", []rtask{{"1.1", "in_progress"}}}}}
	for _, tc := range []struct {
		from string
		want []int
	}{{"pending", nil}, {"blocked", []int{2}}} {
		l := &rledger{t: t}
		l.embed("", pending)
		l.status(pending.hash(t), started.hash(t), "1.1", tc.from, "in_progress")
		r := l.replay()
		if got := seqs(r.Unexplained); !slices.Equal(got, tc.want) {
			t.Errorf("from_status %q: unexplained %v, want %v", tc.from, got, tc.want)
		}
		if tc.want != nil && !strings.Contains(r.Unexplained[0].Problem, `went from "blocked", but the task was "pending"`) {
			t.Errorf("problem %q", r.Unexplained[0].Problem)
		}
	}
}
