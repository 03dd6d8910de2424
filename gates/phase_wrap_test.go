package gates

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// step returns the checklist item of a step.
func step(t *testing.T, cl *Checklist, name string) CheckItem {
	t.Helper()
	for _, it := range cl.Items {
		if it.Step == name {
			return it
		}
	}
	t.Fatalf("no step %s in %+v", name, cl.Items)
	return CheckItem{}
}

func itemText(it CheckItem) string {
	return string(it.Status) + " " + it.Code + " " + it.File + " " + it.Detail + " " + strings.Join(it.Warnings, "; ")
}

// TestPhaseWrapCorpus checks the checklist of real phases against what their
// files say (each row was read by hand).
func TestPhaseWrapCorpus(t *testing.T) {
	type want struct {
		step    string
		status  CheckStatus
		code    string
		mention string
	}
	cases := []struct {
		repo  string
		phase int
		can   CheckStatus
		steps []want
	}{
		// IMU's drift verifier approved phase 1, but its summary says "A
		// verifier NEEDS_REVISION note was caused by ...": the plugin's rule
		// reads that as a rejection, and the output must say so.
		{"DediGadot__IMU-Parkinson", 1, CheckFail, []want{
			{"retrospective", CheckPass, "", "retro-1"},
			{"completion-verify", CheckPass, "", "2 checked"},
			{"drift", CheckFail, CodeDriftRejected, "summary contains NEEDS_REVISION"},
			{"final-council", CheckSkipped, "", "not the plan's last phase (3)"},
			{"required-agents", CheckPass, "", "fallback"},
			{"tasks", CheckPass, "", "all 2 tasks"},
			{"task-evidence", CheckPass, "", ""},
		}},
		// IMU phase 3 (the last): a spec exists and no 3/drift-verifier.json.
		{"DediGadot__IMU-Parkinson", 3, CheckFail, []want{
			{"drift", CheckFail, CodeDriftMissing, ".swarm/spec.md exists"},
			{"final-council", CheckSkipped, "", "final_council is off"},
		}},
		// fm-value-scout phase 1 closed cleanly (retro-1, completion-verify
		// pass, drift approved, phase_complete success at events line 77;
		// docs is named by task 1.1's gate file), but a day later the
		// ledger resets task 1.2 to pending (seq 55), rewrites its
		// description while pending (seq 97) and completes it again (seq
		// 101) with no new review: its reviewer record is from before.
		{"JG1995__fm-value-scout", 1, CheckFail, []want{
			{"retrospective", CheckPass, "", ""},
			{"completion-verify", CheckPass, "", "3 checked, 2 skipped"},
			{"drift", CheckPass, "", "approved"},
			{"required-agents", CheckPass, "", "line 77 (success)"},
			{"tasks", CheckPass, "", ""},
			{"task-evidence", CheckFail, CodeTaskEvidenceStale, "task 1.2: the newest reviewer evidence in .swarm/evidence/1.2.json (2026-05-04T19:08:19.684Z) is older than the task's current definition (.swarm/plan-ledger.jsonl seq 97"},
		}},
		{"JG1995__fm-value-scout", 5, CheckFail, []want{
			{"drift", CheckPass, "", "approved"},
			{"tasks", CheckFail, CodeTasksIncomplete, "5.7 pending"},
		}},
		// saleor-tma-frontend: retro-1 with a pass verdict, no drift evidence
		// although spec.md exists, 1.4 pending (its bundle form is not
		// needed), two phase_complete events (incomplete, then success).
		{"basel-ax__saleor-tma-frontend", 1, CheckFail, []want{
			{"retrospective", CheckPass, "", ""},
			{"completion-verify", CheckSkipped, "", "re-runs completion_verify"},
			{"drift", CheckFail, CodeDriftMissing, ""},
			{"required-agents", CheckPass, "", "line 2 (success), and the tasks' gate evidence; the older event at line 1 (incomplete) is not counted"},
			{"tasks", CheckFail, CodeTasksIncomplete, "1.4 pending"},
			{"task-evidence", CheckPass, "", "4 completed tasks"},
		}},
		// photochron closed phase 1 at line 54 (success, every agent
		// dispatched) and tried again at line 69 (incomplete: only architect
		// and general): the newest event decides, so coder, named by no gate
		// evidence, is missing (the tasks are pending again, so the plugin's
		// fallback does not apply).
		{"micschr0__photochron", 1, CheckFail, []want{
			{"required-agents", CheckFail, CodeRequiredAgents, "not dispatched: coder (looked in the newest phase_complete event for phase 1, .swarm/events.jsonl line 69 (incomplete), and the tasks' gate evidence; the older events at lines 52 (incomplete), 53 (incomplete), 54 (success) are not counted"},
		}},
		{"micschr0__photochron", 2, CheckFail, []want{
			{"retrospective", CheckPass, "", "retro-2"},
			{"drift", CheckPass, "", "approved"},
			{"tasks", CheckFail, CodeTasksIncomplete, "2.7 pending"},
		}},
		{"sleuthy-sloth__quest-forge", 1, CheckPass, []want{
			{"drift", CheckPass, "", ""},
			{"required-agents", CheckPass, "", "2 (success)"},
		}},
		// bomberz closed phase 1 with status success although docs never ran:
		// its plugin settings did not require docs, which the output says.
		{"phlawlessDevelopment__bomberz", 1, CheckFail, []want{
			{"retrospective", CheckPass, "", ""},
			{"drift", CheckFail, CodeDriftMissing, "yet the plugin closed phase 1 (.swarm/events.jsonl line 9: phase_complete, status success)"},
			{"required-agents", CheckFail, CodeRequiredAgents, "did not require docs"},
			{"tasks", CheckPass, "", "all 10 tasks"},
		}},
		// msocr: no retro, no spec (drift only warns), a task in progress.
		{"Areopaguaworkshop__msocr", 1, CheckFail, []want{
			{"retrospective", CheckFail, CodeRetrospectiveMissing, "absent"},
			{"drift", CheckSkipped, "", "only warns"},
			{"tasks", CheckFail, CodeTasksIncomplete, "2.2.1 in_progress"},
		}},
	}
	for _, c := range cases {
		t.Run(c.repo+"/"+string(rune('0'+c.phase)), func(t *testing.T) {
			cl, err := PhaseWrapChecklist(&Input{Phase: c.phase, PhaseSource: PhaseFromFlag, Head: corpus(t, c.repo), Base: empty()})
			if err != nil {
				t.Fatal(err)
			}
			if cl.Status() != c.can {
				t.Errorf("status %s, want %s\n%s", cl.Status(), c.can, ChecklistMarkdown(cl))
			}
			for _, w := range c.steps {
				it := step(t, cl, w.step)
				if it.Status != w.status || it.Code != w.code || !strings.Contains(itemText(it), w.mention) {
					t.Errorf("%s: %s, want %s %s mentioning %q", w.step, itemText(it), w.status, w.code, w.mention)
				}
			}
		})
	}
}

