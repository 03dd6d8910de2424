package ghapi_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// gitRepo builds a repository with branch main (one commit) and branch
// feature (a second commit on it) and returns its directory and the two
// commit SHAs.
func gitRepo(t *testing.T) (dir, first, second string) {
	t.Helper()
	dir = t.TempDir()
	g, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName("main"))); err != nil {
		t.Fatal(err)
	}
	wt, _ := g.Worktree()
	commit := func(files map[string]string, msg string) string {
		for p, c := range files {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := wt.Add(p); err != nil {
				t.Fatal(err)
			}
		}
		sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)}
		h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
		if err != nil {
			t.Fatal(err)
		}
		return h.String()
	}
	first = commit(map[string]string{"README.md": "hi\n", ".swarm/plan-ledger.jsonl": "{\"seq\":1}\n", "src/a.go": "package a\n"}, "first")
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("feature"), Create: true}); err != nil {
		t.Fatal(err)
	}
	second = commit(map[string]string{"src/b.go": "package b\n"}, "second")
	return dir, first, second
}

// TestGitDataCommitToBranch writes a commit the way the durable approval
// record does (blobs, a tree on the head's tree, a commit, a fast-forward)
// and reads it back from the fake's object database.
func TestGitDataCommitToBranch(t *testing.T) {
	s := ghfake.New(t)
	dir, first, second := gitRepo(t)
	s.ImportGit(repo.String(), dir)
	c, _ := newClient(t, s)
	ctx := context.Background()

	head, err := c.BranchHead(ctx, repo, "feature")
	if err != nil || head != second {
		t.Fatalf("BranchHead: %s, %v; want %s", head, err, second)
	}
	if p, err := c.BranchProtected(ctx, repo, "feature"); err != nil || p {
		t.Fatalf("BranchProtected: %v, %v", p, err)
	}
	hc, err := c.GitCommit(ctx, repo, head)
	if err != nil || len(hc.Parents) != 1 || hc.Parents[0] != first || hc.Message != "second" || hc.Author.String() != "t <t@example.com>" || !hc.Author.Date.Equal(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("GitCommit: %+v, %v", hc, err)
	}
	data, ok, err := c.FileAt(ctx, repo, ".swarm/plan-ledger.jsonl", head)
	if err != nil || !ok || string(data) != "{\"seq\":1}\n" {
		t.Fatalf("FileAt: %q %v %v", data, ok, err)
	}
	if _, ok, err := c.FileAt(ctx, repo, ".swarm/events.jsonl", head); ok || err != nil {
		t.Fatalf("FileAt of a missing file: %v %v", ok, err)
	}

	ledger := []byte("{\"seq\":1}\n{\"seq\":2,\"é\":\"\u2028\"}\n")
	events := []byte("{\"type\":\"x\"}\r\n")
	lb, err := c.CreateBlob(ctx, repo, ledger)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := c.CreateBlob(ctx, repo, events)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := c.CreateTree(ctx, repo, hc.TreeSHA, []ghapi.TreeFile{{Path: ".swarm/plan-ledger.jsonl", BlobSHA: lb}, {Path: ".swarm/events.jsonl", BlobSHA: eb}})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := c.CreateCommit(ctx, repo, "swarm-gate: plan-critic approval by @maint\n\nReason: r", tree, head)
	if err != nil || nc.TreeSHA != tree || len(nc.Parents) != 1 || nc.Parents[0] != head {
		t.Fatalf("CreateCommit: %+v %v", nc, err)
	}
	if err := c.UpdateBranch(ctx, repo, "feature", nc.SHA); err != nil {
		t.Fatal(err)
	}
	if got := s.Branch(repo.String(), "feature"); got != nc.SHA {
		t.Fatalf("branch at %s, want %s", got, nc.SHA)
	}
	if got, _ := s.GitFile(repo.String(), "feature", ".swarm/plan-ledger.jsonl"); got != string(ledger) {
		t.Errorf("ledger bytes changed: %q", got)
	}
	if got, _ := s.GitFile(repo.String(), nc.SHA, ".swarm/events.jsonl"); got != string(events) {
		t.Errorf("events bytes changed: %q", got)
	}
	if got := s.ChangedFiles(repo.String(), head, nc.SHA); strings.Join(got, " ") != ".swarm/events.jsonl .swarm/plan-ledger.jsonl" {
		t.Errorf("the commit changed %v", got)
	}
	if data, ok, err := c.FileAt(ctx, repo, "src/b.go", nc.SHA); err != nil || !ok || string(data) != "package b\n" {
		t.Errorf("a file the commit did not touch: %q %v %v", data, ok, err)
	}

	// Moving the branch back to first is not a fast-forward.
	err = c.UpdateBranch(ctx, repo, "feature", first)
	if !errors.Is(err, ghapi.ErrNotFastForward) {
		t.Errorf("moving back: %v, want ErrNotFastForward", err)
	}
	if got := s.Branch(repo.String(), "feature"); got != nc.SHA {
		t.Errorf("a refused update moved the branch to %s", got)
	}
}

