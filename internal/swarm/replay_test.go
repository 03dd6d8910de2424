package swarm

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
)

// replayCorpusLedgers lists every current and history/ plan-ledger.jsonl of
// the shared corpus (skipping when the corpus is absent).
func replayCorpusLedgers(t *testing.T) []string {
	t.Helper()
	corpusRepos(t)
	var out []string
	for _, glob := range []string{"*/.swarm/plan-ledger.jsonl", "*/history/*/plan-ledger.jsonl"} {
		files, err := filepath.Glob(filepath.Join(corpusDir, glob))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, files...)
	}
	if len(out) == 0 {
		t.Fatal("the corpus has no plan-ledger.jsonl")
	}
	return out
}

func readReplayLedger(t testing.TB, path string) *Ledger {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseLedger(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// legacyRoots are the corpus ledgers whose root plan_created has no
// payload.plan and no later event embeds one (msocr, all three versions: a
// root and one status change): the forward replay of spec section 3.7 has
// no state for them, and ReplayLedgerWithPlan explains them backwards from
// the plan.json beside them.
var legacyRoots = map[string][]int{
	"Areopaguaworkshop__msocr/.swarm/plan-ledger.jsonl":             {1, 2},
	"Areopaguaworkshop__msocr/history/9259dcb217/plan-ledger.jsonl": {1, 2},
	"Areopaguaworkshop__msocr/history/e2b1a897fa/plan-ledger.jsonl": {1, 2},
}

// TestReplayCorpus replays every ledger of the corpus with the plan.json
// beside it: every event must be explained, no locked profile may change,
// and the final replayed state must hash like that plan.json whenever it is
// the state the ledger ends in.
func TestReplayCorpus(t *testing.T) {
	hows := map[string]int{}
	events, finals := 0, 0
	files := replayCorpusLedgers(t)
	for _, f := range files {
		name := filepath.ToSlash(strings.TrimPrefix(f, corpusDir+string(filepath.Separator)))
		t.Run(name, func(t *testing.T) {
			l := readReplayLedger(t, f)
			var plan *Plan
			if data, err := os.ReadFile(filepath.Join(filepath.Dir(f), "plan.json")); err == nil {
				if plan, err = ParsePlan("plan.json", data); err != nil {
					t.Fatalf("plan.json beside the ledger: %v", err)
				}
			}
			var final *jsjson.Value
			if plan != nil {
				final = plan.Value
			}
			payloads := stringifyPayloads(l)
			forward := ReplayLedger(l)
			r := ReplayLedgerWithPlan(l, final)
			if !slices.Equal(payloads, stringifyPayloads(l)) {
				t.Error("the replay changed the ledger's parsed payloads")
			}
			if len(r.Steps) != len(l.Events) {
				t.Fatalf("%d steps for %d events", len(r.Steps), len(l.Events))
			}
			events += len(r.Steps)
			for i, st := range r.Steps {
				hows[st.How]++
				if ev := l.Events[i]; st.Seq != ev.Seq || st.Line != ev.Line || st.EventType != ev.EventType {
					t.Errorf("step %d is %+v, for event seq %d line %d %s", i, st, ev.Seq, ev.Line, ev.EventType)
				}
			}
			for _, st := range r.Unexplained {
				t.Errorf("seq %d (line %d) %s: %s", st.Seq, st.Line, st.EventType, st.Problem)
			}
			var fwd []int
			for _, st := range forward.Unexplained {
				fwd = append(fwd, st.Seq)
			}
			if want := legacyRoots[name]; !slices.Equal(fwd, want) {
				t.Errorf("the forward replay leaves seqs %v unexplained, want %v", fwd, want)
			}
			for _, st := range r.ProfileViolations {
				t.Errorf("seq %d changes the locked execution profile", st.Seq)
			}
			if plan == nil {
				return
			}
			if plan.Digests.Ledger != l.Last().PlanHashAfter {
				t.Logf("plan.json (%s) is not the last plan_hash_after (%s): final hash not compared",
					planhash.Short(plan.Digests.Ledger), planhash.Short(l.Last().PlanHashAfter))
				return
			}
			if legacyRoots[name] != nil {
				return // no forward state: the backward pass started from plan.json
			}
			finals++
			if r.FinalHash != plan.Digests.Ledger {
				t.Errorf("the final replayed state hashes to %q, plan.json to %s", planhash.Short(r.FinalHash), planhash.Short(plan.Digests.Ledger))
			}
		})
	}
	var keys []string
	for k := range hows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, hows[k])
	}
	t.Logf("replayed %d ledgers, %d events:%s; final state checked against plan.json for %d", len(files), events, b.String(), finals)
}

