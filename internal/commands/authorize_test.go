package commands

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
)

// TestAuthorizeMatrix runs every combination of permission level (or an
// API error), bot, pull request author and policy for each command.
func TestAuthorizeMatrix(t *testing.T) {
	perms := []struct {
		name string
		p    ghapi.Permission
		err  error
	}{
		{"none", ghapi.PermissionNone, nil},
		{"read", ghapi.PermissionRead, nil},
		{"write", ghapi.PermissionWrite, nil},
		{"triage", ghapi.PermissionTriage, nil},
		{"maintain", ghapi.PermissionMaintain, nil},
		{"admin", ghapi.PermissionAdmin, nil},
		{"unknown value", ghapi.Permission("security-manager"), nil},
		{"API error", ghapi.PermissionNone, errors.New("reading octo's permission on o/r: 403 Resource not accessible by integration")},
	}
	actors := []struct {
		name string
		a    Actor
	}{
		{"user", Actor{Login: "octo", Type: "User"}},
		{"type Bot", Actor{Login: "renovate", Type: "Bot"}},
		{"[bot] login", Actor{Login: "dependabot[bot]", Type: "User"}},
	}
	policies := []gates.CommandsConfig{
		{MinPermission: gates.PermissionWrite},
		{MinPermission: gates.PermissionMaintain},
		{MinPermission: gates.PermissionAdmin},
		{MinPermission: gates.PermissionWrite, AllowSelfApproval: true},
		{}, // zero value: write
		{MinPermission: gates.PermissionWrite, Teams: []string{"octo/core", "octo/release"}},
	}
	memberships := []struct {
		name   string
		checks []TeamCheck
	}{
		{"no membership read", nil},
		{"active in the second team", []TeamCheck{{Team: "octo/core"}, {Team: "octo/release", State: "active"}}},
		{"pending", []TeamCheck{{Team: "octo/core", State: "pending"}, {Team: "octo/release"}}},
		{"membership API error", []TeamCheck{{Team: "octo/core", Err: errors.New("403 Resource not accessible by integration")}, {Team: "octo/release", State: "active", Err: errors.New("500")}}},
		{"active in a team the policy does not list", []TeamCheck{{Team: "octo/other", State: "active"}}},
	}
	n := 0
	for _, cmd := range Names {
		for _, perm := range perms {
			for _, actor := range actors {
				for _, author := range []string{"someone-else", actor.a.Login} {
					for _, pol := range policies {
						for _, m := range memberships {
							name := fmt.Sprintf("%s/%s/%s/author=%v/%+v/%s", cmd, perm.name, actor.name, author == actor.a.Login, pol, m.name)
							got := Authorize(Request{Command: cmd, Actor: actor.a, Permission: perm.p, PermissionErr: perm.err, Teams: m.checks, PRAuthor: author, Policy: pol})
							want, why := expect(cmd, perm.p, perm.err, actor.a, author, pol, m.checks)
							n++
							if got.Allowed != want {
								t.Errorf("%s: allowed %v, want %v (%s)", name, got.Allowed, want, got.Reason)
								continue
							}
							if !got.Allowed && !strings.Contains(got.Reason, why) {
								t.Errorf("%s: reason %q, want it to contain %q", name, got.Reason, why)
							}
							if got.Allowed && got.Reason != "" {
								t.Errorf("%s: allowed with a reason %q", name, got.Reason)
							}
						}
					}
				}
			}
		}
	}
	if n != 4*8*3*2*6*5 {
		t.Fatalf("ran %d cases", n)
	}
}

