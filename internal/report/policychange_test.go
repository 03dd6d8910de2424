package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
)

// TestPolicyChangeInEveryOutput: a pull request's invalid policy file fails
// a report whose gates passed, and every format says so.
func TestPolicyChangeInEveryOutput(t *testing.T) {
	r := New([]gates.Result{{Name: "swarm/plan-freeze", Outcome: gates.Passed, Title: "ok", Findings: []gates.Finding{}}})
	r.PolicyChange = &PolicyChange{Path: ".github/swarm-gate.yml", Status: "added", Problems: []string{`line 3, column 13: plan_freeze.approval: "humans" is not one of any, base-anchored, human`}}
	r.Settle()
	if r.Outcome != gates.Failed || r.ExitCode != ExitFailed {
		t.Fatalf("outcome %s exit %d, want failed 1", r.Outcome, r.ExitCode)
	}
	var text, md, sarif, js bytes.Buffer
	if err := WriteText(&text, r, 0); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, r, 0); err != nil {
		t.Fatal(err)
	}
	if err := WriteSARIF(&sarif, r, "test"); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for name, tt := range map[string]struct {
		out  string
		want []string
	}{
		"text":     {text.String(), []string{"is invalid, 1 problem", "  line 3, column 13: plan_freeze.approval", "result: failed (exit code 1): 1 passed; the pull request's .github/swarm-gate.yml is invalid"}},
		"markdown": {md.String(), []string{"> [!CAUTION]", "line 3, column 13: plan\\_freeze.approval"}},
		"sarif":    {sarif.String(), []string{`"level": "error"`, "the pull request's .github/swarm-gate.yml is invalid: line 3, column 13"}},
		"json":     {js.String(), []string{`"policy_change": {`, `"status": "added"`, `"problems": [`}},
	} {
		for _, w := range tt.want {
			if !strings.Contains(tt.out, w) {
				t.Errorf("%s lacks %q:\n%s", name, w, tt.out)
			}
		}
	}
}