// TestGitDataRefusals: a protected branch, a forbidden push and a missing
// branch are errors that are not ErrNotFastForward and that name the call.
func TestGitDataRefusals(t *testing.T) {
	s := ghfake.New(t)
	dir, _, second := gitRepo(t)
	s.ImportGit(repo.String(), dir)
	s.ProtectBranch(repo.String(), "main")
	c, _ := newClient(t, s)
	ctx := context.Background()
	if p, err := c.BranchProtected(ctx, repo, "main"); err != nil || !p {
		t.Fatalf("BranchProtected(main): %v %v", p, err)
	}
	err := c.UpdateBranch(ctx, repo, "main", second)
	if err == nil || errors.Is(err, ghapi.ErrNotFastForward) || ghapi.StatusCode(err) != http.StatusUnprocessableEntity || !strings.Contains(err.Error(), "Protected branch update failed") {
		t.Errorf("protected: %v", err)
	}
	s.Fail(ghfake.Fault{Operation: "git/update-ref", Status: http.StatusForbidden, Body: `{"message":"Resource not accessible by integration"}`})
	err = c.UpdateBranch(ctx, repo, "feature", second)
	if ghapi.StatusCode(err) != http.StatusForbidden || !strings.Contains(err.Error(), "moving branch feature of octo/demo") {
		t.Errorf("forbidden: %v", err)
	}
	if _, err := c.BranchHead(ctx, repo, "nope"); !ghapi.IsNotFound(err) || !strings.Contains(err.Error(), "reading branch nope of octo/demo") {
		t.Errorf("missing branch: %v", err)
	}
}

// TestTeamMembership: active, pending and absent memberships from the
// fake's unvalidated extra route, and an API failure as an error.
func TestTeamMembership(t *testing.T) {
	s := ghfake.New(t)
	s.SetTeamMember("octo/core", "alice", "active")
	s.SetTeamMember("octo/core", "bob", "pending")
	c, _ := newClient(t, s)
	ctx := context.Background()
	for user, want := range map[string]string{"alice": ghapi.MembershipActive, "bob": ghapi.MembershipPending, "carol": ghapi.MembershipNone} {
		got, err := c.TeamMembership(ctx, "octo", "core", user)
		if err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", user, got, err, want)
		}
	}
	s.Fail(ghfake.Fault{Operation: "teams/get-membership-for-user-in-org", Status: http.StatusForbidden, Body: `{"message":"Resource not accessible by integration"}`})
	if _, err := c.TeamMembership(ctx, "octo", "core", "alice"); err == nil || !strings.Contains(err.Error(), "reading alice's membership of team octo/core") {
		t.Errorf("forbidden: %v", err)
	}
	if n := len(s.CallsTo("teams/get-membership-for-user-in-org")); n != 4 {
		t.Errorf("%d membership calls recorded, want 4", n)
	}
}

// TestCheckRunsOnRef lists the latest run per name on a commit.
func TestCheckRunsOnRef(t *testing.T) {
	s := ghfake.New(t)
	c, _ := newClient(t, s)
	ctx := context.Background()
	sha := strings.Repeat("a", 40)
	runs, err := c.StartChecks(ctx, repo, sha, []string{"swarm-gate", "swarm/plan-freeze"}, "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Complete(ctx, runs[1], report.CheckOutput(gates.Result{Name: "swarm/plan-freeze", Outcome: gates.Failed, Title: "t", Summary: "s"}, "")); err != nil {
		t.Fatal(err)
	}
	// Another App's runs of the same names, newer than ours (issue 20).
	s.AddCheckRun(repo.String(), ghfake.CheckRun{Name: "swarm-gate", HeadSHA: sha, Conclusion: "success", AppID: 77, AppSlug: "impostor"})
	s.AddCheckRun(repo.String(), ghfake.CheckRun{Name: "swarm/scope", HeadSHA: sha, Conclusion: "success", AppID: 77, AppSlug: "impostor"})
	for _, app := range []ghapi.App{{Slug: ghfake.TokenAppSlug}, {ID: ghfake.TokenAppID}, {ID: ghfake.TokenAppID, Slug: "impostor"}} {
		got, err := c.CheckRunsOnRef(ctx, repo, sha, app)
		if err != nil || len(got) != 2 || got[0].Name != "swarm-gate" || got[0].Status != "in_progress" || got[1].Conclusion != "failure" || got[0].App.ID != ghfake.TokenAppID {
			t.Fatalf("%+v: %+v %v", app, got, err)
		}
	}
	if got, err := c.CheckRunsOnRef(ctx, repo, sha, ghapi.App{Slug: "impostor"}); err != nil || len(got) != 2 || got[1].Name != "swarm/scope" || got[0].Conclusion != "success" {
		t.Fatalf("the other App's runs: %+v %v", got, err)
	}
	if got, err := c.CheckRunsOnRef(ctx, repo, sha, ghapi.App{}); err != nil || len(got) != 0 {
		t.Fatalf("no App: %+v %v", got, err)
	}
}
