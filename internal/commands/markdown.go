package commands

import (
	"regexp"
	"strings"
)

// line is a comment line that may hold a command: its 1-based number and
// its text without the (at most three) leading spaces and trailing space.
type line struct {
	n    int
	text string
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
func commandLines(body string) []line {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = strings.ReplaceAll(body, "\r", "\n")
	var out []line
	var fence string // the open fence's marker, "" outside a fence
	inComment, inQuote := false, false
	for i, text := range strings.Split(body, "\n") {
		startsInComment := inComment
		switch {
		case fence != "":
			if m := fenceOpen.FindStringSubmatch(text); m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) &&
				blankOrWhit.MatchString(text[len(m[0]):]) {
				fence = ""
			}
			continue
		case !inComment && fenceOpen.MatchString(text):
			fence = fenceOpen.FindStringSubmatch(text)[1]
			inQuote = false
			continue
		}
		inComment = scanComments(text, inComment)
		switch {
		case blankOrWhit.MatchString(text):
			inQuote = false
			continue
		case startsInComment, indented.MatchString(text):
			continue
		case blockQuote.MatchString(text):
			inQuote = true
			continue
		case inQuote:
			continue // a lazy continuation of the quote
		}
		out = append(out, line{n: i + 1, text: strings.TrimRight(leadSpaces.ReplaceAllString(text, ""), " \t")})
	}
	return out
}

// scanComments follows HTML comments through one line: given whether the
// line starts inside one, it returns whether the next line does.
func scanComments(text string, in bool) bool {
	for {
		if in {
			end := strings.Index(text, "-->")
			if end < 0 {
				return true
			}
			text, in = text[end+3:], false
			continue
		}
		start := strings.Index(text, "<!--")
		if start < 0 {
			return false
		}
		text, in = text[start+4:], true
	}
}
