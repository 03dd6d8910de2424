package commands

import (
	"fmt"
	"slices"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
)

// Actor is a comment's author as the webhook payload gives it.
type Actor struct {
	Login string
	Type  string // "User", "Bot", "Organization"
}

// IsBot reports whether the actor is a bot: type Bot or a [bot] login.
func (a Actor) IsBot() bool {
	return strings.EqualFold(a.Type, "Bot") || strings.HasSuffix(strings.ToLower(a.Login), "[bot]")
}

// Request is everything the authorization decision reads: the command,
// who ran it, their repository permission as read from the API just now
// (or the error reading it), their memberships of the policy's teams (when
// it lists any; see CheckTeams), the pull request's author and the logins
// that authored or committed its commits (Contributors, or the error
// reading them: only an override under commands.allow_self_approval: false
// needs them), and the base branch's policy.
type Request struct {
	Command         string
	Actor           Actor
	Permission      ghapi.Permission
	PermissionErr   error
	Teams           []TeamCheck
	PRAuthor        string
	Contributors    []string
	ContributorsErr error
	Policy          gates.CommandsConfig
}

// NeedsContributors reports whether Authorize reads r's Contributors: an
// override when the pull request's own people may not approve it.
func (r Request) NeedsContributors() bool {
	return IsOverride(r.Command) && !r.Policy.AllowSelfApproval && !r.Actor.IsBot()
}

// Decision is the outcome of Authorize; Reason says why a command is
// refused, in words fit for a reply ("" when allowed).
type Decision struct {
	Allowed bool
	Reason  string
}

// Authorize decides whether the actor may run the command. `/swarm help`
// is open to everyone, bots included (it changes nothing). Otherwise it
// fails closed: a bot, an unreadable permission, a permission below the
// policy's minimum, or, when the policy lists teams (commands.teams), no
// active membership of any of them (an unreadable membership counts as
// none) is refused, and by default so is an override by the pull
// request's own author.
func Authorize(r Request) Decision {
	if r.Command == Help {
		return Decision{Allowed: true}
	}
	if r.Actor.IsBot() {
		return refuse("@%s is a bot; swarm-gate runs comment commands other than `/swarm help` only for people", r.Actor.Login)
	}
	min := r.Policy.MinPermission
	if min == "" {
		min = gates.PermissionWrite
	}
	if r.PermissionErr != nil {
		return refuse("swarm-gate could not read @%s's permission on the repository, so it refuses (fail closed): %s", r.Actor.Login, ghapi.Brief(r.PermissionErr))
	}
	if !permitted(r.Permission, min) {
		return refuse("`/swarm %s` needs %s permission on the repository (the base branch's policy, commands.min_permission); @%s has %s", r.Command, min, r.Actor.Login, describe(r.Permission))
	}
	if len(r.Policy.Teams) > 0 && !activeMember(r.Teams, r.Policy.Teams) {
		return refuse("`/swarm %s` needs an active membership of one of the teams %s (the base branch's policy, commands.teams), so swarm-gate refuses (fail closed): %s", r.Command, strings.Join(r.Policy.Teams, ", "), describeTeams(r.Teams, r.Policy.Teams))
	}
	if IsOverride(r.Command) && !r.Policy.AllowSelfApproval && r.PRAuthor != "" && strings.EqualFold(r.PRAuthor, r.Actor.Login) {
		return refuse("@%s opened this pull request, and by policy the author cannot approve their own pull request's plan or spec drift (commands.allow_self_approval: false); ask another maintainer", r.Actor.Login)
	}
	if r.NeedsContributors() {
		if r.ContributorsErr != nil {
			return refuse("swarm-gate could not read who authored, committed or pushed this pull request's commits, so it cannot tell whether @%s approves their own work, and refuses (fail closed; commands.allow_self_approval: false): %s", r.Actor.Login, ghapi.Brief(r.ContributorsErr))
		}
		if slices.ContainsFunc(r.Contributors, func(l string) bool { return strings.EqualFold(l, r.Actor.Login) }) {
			return refuse("@%s authored, committed or pushed commits of this pull request, and by policy its own people cannot approve its plan or spec drift (commands.allow_self_approval: false); ask a maintainer who has not pushed to it", r.Actor.Login)
		}
	}
	return Decision{Allowed: true}
}

// activeMember reports whether one of the checks is an active membership
// of one of the policy's teams.
func activeMember(checks []TeamCheck, teams []string) bool {
	for _, c := range checks {
		if c.Active() && slices.Contains(teams, c.Team) {
			return true
		}
	}
	return false
}

func refuse(format string, args ...any) Decision {
	return Decision{Reason: fmt.Sprintf(format, args...)}
}

// permitted compares the API's permission (its role_name: maintain is
// told apart from write) with the policy's minimum.
func permitted(p ghapi.Permission, min gates.CommandPermission) bool {
	switch min {
	case gates.PermissionWrite:
		return p.AtLeast(ghapi.PermissionWrite)
	case gates.PermissionMaintain:
		return p.AtLeast(ghapi.PermissionMaintain)
	case gates.PermissionAdmin:
		return p.AtLeast(ghapi.PermissionAdmin)
	}
	return false
}

func describe(p ghapi.Permission) string {
	if p == "" || p == ghapi.PermissionNone {
		return "no permission"
	}
	return string(p) + " permission"
}
