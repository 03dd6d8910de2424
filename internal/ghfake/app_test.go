package ghfake_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/object"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
	jwt "github.com/golang-jwt/jwt/v4"
	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

var testKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

func appJWT(t *testing.T, key *rsa.PrivateKey, method jwt.SigningMethod, iss string, iat, exp time.Time) string {
	t.Helper()
	claims := jwt.RegisteredClaims{Issuer: iss, IssuedAt: jwt.NewNumericDate(iat), ExpiresAt: jwt.NewNumericDate(exp)}
	var signKey any = key
	if method == jwt.SigningMethodHS256 {
		signKey = []byte("shared")
	}
	s, err := jwt.NewWithClaims(method, claims).SignedString(signKey)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestInstallationTokens: POST /app/installations/{id}/access_tokens
// takes only a valid App JWT (RS256 with the registered key, iss the App
// id, not expired, at most ten minutes long) and mints a token the API
// then accepts, until it expires.
func TestInstallationTokens(t *testing.T) {
	s := ghfake.New(t)
	s.RegisterApp(12, "gate", &testKey().PublicKey)
	s.AddInstallation(12, 99)
	other, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	cases := []struct {
		name         string
		jwt          string
		installation int64
		want         int
	}{
		{"valid", appJWT(t, testKey(), jwt.SigningMethodRS256, "12", now.Add(-30*time.Second), now.Add(2*time.Minute)), 99, http.StatusCreated},
		{"expired", appJWT(t, testKey(), jwt.SigningMethodRS256, "12", now.Add(-20*time.Minute), now.Add(-11*time.Minute)), 99, http.StatusUnauthorized},
		{"another key", appJWT(t, other, jwt.SigningMethodRS256, "12", now, now.Add(time.Minute)), 99, http.StatusUnauthorized},
		{"unknown App", appJWT(t, testKey(), jwt.SigningMethodRS256, "13", now, now.Add(time.Minute)), 99, http.StatusUnauthorized},
		{"HS256", appJWT(t, testKey(), jwt.SigningMethodHS256, "12", now, now.Add(time.Minute)), 99, http.StatusUnauthorized},
		{"longer than ten minutes", appJWT(t, testKey(), jwt.SigningMethodRS256, "12", now, now.Add(11*time.Minute)), 99, http.StatusUnauthorized},
		{"another installation", appJWT(t, testKey(), jwt.SigningMethodRS256, "12", now, now.Add(time.Minute)), 98, http.StatusNotFound},
		{"a token, not a JWT", ghfake.Token, 99, http.StatusUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gh, err := github.NewClient(nil).WithAuthToken(tc.jwt).WithEnterpriseURLs(s.URL, s.URL)
			if err != nil {
				t.Fatal(err)
			}
			tok, resp, err := gh.Apps.CreateInstallationToken(context.Background(), tc.installation, &github.InstallationTokenOptions{})
			if resp == nil || resp.StatusCode != tc.want {
				t.Fatalf("status %v (%v), want %d", resp, err, tc.want)
			}
			if tc.want != http.StatusCreated {
				return
			}
			api, _ := github.NewClient(nil).WithAuthToken(tok.GetToken()).WithEnterpriseURLs(s.URL, s.URL)
			if _, _, err := api.Checks.ListCheckRunsForRef(context.Background(), "o", "r", "main", nil); err != nil {
				t.Errorf("the minted token is refused: %v", err)
			}
			minted := s.InstallationTokens()
			if len(minted) != 1 || minted[0].Token != tok.GetToken() || minted[0].AppID != 12 || minted[0].InstallationID != 99 {
				t.Errorf("InstallationTokens() = %+v", minted)
			}
			app, _, err := gh.Apps.Get(context.Background(), "")
			if err != nil || app.GetSlug() != "gate" || app.GetID() != 12 {
				t.Errorf("GET /app: %v %v", app, err)
			}
		})
	}
	t.Run("expired token", func(t *testing.T) {
		s.SetTokenTTL(-time.Second)
		gh, _ := github.NewClient(nil).WithAuthToken(appJWT(t, testKey(), jwt.SigningMethodRS256, strconv.Itoa(12), now, now.Add(time.Minute))).WithEnterpriseURLs(s.URL, s.URL)
		tok, _, err := gh.Apps.CreateInstallationToken(context.Background(), 99, &github.InstallationTokenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		api, _ := github.NewClient(nil).WithAuthToken(tok.GetToken()).WithEnterpriseURLs(s.URL, s.URL)
		_, resp, err := api.Checks.ListCheckRunsForRef(context.Background(), "o", "r", "main", nil)
		if resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("an expired token was accepted: %v %v", resp, err)
		}
	})
}

