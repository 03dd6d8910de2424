// Package commands reads swarm-gate's `/swarm` comment commands: it parses
// a pull request comment, decides whether its author may run the command,
// and writes and reads back the marker comments that record human
// overrides (DESIGN.md section 3.5).
package commands

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/editdist"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// The commands, as typed after "/swarm ".
const (
	ApprovePlanCritic    = gates.CommandApprovePlanCritic
	AcknowledgeSpecDrift = gates.CommandAcknowledgeSpecDrift
	Recheck              = "recheck"
	Help                 = "help"
)

// Names are the commands in the order help lists them.
var Names = []string{ApprovePlanCritic, AcknowledgeSpecDrift, Recheck, Help}

// MaxReason is the longest reason after trimming, in characters as the
// plugin counts them (JavaScript string length: UTF-16 code units, so a
// character outside the Basic Multilingual Plane, such as an emoji, counts
// twice); the plugin's approve_plan_critic refuses longer reasons and its
// command cuts them, and the reason is recorded in the plugin's ledger.
const MaxReason = swarm.MaxApprovalReason

// IsOverride reports whether the command records a human override.
func IsOverride(name string) bool {
	return name == ApprovePlanCritic || name == AcknowledgeSpecDrift
}

// Command is one parsed `/swarm` command.
type Command struct {
	Name string
	// Reason is the trimmed rest of the line (override commands).
	Reason string
	// SHA is the head commit an override names, lower case (a 7 to 40
	// hex prefix given before the reason: `/swarm approve-plan-critic
	// <sha> <reason>`); "" when none was named. A word counts as a SHA only
	// when it holds a digit, so that a reason starting with a word such as
	// "defaced" stays the reason.
	SHA string
	// Line is the command's 1-based line in the comment body; Text is that
	// line as typed, for quoting in replies.
	Line int
	Text string
}

// ParseError is a comment that holds a `/swarm` command swarm-gate cannot
// run; Error says why, in words fit for a reply.
type ParseError struct {
	// Text is the offending line ("" when several commands were found).
	Text string
	// Suggestion is the command the user probably meant ("" if none).
	Suggestion string
	Msg        string
}

func (e *ParseError) Error() string { return e.Msg }

// Parse finds the comment's `/swarm` command. It returns nil, nil when the
// body holds none. A command counts only at the start of a line (after at
// most three spaces), outside fenced and indented code blocks, block
// quotes and HTML comments, where a paragraph's visible text begins as
// goldmark (CommonMark) parses it: not in a link reference definition, a
// link's title or text, an image's alt text, an HTML tag or block, or
// anything inside a <details> element (its summary too: GitHub shows it
// after a click only); a comment may hold one command only.
//
// `/swarm`, the command and the reason are separated by white space:
// spaces, tabs, and the Unicode space separators (U+00A0 no-break space,
// U+2000 to U+200A, U+3000 ideographic space...). A line that would be a
// command but for an invisible character before `/swarm` (a zero width
// space, a no-break space, a byte order mark) or a missing space after it
// (`/swarmrecheck`) is a ParseError that says so, when the body holds no
// command. HTML comments inside the reason are dropped from it. A comment
// over MaxCommandComment bytes with a line that could be a command is a
// ParseError: commands are read from short comments only.
func Parse(body string) (*Command, error) {
	var found []Command
	var nearMiss *ParseError
	lines := commandLines(body)
	// Rendering the comment (visibleLineStarts) costs far more than
	// reading its lines: it is done only when a line could be a command.
	if !slices.ContainsFunc(lines, func(l line) bool {
		_, ok, miss := commandArgs(l.text)
		return ok || miss != nil
	}) {
		return nil, nil
	}
	if len(body) > MaxCommandComment {
		// Rendering is superlinear on some inputs (64 KiB of "[a](" takes
		// goldmark seconds): a command is read from a short comment only.
		return nil, &ParseError{Msg: fmt.Sprintf("the comment is %d bytes; swarm-gate reads a `/swarm` command only from a comment of at most %d bytes, so it ran none: post the command in a comment of its own", len(body), MaxCommandComment)}
	}
	visible := visibleLineStarts(body)
	for _, l := range lines {
		if !visible[l.n] {
			continue // not where a reader sees a line of text begin
		}
		args, ok, miss := commandArgs(l.text)
		if miss != nil && nearMiss == nil {
			nearMiss = miss
		}
		if !ok {
			continue
		}
		found = append(found, Command{Text: l.text, Line: l.n, Reason: visibleText(args, l.opensComment)})
	}
	switch len(found) {
	case 0:
		if nearMiss != nil {
			return nil, nearMiss
		}
		return nil, nil
	case 1:
	default:
		return nil, &ParseError{Msg: fmt.Sprintf("the comment holds %d `/swarm` commands (lines %s); swarm-gate runs one command per comment, so it ran none: post each in a comment of its own", len(found), lineList(found))}
	}
	c := found[0]
	c.Name, c.Reason = splitName(c.Reason)
	if c.Name == "" {
		return nil, &ParseError{Text: c.Text, Suggestion: Help, Msg: "`/swarm` needs a command: " + strings.Join(quoted(Names), ", ") + "; `/swarm help` explains them"}
	}
	if !known(c.Name) {
		return nil, unknown(c)
	}
	if IsOverride(c.Name) {
		c.SHA, c.Reason = splitSHA(c.Reason)
		if c.SHA == "" && isSHAWord(c.Reason) {
			return nil, &ParseError{Text: c.Text, Msg: fmt.Sprintf("`/swarm %s %s` names a commit but gives no reason: `/swarm %s [<sha>] <why>`", c.Name, c.Reason, c.Name)}
		}
		if err := checkReason(c); err != nil {
			return nil, err
		}
		return &c, nil
	}
	if c.Reason != "" {
		return nil, &ParseError{Text: c.Text, Msg: fmt.Sprintf("`/swarm %s` takes no arguments; found %s", c.Name, mdtext.Code(clip(c.Reason, 60)))}
	}
	return &c, nil
}

