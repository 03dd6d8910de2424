package changeset

import (
	"fmt"
	"strings"

	"github.com/sourcegraph/go-diff/diff"
)

// addedLines walks one hunk's body and returns its added lines with their
// line numbers in the new file. It checks that the body has exactly as many
// old-side and new-side lines as the hunk header says; blank lines after the
// counts are used up are separators between file entries and are skipped.
func addedLines(h *diff.Hunk) ([]AddedLine, error) {
	if h.OrigStartLine < 0 || h.OrigLines < 0 || h.NewStartLine < 0 || h.NewLines < 0 ||
		(h.NewStartLine == 0 && h.NewLines != 0) || (h.OrigStartLine == 0 && h.OrigLines != 0) {
		return nil, fmt.Errorf("hunk %q: bad line range", hunkHeader(h))
	}
	var lines []string
	if len(h.Body) > 0 {
		lines = strings.Split(strings.TrimSuffix(string(h.Body), "\n"), "\n")
	}
	var added []AddedLine
	var oldSeen, newSeen int
	next := int(h.NewStartLine) // the new-side line number of the next ' ' or '+' line
	wantOld, wantNew := int(h.OrigLines), int(h.NewLines)
	for _, line := range lines {
		if strings.HasPrefix(line, "\\") {
			// "\ No newline at end of file" (go-diff drops git's own; other
			// tools word it differently): not content, not a line.
			continue
		}
		if oldSeen == wantOld && newSeen == wantNew {
			if strings.TrimSpace(line) == "" {
				continue
			}
			return nil, fmt.Errorf("hunk %q has more lines than its header says, starting with %q", hunkHeader(h), line)
		}
		if line == "" {
			// A context line whose single space was trimmed away (B01).
			oldSeen++
			newSeen++
			next++
			continue
		}
		switch line[0] {
		case ' ':
			oldSeen++
			newSeen++
			next++
		case '+':
			added = append(added, AddedLine{Line: next, Text: strings.TrimSuffix(line[1:], "\r")})
			newSeen++
			next++
		case '-':
			oldSeen++
		default:
			return nil, fmt.Errorf("hunk %q: line %q does not start with ' ', '+' or '-'", hunkHeader(h), line)
		}
		if oldSeen > wantOld || newSeen > wantNew {
			return nil, fmt.Errorf("hunk %q has more lines than its header says at %q", hunkHeader(h), line)
		}
	}
	if oldSeen != wantOld || newSeen != wantNew {
		return nil, fmt.Errorf("hunk %q: the header says %d old and %d new lines but the body has %d and %d; the diff is truncated or malformed",
			hunkHeader(h), wantOld, wantNew, oldSeen, newSeen)
	}
	return added, nil
}

// hunkHeader formats a hunk's header the way git writes it.
func hunkHeader(h *diff.Hunk) string {
	return fmt.Sprintf("@@ -%s +%s @@", hunkRange(h.OrigStartLine, h.OrigLines), hunkRange(h.NewStartLine, h.NewLines))
}

func hunkRange(start, lines int32) string {
	if lines == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, lines)
}
