package gates

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

func TestEvidenceCorpus(t *testing.T) {
	cases := []struct {
		repo    string
		phase   int
		want    Outcome
		rule    string
		mention string
	}{
		{"VerduzcoTristan__landingpage", 1, Passed, "", "6 completed tasks"},
		// Flat gate files for 1.0-1.3; 1.4 (bundle form) is still pending.
		{"basel-ax__saleor-tma-frontend", 1, Passed, "", "4 completed tasks"},
		{"Areopaguaworkshop__msocr", 1, NotApplicable, "", "no completed tasks"},
		// bomberz writes task_id instead of taskId, with verdicts in the gates.
		{"phlawlessDevelopment__bomberz", 1, Passed, "", ""},
		{"melvernaldo__melvernaldo.github.io", 1, NotApplicable, "", "no completed tasks"},
		// Review receipts with verdict rejected (the curator's phase digests)
		// are not task evidence: photochron still passes.
		{"micschr0__photochron", 2, Passed, "", "9 completed tasks"},
		// quest-forge (with no merge base, every completed task counts): the plan of this ledger was created at
		// 17:22 with task 2.1 already completed; its review and test
		// records are from 16:35, under the archived plan, whose 2.1 was
		// another task ("Audit authentication flows").
		{"sleuthy-sloth__quest-forge", 1, Failed, RuleEvidenceStale, "task 2.1: the newest reviewer evidence in .swarm/evidence/2.1.json (2026-04-30T16:35:12.961Z) is older than the task's current definition (.swarm/plan-ledger.jsonl seq 1, 2026-04-30T17:22:35Z: added)"},
		// IMU's required_gates include critic, explorer, sme and docs, each
		// recorded.
		{"DediGadot__IMU-Parkinson", 1, Passed, "", "6 completed tasks"},
	}
	for _, c := range cases {
		t.Run(c.repo, func(t *testing.T) {
			r := eval(Evidence{}, &Input{Phase: c.phase, Head: corpus(t, c.repo)})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			if c.rule != "" && !hasRule(r, c.rule) {
				t.Errorf("rules %v, want %s", rules(r), c.rule)
			}
			if all := r.Title + r.Summary + findingsText(r); !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
		})
	}
}

// TestEvidenceCorpusTaskCompleted marks msocr's in-progress task 2.2.1 as
// completed: its real gate file records only the reviewer.
func TestEvidenceCorpusTaskCompleted(t *testing.T) {
	m := corpusFS(t, "Areopaguaworkshop__msocr", ".swarm/plan.json", ".swarm/evidence/2.2.1.json")
	plan := string(m[".swarm/plan.json"].Data)
	if !strings.Contains(plan, `"status": "in_progress"`) {
		t.Fatal("corpus plan changed")
	}
	m[".swarm/plan.json"] = &fstest.MapFile{Data: []byte(strings.ReplaceAll(plan, `"status": "in_progress"`, `"status": "completed"`))}
	r := eval(Evidence{}, &Input{Phase: 1, Head: load(m)})
	if r.Outcome != Failed || !hasRule(r, RuleEvidenceGateMissing) || !strings.Contains(findingsText(r), "test_engineer") || !strings.Contains(r.Summary, "Next step: for each task a finding names") {
		t.Errorf("outcome %s, want failed for the missing test_engineer gate\n%s", r.Outcome, findingsText(r))
	}
}

