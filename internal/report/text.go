package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/swarm-gate/swarm-gate/gates"
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
// maxFindings per gate; 0 means all), and a closing result line with the exit
// code.
func WriteText(w io.Writer, r *Report, maxFindings int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "swarm-gate: phase %d (from %s), base %s, head %s, merge base %s\n\n",
		r.Phase, r.PhaseSource, short(r.Base), short(r.Head), short(r.MergeBase))
	for _, g := range r.Gates {
		fmt.Fprintf(bw, "%-10s %-20s %s\n", label(g.Outcome), g.Name, Printable(g.Title))
		n := len(g.Findings)
		if maxFindings > 0 && n > maxFindings {
			n = maxFindings
		}
		for _, f := range g.Findings[:n] {
			fmt.Fprintf(bw, "           %s: %s %s: %s\n", Printable(Location(f)), f.Severity, f.Rule, Printable(f.Message))
		}
		if n < len(g.Findings) {
			fmt.Fprintf(bw, "           ... %d more (use --format json for all)\n", len(g.Findings)-n)
		}
	}
	fmt.Fprintf(bw, "\n%s\n", ResultLine(r))
	return bw.Flush()
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
	return fmt.Sprintf("result: %s (exit code %d): %s", r.Outcome, r.ExitCode, strings.Join(parts, ", "))
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.ReplaceAll(s, "\n", " ")
}

// Printable makes text from a repository (file names, messages quoting
// lines) safe to print on one terminal or log line: newlines, carriage
// returns, escape sequences and other control characters become visible
// escapes (\n, \r, \t, \x1b, \u0085), so a file name cannot forge a result
// line, a workflow command or a terminal escape. Invalid UTF-8 bytes become
// \xHH too.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError || r == 0x2028 || r == 0x2029 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
