package ghapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
)

// paddedResult is a failed gate whose one error comes after 60 notices, in
// the gate's own order (issue 20, B8).
func paddedResult() gates.Result {
	var fs []gates.Finding
	for i := range 60 {
		fs = append(fs, gates.Finding{Path: fmt.Sprintf("a/%02d.go", i), Line: 1, Rule: "placeholder/comment-todo", Severity: gates.SeverityNotice, Message: "a notice"})
	}
	fs = append(fs, gates.Finding{Path: "z/last.go", Line: 9, Rule: "scope/out-of-scope", Severity: gates.SeverityError, Message: "THE FAILURE"})
	return gates.Result{Name: "swarm/scope", Outcome: gates.Failed, Title: "1 file out of scope", Findings: fs}
}

// 60 notices then 1 failure: the failure is the first annotation, so it is
// in the first batch of MaxAnnotationsPerRequest, and the first item of
// the summary's list, so a cut summary keeps it.
func TestOutputFailingFirst(t *testing.T) {
	out := Output(paddedResult(), "R")
	if len(out.Annotations) != 61 {
		t.Fatalf("%d annotations, want 61", len(out.Annotations))
	}
	found := false
	for _, a := range out.Annotations[:MaxAnnotationsPerRequest] {
		if a.GetAnnotationLevel() == "failure" {
			found = true
		}
	}
	if !found || out.Annotations[0].GetMessage() != "THE FAILURE" {
		t.Errorf("the failure is not the first annotation (first: %q)", out.Annotations[0].GetMessage())
	}
	i, j := strings.Index(out.Summary, "THE FAILURE"), strings.Index(out.Summary, "a notice")
	if i < 0 || j < 0 || i > j {
		t.Errorf("in the summary, the failure (at %d) is not listed before the notices (at %d)", i, j)
	}
}

// Within one severity the order is by path, then line, and findings equal
// in both keep the gate's order; an unknown severity ranks as an error.
func TestFailingFirstOrder(t *testing.T) {
	in := []gates.Finding{
		{Path: "b", Line: 2, Severity: gates.SeverityNotice, Message: "n1"},
		{Path: "b", Line: 1, Severity: gates.SeverityWarning, Message: "w1"},
		{Path: "a", Line: 5, Severity: gates.SeverityWarning, Message: "w2"},
		{Path: "c", Line: 1, Severity: "bogus", Message: "x"},
		{Path: "a", Line: 5, Severity: gates.SeverityWarning, Message: "w3"},
		{Path: "", Severity: gates.SeverityError, Message: "e1"},
	}
	var got []string
	for _, f := range gates.FailingFirst(in) {
		got = append(got, f.Message)
	}
	if want := "e1 x w2 w3 w1 n1"; strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
	if in[0].Message != "n1" {
		t.Error("FailingFirst changed its argument")
	}
}
