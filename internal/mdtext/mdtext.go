// Package mdtext makes text that comes from a repository (file names, plan
// descriptions, scope entries, quoted lines) safe to show on a terminal line
// or inside Markdown, so that it cannot forge output lines, terminal
// escapes, workflow commands or Markdown structure, and cuts text and
// Markdown to a length limit without breaking either.
package mdtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Printable keeps s on one line and makes its invisible or dangerous
// characters visible: newlines, carriage returns and tabs become \n, \r, \t;
// other control characters and invalid UTF-8 bytes become \xHH; C1
// controls, the line and paragraph separators and the bidirectional
// controls (which can make text read differently from its bytes) become
// \uXXXX. Everything else is unchanged.
func Printable(s string) string {
	if isPlain(s) {
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
		case special(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case special(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isPlain(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < 0x20 || r == 0x7f || (r == utf8.RuneError && size == 1) || special(r) {
			return false
		}
		i += size
	}
	return true
}

// special are the non-control runes Printable escapes: C1 controls, line
// and paragraph separators, bidirectional formatting characters, and the
// characters that show as nothing (zero width spaces and joiners, the word
// joiner and invisible operators, the byte order mark, the soft hyphen, the
// Mongolian vowel separator, Hangul fillers, tag characters), which would
// make "src/api\u200b/x.go" read as "src/api/x.go".
func special(r rune) bool {
	switch {
	case r >= 0x80 && r < 0xa0, r == 0x2028, r == 0x2029:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064, r == 0xfeff, r == 0x00ad, r == 0x180e,
		r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0, r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return false
}

// Line is Printable for the start of a log line: it also escapes a leading
// "::", which the GitHub Actions runner would read as a workflow command.
func Line(s string) string {
	s = Printable(s)
	if strings.HasPrefix(strings.TrimLeft(s, " "), "::") {
		i := strings.Index(s, "::")
		s = s[:i] + `\x3a` + s[i+1:]
	}
	return s
}

// Code writes s as a Markdown code span, Printable, with a backtick fence
// longer than any run of backticks inside it (CommonMark), so nothing in s
// can end the span early.
func Code(s string) string {
	s = Printable(s)
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// CodeBlock writes s as a fenced Markdown code block whose fence is longer
// than any run of backticks in s. Lines are kept; each is Printable.
func CodeBlock(s string) string {
	lines := strings.Split(s, "\n")
	longest := 0
	for i, l := range lines {
		lines[i] = Printable(l)
		run := 0
		for j := 0; j < len(l); j++ {
			if l[j] == '`' {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "\n" + strings.Join(lines, "\n") + "\n" + fence
}

// Inline writes s as Markdown text on one line: Printable, with the
// characters that start Markdown or HTML structure backslash-escaped
// (\ ` * _ [ ] < > | ~ # & $: "&amp;" is not read as an entity, nor
// "$...$" as GitHub's math), so repository text renders as the text it is; and with a zero
// width space after each '@' that does not follow an ASCII letter or digit,
// so that "@octocat" or "@org/team" in a plan does not notify anyone
// (GitHub links a mention after any other character, "é@octocat" too).
func Inline(s string) string {
	s = Printable(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '~', '#', '&', '$':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '@':
			b.WriteByte(c)
			if i == 0 || !isWordByte(s[i-1]) {
				b.WriteString("\u200b")
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
