package ghapi

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

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
	if line := oneLine(fullTitle(res), math.MaxInt); out.Title != line {
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
	out.Summary = truncateSummary(b.String(), MaxSummaryBytes, fullReport)
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
	return oneLine(fullTitle(res), MaxTitleRunes)
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
	return CheckOutput{Conclusion: ConclusionFailure, Title: oneLine(t, MaxTitleRunes),
		Summary: truncateSummary(summary, MaxSummaryBytes, "the logs of this run")}
}

// cancelOutput is the output of a run completed as cancelled.
func cancelOutput(reason string) CheckOutput {
	if strings.TrimSpace(reason) == "" {
		reason = "the job was cancelled before swarm-gate reported this check"
	}
	summary := "The job was cancelled before swarm-gate reported this check, so it carries no verdict (a required check that was cancelled blocks merging, as a failure does); re-run the job to evaluate it.\n\n" + mdtext.CodeBlock(reason)
	return CheckOutput{Conclusion: ConclusionCancelled, Title: oneLine("cancelled: "+reason, MaxTitleRunes),
		Summary: truncateSummary(summary, MaxSummaryBytes, "the logs of this run")}
}

// oneLine keeps the first line of s, printable, at most n characters.
func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return clipRunes(mdtext.Printable(s), n)
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// clipBytes cuts s to at most n bytes at a character boundary, ending with
// "…" when cut.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < len("…") {
		return ""
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func annotation(f gates.Finding) *github.CheckRunAnnotation {
	start := max(f.Line, 1)
	end := max(f.EndLine, start)
	a := &github.CheckRunAnnotation{
		Path:            github.String(f.Path),
		StartLine:       github.Int(start),
		EndLine:         github.Int(end),
		AnnotationLevel: github.String(level(f.Severity)),
		Message:         github.String(clipBytes(f.Message, MaxAnnotationMessageBytes)),
	}
	if f.Message == "" {
		a.Message = github.String(f.Rule)
	}
	if f.Rule != "" {
		a.Title = github.String(clipRunes(f.Rule, MaxAnnotationTitleRunes))
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

// truncateSummary cuts s to at most limit bytes at a line boundary, closes
// a code fence left open, and ends it with the "… N more items dropped"
// line (see Output).
func truncateSummary(s string, limit int, fullReport string) string {
	if len(s) <= limit {
		return s
	}
	lines := strings.Split(s, "\n")
	build := func(keep int) string {
		var b strings.Builder
		for _, l := range lines[:keep] {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		fence, details := openBlocks(lines[:keep])
		if fence != "" {
			b.WriteString(fence)
			b.WriteByte('\n')
		}
		for range details {
			b.WriteString("\n</details>\n")
		}
		dropped := 0
		for _, l := range lines[keep:] {
			if t := strings.TrimSpace(l); t != "" && t != "</details>" {
				dropped++
			}
		}
		fmt.Fprintf(&b, "\n… %d more %s dropped; the full report is in %s", dropped, plural(dropped, "item", "items"), fullReport)
		return b.String()
	}
	// The longest prefix of whole lines that fits, found by size, then
	// checked with the fence and footer.
	keep, size := 0, 0
	for keep < len(lines) && size+len(lines[keep])+1 <= limit {
		size += len(lines[keep]) + 1
		keep++
	}
	for ; keep > 0; keep-- {
		if out := build(keep); len(out) <= limit {
			return out
		}
	}
	// Not even the first line fits: cut it.
	footer := build(0)
	return clipBytes(lines[0], limit-len(footer)-1) + "\n" + footer
}

// openBlocks returns the fence that closes a fenced code block left open
// at the end of lines ("" when none is open), and the number of <details>
// elements opened outside code and not closed.
func openBlocks(lines []string) (fence string, details int) {
	open := ""
	for _, l := range lines {
		t := strings.TrimLeft(l, " ")
		isFence := false
		if len(l)-len(t) <= 3 {
			for _, c := range []string{"`", "~"} {
				n := len(t) - len(strings.TrimLeft(t, c))
				if n < 3 {
					continue
				}
				switch {
				case open == "":
					open, isFence = t[:n], true
				case strings.HasPrefix(open, c) && n >= len(open) && strings.TrimSpace(t[n:]) == "":
					open, isFence = "", true
				}
			}
		}
		if open != "" || isFence {
			continue
		}
		lower := strings.ToLower(l)
		details = max(0, details+strings.Count(lower, "<details")-strings.Count(lower, "</details>"))
	}
	return open, details
}
