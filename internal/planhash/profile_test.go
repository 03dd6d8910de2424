package planhash

import (
	"bytes"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

func TestExecutionProfileJSON(t *testing.T) {
	for _, tc := range []struct {
		name, profile, want string
	}{
		{"four-key profile as stored", `{"parallelization_enabled":false,"max_concurrent_tasks":1,"council_parallel":false,"locked":true}`,
			`{"parallelization_enabled":false,"max_concurrent_tasks":1,"council_parallel":false,"locked":true}`},
		{"own key order kept", `{"locked":false,"max_concurrent_tasks":4}`, `{"locked":false,"max_concurrent_tasks":4}`},
		{"commit flag false dropped", `{"locked":true,"commit_after_each_completed_task":false,"auto_proceed":false}`, `{"locked":true,"auto_proceed":false}`},
		{"commit flag true kept in place", `{"locked":true,"commit_after_each_completed_task":true,"planning_profile":"strict"}`,
			`{"locked":true,"commit_after_each_completed_task":true,"planning_profile":"strict"}`},
		{"commit flag not a boolean dropped", `{"commit_after_each_completed_task":"true"}`, `{}`},
		{"whitespace and escapes normalised", "{ \"planning_profile\" : \"a\u2028b\" }", "{\"planning_profile\":\"a\u2028b\"}"},
		{"not an object kept as stored", `[1, 2]`, `[1,2]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := jsjson.Parse([]byte(tc.profile))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(ExecutionProfileJSON(v)); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	if got := ExecutionProfileJSON(nil); got != nil {
		t.Errorf("nil profile gave %q, want nil", got)
	}
}

// TestExecutionProfileJSONIsWhatTheLedgerHashWrites checks the bytes against
// the canonical plan serialisation they are cut from.
func TestExecutionProfileJSONIsWhatTheLedgerHashWrites(t *testing.T) {
	plan := `{"schema_version":"1.0.0","title":"T","swarm":"s","execution_profile":{"max_concurrent_tasks":3,"commit_after_each_completed_task":false,"locked":true},"phases":[{"id":1,"name":"P","tasks":[]}]}`
	v, err := jsjson.Parse([]byte(plan))
	if err != nil {
		t.Fatal(err)
	}
	canon, err := CanonicalJSON(v, true)
	if err != nil {
		t.Fatal(err)
	}
	ep := ExecutionProfileJSON(v.Get("execution_profile"))
	if !bytes.Contains(canon, append([]byte(`"execution_profile":`), ep...)) {
		t.Errorf("canonical plan %s does not contain the profile bytes %s", canon, ep)
	}
	if strings.Contains(string(ep), "commit_after") {
		t.Errorf("false commit flag kept: %s", ep)
	}
}
