package planhash

import (
	"errors"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

func mustParse(t *testing.T, s string) *jsjson.Value {
	t.Helper()
	v, err := jsjson.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The approved plan of edge case B18 (../shared/cases/edge-cases.md).
const b18Approved = `{"schema_version":"1.0.0","title":"Add export","swarm":"default","current_phase":1,
 "phases":[{"id":1,"name":"Export","status":"in_progress",
   "tasks":[{"id":"1.1","phase":1,"status":"pending","size":"small",
             "description":"Add CSV writer","depends":[],"acceptance":"CSV round-trips",
             "files_touched":["src/export/csv.go","docs/export.md"]}]}]}`

func TestStructureHashDriftB18(t *testing.T) {
	approved, err := StructureHash(mustParse(t, b18Approved))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		plan  string
		drift bool
	}{
		{"task status changes", strings.Replace(b18Approved, `"status":"pending"`, `"status":"in_progress"`, 1), false},
		{"re-serialized with other whitespace and key order", `{"phases":[{"tasks":[{"files_touched":["src/export/csv.go","docs/export.md"],"acceptance":"CSV round-trips","depends":[],"description":"Add CSV writer","size":"small","status":"pending","phase":1,"id":"1.1"}],"status":"in_progress","name":"Export","id":1}],"current_phase":1,"swarm":"default","title":"Add export","schema_version":"1.0.0"}`, false},
		{"files_touched reordered", strings.Replace(b18Approved, `["src/export/csv.go","docs/export.md"]`, `["docs/export.md","src/export/csv.go"]`, 1), false},
		{"phase status changes", strings.Replace(b18Approved, `"status":"in_progress"`, `"status":"complete"`, 1), false},
		{"fr_refs added (not hashed)", strings.Replace(b18Approved, `"size":"small",`, `"size":"small","fr_refs":["FR-001"],`, 1), false},
		{"description changes", strings.Replace(b18Approved, "Add CSV writer", "Add CSV and TSV writers", 1), true},
		{"files_touched gains a file", strings.Replace(b18Approved, `"docs/export.md"]`, `"docs/export.md","src/export/tsv.go"]`, 1), true},
		{"defaults written out explicitly", strings.Replace(b18Approved, `"size":"small",`, ``, 1), false},
		{"acceptance removed", strings.Replace(b18Approved, `"acceptance":"CSV round-trips",`, ``, 1), true},
		{"current_phase changes", strings.Replace(b18Approved, `"current_phase":1`, `"current_phase":2`, 1), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := StructureHash(mustParse(t, c.plan))
			if err != nil {
				t.Fatal(err)
			}
			if (got != approved) != c.drift {
				t.Errorf("drift = %v, want %v", got != approved, c.drift)
			}
		})
	}
}

func TestLedgerHashIncludesStatus(t *testing.T) {
	a, _ := LedgerHash(mustParse(t, b18Approved))
	b, _ := LedgerHash(mustParse(t, strings.Replace(b18Approved, `"status":"pending"`, `"status":"completed"`, 1)))
	if a == b {
		t.Error("ledger hash ignores task status")
	}
}

func TestCanonicalJSONShape(t *testing.T) {
	got, err := CanonicalJSON(mustParse(t, `{"title":"T","swarm":"s","schema_version":"1.0.0","specHash":"x","phases":[{"name":"P","id":1,"type":"code","required_agents":["z","a"],"tasks":[{"id":"1.1","phase":1,"description":"d","files_touched":["b","a"],"fr_refs":["FR-1"],"_x":1}]}],"execution_profile":{"locked":true,"commit_after_each_completed_task":false,"max_concurrent_tasks":2}}`), true)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema_version":"1.0.0","title":"T","swarm":"s","execution_profile":{"locked":true,"max_concurrent_tasks":2},"phases":[{"id":1,"name":"P","status":"pending","required_agents":["a","z"],"tasks":[{"id":"1.1","phase":1,"status":"pending","size":"small","description":"d","depends":[],"files_touched":["a","b"]}]}]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	noStatus, _ := CanonicalJSON(mustParse(t, `{"title":"T","swarm":"s","schema_version":"1.0.0","phases":[{"name":"P","id":1,"status":"complete","tasks":[]}]}`), false)
	if string(noStatus) != `{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"P","tasks":[]}]}` {
		t.Errorf("structure form: %s", noStatus)
	}
}

func TestSchemaViolationsNameTheField(t *testing.T) {
	cases := []struct{ plan, field string }{
		{`[]`, "(plan)"},
		{`{"title":"T","swarm":"s","phases":[]}`, "schema_version"},
		{`{"schema_version":"1.0.0","title":"","swarm":"s","phases":[{"id":1,"name":"P"}]}`, "title"},
		{`{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[]}`, "phases"},
		{`{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1.5,"name":"P"}]}`, "phases[0].id"},
		{`{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"P","tasks":[{"id":1,"phase":1,"description":"d"}]}]}`, "phases[0].tasks[0].id"},
		{`{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"P","tasks":[{"id":"1.1","phase":1,"description":"d","files_touched":["a",2]}]}]}`, "phases[0].tasks[0].files_touched[1]"},
		{`{"schema_version":"1.0.0","title":"T","swarm":"s","current_phase":null,"phases":[{"id":1,"name":"P"}]}`, "current_phase"},
		{`{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"P","status":3}]}`, "phases[0].status"},
		{`{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"P","tasks":[{"id":"1.1","phase":9007199254740993,"description":"d"}]}]}`, "phases[0].tasks[0].phase"},
	}
	for _, c := range cases {
		_, err := Compute(mustParse(t, c.plan))
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: err = %v, want a FieldError", c.plan, err)
			continue
		}
		if fe.Field != c.field {
			t.Errorf("%s: field %q (%v), want %q", c.plan, fe.Field, err, c.field)
		}
	}
}

func FuzzCompute(f *testing.F) {
	f.Add([]byte(b18Approved))
	f.Add([]byte(`{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"P","tasks":[{"id":"1.1","phase":1,"description":"d"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := jsjson.Parse(data)
		if err != nil {
			return
		}
		d1, err1 := Compute(v)
		d2, err2 := Compute(v)
		if (err1 == nil) != (err2 == nil) || d1 != d2 {
			t.Fatal("Compute is not deterministic")
		}
	})
}
