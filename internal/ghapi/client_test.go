package ghapi_test

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

func TestNewClientBaseURL(t *testing.T) {
	cases := []struct {
		url     string
		wantErr string
	}{
		{"", ""},
		{"https://api.github.com", ""},
		{"https://api.github.com/", ""},
		{"https://ghe.example.com", ""},
		{"https://ghe.example.com/api/v3", ""},
		{"http://ghe.internal:8080/api/v3/", ""},
		{"https://api.octocorp.ghe.com", ""},
		{"ftp://ghe.example.com", "scheme"},
		{"ghe.example.com/api/v3", "scheme"},
		{"https://user:pw@ghe.example.com", "credentials"},
		{"https://ghe.example.com/api/v3?x=1", "query"},
		{"https://ghe.example.com/foo", "path"},
		{"https://github.com", "web site"},
		{"https:///api/v3", "no host"},
	}
	for _, tc := range cases {
		_, err := ghapi.NewClient(tc.url, "t", nil)
		if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%q: got %v, want error containing %q", tc.url, err, tc.wantErr)
		}
	}
	if _, err := ghapi.NewClient("", "", nil); err == nil || !strings.Contains(err.Error(), "token") {
		t.Errorf("empty token: %v", err)
	}
}

// TestNewClientKeepsTheCallersHTTPClient: the caller's client is copied,
// not changed, and its transport is the one that sends.
func TestNewClientKeepsTheCallersHTTPClient(t *testing.T) {
	s := ghfake.New(t)
	s.SetPermission("octo/demo", "alice", "read")
	var sent int
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent++
		return http.DefaultTransport.RoundTrip(r)
	})
	hc := &http.Client{Transport: base}
	c, err := ghapi.NewClient(s.URL, ghfake.Token, hc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Permission(context.Background(), repo, "alice"); err != nil {
		t.Fatal(err)
	}
	if sent != 1 || hc.Transport == nil {
		t.Errorf("sent %d through the caller's transport", sent)
	}
	if _, ok := hc.Transport.(roundTripFunc); !ok {
		t.Errorf("the caller's http.Client was changed: %T", hc.Transport)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestParseRepo(t *testing.T) {
	for in, ok := range map[string]bool{"octo/demo": true, "octo": false, "/demo": false, "octo/": false, "a/b/c": false} {
		r, err := ghapi.ParseRepo(in)
		if (err == nil) != ok || (ok && r.String() != in) {
			t.Errorf("%q: %v %v", in, r, err)
		}
	}
}

func TestComments(t *testing.T) {
	s := ghfake.New(t)
	c, _ := newClient(t, s)
	ctx := context.Background()
	cm, err := c.CreateComment(ctx, repo, 7, "swarm-gate recorded the override")
	if err != nil || cm.ID == 0 || cm.Author != ghfake.Login || cm.HTMLURL == "" {
		t.Fatalf("create: %v %+v", err, cm)
	}
	up, err := c.UpdateComment(ctx, repo, cm.ID, "edited")
	if err != nil || up.Body != "edited" {
		t.Errorf("update: %v %+v", err, up)
	}
	if got := s.Comments("octo/demo", 7); len(got) != 1 || got[0].Body != "edited" {
		t.Errorf("stored %+v", got)
	}
	if _, err := c.CreateComment(ctx, repo, 7, strings.Repeat("é", ghapi.MaxCommentRunes+1)); err == nil || !strings.Contains(err.Error(), "at most 65536") {
		t.Errorf("long body: %v", err)
	}
	n := len(s.Calls())
	// A 502 on a comment: not resent (it may have been posted).
	s.Fail(ghfake.Fault{Operation: "issues/create-comment", Status: http.StatusBadGateway, AfterApplying: true})
	if _, err := c.CreateComment(ctx, repo, 7, "again"); err == nil {
		t.Error("the 502 was hidden")
	}
	if len(s.Calls()) != n+1 || len(s.Comments("octo/demo", 7)) != 2 {
		t.Errorf("%d calls, %d comments: the POST was resent", len(s.Calls())-n, len(s.Comments("octo/demo", 7)))
	}
}

func TestReactions(t *testing.T) {
	s := ghfake.New(t)
	c, _ := newClient(t, s)
	ctx := context.Background()
	id := s.AddComment("octo/demo", 7, "alice", "/swarm approve-plan-critic ok")
	// A reaction is repeatable, so a 502 on it is retried.
	s.Fail(ghfake.Fault{Operation: "reactions/create-for-issue-comment", Status: http.StatusBadGateway, AfterApplying: true})
	for range 2 {
		if err := c.AddReaction(ctx, repo, id, "+1"); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Comments("octo/demo", 7)[0].Reactions; len(got) != 1 || got[0] != ghfake.Login+":+1" {
		t.Errorf("reactions %v", got)
	}
	if err := c.AddReaction(ctx, repo, 999, "eyes"); err == nil {
		t.Error("reaction on a missing comment succeeded")
	}
}

// TestPermissionFailsClosed: any error or unknown value is "none".
func TestPermissionFailsClosed(t *testing.T) {
	cases := []struct {
		name    string
		stored  string // "" = the user is not found
		fault   int
		want    ghapi.Permission
		wantErr bool
	}{
		{"admin", "admin", 0, ghapi.PermissionAdmin, false},
		{"write", "write", 0, ghapi.PermissionWrite, false},
		{"read", "read", 0, ghapi.PermissionRead, false},
		{"none", "none", 0, ghapi.PermissionNone, false},
		{"unknown value", "maintain-ish", 0, ghapi.PermissionNone, false},
		{"not found", "", 0, ghapi.PermissionNone, true},
		{"forbidden", "admin", http.StatusForbidden, ghapi.PermissionNone, true},
		{"server down", "admin", http.StatusServiceUnavailable, ghapi.PermissionNone, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ghfake.New(t)
			c, _ := newClient(t, s)
			if tc.stored != "" {
				s.SetPermission("octo/demo", "alice", tc.stored)
			}
			if tc.fault != 0 {
				s.Fail(ghfake.Fault{Status: tc.fault, Times: -1})
			}
			p, err := c.Permission(context.Background(), repo, "alice")
			if p != tc.want || (err != nil) != tc.wantErr {
				t.Errorf("got %q, %v; want %q, error %v", p, err, tc.want, tc.wantErr)
			}
		})
	}
	if !ghapi.PermissionAdmin.AtLeast(ghapi.PermissionWrite) || ghapi.PermissionRead.AtLeast(ghapi.PermissionWrite) ||
		ghapi.Permission("bogus").AtLeast(ghapi.PermissionNone) || !ghapi.PermissionWrite.AtLeast(ghapi.PermissionWrite) {
		t.Error("AtLeast")
	}
}

func TestPullRequest(t *testing.T) {
	s := ghfake.New(t)
	s.AddPullRequest("octo/demo", ghfake.PullRequest{Number: 12, Title: "phase 2", User: "alice", HeadRepo: "alice/demo",
		HeadRef: "swarm/phase-2", HeadSHA: headSHA, BaseRef: "main", BaseSHA: strings.Repeat("a", 40), Labels: []string{"swarm:phase-2"}})
	c, _ := newClient(t, s)
	pr, err := c.PullRequest(context.Background(), repo, 12)
	if err != nil {
		t.Fatal(err)
	}
	want := ghapi.PullRequest{Number: 12, Title: "phase 2", State: "open", Author: "alice", HTMLURL: s.WebURL + "/octo/demo/pull/12",
		HeadRepo: "alice/demo", HeadRef: "swarm/phase-2", HeadSHA: headSHA, BaseRef: "main", BaseSHA: strings.Repeat("a", 40), Labels: []string{"swarm:phase-2"}}
	if !reflect.DeepEqual(*pr, want) {
		t.Errorf("got  %+v\nwant %+v", *pr, want)
	}
	if _, err := c.PullRequest(context.Background(), repo, 13); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing pull request: %v", err)
	}
}