// splitSHA takes a leading commit SHA prefix off an override's arguments:
// a word of 7 to 40 hex digits holding at least one decimal digit,
// followed by white space and more. Otherwise the SHA is "" and args is
// all reason.
func splitSHA(args string) (sha, reason string) {
	i := strings.IndexFunc(args, isSpace)
	if i < 0 {
		return "", args
	}
	if word := args[:i]; isSHAWord(word) {
		return strings.ToLower(word), trimReason(args[i:])
	}
	return "", args
}

// isSHAWord reports whether word is 7 to 40 hex digits with a decimal digit
// (so that a reason starting with a word such as "deadbeef" stays a reason).
func isSHAWord(word string) bool {
	return gitsha.Prefix(word) && strings.ContainsAny(word, "0123456789")
}

// MaxCommandComment is the longest comment, in bytes, a command is read
// from; a longer one with a command line is a ParseError.
const MaxCommandComment = 8192

// prefix opens a command line (ASCII letters in any case).
const prefix = "/swarm"

// hasPrefix reports whether s starts with /swarm, ASCII case-insensitively.
func hasPrefix(s string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// commandArgs reads a line: ok with what follows /swarm when it is a
// command line (/swarm, then white space or the end of the line); a
// ParseError when it looks like one swarm-gate could not read.
func commandArgs(text string) (args string, ok bool, miss *ParseError) {
	if !hasPrefix(text) {
		lead := strings.TrimLeftFunc(text, func(r rune) bool { return r == ' ' || isInvisible(r) })
		if lead != text && hasPrefix(lead) {
			if _, ok, _ := commandArgs(lead); ok || startsWithName(lead[len(prefix):]) {
				r, _ := utf8.DecodeRuneInString(strings.TrimLeft(text, " "))
				return "", false, &ParseError{Text: text, Msg: fmt.Sprintf("swarm-gate did not read this line as a command: it starts with an invisible character (%s) before `/swarm`; delete it and post the command again", runeName(r))}
			}
		}
		return "", false, nil
	}
	rest := text[len(prefix):]
	if rest == "" {
		return "", true, nil
	}
	r, _ := utf8.DecodeRuneInString(rest)
	switch {
	case isSpace(r):
		return rest, true, nil
	case isInvisible(r) && startsWithName(strings.TrimLeftFunc(rest, isInvisible)):
		return "", false, &ParseError{Text: text, Msg: fmt.Sprintf("swarm-gate did not read this line as a command: an invisible character (%s) stands between `/swarm` and the command instead of a space; type a space there and post the command again", runeName(r))}
	case startsWithName(rest):
		return "", false, &ParseError{Text: text, Msg: fmt.Sprintf("swarm-gate did not read this line as a command: `/swarm` and the command need a space between them (`/swarm %s`)", nameAt(rest))}
	}
	return "", false, nil
}

// startsWithName reports whether s starts with a command's name, in any
// case.
func startsWithName(s string) bool {
	return nameAt(s) != ""
}

// nameAt is the command whose name s starts with, in any case ("" if none).
func nameAt(s string) string {
	for _, n := range Names {
		if len(s) >= len(n) && strings.EqualFold(s[:len(n)], n) {
			return n
		}
	}
	return ""
}

// splitName splits what follows /swarm into the command (lower case) and
// the trimmed rest.
func splitName(args string) (name, rest string) {
	args = strings.TrimLeftFunc(args, isSpace)
	i := strings.IndexFunc(args, isSpace)
	if i < 0 {
		return strings.ToLower(args), ""
	}
	return strings.ToLower(args[:i]), trimReason(args[i:])
}

// isSpace is the white space between /swarm, the command and the reason:
// space, tab and every Unicode space separator (category Zs: U+00A0,
// U+1680, U+2000 to U+200A, U+202F, U+205F, U+3000).
func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || unicode.Is(unicode.Zs, r)
}

