package mdtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// OneLine keeps the first line of s, Printable, at most n characters (cut
// with "…").
func OneLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return ClipRunes(Printable(s), n)
}

// ClipRunes cuts s to at most n characters, ending with "…" when cut.
func ClipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// ClipBytes cuts s to at most n bytes at a character boundary, ending with
// "…" when cut.
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < len("…") {
		return ""
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Truncate cuts the Markdown s to at most limit bytes at a line boundary,
// closes a code fence and <details> blocks left open, and ends it with
// "… N more items dropped; the full report is in <fullReport>", N counting
// the non-blank lines dropped other than a closing </details>. An s that
// fits is returned as it is.
func Truncate(s string, limit int, fullReport string) string {
	if len(s) <= limit {
		return s
	}
	lines := strings.Split(s, "\n")
	build := func(keep int) string {
		var b strings.Builder
		for _, l := range lines[:keep] {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		fence, details := openBlocks(lines[:keep])
		if fence != "" {
			b.WriteString(fence)
			b.WriteByte('\n')
		}
		for range details {
			b.WriteString("\n</details>\n")
		}
		dropped := 0
		for _, l := range lines[keep:] {
			if t := strings.TrimSpace(l); t != "" && t != "</details>" {
				dropped++
			}
		}
		items := "items"
		if dropped == 1 {
			items = "item"
		}
		fmt.Fprintf(&b, "\n… %d more %s dropped; the full report is in %s", dropped, items, fullReport)
		return b.String()
	}
	// The longest prefix of whole lines that fits, found by size, then
	// checked with the fence and footer.
	keep, size := 0, 0
	for keep < len(lines) && size+len(lines[keep])+1 <= limit {
		size += len(lines[keep]) + 1
		keep++
	}
	for ; keep > 0; keep-- {
		if out := build(keep); len(out) <= limit {
			return out
		}
	}
	// Not even the first line fits: cut it.
	footer := build(0)
	return ClipBytes(lines[0], limit-len(footer)-1) + "\n" + footer
}

// openBlocks returns the fence that closes a fenced code block left open
// at the end of lines ("" when none is open), and the number of <details>
// elements opened outside code and not closed.
func openBlocks(lines []string) (fence string, details int) {
	open := ""
	for _, l := range lines {
		t := strings.TrimLeft(l, " ")
		isFence := false
		if len(l)-len(t) <= 3 {
			for _, c := range []string{"`", "~"} {
				n := len(t) - len(strings.TrimLeft(t, c))
				if n < 3 {
					continue
				}
				switch {
				case open == "":
					open, isFence = t[:n], true
				case strings.HasPrefix(open, c) && n >= len(open) && strings.TrimSpace(t[n:]) == "":
					open, isFence = "", true
				}
			}
		}
		if open != "" || isFence {
			continue
		}
		lower := strings.ToLower(l)
		details = max(0, details+strings.Count(lower, "<details")-strings.Count(lower, "</details>"))
	}
	return open, details
}
