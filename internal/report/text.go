package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
)

// label is the fixed-width word printed for an outcome.
func label(o gates.Outcome) string {
	switch o {
	case gates.Passed:
		return "PASS"
	case gates.Failed:
		return "FAIL"
	case gates.Error:
		return "ERROR"
	case gates.Overridden:
		return "OVERRIDDEN"
	case gates.NotApplicable:
		return "N/A"
	}
	return strings.ToUpper(string(o))
}

// Location formats a finding's place as path:line:column, omitting what is
// unknown.
func Location(f gates.Finding) string {
	s := f.Path
	if f.Line > 0 {
		s += fmt.Sprintf(":%d", f.Line)
		if f.Column > 0 {
			s += fmt.Sprintf(":%d", f.Column)
		}
	}
	return s
}

// WriteText writes the report for a terminal: a header, one line per gate
// with its outcome and title, its findings as path:line:col lines (at most
// maxFindings per gate; 0 means all), a failing gate's "next step: ..."
// line when the gate wrote one, and a closing result line with the exit
// code.
func WriteText(w io.Writer, r *Report, maxFindings int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "swarm-gate: %s, base %s, head %s, merge base %s\n",
		PhaseText(r), gitsha.Short(r.Base), gitsha.Short(r.Head), gitsha.Short(r.MergeBase))
	if r.Config != "" {
		fmt.Fprintf(bw, "policy: %s\n", mdtext.Printable(r.Config))
	}
	if h, items := PolicyChangeText(r.PolicyChange); h != "" {
		fmt.Fprintf(bw, "%s\n", mdtext.Printable(h))
		for _, it := range items {
			fmt.Fprintf(bw, "  %s\n", mdtext.Printable(it))
		}
	}
	fmt.Fprintln(bw)
	for _, g := range r.Gates {
		fmt.Fprintf(bw, "%-10s %-20s %s\n", label(g.Outcome), g.Name, mdtext.Printable(g.Title))
		n := len(g.Findings)
		if maxFindings > 0 && n > maxFindings {
			n = maxFindings
		}
		for _, f := range gates.FailingFirst(g.Findings)[:n] {
			fmt.Fprintf(bw, "           %s: %s %s: %s\n", mdtext.Line(Location(f)), f.Severity, f.Rule, mdtext.Printable(f.Message))
		}
		if n < len(g.Findings) {
			fmt.Fprintf(bw, "           ... %d more (use --format json for all)\n", len(g.Findings)-n)
		}
		if s, ok := NextStep(g); ok && (g.Outcome == gates.Failed || g.Outcome == gates.Error) {
			fmt.Fprintf(bw, "           next step: %s\n", mdtext.Printable(s))
		}
	}
	fmt.Fprintf(bw, "\n%s\n", ResultLine(r))
	return bw.Flush()
}

// NextStep is the first "Next step: ..." sentence (to its line end) that a
// gate wrote in r's summary or findings; ok is false when it wrote none
// (its findings then say how to fix each).
func NextStep(r gates.Result) (step string, ok bool) {
	texts := []string{r.Summary}
	for _, f := range r.Findings {
		texts = append(texts, f.Message)
	}
	for _, t := range texts {
		if _, after, found := strings.Cut(t, "Next step: "); found {
			return mdtext.FirstLine(after), true
		}
	}
	return "", false
}

// ResultLine is the one-line verdict: outcome, exit code and the gate counts.
func ResultLine(r *Report) string {
	c := r.Counts()
	var parts []string
	for _, o := range []gates.Outcome{gates.Passed, gates.Failed, gates.Error, gates.Overridden, gates.NotApplicable} {
		if c[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c[o], o))
		}
	}
	line := fmt.Sprintf("result: %s (exit code %d): %s", r.Outcome, r.ExitCode, strings.Join(parts, ", "))
	if r.PolicyChange.Invalid() {
		line += "; the pull request's " + r.PolicyChange.Path + " is invalid"
	}
	return line
}