func TestEvidenceHandMade(t *testing.T) {
	const plan = `{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"P","tasks":[
		{"id":"1.1","phase":1,"status":"completed","description":"d"},
		{"id":"1.2","phase":1,"status":"in_progress","description":"d"}]}]}`
	cases := []struct {
		name string
		file string // content of .swarm/evidence/1.1.json; "" = absent
		want Outcome
		rule string
	}{
		{"complete", `{"taskId":"1.1","required_gates":["reviewer","test_engineer"],"gates":{"reviewer":{},"test_engineer":{}}}`, Passed, ""},
		{"missing file", "", Failed, RuleEvidenceMissing},
		{"empty required_gates", `{"taskId":"1.1","required_gates":[],"gates":{"reviewer":{}}}`, Failed, RuleEvidenceNoGates},
		{"one gate missing", `{"taskId":"1.1","required_gates":["reviewer","test_engineer"],"gates":{"reviewer":{}}}`, Failed, RuleEvidenceGateMissing},
		{"with a byte order mark", "\ufeff" + `{"taskId":"1.1","required_gates":["docs"],"gates":{"docs":{}}}`, Passed, ""},
		{"invalid JSON fails closed", `{"taskId":"1.1",`, Error, ""},
		{"wrong task id fails closed", `{"taskId":"1.2","required_gates":["docs"],"gates":{"docs":{}}}`, Error, ""},
		// The legacy flat form records one gate; a task without a gate file
		// needs reviewer and test_engineer.
		{"legacy flat form", `{"task_id":"1.1","type":"review"}`, Failed, RuleEvidenceGateMissing},
		{"uppercase verdicts (opencode-swarm 7.1)", `{"taskId":"1.1","required_gates":["reviewer","test_engineer"],"gates":{"reviewer":{"verdict":"APPROVED"},"test_engineer":{"result":"PASS"}}}`, Passed, ""},
		{"lowercase verdicts (bomberz)", `{"task_id":"1.1","required_gates":["reviewer","test_engineer"],"gates":{"reviewer":{"verdict":"approved"},"test_engineer":{"verdict":"pass"}}}`, Passed, ""},
		{"a rejected review fails", `{"taskId":"1.1","required_gates":["reviewer"],"gates":{"reviewer":{"verdict":"rejected"}}}`, Failed, RuleEvidenceRejected},
		{"a failed test fails", `{"taskId":"1.1","required_gates":["test_engineer"],"gates":{"test_engineer":{"result":"FAIL"}}}`, Failed, RuleEvidenceRejected},
		{"NEEDS_REVISION fails", `{"taskId":"1.1","required_gates":["reviewer"],"gates":{"reviewer":{"verdict":"NEEDS_REVISION"}}}`, Failed, RuleEvidenceRejected},
		{"an unrecognized verdict fails closed", `{"taskId":"1.1","required_gates":["reviewer"],"gates":{"reviewer":{"verdict":"maybe"}}}`, Failed, RuleEvidenceUnrecognizedVerdict},
		{"a summary is never read", `{"taskId":"1.1","required_gates":["reviewer"],"gates":{"reviewer":{"summary":"REJECTED: NEEDS_REVISION"}}}`, Passed, ""},
		// Item 1: a verdict that is not a string is not "no verdict".
		{"verdict false fails closed", `{"taskId":"1.1","required_gates":["reviewer"],"gates":{"reviewer":{"verdict":false}}}`, Failed, RuleEvidenceUnrecognizedVerdict},
		{"verdict null fails closed", `{"taskId":"1.1","required_gates":["reviewer"],"gates":{"reviewer":{"verdict":null}}}`, Failed, RuleEvidenceUnrecognizedVerdict},
		{"verdict array fails closed", `{"taskId":"1.1","required_gates":["reviewer"],"gates":{"reviewer":{"verdict":["rejected"]}}}`, Failed, RuleEvidenceUnrecognizedVerdict},
		{"verdict object fails closed", `{"taskId":"1.1","required_gates":["reviewer"],"gates":{"reviewer":{"verdict":{"status":"rejected"}}}}`, Failed, RuleEvidenceUnrecognizedVerdict},
		{"result false fails closed", `{"taskId":"1.1","required_gates":["test_engineer"],"gates":{"test_engineer":{"result":false}}}`, Failed, RuleEvidenceUnrecognizedVerdict},
		{"a result object is a report, not a verdict", `{"taskId":"1.1","required_gates":["test_engineer"],"gates":{"test_engineer":{"result":{"passed":12}}}}`, Passed, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := fstest.MapFS{".swarm/plan.json": {Data: []byte(plan)}}
			if c.file != "" {
				m[".swarm/evidence/1.1.json"] = &fstest.MapFile{Data: []byte(c.file)}
			}
			r := eval(Evidence{}, &Input{Phase: 1, Head: load(m)})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			if c.rule != "" && !hasRule(r, c.rule) {
				t.Errorf("rules %v, want %s", rules(r), c.rule)
			}
			if c.want == Error && !strings.Contains(r.Title, ".swarm/evidence/1.1.json") {
				t.Errorf("error title %q does not name the file", r.Title)
			}
		})
	}
}

