package swarm_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

const sharedCorpus = "../../../shared/corpus"

var (
	approvedAt = time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	writtenAt  = approvedAt.Add(1500 * time.Millisecond)
)

func approval(reason string) swarm.ManualApproval {
	return swarm.ManualApproval{Reason: reason, SessionID: swarm.ApprovalSessionID(42), ApprovedAt: approvedAt, WrittenAt: writtenAt}
}

// maintainer is the verified `/swarm approve-plan-critic` comment behind a
// record swarm-gate wrote, bound to the head plan's structure hash.
func maintainer(a *swarm.Artifacts) gates.Override {
	return gates.Override{Command: gates.CommandApprovePlanCritic, Actor: "maint", StructureHash: a.Plan.Digests.Structure, RecordedAt: approvedAt.Format(time.RFC3339), Reason: "reviewed"}
}

// copySwarm copies a corpus repository's .swarm folder into a fresh
// directory at test time and returns the directory (the repository root).
func copySwarm(t *testing.T, repo string) string {
	t.Helper()
	src := filepath.Join(sharedCorpus, repo, swarm.Dir)
	if _, err := os.Stat(src); err != nil {
		sharedtest.Skip(t, "skipping: %s is absent (clone ../shared beside the repo to run corpus tests)", src)
	}
	root := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(root, swarm.Dir, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// readFiles reads the record's input files from a repository root.
func readFiles(t *testing.T, root string) swarm.ApprovalFiles {
	t.Helper()
	var f swarm.ApprovalFiles
	read := func(p string) ([]byte, bool) {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false
		}
		if err != nil {
			t.Fatal(err)
		}
		return data, true
	}
	f.Plan, _ = read(swarm.PlanPath)
	f.Ledger, f.HasLedger = read(swarm.LedgerPath)
	f.Events, f.HasEvents = read(swarm.EventsPath)
	return f
}

func write(t *testing.T, root, p string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(p)), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// evalGates runs swarm/plan-freeze and swarm/critic from gates.Registry
// with base as the merge base and head as the pull request's head.
func evalGates(t *testing.T, base, head *swarm.Artifacts, overrides ...gates.Override) map[string]gates.Result {
	t.Helper()
	var gs []gates.Gate
	for _, g := range gates.Registry() {
		if g.Name() == "swarm/plan-freeze" || g.Name() == "swarm/critic" {
			gs = append(gs, g)
		}
	}
	phase := 1
	if head.Plan != nil && head.Plan.CurrentPhase > 0 {
		phase = head.Plan.CurrentPhase
	}
	in := &gates.Input{Phase: phase, PhaseSource: gates.PhaseFromFlag, Base: base, Head: head, Changes: &changeset.ChangeSet{}, Overrides: overrides}
	out := map[string]gates.Result{}
	for _, r := range gates.Run(context.Background(), in, gs) {
		out[r.Name] = r
	}
	if len(out) != 2 {
		t.Fatalf("gates.Registry has no plan-freeze or critic gate: %v", out)
	}
	return out
}

// TestAppendManualApprovalCorpus appends the approval to a copy of every
// corpus repository's .swarm that has a plan and a ledger, writes the files
// back, and re-reads them with swarm.Load: the old bytes are a prefix, the
// ledger replays with no more unexplained events than before (none, for
// every corpus ledger whose history is complete), the snapshot's
// payload_hash re-hashes to the plan's structure hash and its embedded plan
// to plan_hash_after, and swarm/plan-freeze and swarm/critic find the
// approval and pass.
func TestAppendManualApprovalCorpus(t *testing.T) {
	entries, err := os.ReadDir(sharedCorpus)
	if err != nil {
		sharedtest.Skip(t, "skipping: the shared corpus is not at %s", sharedCorpus)
	}
	tested := 0
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(sharedCorpus, e.Name(), swarm.LedgerPath)); err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(sharedCorpus, e.Name(), swarm.PlanPath)); err != nil {
			continue
		}
		tested++
		t.Run(e.Name(), func(t *testing.T) {
			root := copySwarm(t, e.Name())
			old := swarm.Load(os.DirFS(root))
			f := readFiles(t, root)
			rec, err := swarm.AppendManualApproval(f, approval("the critic's APPROVED verdict was lost in a crash"))
			if err != nil {
				t.Fatal(err)
			}
			write(t, root, swarm.LedgerPath, rec.Ledger)
			write(t, root, swarm.EventsPath, rec.Events)
			if !bytes.HasPrefix(rec.Ledger, f.Ledger) || (f.HasEvents && !bytes.HasPrefix(rec.Events, f.Events)) {
				t.Fatal("the old bytes are not kept as a prefix")
			}
			a := swarm.Load(os.DirFS(root))
			if a.LedgerErr != nil || a.EventsErr != nil || a.PlanErr != nil {
				t.Fatalf("re-reading: %v / %v / %v", a.LedgerErr, a.EventsErr, a.PlanErr)
			}
			last := a.Ledger.Last()
			if last.Seq != old.Ledger.Last().Seq+1 || last.EventType != "snapshot" || last.Source != "critic_approved" || last.SchemaVersion != "1.1.0" {
				t.Errorf("last event: seq %d %s/%s %s", last.Seq, last.EventType, last.Source, last.SchemaVersion)
			}
			embedded := last.Payload.Get("plan")
			s, err := planhash.StructureHash(embedded)
			if err != nil || last.PayloadHash != s || s != a.Plan.Digests.Structure {
				t.Errorf("payload_hash %s, the embedded plan's structure hash %s (%v), plan.json's %s", last.PayloadHash, s, err, a.Plan.Digests.Structure)
			}
			if l, _ := planhash.LedgerHash(embedded); l != last.PlanHashAfter || last.PlanHashBefore != last.PlanHashAfter || l != a.Plan.Digests.Ledger {
				t.Errorf("embedded plan hashes to %s; before %s after %s; plan.json %s", l, last.PlanHashBefore, last.PlanHashAfter, a.Plan.Digests.Ledger)
			}
			ap := last.Approval
			if ap == nil || ap.Verdict != "APPROVED" || !ap.IsPlanCritic() || ap.Method != "manual_override" || ap.UserConfirmed == nil || !*ap.UserConfirmed ||
				ap.SessionID != "swarm-gate:comment:42" || ap.ApprovedAt != "2026-11-03T10:00:00.000Z" || last.Timestamp != "2026-11-03T10:00:01.500Z" {
				t.Errorf("approval %+v at %s", ap, last.Timestamp)
			}
			if got, _ := a.Ledger.LastPlanCriticApproval(a.Plan.ID()); got == nil || got.Seq != last.Seq {
				t.Errorf("the plugin's lookup finds %v, want seq %d", got, last.Seq)
			}
			if a.Ledger.ManualApprovalBySession(swarm.ApprovalSessionID(42)) == nil || a.Ledger.ManualApprovalBySession(swarm.ApprovalSessionID(43)) != nil {
				t.Error("ManualApprovalBySession does not key on the session id")
			}
			before := swarm.ReplayLedgerWithPlan(old.Ledger, old.Plan.Value)
			after := swarm.ReplayLedgerWithPlan(a.Ledger, a.Plan.Value)
			if len(after.Unexplained) != len(before.Unexplained) || after.FinalHash != a.Plan.Digests.Ledger && before.FinalHash == old.Plan.Digests.Ledger {
				t.Errorf("replay: %d unexplained before, %d after (%+v); final hash %s", len(before.Unexplained), len(after.Unexplained), after.Unexplained, after.FinalHash)
			}
			if len(before.Unexplained) == 0 {
				for name, r := range evalGates(t, old, a, maintainer(a)) {
					if r.Outcome == gates.Passed {
						continue
					}
					// Only a finding the approval cannot clear may remain
					// (quest-forge's spec-staleness.json).
					for _, f := range r.Findings {
						if f.Severity == gates.SeverityError && f.Rule != gates.RuleSpecStale {
							t.Errorf("%s after the approval: %s: %s: %s", name, r.Outcome, f.Rule, f.Message)
						}
					}
				}
			}
			evs := a.Events.Events
			if got := evs[len(evs)-1]; got.Type != "plan_critic_gate_manual_approval" || got.Value.Get("plan_id").Str != a.Plan.ID() {
				t.Errorf("last events line: %s", jsjson.Stringify(got.Value))
			}
		})
	}
	if tested < 8 {
		t.Fatalf("only %d corpus repositories have a plan and a ledger", tested)
	}
}