func stringifyPayloads(l *Ledger) []string {
	out := make([]string, len(l.Events))
	for i, ev := range l.Events {
		out[i] = string(jsjson.Stringify(ev.Payload))
	}
	return out
}

// TestReplayIMUParkinsonLock: the plan's execution profile is locked by the
// save_plan whose snapshot is seq 5 (it embeds locked: true); the
// execution_profile_set / execution_profile_locked audit events that
// save_plan appends after it (seq 6-7, again 9-10) re-state the same locked
// profile, and nothing changes it afterwards.
func TestReplayIMUParkinsonLock(t *testing.T) {
	corpusRepos(t)
	l := readReplayLedger(t, filepath.Join(corpusDir, "DediGadot__IMU-Parkinson", LedgerPath))
	r := ReplayLedger(l)
	if len(r.Unexplained) != 0 {
		t.Fatalf("unexplained: %+v", r.Unexplained)
	}
	firstLockedEvent := 0
	for _, ev := range l.Events {
		if ev.EventType == "execution_profile_locked" {
			firstLockedEvent = ev.Seq
			break
		}
	}
	if r.LockedSeq != 5 || firstLockedEvent != 7 {
		t.Errorf("LockedSeq %d (first execution_profile_locked event: seq %d), want 5 (the snapshot that first embeds locked: true; the lock events at 7 and 10 re-state it)", r.LockedSeq, firstLockedEvent)
	}
	want := `{"parallelization_enabled":false,"max_concurrent_tasks":1,"council_parallel":false,"locked":true}`
	if got := string(planhash.ExecutionProfileJSON(r.LockedProfile)); got != want {
		t.Errorf("LockedProfile %s, want %s", got, want)
	}
	if len(r.ProfileViolations) != 0 {
		t.Errorf("violations: %+v", r.ProfileViolations)
	}
	for _, seq := range []int{7, 10} {
		if st := r.Steps[seq-1]; st.EventType != "execution_profile_locked" || st.How != HowApplied {
			t.Errorf("seq %d: %+v, want an applied execution_profile_locked", seq, st)
		}
	}
}

// rtask and rplan describe small plans for hand-made ledgers; their hashes
// are computed with planhash, never written down.
type rtask struct{ id, status string }

type rphase struct {
	id     int
	status string
	tasks  []rtask
}

type rplan struct {
	profile string // execution_profile JSON, "" for none
	phases  []rphase
}

func (p rplan) json() string {
	var b strings.Builder
	b.WriteString(`{"schema_version":"1.0.0","title":"Replay test","swarm":"default","current_phase":1,`)
	if p.profile != "" {
		b.WriteString(`"execution_profile":` + p.profile + ",")
	}
	b.WriteString(`"phases":[`)
	for i, ph := range p.phases {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"Phase %d","status":%q,"tasks":[`, ph.id, ph.id, ph.status)
		for j, t := range ph.tasks {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"id":%q,"phase":%d,"status":%q,"size":"small","description":"Task %s","depends":[],"files_touched":[]}`, t.id, ph.id, t.status, t.id)
		}
		b.WriteString("]}")
	}
	b.WriteString("]}")
	return b.String()
}

