package config

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/swarm-gate/swarm-gate/gates"
)

// maxSentinel is the longest sentinel accepted: a sentinel is looked for in
// a finding's excerpt, the line's first 100 characters.
const maxSentinel = 100

// placeholders reads the placeholders section into c. A null section
// (`placeholders:` with every setting under it commented out, or `~`) means
// no settings: the defaults.
func (p *parser) placeholders(n *yaml.Node, c *gates.PlaceholdersConfig) {
	if r := resolve(n); r.Kind == yaml.ScalarNode && r.Tag == "!!null" {
		return
	}
	p.mapping(n, "placeholders", map[string]func(*yaml.Node){
		"allow": func(n *yaml.Node) {
			c.Allow = p.globs(n, "placeholders.allow")
		},
		"sentinels": func(n *yaml.Node) {
			c.Sentinels = p.sentinels(n, "placeholders.sentinels")
		},
		"prose": func(n *yaml.Node) {
			if v, ok := p.enum(n, "placeholders.prose", "warn", "fail"); ok {
				c.FailProse = v == "fail"
			}
		},
		"markdown_headings": func(n *yaml.Node) {
			if v, ok := p.enum(n, "placeholders.markdown_headings", "flag", "ignore"); ok {
				c.IgnoreMarkdownHeadings = v == "ignore"
			}
		},
		"disable": func(n *yaml.Node) {
			c.Disable = p.ruleIDs(n, "placeholders.disable")
		},
	})
}

// stringList returns n's items when it is a list of strings.
func (p *parser) stringList(n *yaml.Node, path, what string) []string {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		p.fail(n, "%s must be a list of %s, found %s", path, what, describe(n))
		return nil
	}
	mark := len(p.errs)
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		v, ok := p.scalar(item, fmt.Sprintf("%s[%d]", path, i), "!!str")
		if !ok {
			continue
		}
		out = append(out, v)
	}
	if p.failed(mark) {
		return nil
	}
	return out
}

// sentinels returns n's items when it is a list of non-blank strings of at
// most maxSentinel characters.
func (p *parser) sentinels(n *yaml.Node, path string) []string {
	mark := len(p.errs)
	items := p.stringList(n, path, "strings")
	for i, v := range items {
		item := resolve(n).Content[i]
		switch {
		case strings.TrimSpace(v) == "":
			p.fail(item, "%s[%d] is blank; a blank sentinel would drop every finding", path, i)
		case utf8.RuneCountInString(v) > maxSentinel:
			p.fail(item, "%s[%d] is %d characters long; sentinels are looked for in the first %d characters of a line, so it could never match", path, i, utf8.RuneCountInString(v), maxSentinel)
		}
	}
	if p.failed(mark) {
		return nil
	}
	return items
}

// ruleIDs returns n's items when it is a list of placeholder rule ids that
// can be turned off.
func (p *parser) ruleIDs(n *yaml.Node, path string) []string {
	mark := len(p.errs)
	items := p.stringList(n, path, "rule ids")
	known := gates.PlaceholderRules()
	known = slices.DeleteFunc(known, func(id string) bool { return id == gates.RuleSuppressionNoReason })
	for i, v := range items {
		item := resolve(n).Content[i]
		switch {
		case v == gates.RuleSuppressionNoReason:
			p.fail(item, "%s[%d]: %s cannot be turned off: a suppression must say why", path, i, v)
		case !slices.Contains(known, v):
			p.fail(item, "%s[%d]: %q is not a placeholder rule (known: %s)", path, i, v, strings.Join(known, ", "))
		}
	}
	if p.failed(mark) {
		return nil
	}
	return items
}
