package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
)

func emoji(o gates.Outcome) string {
	switch o {
	case gates.Passed:
		return "✅"
	case gates.Failed:
		return "❌"
	case gates.Error:
		return "⚠️"
	case gates.Overridden:
		return "☑️"
	}
	return "➖"
}

// WriteMarkdown writes the report as GitHub-flavoured Markdown: a table of
// gates, then each gate's summary and findings (at most maxFindings per gate;
// 0 means all). Text from the repository is escaped so that it cannot break
// the table or inject markup.
func WriteMarkdown(w io.Writer, r *Report, maxFindings int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## swarm-gate: %s %s\n\n", emoji(r.Outcome), r.Outcome)
	if r.Error != "" {
		fmt.Fprintf(bw, "Could not evaluate: %s\n", inline(r.Error))
		return bw.Flush()
	}
	fmt.Fprintf(bw, "Phase **%d** (from %s) · head `%s` · merge base `%s`\n\n", r.Phase, r.PhaseSource, short(r.Head), short(r.MergeBase))
	fmt.Fprintf(bw, "| check | outcome | |\n|---|---|---|\n")
	for _, g := range r.Gates {
		fmt.Fprintf(bw, "| `%s` | %s %s | %s |\n", g.Name, emoji(g.Outcome), g.Outcome, cell(g.Title))
	}
	for _, g := range r.Gates {
		fmt.Fprintf(bw, "\n### %s %s\n\n", emoji(g.Outcome), g.Name)
		if g.Summary != "" {
			fmt.Fprintf(bw, "%s\n\n", g.Summary)
		}
		n := len(g.Findings)
		if maxFindings > 0 && n > maxFindings {
			n = maxFindings
		}
		for _, f := range g.Findings[:n] {
			fmt.Fprintf(bw, "- %s **%s** %s: %s\n", code(Printable(Location(f))), f.Severity, code(f.Rule), inline(f.Message))
		}
		if n < len(g.Findings) {
			fmt.Fprintf(bw, "- … %d more findings not shown\n", len(g.Findings)-n)
		}
	}
	fmt.Fprintf(bw, "\n%s\n", ResultLine(r))
	return bw.Flush()
}

// cell makes s safe inside a table cell.
func cell(s string) string {
	s = inline(s)
	return strings.ReplaceAll(s, "|", `\|`)
}

// code writes s as a Markdown code span, with a backtick fence longer than
// any run of backticks inside it (CommonMark), so a file name with a
// backtick cannot end the span early.
func code(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// inline keeps s on one line and neutralises HTML.
func inline(s string) string {
	s = Printable(oneLine(s))
	s = strings.ReplaceAll(s, "<", "&lt;")
	return strings.ReplaceAll(s, ">", "&gt;")
}
