package commands

import (
	"context"
	"errors"
	"testing"
)

// fakeTeams answers memberships from a map ("org/slug/user" -> state or
// "error").
type fakeTeams struct {
	m     map[string]string
	calls []string
}

func (f *fakeTeams) TeamMembership(_ context.Context, org, slug, user string) (string, error) {
	k := org + "/" + slug + "/" + user
	f.calls = append(f.calls, org+"/"+slug)
	if f.m[k] == "error" {
		return "", errors.New("403 Resource not accessible by integration")
	}
	return f.m[k], nil
}

func TestCheckTeams(t *testing.T) {
	api := &fakeTeams{m: map[string]string{"o/a/u": "error", "o/b/u": "pending", "o/c/u": "active", "o/d/u": "active"}}
	checks := CheckTeams(context.Background(), api, []string{"o/a", "o/b", "o/c", "o/d", "bad"}, "u")
	if len(checks) != 3 || checks[0].Err == nil || checks[1].Active() || !checks[2].Active() {
		t.Fatalf("%+v", checks)
	}
	if len(api.calls) != 3 {
		t.Errorf("CheckTeams went on after the first active team: %v", api.calls)
	}
	checks = CheckTeams(context.Background(), api, []string{"bad", "/x"}, "u")
	if len(checks) != 2 || checks[0].Err == nil || checks[1].Err == nil || len(api.calls) != 3 {
		t.Errorf("malformed teams: %+v", checks)
	}
}
