package actions

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Level is an annotation's level, which is also its workflow command.
type Level string

// The annotation levels the runner knows.
const (
	LevelError   Level = "error"
	LevelWarning Level = "warning"
	LevelNotice  Level = "notice"
)

// Annotation is one ::error, ::warning or ::notice workflow command, which
// GitHub shows on the run and, with a File, on the PR diff. Zero numbers
// are left out. As in the toolkit's AnnotationProperties, columns only
// apply to a single line: Col and EndColumn are dropped when EndLine is set
// and differs from Line; an EndLine before Line is dropped too. Title and
// File lose surrounding white space (the runner trims the property list,
// so the last value would lose it anyway).
type Annotation struct {
	Level     Level
	Title     string
	File      string // path relative to the repository root
	Line      int
	EndLine   int
	Col       int
	EndColumn int
	Message   string
}

// Command returns the annotation as one log line without its newline:
//
//	::error file=a.go,line=3,endLine=4,title=swarm/scope::message
//
// Properties come in the order file, line, endLine, col, endColumn, title
// (GitHub's documented form); their values are escaped with EscapeProperty
// and the message with EscapeData, so the line holds no CR or LF whatever
// the text. An unknown Level is an error.
func (a Annotation) Command() (string, error) {
	switch a.Level {
	case LevelError, LevelWarning, LevelNotice:
	default:
		return "", fmt.Errorf("annotation level %q: want error, warning or notice", a.Level)
	}
	var props []string
	add := func(key, value string) {
		if value = strings.TrimSpace(value); value != "" {
			props = append(props, key+"="+EscapeProperty(value))
		}
	}
	num := func(n int) string {
		if n <= 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	endLine := a.EndLine
	if endLine < a.Line {
		endLine = 0
	}
	multiLine := endLine != 0 && endLine != a.Line
	add("file", a.File)
	add("line", num(a.Line))
	add("endLine", num(endLine))
	if !multiLine {
		add("col", num(a.Col))
		add("endColumn", num(a.EndColumn))
	}
	add("title", a.Title)
	return command(string(a.Level), props, a.Message), nil
}

// command formats ::name key=value,...::data; props are already escaped.
func command(name string, props []string, data string) string {
	var b strings.Builder
	b.WriteString("::")
	b.WriteString(name)
	if len(props) > 0 {
		b.WriteByte(' ')
		b.WriteString(strings.Join(props, ","))
	}
	b.WriteString("::")
	b.WriteString(EscapeData(data))
	return b.String()
}

var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// EscapeData escapes a workflow command's message as the toolkit's
// escapeData does: % → %25, CR → %0D, LF → %0A. The runner undoes it, so
// the message may span lines while the command stays on one.
func EscapeData(s string) string { return dataEscaper.Replace(s) }

// EscapeProperty escapes a workflow command's property value as the
// toolkit's escapeProperty does: EscapeData plus : → %3A and , → %2C, so a
// value cannot end the property list ("::") or start another property.
func EscapeProperty(s string) string { return propertyEscaper.Replace(s) }

// Log writes workflow commands to the step's log, which is the action's
// standard output: the runner reads each line and acts on those starting
// with "::". Each method writes whole lines and returns the writer's error.
type Log struct {
	w io.Writer
}

// NewLog returns a Log writing to w (os.Stdout in the action).
func NewLog(w io.Writer) *Log { return &Log{w: w} }

func (l *Log) line(s string) error {
	_, err := io.WriteString(l.w, s+"\n")
	return err
}

// Annotate writes a.Command().
func (l *Log) Annotate(a Annotation) error {
	c, err := a.Command()
	if err != nil {
		return err
	}
	return l.line(c)
}

// AddMask asks the runner to replace secret with *** in the rest of the
// job's log (::add-mask::secret). The runner masks line by line, so a
// multi-line secret (a PEM key) is registered one line at a time, each
// trimmed of surrounding white space (the trimmed text is still masked
// wherever it appears, indented or not); blank lines and an empty secret
// register nothing, since an empty mask would mean nothing to the runner.
func (l *Log) AddMask(secret string) error {
	for part := range strings.Lines(secret) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if err := l.line(command("add-mask", nil, part)); err != nil {
			return err
		}
	}
	return nil
}

// Group starts a collapsible group of log lines titled name
// (::group::name); EndGroup ends it. Groups do not nest.
func (l *Log) Group(name string) error { return l.line(command("group", nil, name)) }

// EndGroup ends the group Group started (::endgroup::).
func (l *Log) EndGroup() error { return l.line(command("endgroup", nil, "")) }

// Debug writes a message shown only when step debug logging is on
// (::debug::message).
func (l *Log) Debug(message string) error { return l.line(command("debug", nil, message)) }

// NewStopToken returns a token for StopCommands that text written before
// it was drawn cannot contain: 32 random hex digits from crypto/rand.
func NewStopToken() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	return hex.EncodeToString(b[:])
}

// StopCommands makes the runner ignore workflow commands until resume is
// called (::stop-commands::token, then ::token::), so that untrusted text
// printed in between, such as a file or a plan description from the pull
// request, cannot annotate, mask, group or set anything:
//
//	resume, err := log.StopCommands(actions.NewStopToken())
//	if err != nil {
//		return err
//	}
//	fmt.Fprintln(os.Stdout, untrustedText) // "::error::all gates passed" stays text
//	if err := resume(); err != nil {
//		return err
//	}
//
// The token must be drawn afresh for each use (NewStopToken): whoever can
// print ::token:: resumes command processing. The runner refuses an empty
// token, "pause-logging" and the name of a workflow command; so does this
// function, and it also wants at least 16 characters of [A-Za-z0-9_-].
// PrintUntrusted does all of this for one piece of text.
func (l *Log) StopCommands(token string) (resume func() error, err error) {
	if err := checkStopToken(token); err != nil {
		return nil, err
	}
	if err := l.line(command("stop-commands", nil, token)); err != nil {
		return nil, err
	}
	return func() error { return l.line("::" + token + "::") }, nil
}

// PrintUntrusted writes text (followed by a newline) between
// ::stop-commands:: and its resume line with a fresh token, so no line of
// it is read as a workflow command.
func (l *Log) PrintUntrusted(text string) error {
	resume, err := l.StopCommands(NewStopToken())
	if err != nil {
		return err
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if _, err := io.WriteString(l.w, text); err != nil {
		return err
	}
	return resume()
}

// workflowCommands are the runner's registered command names, which it
// refuses as stop tokens.
var workflowCommands = map[string]bool{
	"stop-commands": true, "set-env": true, "set-output": true, "save-state": true,
	"add-mask": true, "add-path": true, "add-matcher": true, "remove-matcher": true,
	"debug": true, "warning": true, "error": true, "notice": true,
	"group": true, "endgroup": true, "echo": true, "pause-logging": true,
}

func checkStopToken(token string) error {
	if workflowCommands[strings.ToLower(token)] {
		return fmt.Errorf("stop-commands token %q is a workflow command name; use NewStopToken", token)
	}
	if len(token) < 16 {
		return fmt.Errorf("stop-commands token %q is shorter than 16 characters; use NewStopToken", token)
	}
	for _, c := range []byte(token) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("stop-commands token %q has characters other than [A-Za-z0-9_-]; use NewStopToken", token)
		}
	}
	return nil
}
