package ghapi_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestPermissionRole: the collaborator permission endpoint's role_name is
// read, so maintain and triage are told apart from the write and read its
// legacy permission field reports (the fake answers as GitHub does).
func TestPermissionRole(t *testing.T) {
	cases := []struct {
		role string
		want ghapi.Permission
	}{
		{"admin", ghapi.PermissionAdmin},
		{"maintain", ghapi.PermissionMaintain},
		{"write", ghapi.PermissionWrite},
		{"triage", ghapi.PermissionTriage},
		{"read", ghapi.PermissionRead},
		{"none", ghapi.PermissionNone},
	}
	for _, tc := range cases {
		t.Run(tc.role, func(t *testing.T) {
			s := ghfake.New(t)
			c, _ := newClient(t, s)
			s.SetPermission("octo/demo", "alice", tc.role)
			p, err := c.Permission(context.Background(), repo, "alice")
			if err != nil || p != tc.want {
				t.Fatalf("got %q, %v; want %q", p, err, tc.want)
			}
		})
	}
	if !ghapi.PermissionMaintain.AtLeast(ghapi.PermissionWrite) || ghapi.PermissionWrite.AtLeast(ghapi.PermissionMaintain) ||
		ghapi.PermissionTriage.AtLeast(ghapi.PermissionWrite) || !ghapi.PermissionAdmin.AtLeast(ghapi.PermissionMaintain) {
		t.Error("AtLeast does not order read < triage < write < maintain < admin")
	}
}

// TestIssueComment reads one comment by id: its author, author type,
// issue number and times; a missing comment is a 404.
func TestIssueComment(t *testing.T) {
	s := ghfake.New(t)
	c, _ := newClient(t, s)
	id := s.AddComment("octo/demo", 7, "maint", "/swarm recheck")
	got, err := c.IssueComment(context.Background(), repo, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != id || got.Author != "maint" || got.AuthorType != "User" || got.Issue != 7 || got.Body != "/swarm recheck" ||
		got.CreatedAt.IsZero() || !got.UpdatedAt.Equal(got.CreatedAt) || !strings.HasSuffix(got.HTMLURL, "#issuecomment-"+strconv.FormatInt(id, 10)) {
		t.Errorf("comment %+v", got)
	}
	if _, err := c.IssueComment(context.Background(), repo, id+1000); !ghapi.IsNotFound(err) {
		t.Errorf("missing comment: %v, want a 404", err)
	}
}

// TestBrief: an API error fit for a comment: GitHub's status and message,
// no API URL, no empty error list.
func TestBrief(t *testing.T) {
	s := ghfake.New(t)
	c, _ := newClient(t, s)
	s.Fail(ghfake.Fault{Operation: "repos/get-collaborator-permission-level", Status: http.StatusForbidden, Times: -1, Body: `{"message":"Resource not accessible by integration"}`})
	_, err := c.Permission(context.Background(), repo, "alice")
	if err == nil {
		t.Fatal("no error")
	}
	got := ghapi.Brief(err)
	if got != "reading alice's permission on octo/demo: GitHub answered HTTP 403: Resource not accessible by integration" {
		t.Errorf("Brief = %q\n(error %q)", got, err)
	}
	if ghapi.Brief(nil) != "" {
		t.Error("Brief(nil)")
	}
}
