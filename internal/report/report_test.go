package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
)

func TestOverallAndExitCode(t *testing.T) {
	cases := []struct {
		in   []gates.Outcome
		want gates.Outcome
		code int
	}{
		{[]gates.Outcome{gates.Passed, gates.NotApplicable, gates.Overridden}, gates.Passed, 0},
		{[]gates.Outcome{gates.Passed, gates.Failed}, gates.Failed, 1},
		{[]gates.Outcome{gates.Failed, gates.Error}, gates.Error, 2},
		{nil, gates.Passed, 0},
	}
	for _, c := range cases {
		var rs []gates.Result
		for _, o := range c.in {
			rs = append(rs, gates.Result{Name: "g", Outcome: o})
		}
		r := New(rs)
		if r.Outcome != c.want || r.ExitCode != c.code {
			t.Errorf("%v: %s/%d, want %s/%d", c.in, r.Outcome, r.ExitCode, c.want, c.code)
		}
	}
}

func TestMarkdownEscapesRepositoryText(t *testing.T) {
	r := New([]gates.Result{{Name: "swarm/scope", Outcome: gates.Failed, Title: "a | b <script>",
		Findings: []gates.Finding{{Path: "x|y.go", Rule: "r", Severity: gates.SeverityError, Message: "line1\nline2 <b>"}}}})
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "<script>") || strings.Contains(out, "<b>") || !strings.Contains(out, `a \| b \<script\>`) || strings.Contains(out, "line1\nline2") {
		t.Errorf("unescaped:\n%s", out)
	}
}

func TestTextLimitsFindings(t *testing.T) {
	var fs []gates.Finding
	for i := range 5 {
		fs = append(fs, gates.Finding{Path: "a.go", Line: i + 1, Rule: "r", Severity: gates.SeverityError, Message: "m"})
	}
	var b bytes.Buffer
	if err := WriteText(&b, New([]gates.Result{{Name: "g", Outcome: gates.Failed, Findings: fs}}), 2); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "a.go:2: error r: m") || strings.Contains(b.String(), "a.go:3:") || !strings.Contains(b.String(), "... 3 more") {
		t.Errorf("got:\n%s", b.String())
	}
}

func TestTextEscapesControlCharacters(t *testing.T) {
	name := "notes.txt\n\nresult: passed (exit code 0): 4 passed\n\x1b[2J::error::x"
	r := New([]gates.Result{{Name: "swarm/scope", Outcome: gates.Failed, Title: "t",
		Findings: []gates.Finding{{Path: name, Rule: "r", Severity: gates.SeverityError, Message: "m\r\u2028x"}}}})
	var b bytes.Buffer
	if err := WriteText(&b, r, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Count(out, "\nresult: ") != 1 || strings.ContainsRune(out, 0x1b) || strings.Contains(out, "\n::") || !strings.Contains(out, `notes.txt\n\nresult: passed`) || !strings.Contains(out, `m\r\u2028x`) {
		t.Errorf("control characters reached the output:\n%q", out)
	}
}

// A capped list of findings (the step summary's 100, the log's 50) shows
// the failing ones first: one error after 60 notices is among the first 50
// (issue 20, B8).
func TestCappedFindingsFailingFirst(t *testing.T) {
	var fs []gates.Finding
	for i := range 60 {
		fs = append(fs, gates.Finding{Path: "a.go", Line: i + 1, Rule: "placeholder/comment-todo", Severity: gates.SeverityNotice, Message: "a notice"})
	}
	fs = append(fs, gates.Finding{Path: "z.go", Line: 1, Rule: "scope/out-of-scope", Severity: gates.SeverityError, Message: "THE FAILURE"})
	r := &Report{Outcome: gates.Failed, Gates: []gates.Result{{Name: "swarm/scope", Outcome: gates.Failed, Findings: fs}}}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"text":     func(b *bytes.Buffer) error { return WriteText(b, r, 50) },
		"markdown": func(b *bytes.Buffer) error { return WriteMarkdown(b, r, 50) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "THE FAILURE") {
			t.Errorf("%s: the failure is not among the 50 findings shown:\n%s", name, b.String())
		}
	}
}

// Issue 20: the text output shows each failing gate's next step, as its
// check-run summary does.
func TestTextShowsNextStep(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    gates.Result
		want string // "" = no next-step line
	}{
		{"failed, summary names it", gates.Result{Name: "swarm/placeholders", Outcome: gates.Failed, Summary: "2 markers.\n\nNext step: remove the marker.\nmore text"}, "remove the marker."},
		{"error, a finding names it", gates.Result{Name: "swarm/spec", Outcome: gates.Error, Findings: []gates.Finding{{Path: ".swarm/spec.md", Rule: "r", Severity: gates.SeverityError, Message: "gone. Next step: restore it."}}}, "restore it."},
		{"failed, control characters", gates.Result{Name: "g", Outcome: gates.Failed, Summary: "Next step: a\x1b[2Jb"}, `a\x1b[2Jb`},
		{"failed without one", gates.Result{Name: "swarm/scope", Outcome: gates.Failed, Summary: "1 file"}, ""},
		{"passed keeps quiet", gates.Result{Name: "swarm/evidence", Outcome: gates.Passed, Summary: "Next step: nothing."}, ""},
		{"overridden keeps quiet", gates.Result{Name: "swarm/critic", Outcome: gates.Overridden, Summary: "Next step: nothing."}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteText(&b, New([]gates.Result{tc.g}), 0); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			switch {
			case tc.want == "" && strings.Contains(out, "next step:"):
				t.Errorf("unexpected next step:\n%s", out)
			case tc.want != "" && !strings.Contains(out, "\n           next step: "+tc.want+"\n"):
				t.Errorf("want next step %q:\n%s", tc.want, out)
			}
		})
	}
}
