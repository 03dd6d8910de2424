package gates

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
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
	if r.Outcome != Failed || !hasRule(r, RuleEvidenceGateMissing) || !strings.Contains(findingsText(r), "test_engineer") {
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
		{"legacy flat form", `{"task_id":"1.1","type":"review"}`, Failed, RuleEvidenceNoGates},
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