func TestRunRecoversFromPanics(t *testing.T) {
	r := eval(panicGate{}, &Input{Head: empty()})
	if r.Outcome != Error || !strings.Contains(r.Title, "internal error") {
		t.Errorf("got %s %q", r.Outcome, r.Title)
	}
}

type panicGate struct{}

func (panicGate) Name() string { return "test/panic" }
func (panicGate) Evaluate(ctx context.Context, in *Input) Result {
	var m map[string]int
	m["x"]++
	return Result{}
}

// TestEvidenceOtherPhaseCompletedByThePR: naming phase 2 must not let a pull
// request complete phase 1's tasks without evidence.
func TestEvidenceOtherPhaseCompletedByThePR(t *testing.T) {
	plan := func(s11, s12 string) []byte {
		return []byte(`{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[
			{"id":1,"name":"A","tasks":[{"id":"1.1","phase":1,"status":"` + s11 + `","description":"d"},{"id":"1.2","phase":1,"status":"` + s12 + `","description":"d"}]},
			{"id":2,"name":"B","tasks":[{"id":"2.1","phase":2,"status":"pending","description":"d"}]}]}`)
	}
	base := load(fstest.MapFS{".swarm/plan.json": {Data: plan("completed", "pending")}})
	head := load(fstest.MapFS{".swarm/plan.json": {Data: plan("completed", "completed")}})
	r := eval(Evidence{}, &Input{Phase: 2, Base: base, Head: head})
	if r.Outcome != Failed || !strings.Contains(findingsText(r), "task 1.2") || strings.Contains(findingsText(r), "task 1.1") {
		t.Errorf("outcome %s; want failed for 1.2 only (1.1 was completed at the merge base)\n%s", r.Outcome, findingsText(r))
	}
}

