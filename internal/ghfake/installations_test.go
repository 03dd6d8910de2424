package ghfake_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
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

// TestConditionalRequests: a GET answer carries an ETag, and the same GET
// with If-None-Match of it is answered 304 without a body, as GitHub's
// conditional requests are.
func TestConditionalRequests(t *testing.T) {
	s := ghfake.New(t)
	s.AddCheckRun("octo/a", ghfake.CheckRun{Name: "swarm-gate", HeadSHA: strings.Repeat("a", 40)})
	get := func(etag string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"repos/octo/a/commits/"+strings.Repeat("a", 40)+"/check-runs", nil)
		req.Header.Set("Authorization", "Bearer "+ghfake.Token)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		resp.ContentLength = int64(len(b))
		return resp
	}
	first := get("")
	etag := first.Header.Get("ETag")
	if first.StatusCode != http.StatusOK || etag == "" || first.ContentLength == 0 {
		t.Fatalf("first GET: %d, ETag %q, %d bytes; want 200 with an ETag", first.StatusCode, etag, first.ContentLength)
	}
	for _, tc := range []struct {
		etag string
		want int
	}{{etag, http.StatusNotModified}, {`"other"`, http.StatusOK}} {
		if r := get(tc.etag); r.StatusCode != tc.want || (tc.want == http.StatusNotModified && r.ContentLength != 0) {
			t.Errorf("If-None-Match %s: %d with %d bytes, want %d", tc.etag, r.StatusCode, r.ContentLength, tc.want)
		}
	}
	s.AddCheckRun("octo/a", ghfake.CheckRun{Name: "swarm/scope", HeadSHA: strings.Repeat("a", 40)})
	if r := get(etag); r.StatusCode != http.StatusOK {
		t.Errorf("after a change, If-None-Match of the old answer: %d, want 200", r.StatusCode)
	}
}
