package ghapi

import (
	"context"
	"fmt"
)

// Team membership states (GitHub's membership state, or none).
const (
	MembershipActive  = "active"
	MembershipPending = "pending"
	// MembershipNone is GitHub's 404: the user is not a member, or the
	// token cannot see the team (GitHub does not say which).
	MembershipNone = ""
)

// TeamMembership returns user's membership state of the team org/slug
// (GET /orgs/{org}/teams/{team_slug}/memberships/{username}): "active",
// "pending", or MembershipNone for a 404. Any other failure is an error,
// which callers must treat as "not a member" (fail closed). The token needs
// the organization's members: read permission; a workflow's GITHUB_TOKEN
// does not have it.
func (c *Client) TeamMembership(ctx context.Context, org, slug, user string) (string, error) {
	m, _, err := c.gh.Teams.GetTeamMembershipBySlug(ctx, org, slug, user)
	if err != nil {
		if IsNotFound(err) {
			return MembershipNone, nil
		}
		return MembershipNone, apiError(fmt.Sprintf("reading %s's membership of team %s/%s", user, org, slug), err)
	}
	switch s := m.GetState(); s {
	case MembershipActive, MembershipPending:
		return s, nil
	default:
		return MembershipNone, fmt.Errorf("reading %s's membership of team %s/%s: unknown state %q", user, org, slug, s)
	}
}
