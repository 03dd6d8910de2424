package actions

import (
	"fmt"
	"strings"
	"unicode"
)

// InputVar is the environment variable the runner uses for the action input
// name: "INPUT_" + name with spaces replaced by '_' and upper-cased
// (runner: `INPUT_{key.Replace(' ', '_').ToUpperInvariant()}`; toolkit
// getInput). Hyphens stay: "github-token" is INPUT_GITHUB-TOKEN, which a
// shell cannot name but a container's environment can hold.
func InputVar(name string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
}

// Input returns the action input name, trimmed like the toolkit's
// getInput (JavaScript String.prototype.trim: Unicode white space, line
// terminators and the byte order mark); "" when not set.
func (e Env) Input(name string) string {
	return trimJS(e.Get(InputVar(name)))
}

func trimJS(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' })
}

// BoolInput reads a boolean input the way the toolkit's getBooleanInput
// does: the YAML 1.2 core schema booleans true, True, TRUE, false, False,
// FALSE, and nothing else ("yes", "1" and "" are errors naming the input).
// Give optional boolean inputs a default in action.yml.
func (e Env) BoolInput(name string) (bool, error) {
	switch v := e.Input(name); v {
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	default:
		return false, fmt.Errorf("input %q (%s) is %q: want true or false (YAML 1.2 core schema: true | True | TRUE | false | False | FALSE)", name, InputVar(name), v)
	}
}

// ListInput splits an input on newlines and commas, trims each item and
// drops empty ones, so both
//
//	extra-scope: docs/**, .github/**
//
// and a YAML block scalar with one item per line give [docs/** .github/**].
func (e Env) ListInput(name string) []string {
	items := strings.FieldsFunc(e.Input(name), func(r rune) bool { return r == '\n' || r == ',' })
	out := items[:0]
	for _, it := range items {
		if it = trimJS(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}
