package actions

import (
	"fmt"
	"strings"
)

// This file reads what the package writes the way the runner reads it, so
// tests check round trips against the reader rather than against strings.

// kv is one name/value pair from a GITHUB_OUTPUT or GITHUB_ENV file.
type kv struct{ name, value string }

// parseFileCommands reads a GITHUB_OUTPUT / GITHUB_ENV file as the runner
// does on Linux (src/Runner.Worker/FileCommandManager.cs, SetEnvFileCommand
// and SetOutputFileCommand): lines end at LF only; an empty line is
// skipped; a line is NAME=VALUE when '=' comes before "<<", else
// NAME<<DELIMITER, whose value is every line up to the first line equal to
// DELIMITER, joined with their line endings, without the last one.
func parseFileCommands(text string) ([]kv, error) {
	var out []kv
	index := 0
	readLine := func() (line string, nl int, ok bool) {
		if index >= len(text) {
			return "", 0, false
		}
		start := index
		lf := strings.IndexByte(text[index:], '\n')
		if lf < 0 {
			index = len(text)
			return text[start:], 0, true
		}
		index += lf + 1
		return text[start : index-1], 1, true
	}
	for {
		line, _, ok := readLine()
		if !ok {
			return out, nil
		}
		if line == "" {
			continue
		}
		eq, hd := strings.Index(line, "="), strings.Index(line, "<<")
		switch {
		case eq >= 0 && (hd < 0 || eq < hd):
			name, value, _ := strings.Cut(line, "=")
			if name == "" {
				return nil, fmt.Errorf("empty name in %q", line)
			}
			out = append(out, kv{name, value})
		case hd >= 0:
			name, delim, _ := strings.Cut(line, "<<")
			if name == "" || delim == "" {
				return nil, fmt.Errorf("invalid heredoc line %q", line)
			}
			start, end := index, index
			for {
				l, nl, ok := readLine()
				if !ok {
					return nil, fmt.Errorf("matching delimiter not found %q", delim)
				}
				if l == delim {
					break
				}
				end = index - nl
			}
			out = append(out, kv{name, text[start:max(start, end)]})
		default:
			return nil, fmt.Errorf("invalid format %q", line)
		}
	}
}

// workflowCommand is a parsed ::command key=value::data line.
type workflowCommand struct {
	name  string
	props map[string]string
	data  string
}

// parseWorkflowCommand reads one log line as the runner's
// ActionCommand.TryParseV2 does (src/Runner.Common/ActionCommand.cs):
// leading white space trimmed; "::" then the command info up to the next
// "::"; the name ends at the first space; the property list is trimmed,
// split on ',' (empty entries dropped), each entry split at its first '='
// and unescaped (%0D %0A %3A %2C, then %25); the data is unescaped (%0D
// %0A, then %25). ok is false when the line is not a command.
func parseWorkflowCommand(line string) (c workflowCommand, ok bool) {
	line = strings.TrimLeftFunc(line, isDotNetSpace)
	if !strings.HasPrefix(line, "::") {
		return c, false
	}
	end := strings.Index(line[2:], "::")
	if end < 0 {
		return c, false
	}
	info := line[2 : 2+end]
	c.name, c.props = info, map[string]string{}
	if sp := strings.IndexByte(info, ' '); sp >= 0 {
		c.name = info[:sp]
		for _, p := range strings.Split(strings.TrimFunc(info[sp+1:], isDotNetSpace), ",") {
			k, v, found := strings.Cut(p, "=")
			if p == "" || !found || k == "" || v == "" {
				continue
			}
			c.props[k] = unescape(v, "%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%")
		}
	}
	c.data = unescape(line[2+end+2:], "%0D", "\r", "%0A", "\n", "%25", "%")
	return c, true
}

// unescape applies the replacements one after another, as the runner does.
func unescape(s string, pairs ...string) string {
	for i := 0; i < len(pairs); i += 2 {
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	return s
}

func isDotNetSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r' || r == 0x85 || r == 0xa0 ||
		r == 0x1680 || (r >= 0x2000 && r <= 0x200a) || r == 0x2028 || r == 0x2029 || r == 0x202f || r == 0x205f || r == 0x3000
}

// logLines splits a log as the runner's StreamReader does: at CR, LF or
// CR LF.
func logLines(log string) []string {
	log = strings.ReplaceAll(log, "\r\n", "\n")
	log = strings.ReplaceAll(log, "\r", "\n")
	return strings.Split(strings.TrimSuffix(log, "\n"), "\n")
}

// commandsIn is what a runner would do with a log: the workflow commands
// it acts on, honouring ::stop-commands::TOKEN until ::TOKEN::.
func commandsIn(log string) []workflowCommand {
	var out []workflowCommand
	stopToken := ""
	for _, line := range logLines(log) {
		if stopToken != "" {
			if strings.EqualFold(strings.TrimSpace(line), "::"+stopToken+"::") {
				stopToken = ""
			}
			continue
		}
		c, ok := parseWorkflowCommand(line)
		if !ok {
			continue
		}
		if c.name == "stop-commands" {
			stopToken = c.data
			continue
		}
		out = append(out, c)
	}
	return out
}