// expect is the matrix's oracle, written from the rule 3.
func expect(cmd string, p ghapi.Permission, err error, a Actor, author string, pol gates.CommandsConfig, teams []TeamCheck) (bool, string) {
	if cmd == Help {
		return true, "" // help is open to everyone, bots included
	}
	if a.Type == "Bot" || strings.HasSuffix(a.Login, "[bot]") {
		return false, "is a bot"
	}
	if err != nil {
		return false, "(fail closed): reading octo's permission"
	}
	rank := map[ghapi.Permission]int{ghapi.PermissionRead: 1, ghapi.PermissionTriage: 2, ghapi.PermissionWrite: 3, ghapi.PermissionMaintain: 4, ghapi.PermissionAdmin: 5}[p]
	need := map[gates.CommandPermission]int{"": 3, gates.PermissionWrite: 3, gates.PermissionMaintain: 4, gates.PermissionAdmin: 5}[pol.MinPermission]
	if rank < need {
		return false, "permission on the repository"
	}
	if len(pol.Teams) > 0 {
		member := false
		for _, c := range teams {
			if c.Err == nil && c.State == "active" && (c.Team == "octo/core" || c.Team == "octo/release") {
				member = true
			}
		}
		if !member {
			return false, "needs an active membership of one of the teams octo/core, octo/release (the base branch's policy, commands.teams), so swarm-gate refuses (fail closed)"
		}
	}
	if (cmd == ApprovePlanCritic || cmd == AcknowledgeSpecDrift) && author == a.Login && !pol.AllowSelfApproval {
		return false, "opened this pull request"
	}
	return true, ""
}

func TestAuthorizeReasons(t *testing.T) {
	d := Authorize(Request{Command: ApprovePlanCritic, Actor: Actor{Login: "octo", Type: "User"}, Permission: ghapi.PermissionRead})
	if d.Allowed || d.Reason != "`/swarm approve-plan-critic` needs write permission on the repository (the base branch's policy, commands.min_permission); @octo has read permission" {
		t.Errorf("%+v", d)
	}
	d = Authorize(Request{Command: Recheck, Actor: Actor{Login: "octo"}, Permission: ghapi.PermissionNone})
	if d.Allowed || !strings.Contains(d.Reason, "@octo has no permission") {
		t.Errorf("%+v", d)
	}
}

// TestAuthorizeTeamReasons: the refusal names each team and why it does
// not count.
func TestAuthorizeTeamReasons(t *testing.T) {
	pol := gates.CommandsConfig{MinPermission: gates.PermissionWrite, Teams: []string{"octo/core", "octo/release", "octo/docs"}}
	d := Authorize(Request{Command: Recheck, Actor: Actor{Login: "octo", Type: "User"}, Permission: ghapi.PermissionWrite, Policy: pol,
		Teams: []TeamCheck{{Team: "octo/core", State: "pending"}, {Team: "octo/release", Err: errors.New("reading octo's membership of team octo/release: 403 Resource not accessible by integration")}, {Team: "octo/docs"}}})
	want := "octo/core: the invitation is pending; octo/release: swarm-gate could not read the membership (reading octo's membership of team octo/release: 403 Resource not accessible by integration); octo/docs: not a member (GitHub answers 404"
	if d.Allowed || !strings.Contains(d.Reason, want) {
		t.Errorf("%+v\nwant it to contain %q", d, want)
	}
}

// TestAuthorizeAPIErrorIsBrief: a refusal for an unreadable permission
// says what GitHub answered, without the API URL or go-github's empty
// error list.
func TestAuthorizeAPIErrorIsBrief(t *testing.T) {
	u, _ := url.Parse("https://api.github.com/repos/o/r/collaborators/octo/permission")
	er := &github.ErrorResponse{Response: &http.Response{StatusCode: http.StatusForbidden, Request: &http.Request{Method: http.MethodGet, URL: u}}, Message: "Resource not accessible by integration"}
	err := fmt.Errorf("reading octo's permission on o/r: %w", er)
	if !strings.Contains(err.Error(), "https://") || !strings.HasSuffix(err.Error(), " []") {
		t.Fatalf("the fixture is not go-github's text: %q", err)
	}
	d := Authorize(Request{Command: Recheck, Actor: Actor{Login: "octo", Type: "User"}, PermissionErr: err})
	want := "swarm-gate could not read @octo's permission on the repository, so it refuses (fail closed): reading octo's permission on o/r: GitHub answered HTTP 403: Resource not accessible by integration"
	if d.Allowed || d.Reason != want {
		t.Errorf("reason %q\nwant   %q", d.Reason, want)
	}
	teams := describeTeams([]TeamCheck{{Team: "octo/core", Err: fmt.Errorf("reading membership: %w", er)}}, []string{"octo/core"})
	if strings.Contains(teams, "https://") || strings.Contains(teams, "[]") || !strings.Contains(teams, "GitHub answered HTTP 403") {
		t.Errorf("teams: %q", teams)
	}
}