// isInvisible reports whether r shows as nothing or as a blank: format
// characters (category Cf: U+00AD, U+200B to U+200F, U+2060 to U+2064,
// U+FEFF...) and the Unicode space separators other than the space.
func isInvisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || (r != ' ' && unicode.Is(unicode.Zs, r))
}

// runeNames are the invisible characters people paste most often.
var runeNames = map[rune]string{
	0x00a0: "NO-BREAK SPACE", 0x00ad: "SOFT HYPHEN", 0x180e: "MONGOLIAN VOWEL SEPARATOR",
	0x200b: "ZERO WIDTH SPACE", 0x200c: "ZERO WIDTH NON-JOINER", 0x200d: "ZERO WIDTH JOINER",
	0x200e: "LEFT-TO-RIGHT MARK", 0x200f: "RIGHT-TO-LEFT MARK", 0x2060: "WORD JOINER",
	0x202f: "NARROW NO-BREAK SPACE", 0x205f: "MEDIUM MATHEMATICAL SPACE", 0x3000: "IDEOGRAPHIC SPACE",
	0xfeff: "ZERO WIDTH NO-BREAK SPACE, a byte order mark",
}

// runeName names a character for a reply: "U+200B ZERO WIDTH SPACE".
func runeName(r rune) string {
	s := fmt.Sprintf("U+%04X", r)
	if n, ok := runeNames[r]; ok {
		return s + " " + n
	}
	return s
}

// invisibleIn names the first invisible character of s ("" if none).
func invisibleIn(s string) string {
	if i := strings.IndexFunc(s, isInvisible); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return runeName(r)
	}
	return ""
}

func checkReason(c Command) error {
	n, units := utf8.RuneCountInString(c.Reason), len(utf16.Encode([]rune(c.Reason)))
	switch {
	case n == 0:
		return &ParseError{Text: c.Text, Msg: fmt.Sprintf("`/swarm %s` needs a reason on the same line: `/swarm %s <why>` (1 to %d characters)", c.Name, c.Name, MaxReason)}
	case !utf8.ValidString(c.Reason):
		return &ParseError{Text: c.Text, Msg: "the reason is not valid UTF-8"}
	case strings.TrimFunc(c.Reason, func(r rune) bool { return isInvisible(r) || unicode.IsSpace(r) }) == "":
		return &ParseError{Text: c.Text, Msg: fmt.Sprintf("the reason holds only invisible characters (%s); `/swarm %s` needs a reason people can read", invisibleIn(c.Reason), c.Name)}
	case units > MaxReason && units == n:
		return &ParseError{Text: c.Text, Msg: fmt.Sprintf("the reason is %d characters; `/swarm %s` accepts at most %d", n, c.Name, MaxReason)}
	case units > MaxReason:
		return &ParseError{Text: c.Text, Msg: fmt.Sprintf("the reason is %d characters as the agent's plugin counts them (%d of its %d characters, such as emoji, count twice); `/swarm %s` accepts at most %d", units, units-n, n, c.Name, MaxReason)}
	}
	return nil
}

// trimReason trims the white space both Go and JavaScript's
// String.prototype.trim know of, so that the plugin, which trims the
// reason again, records it unchanged.
func trimReason(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || jsjson.IsSpace(r) })
}

func known(name string) bool {
	for _, n := range Names {
		if n == name {
			return true
		}
	}
	return false
}

// unknown is the error for an unknown command, with the nearest known
// command when it is close enough, and the invisible character when one
// glued the command to its reason.
func unknown(c Command) error {
	e := &ParseError{Text: c.Text}
	if i := strings.IndexFunc(c.Name, isInvisible); i >= 0 {
		if n := c.Name[:i]; known(n) {
			e.Suggestion = n
			e.Msg = fmt.Sprintf("an invisible character (%s) follows `/swarm %s` instead of a space, so swarm-gate read %s as the command; type a space between the command and the reason", invisibleIn(c.Name), n, mdtext.Code(clip(c.Name, 60)))
			return e
		}
	}
	best, bestD, prefixes := "", 1<<30, 0
	for _, n := range Names {
		if d := editdist.Levenshtein(c.Name, n); d < bestD {
			best, bestD = n, d
		}
	}
	for _, n := range Names {
		if strings.HasPrefix(n, c.Name) {
			best, prefixes = n, prefixes+1
		}
	}
	cmd := mdtext.Code("/swarm " + clip(c.Name, 60))
	if hidden := invisibleIn(c.Name); hidden != "" {
		cmd += " (it holds the invisible character " + hidden + ")"
	}
	if prefixes == 1 || (prefixes == 0 && bestD <= max(2, len(best)/3)) {
		e.Suggestion = best
		e.Msg = fmt.Sprintf("unknown command %s; did you mean `/swarm %s`?", cmd, best)
		return e
	}
	e.Msg = fmt.Sprintf("unknown command %s; the commands are %s", cmd, strings.Join(quoted(Names), ", "))
	return e
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "`/swarm " + n + "`"
	}
	return out
}

func lineList(cs []Command) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprint(c.Line)
	}
	return strings.Join(parts, ", ")
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
