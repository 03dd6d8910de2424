package placeholder

import (
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/sast"
)

// IsDocument reports whether the file at path is read as a document
// (Markdown, plain text) by its name: prose, where only a TODO: or FIXME:
// starting a line is a finding, and a warning.
func IsDocument(path string) bool { return familyOf(path).markdown }

// CodeAt is a sast.Lexer: for each position in at, whether it is code, in
// no comment, string or regular expression literal, with the file at path
// (its family by its name) lexed from its first line, so that a docstring
// or template literal opened above a position is known. lines are the
// file's lines without their line ends; a BOM starting the first is no
// part of its syntax, as for Scanner. A position past the lines is code.
// The result has one entry per position.
func CodeAt(path string, lines []string, at []sast.Pos) []bool {
	out := make([]bool, len(at))
	byLine := map[int][]int{}
	last := 0
	for k, p := range at {
		out[k] = true
		byLine[p.Line] = append(byLine[p.Line], k)
		last = max(last, p.Line)
	}
	var lx lexer
	lx.reset(familyOf(path), false)
	for n := 1; n <= last && n <= len(lines); n++ {
		text, shift := lines[n-1], 0
		if n == 1 && strings.HasPrefix(text, utf8BOM) {
			text, shift = text[len(utf8BOM):], len(utf8BOM) // as Scanner lexes line 1
		}
		segs, _ := lx.line(text)
		for _, k := range byLine[n] {
			off := at[k].Off - shift
			for _, sg := range segs {
				if sg.start <= off && off < sg.end {
					out[k] = false
					break
				}
			}
		}
	}
	return out
}
