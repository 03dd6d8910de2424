package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
)

// Teams is what CheckTeams needs from GitHub's API; *ghapi.Client
// implements it.
type Teams interface {
	TeamMembership(ctx context.Context, org, slug, user string) (string, error)
}

var _ Teams = (*ghapi.Client)(nil)

// TeamCheck is a commenter's membership of one team of the policy's
// commands.teams, read from the API at that moment.
type TeamCheck struct {
	Team  string // "org/slug", as the policy writes it
	State string // ghapi.MembershipActive, MembershipPending or MembershipNone (404)
	Err   error  // the API call failed: not a member (fail closed)
}

// Active reports whether the membership is active.
func (c TeamCheck) Active() bool { return c.Err == nil && c.State == ghapi.MembershipActive }

// CheckTeams reads user's membership of each team, in order, and stops at
// the first active one. A team that is not "org/slug" is an error check
// (the config reader rejects such policies; this is defence in depth).
func CheckTeams(ctx context.Context, api Teams, teams []string, user string) []TeamCheck {
	var out []TeamCheck
	for _, team := range teams {
		org, slug, ok := strings.Cut(team, "/")
		if !ok || org == "" || slug == "" {
			out = append(out, TeamCheck{Team: team, Err: fmt.Errorf("%q is not org/team-slug", team)})
			continue
		}
		state, err := api.TeamMembership(ctx, org, slug, user)
		c := TeamCheck{Team: team, State: state, Err: err}
		out = append(out, c)
		if c.Active() {
			break
		}
	}
	return out
}

// describeTeams says, for a refusal, why none of the checks is an active
// membership.
func describeTeams(checks []TeamCheck, teams []string) string {
	var parts []string
	for _, team := range teams {
		found := false
		for _, c := range checks {
			if c.Team != team {
				continue
			}
			found = true
			switch {
			case c.Err != nil:
				parts = append(parts, fmt.Sprintf("%s: swarm-gate could not read the membership (%s)", team, ghapi.Brief(c.Err)))
			case c.State == ghapi.MembershipPending:
				parts = append(parts, team+": the invitation is pending")
			default:
				parts = append(parts, team+": not a member (GitHub answers 404, which also means the token cannot see the team: it needs the organization's members: read permission)")
			}
		}
		if !found {
			parts = append(parts, team+": not checked")
		}
	}
	return strings.Join(parts, "; ")
}