// TestGitHosting: the fake serves a test's repository over git's smart
// HTTP protocol to clients with a valid token as basic-auth password, and
// refuses others and pushes.
func TestGitHosting(t *testing.T) {
	s := ghfake.New(t)
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	if _, err := wt.Commit("one", &git.CommitOptions{AllowEmptyCommits: true, Author: &objectSig}); err != nil {
		t.Fatal(err)
	}
	s.ServeGit("o/r", dir)
	remote := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{s.WebURL + "/o/r.git"}})
	cases := []struct {
		name string
		auth *githttp.BasicAuth
		want error
	}{
		{"token", &githttp.BasicAuth{Username: "x-access-token", Password: ghfake.Token}, nil},
		{"no credentials", nil, errAuth},
		{"wrong token", &githttp.BasicAuth{Username: "x-access-token", Password: "nope"}, errAuth},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := &git.ListOptions{}
			if tc.auth != nil {
				opts.Auth = tc.auth
			}
			refs, err := remote.List(opts)
			if tc.want == nil {
				if err != nil || len(refs) == 0 {
					t.Fatalf("listing refs: %v %v", refs, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("listing refs without valid credentials worked")
			}
		})
	}
	var got []ghfake.GitRequest
	for _, g := range s.GitRequests() {
		got = append(got, ghfake.GitRequest{Repo: g.Repo, Path: g.Path, Status: g.Status})
	}
	if len(got) != 3 || got[0].Status != http.StatusOK || got[1].Status != http.StatusUnauthorized || got[2].Status != http.StatusUnauthorized {
		t.Errorf("GitRequests() = %+v", got)
	}
	req, _ := http.NewRequest(http.MethodPost, s.WebURL+"/o/r.git/git-receive-pack", nil)
	req.SetBasicAuth("x-access-token", ghfake.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a push answered %d, want 403", resp.StatusCode)
	}
}

var errAuth = errors.New("authentication required")

var objectSig = object.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}

// TestCheckRunApp: a check run carries the App that created it (the
// installation token's App, or TokenApp for Token), and list-for-ref's
// app_id keeps only that App's runs.
func TestCheckRunApp(t *testing.T) {
	s := ghfake.New(t)
	s.RegisterApp(12, "gate", &testKey().PublicKey)
	s.AddInstallation(12, 99)
	now := time.Now()
	appClient, _ := github.NewClient(nil).WithAuthToken(appJWT(t, testKey(), jwt.SigningMethodRS256, "12", now, now.Add(time.Minute))).WithEnterpriseURLs(s.URL, s.URL)
	tok, _, err := appClient.Apps.CreateInstallationToken(context.Background(), 99, &github.InstallationTokenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sha := "0123456789abcdef0123456789abcdef01234567"
	create := func(token string) *github.CheckRun {
		gh, _ := github.NewClient(nil).WithAuthToken(token).WithEnterpriseURLs(s.URL, s.URL)
		cr, _, err := gh.Checks.CreateCheckRun(ctx, "o", "r", github.CreateCheckRunOptions{Name: "swarm-gate", HeadSHA: sha, Status: github.String("in_progress")})
		if err != nil {
			t.Fatal(err)
		}
		return cr
	}
	if cr := create(tok.GetToken()); cr.GetApp().GetID() != 12 || cr.GetApp().GetSlug() != "gate" {
		t.Errorf("a run created with the installation token has app %d %q, want 12 gate", cr.GetApp().GetID(), cr.GetApp().GetSlug())
	}
	if cr := create(ghfake.Token); cr.GetApp().GetID() != ghfake.TokenAppID || cr.GetApp().GetSlug() != ghfake.TokenAppSlug {
		t.Errorf("a run created with Token has app %d %q", cr.GetApp().GetID(), cr.GetApp().GetSlug())
	}
	s.AddCheckRun("o/r", ghfake.CheckRun{Name: "swarm-gate", HeadSHA: sha, AppID: 77, AppSlug: "impostor"})
	gh, _ := github.NewClient(nil).WithAuthToken(ghfake.Token).WithEnterpriseURLs(s.URL, s.URL)
	for _, tc := range []struct {
		app  int64
		want []int64
	}{{12, []int64{12}}, {77, []int64{77}}, {0, []int64{77}}} {
		opts := &github.ListCheckRunsOptions{Filter: github.String("all")}
		if tc.app != 0 {
			opts.AppID = github.Int64(tc.app)
		} else {
			opts.Filter = github.String("latest") // the newest of the name: the impostor's
		}
		list, _, err := gh.Checks.ListCheckRunsForRef(ctx, "o", "r", sha, opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, r := range list.CheckRuns {
			got = append(got, r.GetApp().GetID())
		}
		if len(got) != len(tc.want) || got[0] != tc.want[0] {
			t.Errorf("app_id %d: runs of apps %v, want %v", tc.app, got, tc.want)
		}
	}
	if runs := s.CheckRuns("o/r"); len(runs) != 3 || runs[0].AppID != 12 || runs[1].AppID != ghfake.TokenAppID || runs[2].AppSlug != "impostor" {
		t.Errorf("stored runs: %+v", runs)
	}
}