// TestAuthorizeMaintain: commands.min_permission: maintain is met by the
// maintain role (GitHub's role_name), not only by admins.
func TestAuthorizeMaintain(t *testing.T) {
	pol := gates.CommandsConfig{MinPermission: gates.PermissionMaintain}
	for p, want := range map[ghapi.Permission]bool{ghapi.PermissionWrite: false, ghapi.PermissionMaintain: true, ghapi.PermissionAdmin: true, ghapi.PermissionTriage: false} {
		d := Authorize(Request{Command: ApprovePlanCritic, Actor: Actor{Login: "octo", Type: "User"}, Permission: p, Policy: pol, PRAuthor: "someone"})
		if d.Allowed != want {
			t.Errorf("%s: allowed %v, want %v (%s)", p, d.Allowed, want, d.Reason)
		}
	}
}

// TestAuthorizeHelpForBots: `/swarm help` is open to bots too, as the
// README says; everything else is refused to them.
func TestAuthorizeHelpForBots(t *testing.T) {
	bot := Actor{Login: "renovate[bot]", Type: "Bot"}
	if d := Authorize(Request{Command: Help, Actor: bot}); !d.Allowed {
		t.Errorf("help refused to a bot: %s", d.Reason)
	}
	if d := Authorize(Request{Command: Recheck, Actor: bot, Permission: ghapi.PermissionAdmin}); d.Allowed || !strings.Contains(d.Reason, "is a bot") {
		t.Errorf("recheck by a bot: %+v", d)
	}
}

// TestAuthorizeContributors: under commands.allow_self_approval: false,
// an override by someone who authored, committed or pushed commits of the pull
// request (not only its opener) is refused, and so is one when they
// cannot be read; recheck and help never need them, and
// allow_self_approval: true lets them approve.
func TestAuthorizeContributors(t *testing.T) {
	octo := Actor{Login: "octo", Type: "User"}
	cases := []struct {
		name         string
		cmd          string
		contributors []string
		err          error
		allow        bool
		want         string // "" allowed, else part of the reason
	}{
		{"not a contributor", ApprovePlanCritic, []string{"author", "web-flow"}, nil, false, ""},
		{"a co-author", ApprovePlanCritic, []string{"author", "Octo"}, nil, false, "authored, committed or pushed commits of this pull request"},
		{"a co-author acknowledging drift", AcknowledgeSpecDrift, []string{"octo"}, nil, false, "authored, committed or pushed"},
		{"unreadable", ApprovePlanCritic, nil, errors.New("500 Internal Server Error"), false, "could not read who authored, committed or pushed"},
		{"a co-author, self-approval allowed", ApprovePlanCritic, []string{"octo"}, nil, true, ""},
		{"unreadable, self-approval allowed", ApprovePlanCritic, nil, errors.New("500"), true, ""},
		{"a co-author rechecks", Recheck, []string{"octo"}, errors.New("500"), false, ""},
	}
	for _, c := range cases {
		r := Request{Command: c.cmd, Actor: octo, Permission: ghapi.PermissionWrite, PRAuthor: "author",
			Contributors: c.contributors, ContributorsErr: c.err, Policy: gates.CommandsConfig{AllowSelfApproval: c.allow}}
		got := Authorize(r)
		if got.Allowed != (c.want == "") || !strings.Contains(got.Reason, c.want) {
			t.Errorf("%s: allowed %v %q, want %q", c.name, got.Allowed, got.Reason, c.want)
		}
	}
}