// The hand-made fixture: a two-phase plan whose phase 1 is ready to close.
const wrapPlan = `{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[
 {"id":1,"name":"A","tasks":[
  {"id":"1.1","phase":1,"status":"completed","description":"d"},
  {"id":"1.2","phase":1,"status":"completed","description":"d"}]},
 {"id":2,"name":"B","tasks":[{"id":"2.1","phase":2,"status":"pending","description":"d"}]}]}`

// lastPhasePlan has phase 1 as its only (so last) phase.
const lastPhasePlan = `{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[
 {"id":1,"name":"A","tasks":[
  {"id":"1.1","phase":1,"status":"completed","description":"d"},
  {"id":"1.2","phase":1,"status":"completed","description":"d"}]}]}`

func gateFile(id string) string {
	return `{"taskId":"` + id + `","required_gates":["reviewer","test_engineer"],"gates":{"reviewer":{"agent":"reviewer"},"test_engineer":{"agent":"test_engineer"}}}`
}

func retro(phase string, verdict string) string {
	return `{"schema_version":"1.0.0","task_id":"retro","entries":[{"type":"retrospective","phase_number":` + phase + `,"verdict":"` + verdict + `","summary":"s"}]}`
}

func wrapFixture() fstest.MapFS {
	return fstest.MapFS{
		".swarm/plan.json":                               {Data: []byte(wrapPlan)},
		".swarm/evidence/1.1.json":                       {Data: []byte(gateFile("1.1"))},
		".swarm/evidence/1.2.json":                       {Data: []byte(gateFile("1.2"))},
		".swarm/evidence/retro-1/evidence.json":          {Data: []byte(retro("1", "pass"))},
		".swarm/evidence/1/completion-verify.json":       {Data: []byte(`{"entries":[{"type":"completion_verify","verdict":"pass","phase":1,"tasks_checked":2,"tasks_skipped":0,"tasks_blocked":0}]}`)},
		".swarm/events.jsonl":                            {Data: []byte(`{"event":"phase_complete","phase":1,"agents_dispatched":["architect","coder","reviewer","test_engineer","docs"],"agents_missing":[],"status":"success"}` + "\n")},
		".swarm/evidence/placeholder_scan/evidence.json": {Data: []byte(`{"entries":[{"type":"placeholder","verdict":"fail"}]}`)},
	}
}