// TestEvidenceForms covers the per-task bundle .swarm/evidence/{taskId}/evidence.json
// beside or instead of the gate file.
func TestEvidenceForms(t *testing.T) {
	const plan = `{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"P","tasks":[
		{"id":"1.1","phase":1,"status":"completed","description":"d"}]}]}`
	cases := []struct {
		name           string
		gateFile, flat string // .swarm/evidence/1.1.json (gate or legacy form)
		bundle         string // .swarm/evidence/1.1/evidence.json
		profile        func(*QAGates)
		want           Outcome
		rule           string
		mention        string
	}{
		{name: "bundle with approving review and test", bundle: `{"task_id":"1.1","entries":[{"type":"review","verdict":"approved"},{"type":"test","verdict":"pass"}]}`, want: Passed},
		{name: "bundle with a rejected review", bundle: `{"task_id":"1.1","entries":[{"type":"review","verdict":"rejected"},{"type":"test","verdict":"pass"}]}`,
			want: Failed, rule: RuleEvidenceRejected, mention: ".swarm/evidence/1.1/evidence.json"},
		{name: "a newer approval supersedes a rejection", bundle: `{"task_id":"1.1","entries":[
			{"type":"review","verdict":"rejected","timestamp":"2026-05-01T10:00:00Z"},
			{"type":"review","verdict":"approved","timestamp":"2026-05-01T11:00:00Z"},
			{"type":"test","verdict":"pass","timestamp":"2026-05-01T12:00:00Z"}]}`, want: Passed},
		{name: "a newer rejection in the bundle overrides the gate file's record", gateFile: `{"taskId":"1.1","required_gates":["reviewer"],"gates":{"reviewer":{"timestamp":"2026-05-01T10:00:00Z"}}}`,
			bundle: `{"task_id":"1.1","entries":[{"type":"review","verdict":"rejected","timestamp":"2026-05-01T11:00:00Z"}]}`, want: Failed, rule: RuleEvidenceRejected},
		{name: "top-level gate objects with uppercase verdicts (saleor 1.4)", bundle: `{"schema_version":"1.0.0","task_id":"1.1","verdict":"pass","reviewer":{"verdict":"APPROVED"},"test_engineer":{"verdict":"PASS"},"timestamp":"2026-03-19T21:14:00Z"}`, want: Passed},
		{name: "bundle missing the test", bundle: `{"task_id":"1.1","entries":[{"type":"review","verdict":"approved"}]}`, want: Failed, rule: RuleEvidenceGateMissing, mention: "test_engineer"},
		{name: "test_engineer off in the profile", bundle: `{"task_id":"1.1","entries":[{"type":"review","verdict":"approved"}]}`, profile: func(q *QAGates) { q.TestEngineer = false }, want: Passed},
		{name: "legacy flat review plus a bundle test", flat: `{"task_id":"1.1","type":"review","verdict":"APPROVED"}`, bundle: `{"task_id":"1.1","entries":[{"type":"test","verdict":"pass"}]}`, want: Passed},
		{name: "a retrospective entry is not a gate", bundle: `{"task_id":"1.1","entries":[{"type":"retrospective","verdict":"pass","phase_number":1}]}`, want: Failed, rule: RuleEvidenceGateMissing},
		{name: "invalid bundle fails closed naming the file", bundle: `{"entries":`, want: Error, mention: ".swarm/evidence/1.1/evidence.json"},
		{name: "a verdict repeated in one entry: the file was edited by hand", bundle: `{"task_id":"1.1","entries":[{"type":"review","verdict":"rejected",
			"verdict":"approved"},{"type":"test","verdict":"pass"}]}`, want: Failed, rule: RuleEvidenceDuplicateKey, mention: "task 1.1: `entries[0].verdict` appears twice in one object of .swarm/evidence/1.1/evidence.json (lines 1 and 2)"},
		{name: "a gate repeated in a gate file", gateFile: `{"taskId":"1.1","required_gates":["reviewer"],"gates":{"reviewer":{"verdict":"pass"},"reviewer":{"verdict":"pass"}}}`,
			want: Failed, rule: RuleEvidenceDuplicateKey, mention: "`gates.reviewer` appears twice in one object of .swarm/evidence/1.1.json"},
		{name: "bundle with a byte order mark", bundle: "\ufeff" + `{"entries":[{"type":"review","verdict":"approved"},{"type":"test","verdict":"pass"}]}`, want: Passed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := fstest.MapFS{".swarm/plan.json": {Data: []byte(plan)}}
			for p, d := range map[string]string{".swarm/evidence/1.1.json": c.gateFile + c.flat, ".swarm/evidence/1.1/evidence.json": c.bundle} {
				if d != "" {
					m[p] = &fstest.MapFile{Data: []byte(d)}
				}
			}
			cfg := DefaultConfig()
			if c.profile != nil {
				c.profile(&cfg.QAGates)
			}
			r := eval(Evidence{}, &Input{Phase: 1, Head: load(m), Config: cfg})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			if c.rule != "" && !hasRule(r, c.rule) {
				t.Errorf("rules %v, want %s", rules(r), c.rule)
			}
			if all := r.Title + findingsText(r); !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
		})
	}
}

