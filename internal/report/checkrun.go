package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
)

// CollapseFindingsOver is the number of findings above which a check run
// summary's list of findings is collapsed in a <details> block.
const CollapseFindingsOver = 10

// DefaultFullReport is where CheckOutput says the untruncated report is
// when it is given "".
const DefaultFullReport = "the full swarm-gate report of this run"

// CheckOutput renders a gate result as its check run's conclusion, title,
// summary and annotations, within GitHub's limits (ghapi.MaxSummaryBytes
// and the others). fullReport names where the untruncated report is, for
// the last line of a cut summary ("": DefaultFullReport).
//
// The conclusion is Conclusion's. The title is the gate's, on one line of
// at most ghapi.MaxTitleRunes characters: an error's starts "could not
// evaluate: "; an empty one is the outcome's name; an unknown outcome's
// says so.
//
// Findings are taken failing first (gates.FailingFirst: errors, then
// warnings, then notices, each by path and line), in the annotations and
// in the summary's list alike, so that a cut list (a summary over
// ghapi.MaxSummaryBytes, a reader who stops at the first batch of
// ghapi.MaxAnnotationsPerRequest) never hides an error behind notices.
//
// Annotations: one per finding with a path.
// Severity error is annotation level failure, warning is warning, notice is
// notice (anything else failure). A finding about a whole file (line 0) is
// placed on lines 1-1; end_line is at least start_line; start_column and
// end_column (both the finding's column) are sent only for a one-line
// finding, as GitHub requires. The title is the rule (at most
// ghapi.MaxAnnotationTitleRunes characters), the message the finding's
// message (at most ghapi.MaxAnnotationMessageBytes bytes, cut with "…").
//
// A finding without a path is not annotated (no file would be honest);
// it is listed in the summary only, first among its severity's (an empty
// path sorts first), so that a cut summary keeps it.
//
// Summary: the gate's summary, then every finding as a list item, the
// list collapsed in a <details> block when there are more than
// CollapseFindingsOver. When that is over ghapi.MaxSummaryBytes it is cut
// by mdtext.Truncate.
func CheckOutput(res gates.Result, fullReport string) ghapi.CheckOutput {
	if fullReport == "" {
		fullReport = DefaultFullReport
	}
	out := ghapi.CheckOutput{Conclusion: Conclusion(res.Outcome), Title: checkTitle(res)}
	var items []string
	unlocated := 0
	for _, f := range gates.FailingFirst(res.Findings) {
		if f.Path == "" {
			items = append(items, fmt.Sprintf("- **%s** %s: %s", f.Severity, mdtext.Code(f.Rule), mdtext.Inline(f.Message)))
			unlocated++
			continue
		}
		items = append(items, fmt.Sprintf("- %s **%s** %s: %s", mdtext.Code(Location(f)), f.Severity, mdtext.Code(f.Rule), mdtext.Inline(f.Message)))
		out.Annotations = append(out.Annotations, annotation(f))
	}
	var b strings.Builder
	if line := mdtext.OneLine(fullTitle(res), math.MaxInt); out.Title != line {
		// The title was cut: its end (often what to do next) goes first
		// in the summary.
		fmt.Fprintf(&b, "**%s**\n\n", mdtext.Inline(line))
	}
	b.WriteString(strings.TrimSpace(res.Summary))
	if n := len(res.Findings); n > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "**%d %s**", n, plural(n, "finding", "findings"))
		if k := unlocated; k > 0 {
			fmt.Fprintf(&b, " (%d without a file, so listed here only)", k)
		}
		b.WriteString("\n\n")
		list := strings.Join(items, "\n")
		if n > CollapseFindingsOver {
			// A long list is collapsed, so that the gate's own summary
			// (tables, reasons) stays in view; the dropped-items line of a
			// cut summary is written after the list is closed.
			fmt.Fprintf(&b, "<details><summary>Show all %d findings</summary>\n\n%s\n\n</details>", n, list)
		} else {
			b.WriteString(list)
		}
	}
	if b.Len() == 0 {
		b.WriteString(out.Title)
	}
	out.Summary = mdtext.Truncate(b.String(), ghapi.MaxSummaryBytes, fullReport)
	return out
}

// Conclusion maps an outcome to a check-run conclusion (DESIGN.md
// section 5): passed and overridden are success, not_applicable is
// neutral, failed, error and any other outcome failure (fail closed).
func Conclusion(o gates.Outcome) string {
	switch o {
	case gates.Passed, gates.Overridden:
		return ghapi.ConclusionSuccess
	case gates.NotApplicable:
		return ghapi.ConclusionNeutral
	}
	return ghapi.ConclusionFailure
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// checkTitle is fullTitle cut to one line of at most ghapi.MaxTitleRunes
// characters.
func checkTitle(res gates.Result) string {
	return mdtext.OneLine(fullTitle(res), ghapi.MaxTitleRunes)
}

// fullTitle is the check run's title for a result before it is cut.
func fullTitle(res gates.Result) string {
	t := res.Title
	switch res.Outcome {
	case gates.Error:
		if !strings.HasPrefix(t, "could not evaluate") {
			t = strings.TrimSuffix("could not evaluate: "+t, ": ")
		}
	case gates.Passed, gates.Failed, gates.Overridden, gates.NotApplicable:
		if strings.TrimSpace(t) == "" {
			t = strings.ReplaceAll(string(res.Outcome), "_", " ")
		}
	default:
		t = fmt.Sprintf("could not evaluate: unknown outcome %q", res.Outcome)
	}
	return strings.TrimSpace(t)
}

func annotation(f gates.Finding) *github.CheckRunAnnotation {
	start := max(f.Line, 1)
	end := max(f.EndLine, start)
	a := &github.CheckRunAnnotation{
		Path:            github.String(f.Path),
		StartLine:       github.Int(start),
		EndLine:         github.Int(end),
		AnnotationLevel: github.String(level(f.Severity)),
		Message:         github.String(mdtext.ClipBytes(f.Message, ghapi.MaxAnnotationMessageBytes)),
	}
	if f.Message == "" {
		a.Message = github.String(f.Rule)
	}
	if f.Rule != "" {
		a.Title = github.String(mdtext.ClipRunes(f.Rule, ghapi.MaxAnnotationTitleRunes))
	}
	if f.Line > 0 && f.Column > 0 && start == end {
		a.StartColumn, a.EndColumn = github.Int(f.Column), github.Int(f.Column)
	}
	return a
}

func level(s gates.Severity) string {
	switch s {
	case gates.SeverityWarning:
		return "warning"
	case gates.SeverityNotice:
		return "notice"
	}
	return "failure"
}
