// Package commands reads swarm-gate's `/swarm` comment commands: it parses
// a pull request comment, decides whether its author may run the command,
// and writes and reads back the marker comments that record human
// overrides (DESIGN.md section 3.5).
package commands

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/editdist"
	"github.com/swarm-gate/swarm-gate/internal/jsjson"
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

// commandLine is a line that starts with /swarm (any case) followed by
// whitespace or the end of the line.
var commandLine = regexp.MustCompile(`(?i)^/swarm(?:[ \t]+(.*))?$`)

// nameAndRest splits what follows /swarm into the command and the rest.
var nameAndRest = regexp.MustCompile(`^(\S+)(?:\s+(.*))?$`)

// Parse finds the comment's `/swarm` command. It returns nil, nil when the
// body holds none. A command counts only at the start of a line (after at
// most three spaces), outside fenced and indented code blocks, block
// quotes and HTML comments; a comment may hold one command only.
func Parse(body string) (*Command, error) {
	var found []Command
	for _, l := range commandLines(body) {
		m := commandLine.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		found = append(found, Command{Text: l.text, Line: l.n, Reason: trimReason(m[1])})
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, &ParseError{Msg: fmt.Sprintf("the comment holds %d `/swarm` commands (lines %s); swarm-gate runs one command per comment, so it ran none: post each in a comment of its own", len(found), lineList(found))}
	}
	c := found[0]
	if m := nameAndRest.FindStringSubmatch(c.Reason); m != nil {
		c.Name, c.Reason = strings.ToLower(m[1]), trimReason(m[2])
	}
	if c.Name == "" {
		return nil, &ParseError{Text: c.Text, Suggestion: Help, Msg: "`/swarm` needs a command: " + strings.Join(quoted(Names), ", ") + "; `/swarm help` explains them"}
	}
	if !known(c.Name) {
		return nil, unknown(c)
	}
	if IsOverride(c.Name) {
		if err := checkReason(c); err != nil {
			return nil, err
		}
		return &c, nil
	}
	if c.Reason != "" {
		return nil, &ParseError{Text: c.Text, Msg: fmt.Sprintf("`/swarm %s` takes no arguments; found %q", c.Name, clip(c.Reason, 60))}
	}
	return &c, nil
}

func checkReason(c Command) error {
	n, units := utf8.RuneCountInString(c.Reason), len(utf16.Encode([]rune(c.Reason)))
	switch {
	case n == 0:
		return &ParseError{Text: c.Text, Msg: fmt.Sprintf("`/swarm %s` needs a reason on the same line: `/swarm %s <why>` (1 to %d characters)", c.Name, c.Name, MaxReason)}
	case !utf8.ValidString(c.Reason):
		return &ParseError{Text: c.Text, Msg: "the reason is not valid UTF-8"}
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
// command when it is close enough.
func unknown(c Command) error {
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
	e := &ParseError{Text: c.Text}
	if prefixes == 1 || (prefixes == 0 && bestD <= max(2, len(best)/3)) {
		e.Suggestion = best
		e.Msg = fmt.Sprintf("unknown command `/swarm %s`; did you mean `/swarm %s`?", clip(c.Name, 60), best)
		return e
	}
	e.Msg = fmt.Sprintf("unknown command `/swarm %s`; the commands are %s", clip(c.Name, 60), strings.Join(quoted(Names), ", "))
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