// TestEvidenceCorpusForms reads real files in place: saleor-tma-frontend's
// 1.4 bundle (uppercase APPROVED/PASS in top-level gate objects) once 1.4 is
// marked completed, and opencode-swarm's own 7.1/7.2 gate files (APPROVED,
// result PASS).
func TestEvidenceCorpusForms(t *testing.T) {
	m := corpusFS(t, "basel-ax__saleor-tma-frontend", ".swarm/plan.json", ".swarm/evidence/1.0.json", ".swarm/evidence/1.1.json",
		".swarm/evidence/1.2.json", ".swarm/evidence/1.3.json", ".swarm/evidence/1.4/evidence.json")
	plan := string(m[".swarm/plan.json"].Data)
	m[".swarm/plan.json"] = &fstest.MapFile{Data: []byte(strings.Replace(plan, `"status": "pending"`, `"status": "completed"`, 1))}
	r := eval(Evidence{}, &Input{Phase: 1, Head: load(m)})
	if r.Outcome != Passed || !strings.Contains(r.Title, "5 completed tasks") {
		t.Errorf("saleor with 1.4 completed: %s %q\n%s", r.Outcome, r.Title, findingsText(r))
	}
	z := corpusFS(t, "zaxbysauce__opencode-swarm", ".swarm/evidence/7.1.json", ".swarm/evidence/7.2.json")
	z[".swarm/plan.json"] = &fstest.MapFile{Data: []byte(`{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":7,"name":"P","tasks":[
		{"id":"7.1","phase":7,"status":"completed","description":"d"},{"id":"7.2","phase":7,"status":"completed","description":"d"}]}]}`)}
	if r := eval(Evidence{}, &Input{Phase: 7, Head: load(z)}); r.Outcome != Passed {
		t.Errorf("opencode-swarm 7.x: %s %q\n%s", r.Outcome, r.Title, findingsText(r))
	}
}

// TestEvidenceFindingsNameTheField: item 1 (a non-string verdict names its
// file and the verdict's line), item 5 (an id the plugin refuses) and item 6
// (a bundle of another task).
func TestEvidenceFindingsNameTheField(t *testing.T) {
	plan := func(id string) string {
		return `{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"P","tasks":[
		{"id":"` + id + `","phase":1,"status":"completed","description":"d"}]}]}`
	}
	cases := []struct {
		name   string
		id     string
		files  map[string]string
		want   Outcome
		rule   string
		path   string
		line   int
		phrase string
	}{
		{name: "verdict false", id: "1.1", files: map[string]string{".swarm/evidence/1.1.json": "{\"taskId\":\"1.1\",\"required_gates\":[\"reviewer\"],\"gates\":{\n\"reviewer\":{\"agent\":\"reviewer\",\n\"verdict\":false}}}"},
			want: Failed, rule: RuleEvidenceUnrecognizedVerdict, path: ".swarm/evidence/1.1.json", line: 3, phrase: "verdict false, which is not a string"},
		{name: "bundle entry verdict array", id: "1.1", files: map[string]string{".swarm/evidence/1.1/evidence.json": "{\"task_id\":\"1.1\",\"entries\":[\n{\"type\":\"review\",\n\"verdict\":[\"rejected\"]},{\"type\":\"test\",\"verdict\":\"pass\"}]}"},
			want: Failed, rule: RuleEvidenceUnrecognizedVerdict, path: ".swarm/evidence/1.1/evidence.json", line: 3, phrase: `verdict ["rejected"]`},
		{name: "an id the plugin refuses, its file present", id: "1.2a", files: map[string]string{".swarm/evidence/1.2a.json": `{"taskId":"1.2a","required_gates":["reviewer"],"gates":{"reviewer":{}}}`},
			want: Failed, rule: RuleEvidenceInvalidTaskID, path: ".swarm/plan.json", phrase: `"1.2a" is not a valid task id (the plugin's pattern ^\d+(\.\d+)+$, e.g. 1.2 or 2.1.3): the plugin reads no evidence for it, so .swarm/evidence/1.2a.json was skipped`},
		{name: "an id the plugin refuses, no file", id: "T1", want: Failed, rule: RuleEvidenceInvalidTaskID, phrase: "neither .swarm/evidence/T1.json nor .swarm/evidence/T1/evidence.json would count"},
		{name: "a bundle of another task", id: "1.2", files: map[string]string{".swarm/evidence/1.2/evidence.json": "{\n\"task_id\":\"9.9\",\"entries\":[{\"type\":\"review\",\"verdict\":\"pass\"},{\"type\":\"test\",\"verdict\":\"pass\"}]}"},
			want: Error, path: ".swarm/evidence/1.2/evidence.json", line: 2, phrase: `task_id "9.9" does not match the folder name 1.2`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := fstest.MapFS{".swarm/plan.json": {Data: []byte(plan(c.id))}}
			for p, d := range c.files {
				m[p] = &fstest.MapFile{Data: []byte(d)}
			}
			r := eval(Evidence{}, &Input{Phase: 1, Head: load(m)})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			if c.want == Error {
				if !strings.Contains(r.Title, c.path) || !strings.Contains(r.Title, c.phrase) || !hasFindingAt(r, c.path, c.line) {
					t.Errorf("error %q / %v does not name %s:%d and %q", r.Title, r.Findings, c.path, c.line, c.phrase)
				}
				return
			}
			if !hasRule(r, c.rule) || !strings.Contains(findingsText(r), c.phrase) {
				t.Errorf("rules %v, want %s mentioning %q\n%s", rules(r), c.rule, c.phrase, findingsText(r))
			}
			if c.path != "" && !hasFindingAt(r, c.path, c.line) {
				t.Errorf("no finding at %s:%d: %+v", c.path, c.line, r.Findings)
			}
		})
	}
}

