package ghfake_test

import (
	"context"
	"slices"
	"testing"
	"time"

	jwt "github.com/golang-jwt/jwt/v4"
	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestReconcilerOperations: GET /app/installations lists the App's own
// installations (App JWT), GET /installation/repositories the token's
// installation's repositories, both paginated, and GET /rate_limit the
// budget set for the token's installation; every answer is validated
// against GitHub's description by the fake itself.
func TestReconcilerOperations(t *testing.T) {
	s := ghfake.New(t)
	s.RegisterApp(12, "gate", &testKey().PublicKey)
	s.RegisterApp(13, "other", &testKey().PublicKey)
	for _, id := range []int64{99, 98, 97} {
		s.AddInstallation(12, id)
	}
	s.AddInstallation(13, 50)
	s.SetInstallationRepos(99, "octo/a", "octo/b", "octo/c")
	s.SetRateLimitRemaining(98, 7)
	ctx := context.Background()
	now := time.Now()
	gh, err := github.NewClient(nil).WithAuthToken(appJWT(t, testKey(), jwt.SigningMethodRS256, "12", now, now.Add(time.Minute))).WithEnterpriseURLs(s.URL, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	opts := &github.ListOptions{PerPage: 2}
	for {
		page, resp, err := gh.Apps.ListInstallations(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range page {
			ids = append(ids, in.GetID())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if want := []int64{97, 98, 99}; !slices.Equal(ids, want) {
		t.Errorf("installations %v, want %v (App 12's, by id)", ids, want)
	}

	token := func(id int64) *github.Client {
		tok, _, err := gh.Apps.CreateInstallationToken(ctx, id, &github.InstallationTokenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := github.NewClient(nil).WithAuthToken(tok.GetToken()).WithEnterpriseURLs(s.URL, s.URL)
		return c
	}
	inst := token(99)
	var repos []string
	ropts := &github.ListOptions{PerPage: 2}
	for {
		page, resp, err := inst.Apps.ListRepos(ctx, ropts)
		if err != nil {
			t.Fatal(err)
		}
		if page.GetTotalCount() != 3 {
			t.Errorf("total_count %d, want 3", page.GetTotalCount())
		}
		for _, r := range page.Repositories {
			repos = append(repos, r.GetFullName()+"@"+r.GetOwner().GetLogin())
		}
		if resp.NextPage == 0 {
			break
		}
		ropts.Page = resp.NextPage
	}
	if got, want := repos, []string{"octo/a@octo", "octo/b@octo", "octo/c@octo"}; !slices.Equal(got, want) {
		t.Errorf("repositories %v, want %v", got, want)
	}
	for _, tc := range []struct {
		id   int64
		want int
	}{{98, 7}} {
		rl, _, err := token(tc.id).RateLimit.Get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rl.GetCore().Remaining != tc.want {
			t.Errorf("installation %d: core remaining %d, want %d", tc.id, rl.GetCore().Remaining, tc.want)
		}
	}
	if rl, _, err := inst.RateLimit.Get(ctx); err != nil || rl.GetCore().Remaining <= 0 || rl.GetCore().Remaining > 5000 {
		t.Errorf("installation 99 (no budget set): %+v, %v; want the fake's default", rl.GetCore(), err)
	}
}
