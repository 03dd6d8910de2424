package config

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/swarm-gate/swarm-gate/gates"
)

// commands reads the commands section: who may run `/swarm` comment
// commands.
//
//	commands:
//	  min_permission: write        # write (default), maintain or admin
//	  allow_self_approval: false   # the PR author may record overrides
//	  teams: [octo-org/maintainers] # also require an active team membership
func (p *parser) commands(n *yaml.Node, c *gates.CommandsConfig) {
	p.mapping(n, "commands", map[string]func(*yaml.Node){
		"min_permission": func(n *yaml.Node) {
			if v, ok := p.enum(n, "commands.min_permission", "write", "maintain", "admin"); ok {
				c.MinPermission = gates.CommandPermission(v)
			}
		},
		"allow_self_approval": func(n *yaml.Node) {
			if v, ok := p.scalar(n, "commands.allow_self_approval", "!!bool"); ok {
				c.AllowSelfApproval = v == "true"
			}
		},
		"teams": func(n *yaml.Node) {
			c.Teams = p.teams(n, "commands.teams")
		},
	})
}

var (
	// teamOrg is a GitHub organization login; teamSlug a team's slug
	// (GitHub lowercases the team name and replaces what is not a letter,
	// digit, "_" or "-" with "-").
	teamOrg  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}$`)
	teamSlug = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,99}$`)
)

// teams returns n's items when it is a non-empty list of distinct
// "org/team-slug" strings.
func (p *parser) teams(n *yaml.Node, path string) []string {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		p.fail(n, "%s must be a list of teams as org/team-slug (e.g. [octo-org/maintainers]), found %s", path, describe(n))
		return nil
	}
	if len(n.Content) == 0 {
		p.fail(n, "%s is empty: list at least one team as org/team-slug, or remove the key to allow everyone with commands.min_permission", path)
		return nil
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		where := fmt.Sprintf("%s[%d]", path, i)
		v, ok := p.scalar(item, where, "!!str")
		if !ok {
			continue
		}
		org, slug, found := strings.Cut(v, "/")
		switch {
		case strings.HasPrefix(v, "@"):
			p.fail(item, "%s: %q starts with @; write the team as %q", where, v, strings.TrimPrefix(v, "@"))
		case !found || strings.Contains(slug, "/"):
			p.fail(item, "%s: %q is not org/team-slug (e.g. octo-org/maintainers)", where, v)
		case !teamOrg.MatchString(org):
			p.fail(item, "%s: %q is not an organization login (letters, digits and -)", where, org)
		case strings.ToLower(slug) != slug && teamSlug.MatchString(strings.ToLower(slug)):
			p.fail(item, "%s: team slugs are lower case; did you mean %q?", where, org+"/"+strings.ToLower(slug))
		case !teamSlug.MatchString(slug):
			p.fail(item, "%s: %q is not a team slug (lower-case letters, digits, -, _ and .; the slug of \"Core Team\" is core-team)", where, slug)
		case seen[strings.ToLower(v)]:
			p.fail(item, "%s: %q is listed twice", where, v)
		}
		seen[strings.ToLower(v)] = true
		out = append(out, v)
	}
	return out
}
