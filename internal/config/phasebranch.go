package config

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/swarm-gate/swarm-gate/gates"
)

// PhaseBranchRegexp compiles a phase_branch pattern (gates.Config's
// PhaseBranch: literal text with exactly one "{N}" for the phase number and
// "*" for any run of characters) into an anchored regular expression whose
// first group is the phase number. "" means gates.DefaultPhaseBranch. The
// error says what is wrong with the pattern.
func PhaseBranchRegexp(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		pattern = gates.DefaultPhaseBranch
	}
	if n := strings.Count(pattern, "{N}"); n != 1 {
		return nil, fmt.Errorf("phase_branch %q must contain {N} exactly once (where the phase number goes), e.g. %q", pattern, gates.DefaultPhaseBranch)
	}
	if strings.ContainsAny(pattern, " \t\r\n~^:?[\\") {
		return nil, fmt.Errorf("phase_branch %q contains a character git does not allow in branch names", pattern)
	}
	before, after, _ := strings.Cut(pattern, "{N}")
	return regexp.Compile("^" + glob(before) + `([0-9]+)` + glob(after) + "$")
}

// glob quotes s for a regular expression, with "*" matching any run of
// characters.
func glob(s string) string {
	parts := strings.Split(s, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return strings.Join(parts, ".*")
}

// phaseBranch reads the phase_branch key.
func (p *parser) phaseBranch(n *yaml.Node, c *gates.Config) {
	v, ok := p.scalar(n, "phase_branch", "!!str")
	if !ok {
		return
	}
	if _, err := PhaseBranchRegexp(v); err != nil {
		p.fail(n, "%v", err)
		return
	}
	c.PhaseBranch = v
}