// hasFindingAt reports whether r has a finding at path (and line, when
// line > 0).
func hasFindingAt(r Result, path string, line int) bool {
	for _, f := range r.Findings {
		if f.Path == path && (line == 0 || f.Line == line) {
			return true
		}
	}
	return false
}

// TestEvidenceRequiredGatesGrowOnly: the plugin's required_gates is
// grow-only (src/gate-evidence.ts); a pull request that rewrites the merge
// base's [reviewer, test_engineer] to [docs] (adversarial) is still held to
// reviewer and test_engineer, and the finding says the list shrank.
func TestEvidenceRequiredGatesGrowOnly(t *testing.T) {
	plan := `{"schema_version":"1.0.0","title":"t","swarm":"s","current_phase":1,"phases":[{"id":1,"name":"p","status":"in_progress","tasks":[
		{"id":"1.1","phase":1,"status":"completed","description":"d"}]}]}`
	base := fstest.MapFS{".swarm/plan.json": {Data: []byte(plan)},
		".swarm/evidence/1.1.json": {Data: []byte(`{"taskId":"1.1","required_gates":["reviewer","test_engineer"],"gates":{"reviewer":{}}}`)}}
	head := fstest.MapFS{".swarm/plan.json": {Data: []byte(plan)},
		".swarm/evidence/1.1.json": {Data: []byte(`{"taskId":"1.1","required_gates":["docs"],"gates":{"docs":{}}}`)}}
	r := eval(Evidence{}, &Input{Phase: 1, Head: load(head), Base: load(base)})
	if r.Outcome != Failed || !hasRule(r, RuleEvidenceGatesShrank) || !strings.Contains(findingsText(r), "test_engineer") {
		t.Fatalf("%s %q\n%s", r.Outcome, r.Title, findingsText(r))
	}
	// A list that grew, or stayed, is the plugin's own.
	head[".swarm/evidence/1.1.json"] = &fstest.MapFile{Data: []byte(`{"taskId":"1.1","required_gates":["docs","reviewer","test_engineer"],"gates":{"docs":{},"reviewer":{},"test_engineer":{}}}`)}
	if r := eval(Evidence{}, &Input{Phase: 1, Head: load(head), Base: load(base)}); r.Outcome != Passed {
		t.Fatalf("%s %q\n%s", r.Outcome, r.Title, findingsText(r))
	}
}