// headTime is "now" for the council rows.
var headTime = time.Date(2026, 5, 5, 12, 0, 0, 0, time.UTC)

func council(typ, verdict, ts, extra string) string {
	return `{"entries":[{"type":"` + typ + `","verdict":"` + verdict + `","timestamp":"` + ts + `"` + extra + `}]}`
}

const fiveMembers = `,"quorumSize":5,"membersVoted":["critic","reviewer","sme","test_engineer","explorer"],"membersAbsent":[],"plan_id":"s-T"`

func TestPhaseWrapHandMade(t *testing.T) {
	on := func(set func(q *QAGates)) func(*Config) {
		return func(c *Config) { set(&c.QAGates) }
	}
	cases := []struct {
		name    string
		edit    func(m fstest.MapFS)
		config  func(c *Config)
		noTime  bool
		step    string
		status  CheckStatus
		code    string
		mention string
		line    int // the item's line, when not 0
	}{
		{name: "the fixture can close", step: "tasks", status: CheckPass},
		{name: "retro for the wrong phase", edit: func(m fstest.MapFS) { m[".swarm/evidence/retro-1/evidence.json"].Data = []byte(retro("2", "pass")) },
			step: "retrospective", status: CheckFail, code: CodeRetrospectiveMissing, mention: "retro-1 holds a retrospective for phase 2, not 1"},
		{name: "retro verdict not pass", edit: func(m fstest.MapFS) { m[".swarm/evidence/retro-1/evidence.json"].Data = []byte(retro("1", "fail")) },
			step: "retrospective", status: CheckFail, code: CodeRetrospectiveMissing, mention: `verdict "fail"`},
		{name: "retro phase_number as a string", edit: func(m fstest.MapFS) { m[".swarm/evidence/retro-1/evidence.json"].Data = []byte(retro(`"1"`, "pass")) },
			step: "retrospective", status: CheckFail, code: CodeRetrospectiveMissing, mention: "no numeric phase_number"},
		{name: "retro in another retro-N bundle", edit: func(m fstest.MapFS) {
			delete(m, ".swarm/evidence/retro-1/evidence.json")
			m[".swarm/evidence/retro-7/evidence.json"] = &fstest.MapFile{Data: []byte(retro("1", "pass"))}
		}, step: "retrospective", status: CheckPass, mention: "found in retro-7"},
		{name: "retro with a byte order mark", edit: func(m fstest.MapFS) {
			m[".swarm/evidence/retro-1/evidence.json"].Data = []byte("\ufeff" + retro("1", "pass"))
		}, step: "retrospective", status: CheckPass},
		// Item 2: isValidRetroEntry compares verdict === 'pass'.
		{name: "retro verdict PASS: the plugin would refuse it", edit: func(m fstest.MapFS) {
			m[".swarm/evidence/retro-1/evidence.json"].Data = []byte("{\"entries\":[{\"type\":\"retrospective\",\"phase_number\":1,\n\"verdict\":\"PASS\"}]}")
		}, step: "retrospective", status: CheckFail, code: CodeRetrospectiveMissing, line: 2,
			mention: `has verdict "PASS", not "pass" (line 2): the plugin compares the verdict exactly (verdict === 'pass'), so it would refuse this retrospective`},
		{name: "retro verdict that is not a string", edit: func(m fstest.MapFS) {
			m[".swarm/evidence/retro-1/evidence.json"].Data = []byte(`{"entries":[{"type":"retrospective","phase_number":1,"verdict":true}]}`)
		}, step: "retrospective", status: CheckFail, code: CodeRetrospectiveMissing, mention: `has verdict true, not the string "pass"`},
		{name: "retro invalid JSON fails closed naming the file", edit: func(m fstest.MapFS) { m[".swarm/evidence/retro-1/evidence.json"].Data = []byte(`{"entries":[`) },
			step: "retrospective", status: CheckError, mention: ".swarm/evidence/retro-1/evidence.json"},
		{name: "a broken retro-N does not hide the valid one", edit: func(m fstest.MapFS) {
			m[".swarm/evidence/retro-9/evidence.json"] = &fstest.MapFile{Data: []byte(`{`)}
		}, step: "retrospective", status: CheckPass},
		{name: "completion verify blocked", edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/completion-verify.json"].Data = []byte(`{"entries":[{"type":"completion_verify","verdict":"fail","phase":1,"tasks_blocked":1,"blocked_tasks":[{"task_id":"1.2","reason":"no identifier found"}]}]}`)
		}, step: "completion-verify", status: CheckFail, code: CodeCompletionIncomplete, mention: "1.2 no identifier found"},
		{name: "completion verify not recorded", edit: func(m fstest.MapFS) { delete(m, ".swarm/evidence/1/completion-verify.json") },
			step: "completion-verify", status: CheckSkipped, mention: "re-runs completion_verify"},
		{name: "drift summary containing NEEDS_REVISION with verdict approved", edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/drift-verifier.json"] = &fstest.MapFile{Data: []byte(`{"entries":[{"type":"drift-verification","verdict":"approved","summary":"Tasks ALIGNED. Verifier said NEEDS_REVISION on 1.2 earlier."}]}`)}
		}, step: "drift", status: CheckFail, code: CodeDriftRejected, mention: "reads as a rejection"},
		{name: "drift missing with a spec", edit: func(m fstest.MapFS) { m[".swarm/spec.md"] = &fstest.MapFile{Data: []byte("- FR-001: x MUST y\n")} },
			step: "drift", status: CheckFail, code: CodeDriftMissing},
		{name: "drift missing without a spec only warns", step: "drift", status: CheckSkipped, mention: "only warns"},
		{name: "drift on a non-code phase", edit: func(m fstest.MapFS) {
			m[".swarm/plan.json"].Data = []byte(strings.Replace(wrapPlan, `"name":"A",`, `"name":"A","type":"non-code",`, 1))
			m[".swarm/spec.md"] = &fstest.MapFile{Data: []byte("- FR-001: x MUST y\n")}
		}, step: "drift", status: CheckSkipped, mention: "non-code"},
		{name: "drift_check off", config: on(func(q *QAGates) { q.DriftCheck = false }), edit: func(m fstest.MapFS) {
			m[".swarm/spec.md"] = &fstest.MapFile{Data: []byte("- FR-001: x MUST y\n")}
		}, step: "drift", status: CheckSkipped, mention: "drift_check is off"},
		{name: "hallucination guard on and missing", config: on(func(q *QAGates) { q.HallucinationGuard = true }),
			step: "hallucination-guard", status: CheckFail, code: "HALLUCINATION_VERIFICATION_MISSING"},
		{name: "hallucination guard approved", config: on(func(q *QAGates) { q.HallucinationGuard = true }), edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/hallucination-guard.json"] = &fstest.MapFile{Data: []byte(`{"entries":[{"type":"hallucination-verification","verdict":"approved","summary":"ok"}]}`)}
		}, step: "hallucination-guard", status: CheckPass},
		// Item 3: the newest entry decides, as for drift.
		{name: "hallucination guard approved, then NEEDS_REVISION", config: on(func(q *QAGates) { q.HallucinationGuard = true }), edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/hallucination-guard.json"] = &fstest.MapFile{Data: []byte("{\"entries\":[{\"type\":\"hallucination-verification\",\"verdict\":\"approved\",\"summary\":\"ok\"},\n{\"type\":\"hallucination-verification\",\n\"verdict\":\"NEEDS_REVISION\",\"summary\":\"fabricated API\"}]}")}
		}, step: "hallucination-guard", status: CheckFail, code: "HALLUCINATION_VERIFICATION_REJECTED", line: 3, mention: "after entry 1 approved: the newest entry decides"},
		{name: "drift approved, then fail", edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/drift-verifier.json"] = &fstest.MapFile{Data: []byte(`{"entries":[{"type":"drift-verification","verdict":"approved","summary":"ok","timestamp":"2026-05-05T10:00:00Z"},{"type":"drift-verification","verdict":"fail","summary":"x","timestamp":"2026-05-05T11:00:00Z"}]}`)}
		}, step: "drift", status: CheckFail, code: CodeDriftRejected, mention: "swarm-gate is stricter"},
		{name: "hallucination guard rejected", config: on(func(q *QAGates) { q.HallucinationGuard = true }), edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/hallucination-guard.json"] = &fstest.MapFile{Data: []byte(`{"entries":[{"type":"hallucination-verification","verdict":"rejected"}]}`)}
		}, step: "hallucination-guard", status: CheckFail, code: "HALLUCINATION_VERIFICATION_REJECTED"},
		{name: "mutation gate warn passes with a warning", config: on(func(q *QAGates) { q.MutationTest = true }), edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/mutation-gate.json"] = &fstest.MapFile{Data: []byte(`{"entries":[{"type":"mutation-gate","verdict":"warn","killRate":0.71}]}`)}
		}, step: "mutation-gate", status: CheckPass, mention: "kill rate 0.71"},
		{name: "mutation gate fail", config: on(func(q *QAGates) { q.MutationTest = true }), edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/mutation-gate.json"] = &fstest.MapFile{Data: []byte(`{"entries":[{"type":"mutation-gate","verdict":"fail"}]}`)}
		}, step: "mutation-gate", status: CheckFail, code: "MUTATION_GATE_FAIL"},
		{name: "mutation gate missing", config: on(func(q *QAGates) { q.MutationTest = true }), step: "mutation-gate", status: CheckFail, code: "MUTATION_GATE_MISSING"},
		{name: "phase council approved", config: on(func(q *QAGates) { q.PhaseCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/phase-council.json"] = &fstest.MapFile{Data: []byte(council("phase-council", "APPROVE", "2026-05-05T09:00:00Z", `,"quorumSize":3,"phase_number":1`))}
		}, step: "phase-council", status: CheckPass},
		{name: "phase council stale", config: on(func(q *QAGates) { q.PhaseCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/phase-council.json"] = &fstest.MapFile{Data: []byte(council("phase-council", "APPROVE", "2026-05-03T09:00:00Z", `,"quorumSize":3,"phase_number":1`))}
		}, step: "phase-council", status: CheckFail, code: "PHASE_COUNCIL_STALE_EVIDENCE"},
		{name: "phase council in the future", config: on(func(q *QAGates) { q.PhaseCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/phase-council.json"] = &fstest.MapFile{Data: []byte(council("phase-council", "APPROVE", "2026-05-06T09:00:00Z", `,"quorumSize":3,"phase_number":1`))}
		}, step: "phase-council", status: CheckFail, code: "PHASE_COUNCIL_FUTURE_TIMESTAMP"},
		{name: "phase council without a head time skips the window", noTime: true, config: on(func(q *QAGates) { q.PhaseCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/phase-council.json"] = &fstest.MapFile{Data: []byte(council("phase-council", "APPROVE", "2020-01-01T00:00:00Z", `,"quorumSize":3,"phase_number":1`))}
		}, step: "phase-council", status: CheckPass, mention: "freshness was not checked"},
		{name: "phase council quorum of 2", config: on(func(q *QAGates) { q.PhaseCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/phase-council.json"] = &fstest.MapFile{Data: []byte(council("phase-council", "APPROVE", "2026-05-05T09:00:00Z", `,"quorumSize":2,"phase_number":1`))}
		}, step: "phase-council", status: CheckFail, code: "PHASE_COUNCIL_INSUFFICIENT_QUORUM"},
		// Item 7: a quorum written as a string says so.
		{name: "phase council quorum as a string", config: on(func(q *QAGates) { q.PhaseCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/phase-council.json"] = &fstest.MapFile{Data: []byte(council("phase-council", "APPROVE", "2026-05-05T09:00:00Z", `,"quorumSize":"3","phase_number":1`))}
		}, step: "phase-council", status: CheckFail, code: "PHASE_COUNCIL_MISSING_QUORUM", mention: `quorumSize must be a number of at least 3 (found "3", a string, not a number)`},
		{name: "phase council for another phase", config: on(func(q *QAGates) { q.PhaseCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/phase-council.json"] = &fstest.MapFile{Data: []byte(council("phase-council", "APPROVE", "2026-05-05T09:00:00Z", `,"quorumSize":5,"phase":2`))}
		}, step: "phase-council", status: CheckFail, code: "PHASE_COUNCIL_PHASE_MISMATCH"},
		{name: "phase council CONCERNS passes with a warning", config: on(func(q *QAGates) { q.PhaseCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/phase-council.json"] = &fstest.MapFile{Data: []byte(council("phase-council", "concerns", "2026-05-05T09:00:00Z", `,"quorumSize":5,"phase_number":1`))}
		}, step: "phase-council", status: CheckPass, mention: "CONCERNS"},
		{name: "phase council REJECT", config: on(func(q *QAGates) { q.PhaseCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1/phase-council.json"] = &fstest.MapFile{Data: []byte(council("phase-council", "REJECT", "2026-05-05T09:00:00Z", `,"quorumSize":5,"phase_number":1,"requiredFixes":[{"detail":"x"}]`))}
		}, step: "phase-council", status: CheckFail, code: "PHASE_COUNCIL_REJECTED", mention: "1 required fix"},
		{name: "phase council required", config: on(func(q *QAGates) { q.PhaseCouncil = true }), step: "phase-council", status: CheckFail, code: "PHASE_COUNCIL_REQUIRED"},
		{name: "final council skipped on a middle phase", config: on(func(q *QAGates) { q.FinalCouncil = true }), step: "final-council", status: CheckSkipped, mention: "not the plan's last phase (2)"},
		{name: "final council CONCERNS blocks the last phase", config: on(func(q *QAGates) { q.FinalCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/plan.json"].Data = []byte(lastPhasePlan)
			m[".swarm/evidence/final-council.json"] = &fstest.MapFile{Data: []byte(council("final-council", "CONCERNS", "2026-05-05T10:00:00Z", fiveMembers))}
		}, step: "final-council", status: CheckFail, code: "FINAL_COUNCIL_CONCERNS", mention: "stricter than the plugin"},
		{name: "final council CONCERNS allowed by policy", config: func(c *Config) { c.QAGates.FinalCouncil, c.PhaseWrap.AllowFinalCouncilConcerns = true, true }, edit: func(m fstest.MapFS) {
			m[".swarm/plan.json"].Data = []byte(lastPhasePlan)
			m[".swarm/evidence/final-council.json"] = &fstest.MapFile{Data: []byte(council("final-council", "CONCERNS", "2026-05-05T10:00:00Z", fiveMembers))}
		}, step: "final-council", status: CheckPass, mention: "CONCERNS"},
		{name: "final council approved", config: on(func(q *QAGates) { q.FinalCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/plan.json"].Data = []byte(lastPhasePlan)
			m[".swarm/evidence/final-council.json"] = &fstest.MapFile{Data: []byte(council("final-council", "APPROVED", "2026-05-05T10:00:00Z", fiveMembers))}
		}, step: "final-council", status: CheckPass},
		{name: "final council missing a member", config: on(func(q *QAGates) { q.FinalCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/plan.json"].Data = []byte(lastPhasePlan)
			m[".swarm/evidence/final-council.json"] = &fstest.MapFile{Data: []byte(council("final-council", "approved", "2026-05-05T10:00:00Z", `,"quorumSize":5,"membersVoted":["critic","reviewer","sme","test_engineer","test_engineer"],"plan_id":"s-T"`))}
		}, step: "final-council", status: CheckFail, code: "FINAL_COUNCIL_MISSING_QUORUM", mention: "missing: explorer"},
		{name: "final council quorum as a string", config: on(func(q *QAGates) { q.FinalCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/plan.json"].Data = []byte(lastPhasePlan)
			m[".swarm/evidence/final-council.json"] = &fstest.MapFile{Data: []byte(council("final-council", "APPROVED", "2026-05-05T10:00:00Z", strings.Replace(fiveMembers, `"quorumSize":5`, `"quorumSize":"5"`, 1)))}
		}, step: "final-council", status: CheckFail, code: "FINAL_COUNCIL_MISSING_QUORUM", mention: `(found "5", a string, not a number)`},
		{name: "final council for another plan", config: on(func(q *QAGates) { q.FinalCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/plan.json"].Data = []byte(lastPhasePlan)
			m[".swarm/evidence/final-council.json"] = &fstest.MapFile{Data: []byte(council("final-council", "approved", "2026-05-05T10:00:00Z", strings.Replace(fiveMembers, "s-T", "s-Other", 1)))}
		}, step: "final-council", status: CheckFail, code: "final_council_plan_mismatch"},
		{name: "final council stale", config: on(func(q *QAGates) { q.FinalCouncil = true }), edit: func(m fstest.MapFS) {
			m[".swarm/plan.json"].Data = []byte(lastPhasePlan)
			m[".swarm/evidence/final-council.json"] = &fstest.MapFile{Data: []byte(council("final-council", "approved", "2026-05-01T10:00:00Z", fiveMembers))}
		}, step: "final-council", status: CheckFail, code: "FINAL_COUNCIL_STALE_EVIDENCE"},
		{name: "final council required", config: on(func(q *QAGates) { q.FinalCouncil = true }), edit: func(m fstest.MapFS) { m[".swarm/plan.json"].Data = []byte(lastPhasePlan) },
			step: "final-council", status: CheckFail, code: "FINAL_COUNCIL_REQUIRED"},
		{name: "docs not dispatched", edit: func(m fstest.MapFS) {
			m[".swarm/events.jsonl"].Data = []byte(`{"event":"phase_complete","phase":1,"agents_dispatched":["coder","reviewer","test_engineer"],"agents_missing":["docs"],"status":"incomplete"}` + "\n")
		}, step: "required-agents", status: CheckFail, code: CodeRequiredAgents, mention: "not dispatched: docs"},
		// Item 10: the newest phase_complete event decides; an earlier
		// closing of the phase does not vouch for it.
		{name: "an earlier success does not count for a newer attempt", edit: func(m fstest.MapFS) {
			m[".swarm/events.jsonl"].Data = []byte(`{"event":"phase_complete","phase":1,"agents_dispatched":["coder","reviewer","test_engineer","docs"],"agents_missing":[],"status":"success"}` + "\n" +
				`{"event":"phase_complete","phase":1,"agents_dispatched":["architect"],"agents_missing":["docs"],"status":"incomplete"}` + "\n")
		}, step: "required-agents", status: CheckFail, code: CodeRequiredAgents, line: 2, mention: "not dispatched: coder, docs (looked in the newest phase_complete event for phase 1, .swarm/events.jsonl line 2 (incomplete)"},
		{name: "docs not required by policy", config: func(c *Config) { c.PhaseWrap.RequireDocs = false }, edit: func(m fstest.MapFS) { delete(m, ".swarm/events.jsonl") },
			step: "required-agents", status: CheckPass, mention: "fallback"},
		{name: "the phase's own required_agents", edit: func(m fstest.MapFS) {
			m[".swarm/plan.json"].Data = []byte(strings.Replace(wrapPlan, `"name":"A",`, `"name":"A","required_agents":["docs"],`, 1))
		}, step: "required-agents", status: CheckPass, mention: "phase 1's required_agents"},
		{name: "events.jsonl unreadable fails closed", edit: func(m fstest.MapFS) { m[".swarm/events.jsonl"].Data = []byte("{\n") },
			step: "required-agents", status: CheckError, mention: ".swarm/events.jsonl"},
		{name: "a task blocked with a reason", edit: func(m fstest.MapFS) {
			m[".swarm/plan.json"].Data = []byte(strings.Replace(wrapPlan, `{"id":"1.2","phase":1,"status":"completed"`, `{"id":"1.2","phase":1,"status":"blocked","blocked_reason":"upstream API"`, 1))
		}, step: "tasks", status: CheckPass, mention: "explicitly blocked (1.2)"},
		{name: "a task blocked without a reason", edit: func(m fstest.MapFS) {
			m[".swarm/plan.json"].Data = []byte(strings.Replace(wrapPlan, `{"id":"1.2","phase":1,"status":"completed"`, `{"id":"1.2","phase":1,"status":"blocked"`, 1))
		}, step: "tasks", status: CheckFail, code: CodeTasksIncomplete, mention: "1.2 blocked without a blocked_reason"},
		{name: "a completed task whose review was rejected", edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1.2/evidence.json"] = &fstest.MapFile{Data: []byte(`{"task_id":"1.2","entries":[{"type":"review","verdict":"rejected","timestamp":"2026-05-05T11:00:00Z"}]}`)}
			m[".swarm/evidence/1.2.json"].Data = []byte(`{"taskId":"1.2","required_gates":["reviewer"],"gates":{"reviewer":{"timestamp":"2026-05-05T10:00:00Z","verdict":"approved"}}}`)
		}, step: "task-evidence", status: CheckFail, code: CodeTaskEvidenceRejected, mention: `verdict "rejected"`},
		{name: "a completed task whose verdict is not a string", edit: func(m fstest.MapFS) {
			m[".swarm/evidence/1.2.json"].Data = []byte(`{"taskId":"1.2","required_gates":["reviewer"],"gates":{"reviewer":{"verdict":false}}}`)
		}, step: "task-evidence", status: CheckFail, code: CodeTaskEvidenceInvalid, mention: "verdict false, which is not a string"},
		{name: "a completed task without evidence", edit: func(m fstest.MapFS) { delete(m, ".swarm/evidence/1.2.json") },
			step: "task-evidence", status: CheckFail, code: CodeTaskEvidence, mention: "has no evidence"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := wrapFixture()
			if c.edit != nil {
				c.edit(m)
			}
			cfg := DefaultConfig()
			if c.config != nil {
				c.config(cfg)
			}
			in := &Input{Phase: 1, PhaseSource: PhaseFromFlag, Head: load(m), Base: empty(), Config: cfg, HeadTime: headTime}
			if c.noTime {
				in.HeadTime = time.Time{}
			}
			cl, err := PhaseWrapChecklist(in)
			if err != nil {
				t.Fatal(err)
			}
			it := step(t, cl, c.step)
			if it.Status != c.status || it.Code != c.code || !strings.Contains(itemText(it), c.mention) {
				t.Errorf("%s: %s, want %s %s mentioning %q\n%s", c.step, itemText(it), c.status, c.code, c.mention, ChecklistMarkdown(cl))
			}
			if c.line != 0 && it.Line != c.line {
				t.Errorf("%s: line %d, want %d", c.step, it.Line, c.line)
			}
			if c.name == "the fixture can close" && cl.Status() != CheckPass {
				t.Errorf("fixture: %s\n%s", cl.Status(), ChecklistMarkdown(cl))
			}
			// The gate agrees with the checklist.
			r := eval(PhaseWrap{}, in)
			want := map[CheckStatus]Outcome{CheckPass: Passed, CheckFail: Failed, CheckError: Error}[cl.Status()]
			if r.Outcome != want {
				t.Errorf("gate outcome %s, checklist %s", r.Outcome, cl.Status())
			}
			if it.Status == CheckFail && !hasRule(r, RulePhaseWrapPrefix+c.step) {
				t.Errorf("no %s finding: %v", RulePhaseWrapPrefix+c.step, rules(r))
			}
		})
	}
}

func TestPhaseWrapOrderAndOnDemand(t *testing.T) {
	cl, err := PhaseWrapChecklist(&Input{Phase: 1, Head: load(wrapFixture()), Base: empty()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range cl.Items {
		got = append(got, it.Step)
	}
	want := "retrospective completion-verify drift hallucination-guard mutation-gate phase-council final-council required-agents tasks task-evidence"
	if strings.Join(got, " ") != want {
		t.Errorf("order %v", got)
	}
	for _, g := range Default() {
		if g.Name() == (PhaseWrap{}).Name() {
			t.Error("swarm/phase-wrap is in the default check")
		}
	}
	if len(Default()) != len(Registry())-1 {
		t.Errorf("default %d gates, registry %d", len(Default()), len(Registry()))
	}
}

func TestPhaseWrapUnknownPhase(t *testing.T) {
	r := eval(PhaseWrap{}, &Input{Phase: 9, Head: load(wrapFixture())})
	if r.Outcome != Error || !strings.Contains(r.Title, "phase 9") {
		t.Errorf("%s %q", r.Outcome, r.Title)
	}
	if r := eval(PhaseWrap{}, &Input{Phase: 1, Head: load(fstest.MapFS{swarm.PlanPath: {Data: []byte("{")}})}); r.Outcome != Error || !strings.Contains(r.Title, swarm.PlanPath) {
		t.Errorf("%s %q", r.Outcome, r.Title)
	}
}

// TestPhaseWrapErrorCause: item 7: a step that cannot be read is reported
// with its cause, not with its step name as a failure code.
func TestPhaseWrapErrorCause(t *testing.T) {
	m := wrapFixture()
	m[".swarm/events.jsonl"].Data = []byte("{bad json\n")
	m[".swarm/evidence/1.2.json"].Data = []byte(`{"taskId":"1.2","required_gates":["reviewer"],"gates":{"reviewer":{"verdict":"rejected"}}}`)
	cl, err := PhaseWrapChecklist(&Input{Phase: 1, Head: load(m), Base: empty()})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Status() != CheckError {
		t.Fatalf("status %s", cl.Status())
	}
	if got := strings.Join(cl.Codes(), ","); got != CodeTaskEvidenceRejected {
		t.Errorf("codes %q: an ERROR step without a code must not appear as one", got)
	}
	causes := cl.Causes()
	if len(causes) != 1 || !strings.HasPrefix(causes[0], "required-agents: .swarm/events.jsonl: line 1: ") {
		t.Errorf("causes %q", causes)
	}
	if md := ChecklistMarkdown(cl); !strings.Contains(md, "could not evaluate: required-agents: .swarm/events.jsonl: line 1:") || strings.Contains(md, "REQUIRED-AGENTS") {
		t.Errorf("markdown:\n%s", md)
	}
}

// TestPhaseWrapTasksClosed: a closed task ends its phase, as in the plugin,
// but the tasks step no longer calls it completed: it names it, with a
// warning that closed is /swarm close's mark for unfinished work (issue 20,
// weaknesses item 2).
func TestPhaseWrapTasksClosed(t *testing.T) {
	ph := &swarm.Phase{ID: 1, Tasks: []swarm.Task{{ID: "1.1", Status: "completed"}, {ID: "1.2", Status: "closed"}}}
	it := tasksCheck(ph)
	if it.Status != CheckPass || !strings.Contains(it.Detail, "1 of 2 tasks completed, 1 closed (1.2)") {
		t.Errorf("tasks step %s: %s", it.Status, it.Detail)
	}
	if len(it.Warnings) != 1 || !strings.Contains(it.Warnings[0], "closed, not completed: 1.2") {
		t.Errorf("warnings %q", it.Warnings)
	}
	ph.Tasks[1].Status = "completed"
	if it := tasksCheck(ph); it.Detail != "all 2 tasks completed" || len(it.Warnings) != 0 {
		t.Errorf("all completed: %s %q", it.Detail, it.Warnings)
	}
}
