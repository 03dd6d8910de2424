package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
)

// Badge is the emoji shown beside an outcome in Markdown: the step
// summary, the aggregate check and the summary comment.
func Badge(o gates.Outcome) string {
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
// gates, then each gate's summary and findings (failing first,
// gates.FailingFirst; at most maxFindings per gate, 0 means all). Titles and findings are escaped so that repository text
// cannot break the table or inject markup; summaries are Markdown that the
// gates already escape.
func WriteMarkdown(w io.Writer, r *Report, maxFindings int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## swarm-gate: %s %s\n\n", Badge(r.Outcome), r.Outcome)
	if r.Error != "" {
		fmt.Fprintf(bw, "Could not evaluate: %s\n", mdtext.Inline(r.Error))
		return bw.Flush()
	}
	fmt.Fprintf(bw, "%s · head `%s` · merge base `%s`", UpperFirst(PhaseText(r)), gitsha.Short(r.Head), gitsha.Short(r.MergeBase))
	if r.Config != "" {
		fmt.Fprintf(bw, " · policy: %s", mdtext.Inline(r.Config))
	}
	fmt.Fprint(bw, "\n\n")
	WritePolicyChangeMarkdown(bw, r.PolicyChange)
	fmt.Fprintf(bw, "| check | outcome | |\n|---|---|---|\n")
	for _, g := range r.Gates {
		fmt.Fprintf(bw, "| `%s` | %s %s | %s |\n", g.Name, Badge(g.Outcome), g.Outcome, cell(g.Title))
	}
	for _, g := range r.Gates {
		fmt.Fprintf(bw, "\n### %s %s\n\n", Badge(g.Outcome), g.Name)
		if g.Summary != "" {
			fmt.Fprintf(bw, "%s\n\n", g.Summary)
		}
		n := len(g.Findings)
		if maxFindings > 0 && n > maxFindings {
			n = maxFindings
		}
		for _, f := range gates.FailingFirst(g.Findings)[:n] {
			fmt.Fprintf(bw, "- %s **%s** %s: %s\n", mdtext.Code(Location(f)), f.Severity, mdtext.Code(f.Rule), mdtext.Inline(f.Message))
		}
		if n < len(g.Findings) {
			fmt.Fprintf(bw, "- … %d more findings not shown\n", len(g.Findings)-n)
		}
	}
	fmt.Fprintf(bw, "\n%s\n", ResultLine(r))
	return bw.Flush()
}

// cell makes repository text safe inside a table cell.
func cell(s string) string { return mdtext.Inline(s) }

// WritePolicyChangeMarkdown writes the policy change as a paragraph and a
// list (an alert when it is invalid or loosens a setting); nothing when
// there is none.
func WritePolicyChangeMarkdown(w io.Writer, p *PolicyChange) {
	h, items := PolicyChangeText(p)
	if h == "" {
		return
	}
	prefix := ""
	loosens := slices.ContainsFunc(items, func(s string) bool { return strings.HasPrefix(s, "loosens ") })
	switch {
	case p.Invalid():
		fmt.Fprint(w, "> [!CAUTION]\n")
		prefix = "> "
	case loosens:
		fmt.Fprint(w, "> [!WARNING]\n")
		prefix = "> "
	}
	fmt.Fprintf(w, "%s**%s**\n", prefix, mdtext.Inline(h))
	if len(items) > 0 {
		fmt.Fprintf(w, "%s\n", strings.TrimSpace(prefix))
	}
	for _, it := range items {
		fmt.Fprintf(w, "%s- %s\n", prefix, mdtext.Inline(it))
	}
	fmt.Fprint(w, "\n")
}