// A gate file the pull request writes with required_gates [docs] for a
// code task passed with no review and no test (adversarial pass): a list
// without reviewer is believed only for a task whose files are not code.
func TestEvidenceRequiredGatesWithoutReview(t *testing.T) {
	plan := func(files string) string {
		return `{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"P","tasks":[
		{"id":"1.1","phase":1,"status":"completed","description":"d","files_touched":` + files + `}]}]}`
	}
	docsOnly := `{"taskId":"1.1","required_gates":["docs"],"gates":{"docs":{"timestamp":"2026-11-02T10:20:00.000Z"}}}`
	for _, c := range []struct {
		name, files, gateFile string
		changed               []string
		want                  Outcome
		mention               string
	}{
		{"docs task writing docs", `["docs/guide.md"]`, docsOnly, []string{"docs/guide.md"}, Passed, ""},
		{"[docs] for a code file", `["cmd/export/main.go"]`, docsOnly, []string{"cmd/export/main.go"}, Failed,
			"task 1.1: .swarm/evidence/1.1.json requires only docs, which the plugin writes when the first agent dispatched was not a coder, but the task's files are code (`cmd/export/main.go`): reviewer and test_engineer still required"},
		{"[docs] for a folder of code the pull request changes", `["cmd/export/"]`, docsOnly, []string{"cmd/export/run.go", "README.md"}, Failed, "(`cmd/export/run.go`)"},
		{"[reviewer] is the plugin's own list for a reviewer-first task", `["src/a.go"]`, `{"taskId":"1.1","required_gates":["reviewer"],"gates":{"reviewer":{"timestamp":"2026-11-02T10:20:00.000Z"}}}`, []string{"src/a.go"}, Passed, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := fstest.MapFS{".swarm/plan.json": {Data: []byte(plan(c.files))}, ".swarm/evidence/1.1.json": {Data: []byte(c.gateFile)}}
			cs := &changeset.ChangeSet{}
			for _, p := range c.changed {
				cs.Files = append(cs.Files, changeset.File{NewPath: p, Status: changeset.Modified})
			}
			r := eval(Evidence{}, &Input{Phase: 1, Head: load(m), Changes: cs})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			if c.want == Failed && (!hasRule(r, RuleEvidenceGatesNarrow) || !strings.Contains(findingsText(r), c.mention)) {
				t.Errorf("rules %v, want %s mentioning %q:\n%s", rules(r), RuleEvidenceGatesNarrow, c.mention, findingsText(r))
			}
		})
	}
}

// TestEvidenceClosedByPR is issue 20 (weaknesses, item 2): a task needs
// evidence only when completed, and a closed task counts as done for the
// phase. In the plugin only a person's /swarm close sets closed (on the
// tasks left unfinished, close_reason session_terminated; update_task_status
// offers pending, in_progress, completed and blocked), so a pull request
// that marks a task closed skipped its review and test evidence and closed
// its phase without the work: swarm/evidence names it and fails. A task
// closed on the merge base already is shown, not blamed.
func TestEvidenceClosedByPR(t *testing.T) {
	const plan = `{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"P","tasks":[
		{"id":"1.1","phase":1,"status":"completed","description":"d"},
		{"id":"1.2","phase":1,"status":"STATUS","description":"d"}]}]}`
	gate := `{"taskId":"1.1","required_gates":["reviewer","test_engineer"],"gates":{"reviewer":{},"test_engineer":{}}}`
	side := func(status string) fstest.MapFS {
		return fstest.MapFS{".swarm/plan.json": {Data: []byte(strings.Replace(plan, "STATUS", status, 1))}, ".swarm/evidence/1.1.json": {Data: []byte(gate)}}
	}
	for _, c := range []struct {
		name, base, head string
		want             Outcome
		closedFinding    bool
	}{
		{"closed by the pull request", "pending", "closed", Failed, true},
		{"closed from in_progress", "in_progress", "closed", Failed, true},
		{"closed on the merge base already", "closed", "closed", Passed, false},
		{"blocked instead", "pending", "blocked", Passed, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := eval(Evidence{}, &Input{Phase: 1, Head: load(side(c.head)), Base: load(side(c.base))})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			if hasRule(r, RuleEvidenceClosedByPR) != c.closedFinding {
				t.Fatalf("closed finding %v, want %v:\n%s", hasRule(r, RuleEvidenceClosedByPR), c.closedFinding, findingsText(r))
			}
			if c.closedFinding {
				if all := r.Title + "\n" + findingsText(r); !strings.Contains(r.Title, "closed") || !strings.Contains(all, "task 1.2") || !strings.Contains(all, "/swarm close") || !strings.Contains(all, "blocked_reason") {
					t.Errorf("title or message does not say what was done and what to do:\n%s", all)
				}
			}
		})
	}
	// Only closed tasks, none completed: still judged.
	only := strings.Replace(strings.Replace(plan, `"status":"completed"`, `"status":"pending"`, 1), "STATUS", "closed", 1)
	base := strings.Replace(strings.Replace(plan, `"status":"completed"`, `"status":"pending"`, 1), "STATUS", "pending", 1)
	r := eval(Evidence{}, &Input{Phase: 1, Head: load(fstest.MapFS{".swarm/plan.json": {Data: []byte(only)}}), Base: load(fstest.MapFS{".swarm/plan.json": {Data: []byte(base)}})})
	if r.Outcome != Failed || !hasRule(r, RuleEvidenceClosedByPR) {
		t.Errorf("only a closed task: %s (%s)\n%s", r.Outcome, r.Title, findingsText(r))
	}
}

