package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
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
// in the first batch of ghapi.MaxAnnotationsPerRequest, and the first item of
// the summary's list, so a cut summary keeps it.
func TestOutputFailingFirst(t *testing.T) {
	out := CheckOutput(paddedResult(), "R")
	if len(out.Annotations) != 61 {
		t.Fatalf("%d annotations, want 61", len(out.Annotations))
	}
	found := false
	for _, a := range out.Annotations[:ghapi.MaxAnnotationsPerRequest] {
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

func TestTitles(t *testing.T) {
	cases := []struct {
		res  gates.Result
		want string
	}{
		{gates.Result{Outcome: gates.Passed}, "passed"},
		{gates.Result{Outcome: gates.NotApplicable}, "not applicable"},
		{gates.Result{Outcome: gates.Error, Title: "could not evaluate: x"}, "could not evaluate: x"},
		{gates.Result{Outcome: gates.Error, Title: "x"}, "could not evaluate: x"},
		{gates.Result{Outcome: gates.Error}, "could not evaluate"},
		{gates.Result{Outcome: "bogus", Title: "fine"}, `could not evaluate: unknown outcome "bogus"`},
		{gates.Result{Outcome: gates.Failed, Title: "first\nsecond\x1b[2J"}, "first"},
		{gates.Result{Outcome: gates.Failed, Title: strings.Repeat("ab", 200)}, strings.Repeat("ab", 127) + "…"},
	}
	for _, tc := range cases {
		out := CheckOutput(tc.res, "R")
		if out.Title != tc.want {
			t.Errorf("%+v: title %q, want %q", tc.res, out.Title, tc.want)
		}
		if tc.res.Outcome == "bogus" && out.Conclusion != ghapi.ConclusionFailure {
			t.Errorf("unknown outcome concludes %s", out.Conclusion)
		}
	}
}

// TestCutTitleIsInTheSummary: a title over MaxTitleRunes is cut in the
// title, and the whole line leads the summary, so that its end (what to
// do next) is not lost; a title that fits is not repeated.
func TestCutTitleIsInTheSummary(t *testing.T) {
	long := "could not evaluate: " + strings.Repeat("x", ghapi.MaxTitleRunes) + "; fix the scanner step"
	out := CheckOutput(gates.Result{Name: "swarm/sast", Outcome: gates.Error, Title: long, Summary: "s"}, "")
	if !strings.HasSuffix(out.Title, "…") || !strings.HasPrefix(out.Summary, "**could not evaluate: xxx") || !strings.Contains(out.Summary, "; fix the scanner step**\n\ns") {
		t.Errorf("title %q\nsummary %q", out.Title, out.Summary)
	}
	out = CheckOutput(gates.Result{Name: "swarm/sast", Outcome: gates.Error, Title: "could not evaluate: short", Summary: "s"}, "")
	if out.Summary != "s" {
		t.Errorf("summary %q", out.Summary)
	}
}
