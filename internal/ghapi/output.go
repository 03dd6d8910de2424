package ghapi

import (
	"fmt"
	"math"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// GitHub's limits on check-run output (github/README.md, "Limits worth
// testing"). Lengths are counted in bytes where GitHub does not say
// whether it counts characters or bytes: a byte budget satisfies both.
const (
	// MaxAnnotationsPerRequest is the maxItems of output.annotations on
	// create and update.
	MaxAnnotationsPerRequest = 50
	// MaxSummaryBytes is output.summary's maxLength (65535 "characters").
	MaxSummaryBytes = 65535
	// MaxTitleRunes bounds output.title. GitHub documents no limit for it;
	// 255 characters is its limit on annotation titles, and keeps the
	// title one readable line.
	MaxTitleRunes = 255
	// MaxAnnotationMessageBytes bounds an annotation's message: "64 KB",
	// read as 64,000 bytes, the smaller reading.
	MaxAnnotationMessageBytes = 64000
	// MaxAnnotationTitleRunes is the documented limit on annotation titles.
	MaxAnnotationTitleRunes = 255
	// CollapseFindingsOver is the number of findings above which a
	// summary's list of findings is collapsed in a <details> block.
	CollapseFindingsOver = 10
)

// CheckOutput is what Complete sends for a gate result.
type CheckOutput struct {
	Conclusion  string // success, failure or neutral
	Title       string // one line, at most MaxTitleRunes characters
	Summary     string // Markdown, at most MaxSummaryBytes bytes
	Annotations []*github.CheckRunAnnotation
}

// Output maps a gate result to a check run's conclusion, title, summary and
// annotations. fullReport names where the untruncated report is, for the
// last line of a cut summary.
//
// Findings are taken failing first (gates.FailingFirst: errors, then
// warnings, then notices, each by path and line), in the annotations and
// in the summary's list alike, so that a cut list (a summary over
// MaxSummaryBytes, a reader who stops at the first batch of
// MaxAnnotationsPerRequest) never hides an error behind notices.
//
// Annotations: one per finding with a path.
// Severity error is annotation level failure, warning is warning, notice is
// notice (anything else failure). A finding about a whole file (line 0) is
// placed on lines 1-1; end_line is at least start_line; start_column and
// end_column (both the finding's column) are sent only for a one-line
// finding, as GitHub requires. The title is the rule (at most
// MaxAnnotationTitleRunes characters), the message the finding's message
// (at most MaxAnnotationMessageBytes bytes, cut with "…").
//
// A finding without a path is not annotated (no file would be honest);
// it is listed in the summary only, first among its severity's (an empty
// path sorts first), so that a cut summary keeps it.
//
// Summary: the gate's summary, then every finding as a list item, the
// list collapsed in a <details> block when there are more than
// CollapseFindingsOver. When that is over MaxSummaryBytes it is cut at a
// line boundary (an open code fence and open <details> blocks are closed)
// and ends with "… N more items dropped; the full report is in
// <fullReport>", N counting the non-blank lines dropped other than a
// closing </details>.
func Output(res gates.Result, fullReport string) CheckOutput {
	out := CheckOutput{Conclusion: conclusion(res.Outcome), Title: title(res)}
	var items []string
	unlocated := 0
	for _, f := range gates.FailingFirst(res.Findings) {
		if f.Path == "" {
			items = append(items, fmt.Sprintf("- **%s** %s: %s", f.Severity, mdtext.Code(f.Rule), mdtext.Inline(f.Message)))
			unlocated++
			continue
		}
		items = append(items, fmt.Sprintf("- %s **%s** %s: %s", mdtext.Code(report.Location(f)), f.Severity, mdtext.Code(f.Rule), mdtext.Inline(f.Message)))
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
	out.Summary = mdtext.Truncate(b.String(), MaxSummaryBytes, fullReport)
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// title is the check run's title for a result (see Complete): fullTitle
// cut to one line of at most MaxTitleRunes characters.
func title(res gates.Result) string {
	return mdtext.OneLine(fullTitle(res), MaxTitleRunes)
}

// fullTitle is the title for a result before it is cut.
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

// failOutput is the output of a run the Finaliser completes.
func failOutput(reason string) CheckOutput {
	if strings.TrimSpace(reason) == "" {
		reason = "swarm-gate stopped before reporting this check"
	}
	t := reason
	if !strings.HasPrefix(t, "could not evaluate") {
		t = "could not evaluate: " + t
	}
	summary := "swarm-gate could not report this check, so it fails closed.\n\n" + mdtext.CodeBlock(reason)
	return CheckOutput{Conclusion: ConclusionFailure, Title: mdtext.OneLine(t, MaxTitleRunes),
		Summary: mdtext.Truncate(summary, MaxSummaryBytes, "the logs of this run")}
}

// cancelOutput is the output of a run completed as cancelled.
func cancelOutput(reason string) CheckOutput {
	if strings.TrimSpace(reason) == "" {
		reason = "the job was cancelled before swarm-gate reported this check"
	}
	summary := "The job was cancelled before swarm-gate reported this check, so it carries no verdict (a required check that was cancelled blocks merging, as a failure does); re-run the job to evaluate it.\n\n" + mdtext.CodeBlock(reason)
	return CheckOutput{Conclusion: ConclusionCancelled, Title: mdtext.OneLine("cancelled: "+reason, MaxTitleRunes),
		Summary: mdtext.Truncate(summary, MaxSummaryBytes, "the logs of this run")}
}

func annotation(f gates.Finding) *github.CheckRunAnnotation {
	start := max(f.Line, 1)
	end := max(f.EndLine, start)
	a := &github.CheckRunAnnotation{
		Path:            github.String(f.Path),
		StartLine:       github.Int(start),
		EndLine:         github.Int(end),
		AnnotationLevel: github.String(level(f.Severity)),
		Message:         github.String(mdtext.ClipBytes(f.Message, MaxAnnotationMessageBytes)),
	}
	if f.Message == "" {
		a.Message = github.String(f.Rule)
	}
	if f.Rule != "" {
		a.Title = github.String(mdtext.ClipRunes(f.Rule, MaxAnnotationTitleRunes))
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