// TestEvidencePredatesPR is issue 20 (weaknesses, item 3): evidence already
// on the merge base counted for a task this pull request completes, even
// when the pull request changes the task's files after that review. The
// newest reviewer or test_engineer record of a task the pull request
// completes must not be one the merge base already holds when the pull
// request changes a file in the task's scope: it reviewed the files before
// this work. A status-only completion (the work and its evidence landed
// earlier, as in quest-forge range 56's task 2.2) still passes.
func TestEvidencePredatesPR(t *testing.T) {
	const plan = `{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"P","tasks":[
		{"id":"1.1","phase":1,"status":"STATUS","description":"d","files_touched":["src/a.go"]}]}]}`
	old := `{"taskId":"1.1","required_gates":["reviewer","test_engineer"],"gates":{"reviewer":{"sessionId":"s","timestamp":"2026-07-17T10:00:00.000Z","agent":"reviewer"},"test_engineer":{"sessionId":"s","timestamp":"2026-07-17T10:05:00.000Z","agent":"test_engineer"}}}`
	fresh := strings.Replace(old, "2026-07-17T10:00:00.000Z", "2026-07-18T10:00:00.000Z", 1)
	fresh = strings.Replace(fresh, "2026-07-17T10:05:00.000Z", "2026-07-18T10:05:00.000Z", 1)
	side := func(status, ev string) fstest.MapFS {
		return fstest.MapFS{".swarm/plan.json": {Data: []byte(strings.Replace(plan, "STATUS", status, 1))}, ".swarm/evidence/1.1.json": {Data: []byte(ev)}}
	}
	for _, c := range []struct {
		name       string
		baseStatus string
		headEv     string
		changed    string
		want       Outcome
		finding    bool
	}{
		{"the base's review, the task's file changed", "in_progress", old, "src/a.go", Failed, true},
		{"a new review", "in_progress", fresh, "src/a.go", Passed, false},
		{"status only: the task's files unchanged", "in_progress", old, "README.md", Passed, false},
		{"completed on the merge base already", "completed", old, "src/a.go", Passed, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := &Input{Phase: 1, Head: load(side("completed", c.headEv)), Base: load(side(c.baseStatus, old)),
				Changes: &changeset.ChangeSet{Files: []changeset.File{{Status: changeset.Modified, OldPath: c.changed, NewPath: c.changed}}}}
			r := eval(Evidence{}, in)
			if r.Outcome != c.want || hasRule(r, RuleEvidencePredatesPR) != c.finding {
				t.Fatalf("outcome %s (%s), want %s with finding %v\n%s", r.Outcome, r.Title, c.want, c.finding, findingsText(r))
			}
			if c.finding {
				all := findingsText(r)
				for _, want := range []string{"task 1.1", "reviewer", "test_engineer", "src/a.go", "2026-07-17T10:00:00.000Z", "merge base"} {
					if !strings.Contains(all, want) {
						t.Errorf("findings lack %q:\n%s", want, all)
					}
				}
			}
		})
	}
}
