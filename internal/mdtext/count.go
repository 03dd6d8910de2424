package mdtext

import (
	"strconv"
	"strings"
)

// Count is "1 what" or "N whats": a count with its noun, pluralised with
// an s.
func Count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// FirstLine is the first line of s, blanks around s trimmed first.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
