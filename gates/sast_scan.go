package gates

import (
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/sast"
)

// ScanSASTFile is what swarm/sast judges in one file's content: the
// plugin's rules (sast.ScanFile), fingerprinted against that content as the
// plugin does, then refined (sast.Refine) with swarm/placeholders' lexer
// telling code from comments and strings. dismissed are the findings the
// refinement set aside, each with its Note; skipped is ScanFile's.
//
// The pipeline calls it on both sides of a changed file, so that head and
// merge base are judged alike; it reads nothing itself.
func ScanSASTFile(path string, content []byte) (findings, dismissed []sast.Finding, skipped string) {
	findings, skipped = sast.ScanFile(path, content)
	if skipped != "" {
		return nil, nil, skipped
	}
	sast.FingerprintFile(findings, content)
	findings, dismissed = sast.Refine(path, findings, content, sastLexer)
	return findings, dismissed, ""
}

// sastLexer is sast.Lexer over swarm/placeholders' lexer, which lexes the
// file from its first line, so that a docstring or template literal opened
// above a finding is known. A position in no comment, string or regular
// expression segment is code.
func sastLexer(path string, lines []string, at []sast.Pos) []bool {
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
		if n == 1 && strings.HasPrefix(text, sastBOM) {
			text, shift = text[len(sastBOM):], len(sastBOM) // as swarm/placeholders lexes line 1
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

const sastBOM = "\ufeff"
