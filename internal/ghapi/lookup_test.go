package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

func TestOpenPullRequests(t *testing.T) {
	s := ghfake.New(t)
	for i := 1; i <= 130; i++ {
		pr := ghfake.PullRequest{Number: i, Title: fmt.Sprintf("pr %d", i), User: "alice", HeadRef: fmt.Sprintf("b%d", i),
			HeadSHA: headSHA, BaseRef: "main", BaseSHA: strings.Repeat("a", 40)}
		switch i {
		case 7:
			pr.HeadRepo, pr.HeadRef = "fork-owner/demo", "swarm/phase-2"
		case 8:
			pr.State = "closed"
		}
		s.AddPullRequest("octo/demo", pr)
	}
	c, _ := newClient(t, s)
	ctx := context.Background()
	cases := []struct {
		name      string
		head      string
		wantCount int
		wantFirst int
	}{
		{"all open, over two pages", "", 129, 130},
		{"a fork's branch", "fork-owner:swarm/phase-2", 1, 7},
		{"the same branch name in the base repository", "octo:swarm/phase-2", 0, 0},
		{"a closed pull request", "octo:b8", 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prs, err := c.OpenPullRequests(ctx, repo, tc.head)
			if err != nil {
				t.Fatal(err)
			}
			if len(prs) != tc.wantCount {
				t.Fatalf("%d pull requests, want %d", len(prs), tc.wantCount)
			}
			if tc.wantCount > 0 && prs[0].Number != tc.wantFirst {
				t.Errorf("first is #%d, want #%d", prs[0].Number, tc.wantFirst)
			}
		})
	}
	prs, _ := c.OpenPullRequests(ctx, repo, "fork-owner:swarm/phase-2")
	if pr := prs[0]; pr.HeadRepo != "fork-owner/demo" || pr.HeadSHA != headSHA || pr.BaseSHA != strings.Repeat("a", 40) || pr.BaseRef != "main" {
		t.Errorf("pull request %+v", pr)
	}
}

func TestCheckRunAndIsForbidden(t *testing.T) {
	s := ghfake.New(t)
	id := s.AddCheckRun("octo/demo", ghfake.CheckRun{Name: "swarm-gate", HeadSHA: headSHA, Status: "in_progress", ExternalID: "k"})
	c, _ := newClient(t, s)
	ctx := context.Background()
	run, err := c.CheckRun(ctx, repo, id)
	if err != nil {
		t.Fatal(err)
	}
	if run.ID != id || run.Name != "swarm-gate" || !run.InProgress() || run.ExternalID != "k" || run.Repo != repo {
		t.Errorf("run %+v", run)
	}
	if _, err := c.CheckRun(ctx, repo, id+1); err == nil || ghapi.IsForbidden(err) {
		t.Errorf("missing run: %v", err)
	}

	s.Fail(ghfake.Fault{Operation: "checks/create", Status: http.StatusForbidden, Times: 1,
		Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/checks/runs#create-a-check-run"}`})
	_, err = c.StartChecks(ctx, repo, headSHA, []string{"swarm/scope"}, "k")
	if !ghapi.IsForbidden(err) {
		t.Errorf("read-only token: IsForbidden(%v) = false", err)
	}
	s.Fail(ghfake.SecondaryRateLimit(-1))
	c2, _ := newClient(t, s, ghapi.WithMaxAttempts(1))
	_, err = c2.CheckRun(ctx, repo, id)
	if err == nil || ghapi.IsForbidden(err) {
		t.Errorf("secondary rate limit: IsForbidden(%v) = true", err)
	}
	if ghapi.IsForbidden(errors.New("403")) || ghapi.IsForbidden(nil) {
		t.Error("IsForbidden of a plain error")
	}
}
