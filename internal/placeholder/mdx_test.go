package placeholder

import (
	"strconv"
	"strings"
	"testing"
)

// TestMDXCode: MDX is Markdown whose import/export blocks are JavaScript
// the page runs: a marker in their comments or strings is code's (an
// error), while prose keeps Markdown's rules (a warning for a TODO:
// starting a line) and fenced code stays a sample. It was all prose.
func TestMDXCode(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  []string // "rule@line" plus " warning" for a warning
	}{
		{"a comment in an export block", []string{"# Page", "", "export const meta = {", "  // TODO: real title", "  title: 'x',", "}", "", "Text."},
			[]string{"comment-todo@4"}},
		{"an import line's comment", []string{"import Chart from './Chart' // FIXME: lazy-load", "", "<Chart />"},
			[]string{"comment-fixme@1"}},
		{"a stub body exported", []string{"export function load() {", "  throw new Error('not implemented')", "}"},
			[]string{"code-stub-body@2"}},
		{"a block comment across a blank line stays code", []string{"export const a = 1 /*", "", "TODO: x */", "", "TODO: prose"},
			[]string{"comment-todo@3", "comment-todo@5 warning"}},
		// Prose and samples are Markdown's.
		{"prose after the block", []string{"export const a = 1", "", "TODO: write this section"},
			[]string{"comment-todo@3 warning"}},
		{"import in the middle of a paragraph is prose", []string{"We", "import the data, // TODO: nothing"},
			nil},
		{"a fenced sample", []string{"```js", "export const x = 1 // TODO: sample", "```"},
			nil},
		{"prose mentioning a TODO", []string{"Our TODO list lives in the tracker."},
			nil},
	}
	sc := NewScanner(Options{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, whole := range []bool{false, true} {
				sc.File("docs/page.mdx", false)
				if whole {
					sc.All(strings.Join(c.lines, "\n") + "\n")
				} else {
					for i, l := range c.lines {
						sc.Line(i+1, l)
					}
					sc.Finish(true)
				}
				var got []string
				for _, f := range sc.Findings() {
					s := strings.TrimPrefix(f.Rule, "placeholder/") + "@" + strconv.Itoa(f.Line)
					if f.Warning {
						s += " warning"
					}
					got = append(got, s)
				}
				if strings.Join(got, ",") != strings.Join(c.want, ",") {
					t.Errorf("whole=%v: findings %q, want %q", whole, got, c.want)
				}
			}
		})
	}
}
