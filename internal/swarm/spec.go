package swarm

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Spec is what swarm-gate reads from .swarm/spec.md (the plugin's effective
// spec when present; spec section 9): the definitions of functional
// requirements (FR-###) and success criteria (SC-###), each with its
// obligation keyword, as the plugin's src/tools/lint-spec.ts and its
// save_plan requirement coverage read them, with one difference: a
// definition is an id first on its line after any Markdown structure, so
// heading-style definitions ("### FR-001: Title", whose obligation is in the
// body below) count too, which the plugin's line pattern misses.
type Spec struct {
	Path string
	// Requirements are the FR and SC definitions in file order; an id
	// defined twice is kept once, at its first definition.
	Requirements []Requirement
	// Zero are definitions of FR-000 or SC-000, which the plugin's lint_spec
	// rejects; they are not in Requirements.
	Zero []Requirement
}

// Requirement is one FR-### or SC-### definition.
type Requirement struct {
	// ID is the id as defined, with FR/SC upper-cased: "FR-001", or
	// "auth/FR-001" when namespaced (plugin #2501).
	ID string
	// Bare is the id without its namespace ("FR-001").
	Bare string
	Kind string // "FR" or "SC"
	// Obligation is the first of MUST, SHALL and SHOULD in the definition
	// (its line, and the body below a heading or the continuation lines of a
	// list item), else MAY when present, else "". MUST NOT counts as MUST.
	Obligation string
	Text       string // the definition line without Markdown markers, shortened
	Line       int    // 1-based
}

// definition matches a line that defines a requirement: the id first on the
// line after Markdown structure (heading hashes, a list marker, a table
// pipe, bold), e.g. "- FR-001: ...", "### FR-001: Title", "- **SC-002**: ...",
// "| FR-003 | ...". An id later in a line is a reference, not a definition.
var definition = regexp.MustCompile(`^(\s*)(#{1,6}\s+)?(?:\|\s*)?(?:[-*+]\s+|\d{1,3}[.)]\s+)?(?:\*\*|__)?((?:[A-Za-z0-9_.-]+/)?((?i:FR|SC))-(\d{3}))(?:[^0-9A-Za-z_]|$)`)

var (
	obligationWord = regexp.MustCompile(`\b(MUST|SHALL|SHOULD|MAY)\b`)
	inlineCode     = regexp.MustCompile("`[^`]*`")
	listItem       = regexp.MustCompile(`^(\s*)(?:[-*+]|\d{1,3}[.)])\s`)
	heading        = regexp.MustCompile(`^\s{0,3}#{1,6}(\s|$)`)
	markup         = regexp.MustCompile(`^\s*(?:#{1,6}\s+)?(?:\|\s*)?(?:[-*+]\s+|\d{1,3}[.)]\s+)?`)
)

// ParseSpec reads the requirement definitions of a spec.md. It never fails:
// Markdown has no syntax errors, and lines inside fenced code blocks and
// inline code spans are ignored.
func ParseSpec(name string, data []byte) *Spec {
	s := &Spec{Path: name}
	text := string(trimBOM(data))
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	orig := append([]string(nil), lines...)
	// Blank out fenced code blocks and inline code.
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.TrimSpace(strings.TrimLeft(t, fence[:1])) == "" {
				fence = ""
			}
			lines[i] = ""
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
			lines[i] = ""
		default:
			lines[i] = inlineCode.ReplaceAllString(l, "")
		}
	}
	seen := map[string]bool{}
	for i, l := range lines {
		m := definition.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		kind := strings.ToUpper(m[4])
		id := m[3][:len(m[3])-len(m[4])-4] + kind + "-" + m[5]
		r := Requirement{ID: id, Bare: kind + "-" + m[5], Kind: kind, Line: i + 1, Text: clipRunes(strings.TrimSpace(markup.ReplaceAllString(orig[i], "")), 160)}
		r.Obligation = obligation(block(lines, i, m[2] != "", len(m[1])))
		if m[5] == "000" {
			s.Zero = append(s.Zero, r)
			continue
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		s.Requirements = append(s.Requirements, r)
	}
	return s
}

// block returns the text of the definition at line i: below a heading, every
// line up to the next heading or definition; for a list item or a plain
// line, the line and its continuation lines (up to a blank line, a heading,
// a definition or another list item no deeper than this one).
func block(lines []string, i int, isHeading bool, indent int) string {
	out := []string{lines[i]}
	for _, l := range lines[i+1:] {
		if heading.MatchString(l) || definition.MatchString(l) {
			break
		}
		if !isHeading {
			if strings.TrimSpace(l) == "" {
				break
			}
			if m := listItem.FindStringSubmatch(l); m != nil && len(m[1]) <= indent {
				break
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// obligation is the earliest of MUST, SHALL and SHOULD in text, else MAY
// when present, else "".
func obligation(text string) string {
	may := false
	for _, w := range obligationWord.FindAllString(text, -1) {
		if w == "MAY" {
			may = true
			continue
		}
		return w
	}
	if may {
		return "MAY"
	}
	return ""
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-3]) + "..."
}