func (p rplan) hash(t *testing.T) string {
	t.Helper()
	v, err := jsjson.Parse([]byte(p.json()))
	if err != nil {
		t.Fatal(err)
	}
	h, err := planhash.LedgerHash(v)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// rledger writes ledger lines with consecutive seqs.
type rledger struct {
	t     *testing.T
	lines []string
}

// embed appends an event that embeds plan (plan_created for the first line,
// snapshot after).
func (l *rledger) embed(before string, plan rplan) {
	typ, src := "snapshot", "takeSnapshotEvent"
	if len(l.lines) == 0 {
		typ, src = "plan_created", "initLedger"
	}
	h := plan.hash(l.t)
	l.add(typ, src, before, h, fmt.Sprintf(`"payload":{"plan":%s,"payload_hash":%q}`, plan.json(), h))
}

// add appends an event; extra holds further members (`"task_id":"1.1",...`).
func (l *rledger) add(typ, source, before, after, extra string) {
	line := fmt.Sprintf(`{"seq":%d,"timestamp":"2026-05-01T00:00:00.000Z","plan_id":"default-Replay_test","event_type":%q,"source":%q,"plan_hash_before":%q,"plan_hash_after":%q,"schema_version":"1.1.0"`,
		len(l.lines)+1, typ, source, before, after)
	if extra != "" {
		line += "," + extra
	}
	l.lines = append(l.lines, line+"}")
}

func (l *rledger) status(before, after, task, from, to string) {
	l.add("task_status_changed", "savePlan", before, after, fmt.Sprintf(`"task_id":%q,"from_status":%q,"to_status":%q`, task, from, to))
}

func (l *rledger) replay() *Replay {
	l.t.Helper()
	led, err := ParseLedger(LedgerPath, []byte(strings.Join(l.lines, "\n")+"\n"))
	if err != nil {
		l.t.Fatal(err)
	}
	return ReplayLedger(led)
}

func seqs(steps []ReplayStep) []int {
	var out []int
	for _, st := range steps {
		out = append(out, st.Seq)
	}
	return out
}

func hows(r *Replay) []string {
	var out []string
	for _, st := range r.Steps {
		out = append(out, st.How)
	}
	return out
}

const (
	unlockedProfile = `{"parallelization_enabled":false,"max_concurrent_tasks":1,"council_parallel":true,"locked":false}`
	lockedProfile   = `{"parallelization_enabled":false,"max_concurrent_tasks":1,"council_parallel":true,"locked":true}`
)

func TestReplayHandMade(t *testing.T) {
	pending := rplan{phases: []rphase{
		{1, "pending", []rtask{{"1.1", "pending"}, {"1.2", "pending"}, {"1.3", "pending"}}},
		{2, "pending", []rtask{{"2.1", "pending"}}},
	}}
	started := rplan{phases: []rphase{
		{1, "in_progress", []rtask{{"1.1", "in_progress"}, {"1.2", "pending"}, {"1.3", "pending"}}},
		{2, "pending", []rtask{{"2.1", "pending"}}},
	}}
	phase1Done := rplan{phases: []rphase{
		{1, "complete", []rtask{{"1.1", "completed"}, {"1.2", "completed"}, {"1.3", "completed"}}},
		{2, "pending", []rtask{{"2.1", "pending"}}},
	}}
	withProfile := func(p rplan, profile string) rplan { p.profile = profile; return p }

	for _, tc := range []struct {
		name  string
		build func(t *testing.T, l *rledger)
		check func(t *testing.T, r *Replay)
	}{
		{
			name: "tampered to_status",
			build: func(t *testing.T, l *rledger) {
				l.embed("", pending)
				// Written as in_progress; edited to completed afterwards.
				l.status(pending.hash(t), started.hash(t), "1.1", "pending", "completed")
				l.embed(started.hash(t), started)
			},
			check: func(t *testing.T, r *Replay) {
				if got := seqs(r.Unexplained); !slices.Equal(got, []int{2}) {
					t.Fatalf("unexplained %v, want [2]", got)
				}
				// The snapshot after it hashes to its plan_hash_after, but
				// does not show the status the event claims.
				p := r.Unexplained[0].Problem
				if !strings.Contains(p, "not the recorded plan_hash_after "+planhash.Short(started.hash(t))) || !strings.Contains(p, `task 1.1 is "in_progress" there, not "completed"`) {
					t.Errorf("problem %q", p)
				}
			},
		},
		{
			name: "status change no event records",
			build: func(t *testing.T, l *rledger) {
				l.embed("", pending)
				l.add("task_updated", "savePlan", pending.hash(t), started.hash(t), `"task_id":"1.1"`)
				l.embed(started.hash(t), started)
			},
			check: func(t *testing.T, r *Replay) {
				if got := seqs(r.Unexplained); !slices.Equal(got, []int{2}) || !strings.Contains(r.Unexplained[0].Problem, "differs only in statuses") {
					t.Errorf("unexplained %+v", r.Unexplained)
				}
			},
		},
		{
			name: "to_status outside the enum",
			build: func(t *testing.T, l *rledger) {
				l.embed("", pending)
				l.status(pending.hash(t), started.hash(t), "1.1", "pending", "done")
			},
			check: func(t *testing.T, r *Replay) {
				if got := seqs(r.Unexplained); !slices.Equal(got, []int{2}) {
					t.Fatalf("unexplained %v, want [2]", got)
				}
				if p := r.Unexplained[0].Problem; !strings.Contains(p, `"done" is not a task status`) || !strings.Contains(p, "no later event embeds a plan") {
					t.Errorf("problem %q", p)
				}
			},
		},
		{
			name: "batch of status events sharing before and after",
			build: func(t *testing.T, l *rledger) {
				l.embed("", pending)
				for _, id := range []string{"1.1", "1.2", "1.3"} {
					l.status(pending.hash(t), phase1Done.hash(t), id, "pending", "completed")
				}
			},
			check: func(t *testing.T, r *Replay) {
				if want := []string{HowEmbedded, HowApplied, HowApplied, HowApplied}; !slices.Equal(hows(r), want) {
					t.Errorf("hows %v, want %v", hows(r), want)
				}
				if r.FinalHash != phase1Done.hash(t) {
					t.Errorf("final hash %s", r.FinalHash)
				}
			},
		},
		{
			name: "a batch missing one of its events",
			build: func(t *testing.T, l *rledger) {
				l.embed("", pending)
				for _, id := range []string{"1.1", "1.3"} {
					l.status(pending.hash(t), phase1Done.hash(t), id, "pending", "completed")
				}
			},
			check: func(t *testing.T, r *Replay) {
				if got := seqs(r.Unexplained); !slices.Equal(got, []int{2, 3}) {
					t.Errorf("unexplained %v, want the whole batch [2 3]", got)
				}
			},
		},
		{
			name: "task_removed batch",
			build: func(t *testing.T, l *rledger) {
				removed := rplan{phases: []rphase{
					{1, "in_progress", []rtask{{"1.1", "in_progress"}}},
					{2, "pending", []rtask{{"2.1", "pending"}}},
				}}
				l.embed("", started)
				l.add("task_removed", "savePlan", started.hash(t), removed.hash(t), `"task_id":"1.2"`)
				l.add("task_removed", "savePlan", started.hash(t), removed.hash(t), `"task_id":"1.3"`)
			},
			check: func(t *testing.T, r *Replay) {
				if len(r.Unexplained) != 0 {
					t.Fatalf("unexplained %+v", r.Unexplained)
				}
				if want := map[string]int{"1.2": 2, "1.3": 3}; fmt.Sprint(r.Removed) != fmt.Sprint(want) {
					t.Errorf("Removed %v, want %v", r.Removed, want)
				}
			},
		},
		{
			name: "removing every task of a phase makes it pending",
			build: func(t *testing.T, l *rledger) {
				before := rplan{phases: []rphase{
					{1, "complete", []rtask{{"1.1", "completed"}}},
					{2, "in_progress", []rtask{{"2.1", "in_progress"}}},
				}}
				after := rplan{phases: []rphase{
					{1, "pending", nil},
					{2, "in_progress", []rtask{{"2.1", "in_progress"}}},
				}}
				l.embed("", before)
				l.add("task_removed", "savePlan", before.hash(t), after.hash(t), `"task_id":"1.1"`)
			},
			check: func(t *testing.T, r *Replay) {
				if len(r.Unexplained) != 0 {
					t.Fatalf("unexplained %+v", r.Unexplained)
				}
			},
		},
		{
			name: "plan_reset",
			build: func(t *testing.T, l *rledger) {
				l.embed("", pending)
				l.add("plan_reset", "test", pending.hash(t), pending.hash(t), "")
				// After a reset, a batch applies only to a state already
				// replayed under its plan_hash_before.
				l.status("0000", started.hash(t), "1.1", "pending", "in_progress")
				l.status(pending.hash(t), started.hash(t), "1.1", "pending", "in_progress")
			},
			check: func(t *testing.T, r *Replay) {
				if want := []string{HowEmbedded, HowReset, HowUnexplained, HowApplied}; !slices.Equal(hows(r), want) {
					t.Errorf("hows %v, want %v", hows(r), want)
				}
				if p := r.Steps[2].Problem; !strings.Contains(p, "reset at seq 2") {
					t.Errorf("problem %q does not name the reset", p)
				}
				if r.FinalHash != started.hash(t) {
					t.Errorf("final hash %q", r.FinalHash)
				}
			},
		},
		{
			name: "plan_reset last",
			build: func(t *testing.T, l *rledger) {
				l.embed("", withProfile(pending, lockedProfile))
				l.add("plan_reset", "test", pending.hash(t), pending.hash(t), "")
				l.embed("", withProfile(pending, unlockedProfile))
				l.add("plan_reset", "test", pending.hash(t), pending.hash(t), "")
			},
			check: func(t *testing.T, r *Replay) {
				if len(r.Unexplained) != 0 || r.FinalHash != "" {
					t.Errorf("unexplained %+v, final hash %q", r.Unexplained, r.FinalHash)
				}
				if r.LockedSeq != 1 || len(r.ProfileViolations) != 0 {
					t.Errorf("LockedSeq %d, violations %v: a reset clears the lock", r.LockedSeq, seqs(r.ProfileViolations))
				}
			},
		},
		{
			name: "plan_reset then a new snapshot",
			build: func(t *testing.T, l *rledger) {
				l.embed("", started)
				l.add("plan_reset", "test", started.hash(t), started.hash(t), "")
				l.embed(started.hash(t), pending)
				l.status(pending.hash(t), started.hash(t), "1.1", "pending", "in_progress")
			},
			check: func(t *testing.T, r *Replay) {
				if want := []string{HowEmbedded, HowReset, HowEmbedded, HowApplied}; !slices.Equal(hows(r), want) {
					t.Errorf("hows %v, want %v", hows(r), want)
				}
				if r.FinalHash != started.hash(t) {
					t.Errorf("final hash %s", r.FinalHash)
				}
			},
		},
		{
			name: "structural re-save explained by the next snapshot",
			build: func(t *testing.T, l *rledger) {
				// save_plan started 1.1 and added task 1.4 in the same call;
				// only the status change has an event.
				resaved := rplan{phases: []rphase{
					{1, "in_progress", []rtask{{"1.1", "in_progress"}, {"1.2", "pending"}, {"1.3", "pending"}, {"1.4", "pending"}}},
					{2, "pending", []rtask{{"2.1", "pending"}}},
				}}
				l.embed("", pending)
				l.status(pending.hash(t), resaved.hash(t), "1.1", "pending", "in_progress")
				l.embed(resaved.hash(t), resaved)
			},
			check: func(t *testing.T, r *Replay) {
				if want := []string{HowEmbedded, HowResave, HowEmbedded}; !slices.Equal(hows(r), want) {
					t.Errorf("hows %v, want %v", hows(r), want)
				}
			},
		},
		{
			name: "structural edit with no snapshot after it",
			build: func(t *testing.T, l *rledger) {
				resaved := rplan{phases: []rphase{
					{1, "in_progress", []rtask{{"1.1", "in_progress"}, {"1.2", "pending"}, {"1.3", "pending"}, {"1.4", "pending"}}},
					{2, "pending", []rtask{{"2.1", "pending"}}},
				}}
				l.embed("", pending)
				l.status(pending.hash(t), resaved.hash(t), "1.1", "pending", "in_progress")
			},
			check: func(t *testing.T, r *Replay) {
				if got := seqs(r.Unexplained); !slices.Equal(got, []int{2}) {
					t.Errorf("unexplained %v, want [2]", got)
				}
			},
		},
		{
			name: "execution_profile_set after the lock changes max_concurrent_tasks",
			build: func(t *testing.T, l *rledger) {
				locked := withProfile(pending, lockedProfile)
				changed := `{"parallelization_enabled":false,"max_concurrent_tasks":4,"council_parallel":true,"locked":true}`
				l.embed("", withProfile(pending, unlockedProfile))
				// save_plan wrote the locked plan, then appended its audit
				// events: plan_hash_before is already the locked plan.
				l.add("execution_profile_set", "save_plan", locked.hash(t), locked.hash(t), `"payload":{"execution_profile":`+lockedProfile+`}`)
				l.add("execution_profile_locked", "save_plan", locked.hash(t), locked.hash(t), `"payload":{}`)
				l.status(locked.hash(t), withProfile(started, lockedProfile).hash(t), "1.1", "pending", "in_progress")
				l.add("execution_profile_set", "save_plan", withProfile(started, lockedProfile).hash(t), withProfile(started, changed).hash(t), `"payload":{"execution_profile":`+changed+`}`)
			},
			check: func(t *testing.T, r *Replay) {
				if len(r.Unexplained) != 0 {
					t.Fatalf("unexplained %+v", r.Unexplained)
				}
				if r.LockedSeq != 2 {
					t.Errorf("LockedSeq %d, want 2", r.LockedSeq)
				}
				if got := string(planhash.ExecutionProfileJSON(r.LockedProfile)); got != lockedProfile {
					t.Errorf("LockedProfile %s", got)
				}
				if got := seqs(r.ProfileViolations); !slices.Equal(got, []int{5}) {
					t.Errorf("violations %v, want [5]", got)
				}
			},
		},
		{
			name: "execution_profile_locked locks the profile in place",
			build: func(t *testing.T, l *rledger) {
				unlocked := withProfile(pending, unlockedProfile)
				l.embed("", unlocked)
				l.add("execution_profile_locked", "save_plan", unlocked.hash(t), withProfile(pending, lockedProfile).hash(t), "")
			},
			check: func(t *testing.T, r *Replay) {
				if len(r.Unexplained) != 0 || r.LockedSeq != 2 || len(r.ProfileViolations) != 0 {
					t.Errorf("unexplained %+v, LockedSeq %d, violations %v", r.Unexplained, r.LockedSeq, seqs(r.ProfileViolations))
				}
			},
		},
		{
			name: "planning_profile ratchet balanced to strict is allowed",
			build: func(t *testing.T, l *rledger) {
				balanced := `{"locked":true,"planning_profile":"balanced"}`
				strict := `{"locked":true,"planning_profile":"strict"}`
				l.embed("", withProfile(pending, balanced))
				l.embed(withProfile(pending, balanced).hash(t), withProfile(pending, strict))
				l.embed(withProfile(pending, strict).hash(t), withProfile(pending, balanced))
			},
			check: func(t *testing.T, r *Replay) {
				if r.LockedSeq != 1 {
					t.Errorf("LockedSeq %d, want 1", r.LockedSeq)
				}
				if got := seqs(r.ProfileViolations); !slices.Equal(got, []int{3}) {
					t.Errorf("violations %v, want only the relaxation back to balanced [3]", got)
				}
			},
		},
		{
			name: "audit-only event",
			build: func(t *testing.T, l *rledger) {
				l.embed("", pending)
				l.add("plan_exported", "export", pending.hash(t), pending.hash(t), "")
				l.add("task_added", "savePlan", pending.hash(t), started.hash(t), `"task_id":"1.1"`)
			},
			check: func(t *testing.T, r *Replay) {
				if want := []string{HowEmbedded, HowAudit, HowUnexplained}; !slices.Equal(hows(r), want) {
					t.Errorf("hows %v, want %v", hows(r), want)
				}
			},
		},
		{
			name: "unknown event type",
			build: func(t *testing.T, l *rledger) {
				l.embed("", pending)
				l.add("task_renamed", "savePlan", pending.hash(t), pending.hash(t), "")
			},
			check: func(t *testing.T, r *Replay) {
				if got := seqs(r.Unexplained); !slices.Equal(got, []int{2}) || !strings.Contains(r.Unexplained[0].Problem, `unknown event_type "task_renamed"`) {
					t.Errorf("unexplained %+v", r.Unexplained)
				}
			},
		},
		{
			name: "edited snapshot",
			build: func(t *testing.T, l *rledger) {
				l.embed("", pending)
				l.embed(pending.hash(t), started)
				l.lines[1] = strings.Replace(l.lines[1], `"description":"Task 2.1"`, `"description":"Task 2.1 (edited)"`, 1)
			},
			check: func(t *testing.T, r *Replay) {
				if got := seqs(r.Unexplained); !slices.Equal(got, []int{2}) || !strings.Contains(r.Unexplained[0].Problem, "but plan_hash_after is "+planhash.Short(started.hash(t))) {
					t.Errorf("unexplained %+v", r.Unexplained)
				}
			},
		},
		{
			name: "no embedded plan at all",
			build: func(t *testing.T, l *rledger) {
				l.add("plan_created", "initLedger", "", pending.hash(t), "")
				l.status(pending.hash(t), started.hash(t), "1.1", "pending", "in_progress")
			},
			check: func(t *testing.T, r *Replay) {
				if got := seqs(r.Unexplained); !slices.Equal(got, []int{1, 2}) || !strings.Contains(r.Unexplained[1].Problem, "no earlier event embeds one") {
					t.Errorf("unexplained %+v", r.Unexplained)
				}
				if r.FinalHash != "" {
					t.Errorf("final hash %q", r.FinalHash)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &rledger{t: t}
			tc.build(t, l)
			r := l.replay()
			checkReplayShape(t, r)
			tc.check(t, r)
		})
	}
}

// checkReplayShape checks what holds for every replay.
func checkReplayShape(t testing.TB, r *Replay) {
	t.Helper()
	var unexplained []ReplayStep
	for _, st := range r.Steps {
		if st.Explained == (st.How == HowUnexplained) || st.Explained == (st.Problem != "") {
			t.Fatalf("inconsistent step %+v", st)
		}
		if !st.Explained {
			unexplained = append(unexplained, st)
		}
	}
	if !slices.Equal(unexplained, r.Unexplained) {
		t.Fatalf("Unexplained %+v, but the unexplained steps are %+v", r.Unexplained, unexplained)
	}
	if (r.LockedSeq == 0) != (r.LockedProfile == nil) {
		t.Fatalf("LockedSeq %d with LockedProfile %v", r.LockedSeq, r.LockedProfile)
	}
}

func TestReplayNilAndEmpty(t *testing.T) {
	for _, l := range []*Ledger{nil, {}} {
		r := ReplayLedger(l)
		if len(r.Steps) != 0 || r.FinalHash != "" || r.Removed == nil {
			t.Errorf("%+v", r)
		}
	}
}

func FuzzReplayLedger(f *testing.F) {
	// Small corpus ledgers only: the fuzzer spends up to a minute minimising
	// each new input, which for a 30 KB ledger eats a short run.
	for _, p := range []string{
		"Areopaguaworkshop__msocr/.swarm/plan-ledger.jsonl",                                     // legacy, no embedded plan
		"jonathanlopezc83717-commits__Frontend_1er_modulo/history/ea3136b455/plan-ledger.jsonl", // snapshots and a status change
	} {
		if data, err := os.ReadFile(filepath.Join(corpusDir, p)); err == nil {
			f.Add(data)
		}
	}
	plan := `{"schema_version":"1.0.0","title":"T","swarm":"s","execution_profile":{"locked":true},"phases":[{"id":1,"name":"P","tasks":[{"id":"1.1","phase":1,"description":"d"}]}]}`
	f.Add([]byte(`{"seq":1,"timestamp":"t","plan_id":"p","event_type":"snapshot","source":"s","plan_hash_before":"","plan_hash_after":"x","schema_version":"1.0.0","payload":{"plan":` + plan + `}}
{"seq":2,"timestamp":"t","plan_id":"p","event_type":"task_removed","task_id":"1.1","source":"s","plan_hash_before":"x","plan_hash_after":"y","schema_version":"1.0.0"}
{"seq":3,"timestamp":"t","plan_id":"p","event_type":"execution_profile_set","source":"s","plan_hash_before":"y","plan_hash_after":"y","schema_version":"1.0.0","payload":{"execution_profile":{"locked":false}}}
{"seq":4,"timestamp":"t","plan_id":"p","event_type":"execution_profile_locked","source":"s","plan_hash_before":"y","plan_hash_after":"y","schema_version":"1.0.0"}
{"seq":5,"timestamp":"t","plan_id":"p","event_type":"plan_reset","source":"s","plan_hash_before":"y","plan_hash_after":"y","schema_version":"1.0.0"}
{"seq":6,"timestamp":"t","plan_id":"p","event_type":"phase_completed","phase_id":1,"source":"s","plan_hash_before":"x","plan_hash_after":"z","schema_version":"1.0.0","payload":{"plan":null}}
{"seq":7,"timestamp":"t","plan_id":"p","event_type":"task_status_changed","task_id":"1.1","to_status":"completed","source":"s","plan_hash_before":"x","plan_hash_after":"z","schema_version":"1.0.0"}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, _ := ParseLedger(LedgerPath, data) // the events before a bad line are replayed
		payloads := stringifyPayloads(l)
		r := ReplayLedger(l)
		if len(r.Steps) != len(l.Events) {
			t.Fatalf("%d steps for %d events", len(r.Steps), len(l.Events))
		}
		checkReplayShape(t, r)
		if !slices.Equal(payloads, stringifyPayloads(l)) {
			t.Fatal("ReplayLedger changed the ledger's parsed payloads")
		}
		if r.FinalHash != "" && len(r.FinalHash) != 64 {
			t.Fatalf("final hash %q", r.FinalHash)
		}
		if r.LockedProfile != nil && bytes.Equal(planhash.ExecutionProfileJSON(r.LockedProfile), nil) {
			t.Fatal("locked profile serialises to nothing")
		}
	})
}
