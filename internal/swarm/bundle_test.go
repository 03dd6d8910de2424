package swarm

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

func TestParseEvidenceBundle(t *testing.T) {
	const name = EvidenceDir + "/1/drift-verifier.json"
	t.Run("plugin shape", func(t *testing.T) {
		b, err := ParseEvidenceBundle(name, []byte(`{"entries":[
  {"type":"drift-verification","verdict":"approved","summary":"ok","timestamp":"2026-05-04T19:23:00.135Z","requirementCoverage":"{}"}
]}`))
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Entries) != 1 || b.HasVerdict {
			t.Fatalf("%+v", b)
		}
		e := b.Entries[0]
		if e.Type != "drift-verification" || e.Verdict != "approved" || !e.HasVerdict || e.Summary != "ok" || e.Line != 2 || e.Timestamp == "" {
			t.Errorf("%+v", e)
		}
	})
	t.Run("older top-level verdict", func(t *testing.T) {
		b, err := ParseEvidenceBundle(name, []byte(`{"schema_version":"1.0.0","task_id":"drift-verifier","verdict":"approved","entries":[{"type":"drift-verifier","verdict":"approved","phase":1}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if !b.HasVerdict || b.Verdict != "approved" || b.TaskID != "drift-verifier" || b.SchemaVersion != "1.0.0" {
			t.Errorf("%+v", b)
		}
		if n, ok := b.Entries[0].Int("phase"); !ok || n != 1 {
			t.Errorf("phase %d %v", n, ok)
		}
	})
	t.Run("top-level gate objects (saleor-tma-frontend 1.4)", func(t *testing.T) {
		b, err := ParseEvidenceBundle(TaskBundlePath("1.4"), []byte(`{"task_id":"1.4","verdict":"pass","reviewer":{"verdict":"APPROVED"},"test_engineer":{"result":"PASS"},"other":{"x":1},"timestamp":"2026-03-19T21:14:00Z"}`))
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Gates) != 2 || b.Gates[0].Name != "reviewer" || b.Gates[0].Verdict != "APPROVED" || b.Gates[1].Verdict != "PASS" || b.Gates[1].Timestamp != "2026-03-19T21:14:00Z" {
			t.Errorf("%+v", b.Gates)
		}
	})
	t.Run("a verdict of another type reads as absent", func(t *testing.T) {
		b, err := ParseEvidenceBundle(name, []byte(`{"entries":[{"type":"drift-verification","verdict":1}]}`))
		if err != nil || b.Entries[0].HasVerdict {
			t.Fatalf("%+v %v", b, err)
		}
	})
	for _, c := range []struct{ name, data, msg string }{
		{"invalid JSON", `{"entries":[`, ""},
		{"not an object", `[]`, "want a JSON object"},
		{"entries not an array", `{"entries":{}}`, `"entries" must be an array`},
		{"entry not an object", "{\"entries\":[\n1]}", "entries[0] must be an object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseEvidenceBundle(name, []byte(c.data))
			var ae *ArtifactError
			if !errors.As(err, &ae) || ae.Path != name || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("error %v", err)
			}
		})
	}
	t.Run("byte order mark", func(t *testing.T) {
		if _, err := ParseEvidenceBundle(name, []byte(bom+`{"entries":[]}`)); err != nil {
			t.Fatal(err)
		}
	})
}

func TestTaskVerdicts(t *testing.T) {
	b, err := ParseEvidenceBundle("x.json", []byte(`{"entries":[
		{"type":"drift-verification","verdict":"approved","task_verdicts":[{"task_id":"1.1","verdict":"ALIGNED"},{"taskId":"1.2","alignment":"MINOR_DRIFT"},{"verdict":"OFF_SPEC"},3]},
		{"type":"drift-verification","verdict":"approved","per_task":{"2.1":"MAJOR_DRIFT","2.2":{"verdict":"aligned"},"2.3":7}},
		{"type":"drift-verification","verdict":"approved","task_verdicts":[{"id":1.2,"verdict":"OFF_SPEC"},{"id":1.10,"verdict":"ALIGNED"},{"id":3,"verdict":"ALIGNED"},{"id":true,"verdict":"ALIGNED"},{"task_id":"1.4"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range b.Entries {
		for _, tv := range e.TaskVerdicts() {
			s := tv.TaskID + " " + tv.Verdict + " @" + strconv.Itoa(tv.Line)
			if tv.Problem != "" {
				s = "problem @" + strconv.Itoa(tv.Line) + ": " + tv.Problem
			}
			got = append(got, s)
		}
	}
	want := []string{
		"1.1 ALIGNED @2", "1.2 MINOR_DRIFT @2",
		"problem @2: task_verdicts[2] has no task id (task_id, taskId or id)",
		"problem @2: task_verdicts[3] is a number, not an object {task_id, verdict}",
		"2.1 MAJOR_DRIFT @3", "2.2 aligned @3",
		`problem @3: per_task["2.3"] has no verdict string (a string, or an object with verdict or alignment)`,
		// A number id is read as JavaScript renders it; 1.10 would be 1.1.
		"1.2 OFF_SPEC @4",
		`problem @4: task_verdicts[1].id is the JSON number 1.10, which reads as 1.1: the task id is ambiguous; write it as a string ("1.10")`,
		"problem @4: task_verdicts[2].id is the JSON number 3, which is not a task id (N.N)",
		"problem @4: task_verdicts[3].id is a boolean, not a task id string",
		"problem @4: task_verdicts[4] (task 1.4) has no verdict string (verdict or alignment)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// "tasks" may be the list of tasks an entry checked: what is not an
	// object with a verdict there is not a verdict.
	b, err = ParseEvidenceBundle("x.json", []byte(`{"entries":[{"type":"drift-verification","verdict":"approved","tasks":["1.1",{"id":"1.2","description":"d"},{"id":"1.3","verdict":"OFF_SPEC"}]},
		{"type":"drift-verification","verdict":"approved","tasks":"1.1, 1.2"},{"type":"drift-verification","verdict":"approved","task_verdicts":"1.1 ALIGNED"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Entries[0].TaskVerdicts(); len(got) != 1 || got[0].TaskID != "1.3" || got[0].Verdict != "OFF_SPEC" {
		t.Errorf("tasks list: %+v", got)
	}
	if got := b.Entries[1].TaskVerdicts(); len(got) != 0 {
		t.Errorf("tasks string: %+v", got)
	}
	if got := b.Entries[2].TaskVerdicts(); len(got) != 1 || got[0].Problem != "task_verdicts is a string, not an array or object of per-task verdicts" {
		t.Errorf("task_verdicts string: %+v", got)
	}
}

// A verdict of another type than string is kept as invalid (the gates fail
// closed on it) with the line of the field, in entries, in top-level gate
// objects and in gate files.
func TestInvalidVerdicts(t *testing.T) {
	b, err := ParseEvidenceBundle(TaskBundlePath("1.2"), []byte(`{"task_id":"1.2","entries":[
{"type":"review","verdict":false},
{"type":"test",
 "verdict":["rejected"]}],
"reviewer":{"verdict":null}}`))
	if err != nil {
		t.Fatal(err)
	}
	if e := b.Entries[0]; e.HasVerdict || e.VerdictInvalid != "false" {
		t.Errorf("entry 0: %+v", e)
	}
	if e := b.Entries[1]; e.VerdictInvalid != `["rejected"]` || e.FieldLine("verdict") != 4 {
		t.Errorf("entry 1: %q line %d", e.VerdictInvalid, e.FieldLine("verdict"))
	}
	if len(b.Gates) != 1 || b.Gates[0].VerdictInvalid != "null" || b.Gates[0].VerdictLine != 5 {
		t.Errorf("gates %+v", b.Gates)
	}
	tg, err := ParseTaskGates(EvidenceDir+"/1.2.json", []byte(`{"taskId":"1.2","required_gates":["reviewer","test_engineer"],"gates":{
"reviewer":{"agent":"reviewer",
  "verdict":{"status":"rejected"}},
"test_engineer":{"result":false}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if g := tg.Gates[0]; g.VerdictInvalid != `{"status":"rejected"}` || g.VerdictLine != 3 || g.Line != 2 {
		t.Errorf("reviewer %+v", g)
	}
	if g := tg.Gates[1]; g.VerdictInvalid != "false" {
		t.Errorf("test_engineer %+v", g)
	}
}

// A task bundle whose task_id (or an entry's) names another task is refused,
// like a gate file whose taskId does not match its name.
func TestTaskBundleIDMismatch(t *testing.T) {
	for _, c := range []struct{ data, msg string }{
		{`{"task_id":"9.9","entries":[]}`, `task_id "9.9" does not match the folder name 1.2`},
		{"{\"task_id\":\"1.2\",\"entries\":[\n{\"task_id\":\"1.3\",\"type\":\"review\"}]}", `entries[0].task_id "1.3" does not match`},
		{`{"task_id":12,"entries":[]}`, `task_id 12 does not match`},
	} {
		_, err := ParseEvidenceBundle(TaskBundlePath("1.2"), []byte(c.data))
		var ae *ArtifactError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), c.msg) || ae.Line < 1 {
			t.Errorf("%s: error %v", c.data, err)
		}
	}
	// Other bundles are not held to a folder name.
	if _, err := ParseEvidenceBundle(RetroPath(1), []byte(`{"task_id":"retro-2","entries":[]}`)); err != nil {
		t.Error(err)
	}
	if _, err := ParseEvidenceBundle(TaskBundlePath("1.2"), []byte(`{"entries":[{"type":"review"}]}`)); err != nil {
		t.Error(err)
	}
}

func TestLoadEvidenceBundles(t *testing.T) {
	a := Load(fstest.MapFS{
		RetroPath(2):                                    {Data: []byte(`{"entries":[{"type":"retrospective","phase_number":2,"verdict":"pass"}]}`)},
		RetroPath(10):                                   {Data: []byte(`{"entries":[`)},
		TaskBundlePath("1.4"):                           {Data: []byte(`{"task_id":"1.4","entries":[]}`)},
		PhaseEvidencePath(1, PhaseDriftVerifier):        {Data: []byte(`{"entries":[]}`)},
		EvidenceDir + "/1/drift-verifier 2.json":        {Data: []byte(`not read`)},
		EvidenceDir + "/placeholder_scan/evidence.json": {Data: []byte(`not read`)},
		FinalCouncilPath:                                {Data: []byte(`{"entries":[]}`)},
	})
	ev := a.Evidence
	if got := ev.RetroNumbers(); !slices.Equal(got, []int{2, 10}) {
		t.Errorf("retro numbers %v", got)
	}
	for _, p := range []string{RetroPath(2), TaskBundlePath("1.4"), PhaseEvidencePath(1, PhaseDriftVerifier), FinalCouncilPath} {
		if b, err := ev.Bundle(p); b == nil || err != nil {
			t.Errorf("%s: %v %v", p, b, err)
		}
	}
	if _, err := ev.Bundle(RetroPath(10)); err == nil || !strings.Contains(err.Error(), RetroPath(10)) {
		t.Errorf("broken retro-10: %v", err)
	}
	if len(ev.Broken) != 1 {
		t.Errorf("broken %v (the iCloud copy and the tool bundle must not be read)", ev.Broken)
	}
	if b, err := ev.Bundle(PhaseEvidencePath(2, PhaseDriftVerifier)); b != nil || err != nil {
		t.Errorf("absent file: %v %v", b, err)
	}
}

func TestPhaseCompletions(t *testing.T) {
	log, err := ParseEventLog(EventsPath, []byte(`{"event":"phase_complete","phase":1,"timestamp":"t","agents_dispatched":["coder","reviewer"],"agents_missing":["docs"],"status":"incomplete"}
{"type":"spec_stale_detected","phase":1}
{"event":"phase_complete","phase":"1","status":"success"}
{"event":"phase_complete","phase":2,"agents_dispatched":["docs"],"agents_missing":[],"status":"success"}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := log.PhaseCompletions(1)
	if len(got) != 1 || got[0].Line != 1 || got[0].Status != "incomplete" || !slices.Equal(got[0].AgentsDispatched, []string{"coder", "reviewer"}) || !slices.Equal(got[0].AgentsMissing, []string{"docs"}) {
		t.Errorf("%+v", got)
	}
	if got := log.PhaseCompletions(2); len(got) != 1 || got[0].Line != 4 {
		t.Errorf("%+v", got)
	}
}

func TestParseSpec(t *testing.T) {
	spec := ParseSpec(SpecPath, []byte(bom+"# Spec\r\n\r\n## Requirements\r\n"+
		"- FR-001: The tool MUST write CSV.\n"+
		"- **FR-002**: It SHOULD be fast,\n  and it MUST NOT crash.\n"+
		"- FR-003: Exports MAY be gzipped.\n"+
		"- FR-000: invalid.\n"+
		"- FR-001: defined twice.\n\n"+
		"### FR-004: Logging\n\nThe tool SHALL log every export.\n\n"+
		"### auth/fr-005 (MUST) Login\n\n"+
		"## Success criteria\n\n- **SC-001**: 95% of exports finish in a second.\n- SC-002: Users MUST see progress.\n\n"+
		"```\n- FR-009: in a code block MUST be ignored\n```\n"+
		"See FR-001 and `FR-010` (references, not definitions).\n"+
		"| FR-006 | A table row MUST count |\n"))
	type row struct{ id, ob string }
	var got []row
	for _, r := range spec.Requirements {
		got = append(got, row{r.ID, r.Obligation})
	}
	want := []row{{"FR-001", "MUST"}, {"FR-002", "SHOULD"}, {"FR-003", "MAY"}, {"FR-004", "SHALL"}, {"auth/FR-005", "MUST"}, {"SC-001", ""}, {"SC-002", "MUST"}, {"FR-006", "MUST"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if len(spec.Zero) != 1 || spec.Zero[0].Line != 8 {
		t.Errorf("zero ids %+v", spec.Zero)
	}
	if r := spec.Requirements[0]; r.Line != 4 || r.Text != "FR-001: The tool MUST write CSV." || r.Kind != "FR" || r.Bare != "FR-001" {
		t.Errorf("%+v", r)
	}
	if r := spec.Requirements[4]; r.Bare != "FR-005" || r.Kind != "FR" {
		t.Errorf("%+v", r)
	}
}

func TestCorpusSpecs(t *testing.T) {
	want := map[string]int{"DediGadot__IMU-Parkinson": 20, "basel-ax__saleor-tma-frontend": 14, "jonathanlopezc83717-commits__Frontend_1er_modulo": 0, "VerduzcoTristan__landingpage": 13}
	for repo, n := range want {
		data, err := os.ReadFile(filepath.Join(corpusDir, repo, SpecPath))
		if err != nil {
			sharedtest.Skip(t, "skipping: %v", err)
		}
		if got := len(ParseSpec(SpecPath, data).Requirements); got != n {
			t.Errorf("%s: %d requirements, want %d", repo, got, n)
		}
	}
}

func FuzzParseEvidenceBundle(f *testing.F) {
	seeds(f, "*/.swarm/evidence/*/drift-verifier.json", `{"entries":[{"type":"drift-verification","verdict":"approved","tasks":{"1.1":"ALIGNED"}}]}`,
		`{"verdict":"pass","reviewer":{"verdict":"APPROVED"}}`, `{"entries":{}}`, `[]`, bom+`{"entries":[1]}`)
	seeds(f, "*/.swarm/evidence/retro-*/evidence.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		name := PhaseEvidencePath(3, PhaseCouncil)
		b, err := ParseEvidenceBundle(name, data)
		checkErr(t, name, err)
		if (err == nil) != (b != nil) {
			t.Fatalf("bundle %+v with error %v", b, err)
		}
		if b != nil {
			for i, e := range b.Entries {
				if e.Index != i || e.Line < 1 || e.Value == nil {
					t.Fatalf("entry %d: %+v", i, e)
				}
				e.TaskVerdicts()
				e.Strings("membersVoted")
				e.Num("quorumSize")
			}
		}
		a := Load(fstest.MapFS{name: {Data: data}})
		got, lerr := a.Evidence.Bundle(name)
		if (lerr == nil) != (err == nil) || (got == nil) != (b == nil) {
			t.Fatalf("Load: %v %v; parser: %v", got, lerr, err)
		}
	})
}

func FuzzParseSpec(f *testing.F) {
	seeds(f, "*/.swarm/spec.md", "- FR-001: MUST\n### FR-002\nSHOULD\n```\nFR-003\n", "| SC-001 | x |", "- **auth/FR-010**: MAY")
	f.Fuzz(func(t *testing.T, data []byte) {
		s := ParseSpec(SpecPath, data)
		lines := strings.Count(string(data), "\n") + 1
		seen := map[string]bool{}
		for _, r := range append(slices.Clone(s.Requirements), s.Zero...) {
			if r.Line < 1 || r.Line > lines {
				t.Fatalf("line %d of %d", r.Line, lines)
			}
			if (r.Kind != "FR" && r.Kind != "SC") || !strings.HasSuffix(r.ID, r.Bare) || !strings.HasPrefix(r.Bare, r.Kind+"-") {
				t.Fatalf("bad requirement %+v", r)
			}
			switch r.Obligation {
			case "", "MUST", "SHALL", "SHOULD", "MAY":
			default:
				t.Fatalf("obligation %q", r.Obligation)
			}
		}
		for _, r := range s.Requirements {
			if seen[r.ID] {
				t.Fatalf("%s twice", r.ID)
			}
			seen[r.ID] = true
		}
	})
}
