package commands

import (
	"regexp"
	"strings"
)

// line is a comment line that may hold a command: its 1-based number, its
// text without the (at most three) leading spaces and trailing space, and
// whether an HTML comment opened on it runs on to a later line (so that
// what follows the opening on this line is hidden too).
type line struct {
	n            int
	text         string
	opensComment bool
}

var (
	fenceOpen   = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	indented    = regexp.MustCompile(`^( {4,}|\t| {1,3}\t)`)
	blockQuote  = regexp.MustCompile(`^ {0,3}>`)
	leadSpaces  = regexp.MustCompile(`^ {0,3}`)
	blankOrWhit = regexp.MustCompile(`^[ \t]*$`)
)

// commandLines are the lines of a Markdown comment body that start outside
// fenced and indented code blocks, block quotes (with their lazy
// continuation lines) and HTML comments. CRLF and CR line ends count as LF.
//
// HTML comments are followed as GitHub renders them: "<!--" at the start
// of a line opens an HTML block that runs to the line holding "-->" (or
// the end of the body); "<!--" later in a line hides text only when a
// "-->" closes it before the paragraph ends (a blank line), else it is
// literal text. "<!--" inside a code span, an indented code block or a
// block quote opens nothing.
func commandLines(body string) []line {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = strings.ReplaceAll(body, "\r", "\n")
	lines := strings.Split(body, "\n")
	closes := closeBeforeBlank(lines)
	var out []line
	var fence string // the open fence's marker, "" outside a fence
	inComment, inQuote, inPara := false, false, false
	for i, text := range lines {
		switch {
		case fence != "":
			if m := fenceOpen.FindStringSubmatch(text); m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) &&
				blankOrWhit.MatchString(text[len(m[0]):]) {
				fence = ""
			}
			continue
		case inComment:
			// The line starts inside an HTML comment: never a command line.
			if end := strings.Index(text, "-->"); end >= 0 {
				inComment = scanComments(text[end+3:], false, closes[i+1])
			}
			inPara = true
			continue
		case fenceOpen.MatchString(text):
			fence = fenceOpen.FindStringSubmatch(text)[1]
			inQuote, inPara = false, false
			continue
		case blankOrWhit.MatchString(text):
			inQuote, inPara = false, false
			continue
		case indented.MatchString(text):
			if inPara && !inQuote {
				// A paragraph's continuation line, not code: its
				// comments count, but it holds no command.
				inComment = scanComments(text, false, closes[i+1])
			}
			continue
		case blockQuote.MatchString(text):
			inQuote, inPara = true, false
			continue
		case inQuote:
			continue // a lazy continuation of the quote
		}
		trimmed := leadSpaces.ReplaceAllString(text, "")
		inComment = scanComments(trimmed, true, closes[i+1])
		inPara = true
		out = append(out, line{n: i + 1, text: strings.TrimRight(trimmed, " \t"), opensComment: inComment})
	}
	return out
}

// closeBeforeBlank tells, for each line index i (and len(lines)), whether a
// line from i on holds "-->" before the next blank line: whether an inline
// comment opened on line i-1 is closed within its paragraph.
func closeBeforeBlank(lines []string) []bool {
	out := make([]bool, len(lines)+1)
	for i := len(lines) - 1; i >= 0; i-- {
		switch {
		case strings.Contains(lines[i], "-->"):
			out[i] = true
		case blankOrWhit.MatchString(lines[i]):
			out[i] = false
		default:
			out[i] = out[i+1]
		}
	}
	return out
}

// scanComments follows HTML comments through the rest of a line that
// starts outside one and returns whether the next line starts inside one.
// lineStart is true when text is the line's start (after at most three
// spaces), where "<!--" opens an HTML block; closedLater is whether a later
// line of the paragraph holds "-->".
func scanComments(text string, lineStart, closedLater bool) bool {
	for {
		start := commentOpen(text)
		if start < 0 {
			return false
		}
		block := lineStart && start == 0
		text, lineStart = text[start+4:], false
		end := strings.Index(text, "-->")
		if end < 0 {
			return block || closedLater
		}
		text = text[end+3:]
	}
}

// commentOpen is the byte offset of the first "<!--" in s outside code
// spans, or -1.
func commentOpen(s string) int {
	for i := 0; i < len(s); {
		switch {
		case s[i] == '`':
			n := runLength(s, i)
			if end := closingRun(s, i+n, n); end >= 0 {
				i = end + n
			} else {
				i += n // no closing run: the backticks are literal
			}
		case strings.HasPrefix(s[i:], "<!--"):
			return i
		default:
			i++
		}
	}
	return -1
}

// runLength is the length of the backtick run at s[i].
func runLength(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// closingRun is the offset of the next run of exactly n backticks in s from
// i on, or -1.
func closingRun(s string, i, n int) int {
	for i < len(s) {
		j := strings.IndexByte(s[i:], '`')
		if j < 0 {
			return -1
		}
		j += i
		m := runLength(s, j)
		if m == n {
			return j
		}
		i = j + m
	}
	return -1
}

// visibleText is s (part of a line outside any comment at its start)
// without its HTML comments: each closed "<!-- ... -->" is dropped, and
// so is an unclosed "<!--" with everything after it when opens is true
// (the comment runs on to a later line); with opens false an unclosed
// "<!--" is literal text and kept. Code spans are kept as they are.
func visibleText(s string, opens bool) string {
	var b strings.Builder
	for {
		start := commentOpen(s)
		if start < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := strings.Index(s[start+4:], "-->")
		if end < 0 {
			if opens {
				b.WriteString(s[:start])
			} else {
				b.WriteString(s)
			}
			return b.String()
		}
		b.WriteString(s[:start])
		s = s[start+4+end+3:]
	}
}