// TestApprovalTurnsPlanFreezeGreen: a corpus plan edited after the critic's
// approval fails swarm/plan-freeze and swarm/critic; the appended approval,
// re-read by swarm.Load, turns both green on the new head.
func TestApprovalTurnsPlanFreezeGreen(t *testing.T) {
	root := copySwarm(t, "VerduzcoTristan__landingpage")
	base := swarm.Load(os.DirFS(root))
	f := readFiles(t, root)
	// A structural edit the critic never saw, saved through the plugin: a
	// re-save snapshot embedding the edited plan.
	edited := bytes.Replace(f.Plan, []byte(`"name": "Hub Build"`), []byte(`"name": "Hub Build and Deploy"`), 1)
	if bytes.Equal(edited, f.Plan) {
		t.Fatal("the fixture edit did not apply")
	}
	ep, err := swarm.ParsePlan(swarm.PlanPath, edited)
	if err != nil {
		t.Fatal(err)
	}
	snap := []byte(`{"event_type":"snapshot","source":"takeSnapshotEvent","plan_id":`)
	snap = jsjson.AppendString(snap, ep.ID())
	snap = append(snap, `,"payload":{"plan":`...)
	snap = jsjson.Append(snap, swarm.EmbeddedPlan(ep.Value))
	snap = append(snap, `,"payload_hash":"`+ep.Digests.Ledger+`"},"seq":10,"timestamp":"2026-11-03T09:00:00.000Z","plan_hash_before":"`+base.Plan.Digests.Ledger+`","plan_hash_after":"`+ep.Digests.Ledger+`","schema_version":"1.1.0"}`+"\n"...)
	write(t, root, swarm.PlanPath, edited)
	write(t, root, swarm.LedgerPath, append(append([]byte{}, f.Ledger...), snap...))
	head := swarm.Load(os.DirFS(root))
	res := evalGates(t, base, head)
	if r := res["swarm/plan-freeze"]; r.Outcome != gates.Failed || !strings.Contains(r.Title, "changed since the critic approved it") {
		t.Fatalf("plan-freeze before the approval: %s: %s", r.Outcome, r.Title)
	}
	if r := res["swarm/critic"]; r.Outcome != gates.Failed {
		t.Fatalf("critic before the approval: %s: %s", r.Outcome, r.Title)
	}

	rec, err := swarm.AppendManualApproval(readFiles(t, root), approval("renamed the phase; the critic's verdict stands"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, swarm.LedgerPath, rec.Ledger)
	write(t, root, swarm.EventsPath, rec.Events)
	approved := swarm.Load(os.DirFS(root))
	// The record alone, with no maintainer's comment behind it, is a
	// manual override the agent could have written: it does not cover the
	// material change.
	if r := evalGates(t, base, approved)["swarm/plan-freeze"]; r.Outcome != gates.Failed || !strings.Contains(r.Title, "the agent approved its own material change") {
		t.Errorf("plan-freeze with the record but no comment: %s: %s", r.Outcome, r.Title)
	}
	res = evalGates(t, base, approved, maintainer(approved))
	for name, r := range res {
		if r.Outcome != gates.Passed {
			t.Errorf("%s after the approval: %s: %s\n%s", name, r.Outcome, r.Title, r.Summary)
		}
	}
	if s := res["swarm/plan-freeze"].Summary; !strings.Contains(s, "manual override") || !strings.Contains(s, "user_confirmed: true") ||
		!strings.Contains(s, "renamed the phase") {
		t.Errorf("plan-freeze summary does not describe the approval:\n%s", s)
	}
}

// TestEmbeddedPlanCorpus: the plugin's embedded plans are the output of its
// zod PlanSchema.parse, so re-embedding one must give it back byte for
// byte; checked on every embedded plan of the corpus, current ledgers and
// their older versions under history/.
func TestEmbeddedPlanCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(sharedCorpus, "*", swarm.LedgerPath))
	more, _ := filepath.Glob(filepath.Join(sharedCorpus, "*", "history", "*", "plan-ledger.jsonl"))
	files = append(files, more...)
	if len(files) == 0 {
		sharedtest.Skip(t, "skipping: the shared corpus is not at %s", sharedCorpus)
	}
	n := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		l, err := swarm.ParseLedger(file, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range l.Events {
			p := ev.Payload.Get("plan")
			if p == nil {
				continue
			}
			n++
			if got, want := jsjson.Stringify(swarm.EmbeddedPlan(p)), jsjson.Stringify(p); !bytes.Equal(got, want) {
				t.Errorf("%s seq %d: re-embedded plan differs:\n got %.400s\nwant %.400s", file, ev.Seq, got, want)
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d embedded plans in the corpus", n)
	}
	t.Logf("%d embedded plans in %d ledger files re-embed byte for byte", n, len(files))
}

// TestEmbeddedPlanSchemaOrder: plan.json keys in another order, unknown
// keys and missing defaults come out as zod's PlanSchema.parse gives them.
func TestEmbeddedPlanSchemaOrder(t *testing.T) {
	in := `{"_specStale":true,"phases":[{"tasks":[{"description":"d","id":"1.1","phase":1,"fr_refs":["FR-001"],"files_touched":["b","a"],"extra":1}],"required_agents":["x"],"name":"P","id":1,"type":"code"}],"execution_profile":{"locked":true,"max_concurrent_tasks":1},"specHash":"h","swarm":"s","title":"T","schema_version":"1.0.0","current_phase":1}`
	want := `{"schema_version":"1.0.0","title":"T","swarm":"s","current_phase":1,"phases":[{"id":1,"name":"P","status":"pending","tasks":[{"id":"1.1","phase":1,"status":"pending","size":"small","description":"d","depends":[],"files_touched":["b","a"],"fr_refs":["FR-001"]}],"type":"code","required_agents":["x"]}],"specHash":"h","execution_profile":{"locked":true,"max_concurrent_tasks":1}}`
	v, err := jsjson.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(jsjson.Stringify(swarm.EmbeddedPlan(v))); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The golden fixture: a two-event ledger and its plan.
const (
	goldenPlan = `{
  "schema_version": "1.0.0",
  "title": "CSV <export> & \"quotes\"",
  "swarm": "default",
  "current_phase": 1,
  "phases": [
    {
      "id": 1,
      "name": "Export",
      "status": "in_progress",
      "tasks": [
        {
          "id": "1.1",
          "phase": 1,
          "status": "completed",
          "size": "small",
          "description": "Write the CSV writer — RFC 4180",
          "depends": [],
          "files_touched": ["internal/export/csv.go"]
        }
      ]
    }
  ]
}
`
)

// goldenLedger is a ledger whose one event embeds goldenPlan.
func goldenLedger(t *testing.T) ([]byte, *swarm.Plan) {
	t.Helper()
	p, err := swarm.ParsePlan(swarm.PlanPath, []byte(goldenPlan))
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(`{"seq":1,"timestamp":"2026-11-02T09:00:00.000Z","plan_id":`)
	line = jsjson.AppendString(line, p.ID())
	line = append(line, `,"event_type":"plan_created","source":"initLedger","plan_hash_before":"","plan_hash_after":"`+p.Digests.Ledger+`","schema_version":"1.1.0","payload":{"plan":`...)
	line = jsjson.Append(line, swarm.EmbeddedPlan(p.Value))
	line = append(line, `,"payload_hash":"`+p.Digests.Ledger+`"}}`+"\n"...)
	return line, p
}

// TestAppendManualApprovalGolden pins the bytes of both lines. The expected
// text was cross-checked with Node: it is JSON.stringify of the objects the
// plugin's forceRecordPlanCriticApproval, takeSnapshotEvent,
// appendLedgerEvent and appendCoreEventSync build.
func TestAppendManualApprovalGolden(t *testing.T) {
	ledger, p := goldenLedger(t)
	rec, err := swarm.AppendManualApproval(swarm.ApprovalFiles{Plan: []byte(goldenPlan), Ledger: ledger, HasLedger: true,
		Events: []byte(`{"event":"phase_complete","phase":1}` + "\n"), HasEvents: true},
		approval("  critic said \"APPROVED\" — lost <b>&</b> \u2028 批准 😀\t"))
	if err != nil {
		t.Fatal(err)
	}
	plan := `{"schema_version":"1.0.0","title":"CSV <export> & \"quotes\"","swarm":"default","current_phase":1,"phases":[{"id":1,"name":"Export","status":"in_progress","tasks":[{"id":"1.1","phase":1,"status":"completed","size":"small","description":"Write the CSV writer — RFC 4180","depends":[],"files_touched":["internal/export/csv.go"]}]}]}`
	reason := `critic said \"APPROVED\" — lost <b>&</b> ` + "\u2028" + ` 批准 😀`
	wantLedger := `{"event_type":"snapshot","source":"critic_approved","plan_id":"default-CSV__export_____quotes_","payload":{"plan":` + plan +
		`,"payload_hash":"` + p.Digests.Structure + `","approval":{"verdict":"APPROVED","source":"plan_critic_gate","method":"manual_override","reason":"` + reason +
		`","user_confirmed":true,"session_id":"swarm-gate:comment:42","approved_at":"2026-11-03T10:00:00.000Z"}},"seq":2,"timestamp":"2026-11-03T10:00:01.500Z","plan_hash_before":"` +
		p.Digests.Ledger + `","plan_hash_after":"` + p.Digests.Ledger + `","schema_version":"1.1.0"}`
	if string(rec.LedgerLine) != wantLedger {
		t.Errorf("ledger line\n got %s\nwant %s", rec.LedgerLine, wantLedger)
	}
	wantEvents := `{"type":"plan_critic_gate_manual_approval","timestamp":"2026-11-03T10:00:00.000Z","sessionID":"swarm-gate:comment:42","plan_id":"default-CSV__export_____quotes_","user_confirmed":true,"reason":"` + reason + `"}`
	if string(rec.EventsLine) != wantEvents {
		t.Errorf("events line\n got %s\nwant %s", rec.EventsLine, wantEvents)
	}
	if string(rec.Ledger) != string(ledger)+wantLedger+"\n" {
		t.Error("the ledger is not the old bytes plus the line")
	}
	if string(rec.Events) != `{"event":"phase_complete","phase":1}`+"\n"+wantEvents+"\n" {
		t.Errorf("events file:\n%s", rec.Events)
	}
	if rec.Seq != 2 || rec.PlanID != p.ID() || rec.StructureHash != p.Digests.Structure || rec.LedgerHash != p.Digests.Ledger {
		t.Errorf("record %+v", rec)
	}
}

// TestAppendManualApprovalFraming: a last line without "\n" gets one before
// the new line (the old bytes stay a prefix); a missing events.jsonl is
// created with the plugin's manifest header.
func TestAppendManualApprovalFraming(t *testing.T) {
	ledger, _ := goldenLedger(t)
	torn := bytes.TrimSuffix(ledger, []byte("\n"))
	rec, err := swarm.AppendManualApproval(swarm.ApprovalFiles{Plan: []byte(goldenPlan), Ledger: torn, HasLedger: true,
		Events: []byte(`{"type":"a"}`), HasEvents: true}, approval("r"))
	if err != nil {
		t.Fatal(err)
	}
	if string(rec.Ledger) != string(torn)+"\n"+string(rec.LedgerLine)+"\n" {
		t.Errorf("torn ledger:\n%s", rec.Ledger)
	}
	if string(rec.Events) != `{"type":"a"}`+"\n"+string(rec.EventsLine)+"\n" {
		t.Errorf("torn events:\n%s", rec.Events)
	}
	rec, err = swarm.AppendManualApproval(swarm.ApprovalFiles{Plan: []byte(goldenPlan), Ledger: ledger, HasLedger: true}, approval("r"))
	if err != nil {
		t.Fatal(err)
	}
	header := `{"v":1,"type":"swarm-events-manifest","schemaVersion":1,"folded":{"totalEvents":0,"byType":{},"corrupt":0,"dropped":0,"oldestTimestamp":null,"newestTimestamp":null},"updatedAt":"2026-11-03T10:00:01.500Z"}`
	if string(rec.Events) != header+"\n"+string(rec.EventsLine)+"\n" {
		t.Errorf("new events file:\n%s", rec.Events)
	}
	crlf := bytes.ReplaceAll(ledger, []byte("\n"), []byte("\r\n"))
	rec, err = swarm.AppendManualApproval(swarm.ApprovalFiles{Plan: []byte(goldenPlan), Ledger: crlf, HasLedger: true}, approval("r"))
	if err != nil || !bytes.HasPrefix(rec.Ledger, crlf) {
		t.Errorf("CRLF ledger: %v", err)
	}
}

// TestAppendManualApprovalRefusals: what the plugin refuses, or what
// swarm-gate cannot append faithfully, is a RecordError saying why.
func TestAppendManualApprovalRefusals(t *testing.T) {
	ledger, _ := goldenLedger(t)
	ok := swarm.ApprovalFiles{Plan: []byte(goldenPlan), Ledger: ledger, HasLedger: true}
	with := func(edit func(f *swarm.ApprovalFiles)) swarm.ApprovalFiles {
		f := ok
		edit(&f)
		return f
	}
	cases := []struct {
		name   string
		files  swarm.ApprovalFiles
		reason string
		want   string
	}{
		{"no plan", with(func(f *swarm.ApprovalFiles) { f.Plan = nil }), "r", "PLAN_NOT_FOUND"},
		{"NUL in the plan", with(func(f *swarm.ApprovalFiles) { f.Plan = append([]byte(goldenPlan), 0) }), "r", "PLAN_CORRUPT"},
		{"invalid UTF-8 in the plan", with(func(f *swarm.ApprovalFiles) {
			f.Plan = bytes.Replace([]byte(goldenPlan), []byte("—"), []byte{0xff}, 1)
		}), "r", "PLAN_CORRUPT"},
		{"byte order mark", with(func(f *swarm.ApprovalFiles) { f.Plan = append([]byte("\uFEFF"), goldenPlan...) }), "r", "byte order mark"},
		{"plan not JSON", with(func(f *swarm.ApprovalFiles) { f.Plan = []byte("{") }), "r", "PLAN_CORRUPT"},
		{"task without status", with(func(f *swarm.ApprovalFiles) {
			f.Plan = bytes.Replace([]byte(goldenPlan), []byte(`"status": "completed",`), nil, 1)
		}), "r", "lacks phases[0].tasks[0].status"},
		{"no ledger", with(func(f *swarm.ApprovalFiles) { f.Ledger, f.HasLedger = nil, false }), "r", "Ledger not initialized"},
		{"empty ledger", with(func(f *swarm.ApprovalFiles) { f.Ledger = nil }), "r", "is empty at the head"},
		{"malformed ledger", with(func(f *swarm.ApprovalFiles) { f.Ledger = append(append([]byte{}, ledger...), "not json\n"...) }), "r", "line 2"},
		{"ledger ends with blank lines", with(func(f *swarm.ApprovalFiles) { f.Ledger = append(append([]byte{}, ledger...), "\n\n"...) }), "r", "cannot re-read the ledger with the approval appended"},
		{"malformed events", with(func(f *swarm.ApprovalFiles) { f.Events, f.HasEvents = []byte("[1]\n"), true }), "r", "events log cannot be read"},
		{"empty reason", ok, " \t ", "0 characters"},
		{"501-character reason", ok, strings.Repeat("x", 501), "501 characters"},
		{"251 emoji are 502 UTF-16 code units", ok, strings.Repeat("😀", 251), "502 characters (UTF-16 code units)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := swarm.AppendManualApproval(c.files, approval(c.reason))
			var re *swarm.RecordError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want a RecordError containing %q", err, c.want)
			}
		})
	}
	if _, err := swarm.AppendManualApproval(ok, approval(strings.Repeat("😀", 250))); err != nil {
		t.Errorf("250 emoji (500 code units): %v", err)
	}
	a := approval("r")
	a.SessionID = ""
	if _, err := swarm.AppendManualApproval(ok, a); err == nil {
		t.Error("no session id accepted")
	}
}

func TestJSISOTime(t *testing.T) {
	loc := time.FixedZone("X", 2*3600)
	for in, want := range map[time.Time]string{
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC):           "2026-01-02T03:04:05.000Z",
		time.Date(2026, 1, 2, 3, 4, 5, 678_900_000, time.UTC): "2026-01-02T03:04:05.678Z",
		time.Date(2026, 1, 2, 5, 4, 5, 0, loc):                "2026-01-02T03:04:05.000Z",
	} {
		if got := swarm.JSISOTime(in); got != want {
			t.Errorf("%v: %s, want %s", in, got, want)
		}
	}
}
