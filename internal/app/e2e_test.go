package app_test

import (
	"context"
	"fmt"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestPullRequestSynchronize: a signed pull_request synchronize delivery
// for the demo's phase pull request, through the webhook server, gets the
// same check runs as the Action gives it, with the installation token
// minted through the fake with the App's JWT and the commits fetched over
// git's smart HTTP protocol with it.
func TestPullRequestSynchronize(t *testing.T) {
	h := newHarness(t)
	a := h.newApp(nil)
	if _, err := a.Identify(context.Background()); err != nil { // serve does this at start-up: GET /app
		t.Fatal(err)
	}
	startup := len(h.fake.Calls())
	srv := h.newServer(a, "server")
	if code := h.deliver(srv.URL, "pull_request", "d-sync-1", h.synchronize(nil)); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d, want 202", code)
	}
	srv.drain(t)

	if got, want := h.runs(), demoRuns(h.head); !reflect.DeepEqual(got, want) {
		t.Errorf("check runs:\n got %v\nwant %v", got, want)
	}
	if agg := h.storedRun("swarm-gate"); agg.Title != "3 of 8 checks failed: swarm/scope, swarm/placeholders, swarm/evidence" ||
		!strings.Contains(agg.Summary, "Phase 1 (from branch)") {
		t.Errorf("aggregate: %q\n%s", agg.Title, agg.Summary)
	}
	tokens := h.fake.InstallationTokens()
	if len(tokens) != 1 || tokens[0].AppID != appID || tokens[0].InstallationID != installationID || time.Until(tokens[0].ExpiresAt) < 50*time.Minute {
		t.Errorf("installation tokens minted: %+v, want one for installation %d of App %d", tokens, installationID, appID)
	}
	for _, c := range h.fake.CallsTo("apps/create-installation-access-token") {
		if c.Status != http.StatusCreated || !strings.HasPrefix(c.Header.Get("Authorization"), "Bearer ") {
			t.Errorf("access token request: status %d, authorization scheme %q", c.Status, strings.Fields(c.Header.Get("Authorization") + " ")[0])
		}
	}
	var fetched bool
	for _, g := range h.fake.GitRequests() {
		if g.User != "x-access-token" || g.Status != http.StatusOK {
			t.Errorf("git request %+v: want user x-access-token, 200", g)
		}
		fetched = fetched || g.Path == "/git-upload-pack"
	}
	if !fetched {
		t.Errorf("no git-upload-pack request: the commits were not fetched (%v)", h.fake.GitRequests())
	}
	// The aggregate is created in progress, the gates' runs completed.
	for _, c := range h.fake.CallsTo("checks/create") {
		want := "completed"
		if c.Get("name") == "swarm-gate" {
			want = "in_progress"
		}
		if c.Get("status") != want {
			t.Errorf("created %v as %v, want %s", c.Get("name"), c.Get("status"), want)
		}
	}
	byOp, total := h.restCalls()
	byOp["apps/get-authenticated"] -= startup
	total -= startup
	t.Logf("REST calls of the evaluation: %d %v", total, byOp)
	// One of them creates the summary comment (issue 23), one reads the
	// owner's policy (the base branch has none), one lists the head
	// commit's pull requests (evaluate/twins.go).
	if total >= 18 || byOp["issues/create-comment"] != 1 {
		t.Errorf("%d REST calls for one evaluation, want fewer than 18 with one summary comment created: %v", total, byOp)
	}
	logs := h.logs.String()
	for _, tok := range tokens {
		if strings.Contains(logs, tok.Token) {
			t.Errorf("the installation token is in the logs")
		}
	}
	if !strings.Contains(logs, `"msg":"evaluation finished"`) || !strings.Contains(logs, `"api_calls":`) {
		t.Errorf("no evaluation record with the API calls in the logs")
	}
}

// TestFetchFailureFailsTheChecks: when the commits cannot be fetched, every
// check run is completed as failure saying swarm-gate could not evaluate
// and why; none passes, none is left in progress.
func TestFetchFailureFailsTheChecks(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(h *harness, p map[string]any)
		wantWhy string
	}{
		{"repository not served", func(h *harness, p map[string]any) {
			sharedtest.SetPath(p, "repository.clone_url", h.fake.WebURL+"/Codertocat/gone.git")
		}, "could not fetch the commits"},
		{"head commit missing", func(h *harness, p map[string]any) {
			sharedtest.SetPath(p, "pull_request.head.sha", strings.Repeat("ab", 20))
		}, "could not fetch the commits"},
		{"clone URL on another host", func(h *harness, p map[string]any) {
			sharedtest.SetPath(p, "repository.clone_url", "https://elsewhere.example/Codertocat/Hello-World.git")
		}, "is not on"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			srv := h.newServer(h.newApp(nil), "server")
			body := h.synchronize(func(p map[string]any) { tc.edit(h, p) })
			if code := h.deliver(srv.URL, "pull_request", "d-fail", body); code != http.StatusAccepted {
				t.Fatalf("delivery answered %d", code)
			}
			srv.drain(t)
			runs := h.fake.CheckRuns(testRepo)
			if len(runs) != 9 {
				t.Fatalf("%d check runs, want 9 (the aggregate and 8 gates)", len(runs))
			}
			for _, cr := range runs {
				if cr.Status != "completed" || cr.Conclusion != "failure" || !strings.HasPrefix(cr.Title, "could not evaluate") ||
					!strings.Contains(cr.Summary, tc.wantWhy) {
					t.Errorf("%s: %s/%s %q, want completed/failure, could not evaluate, saying %q:\n%s", cr.Name, cr.Status, cr.Conclusion, cr.Title, tc.wantWhy, cr.Summary)
				}
			}
		})
	}
}

// TestAPIFaultsRecover: GitHub's 502s and rate limits, injected into the
// fake, are waited out and resent where that is safe; the evaluation ends
// with the same check runs, none duplicated, none in progress.
func TestAPIFaultsRecover(t *testing.T) {
	cases := []struct {
		name  string
		fault ghfake.Fault
	}{
		{"502 minting the installation token", ghfake.Fault{Operation: "apps/create-installation-access-token", Status: http.StatusBadGateway}},
		{"502 listing the commit's check runs", ghfake.Fault{Operation: "checks/list-for-ref", Status: http.StatusBadGateway}},
		{"502 on a create GitHub applied", ghfake.Fault{Operation: "checks/create", Nth: 3, Status: http.StatusBadGateway, AfterApplying: true}},
		{"502 on a create GitHub did not apply", ghfake.Fault{Operation: "checks/create", Nth: 4, Status: http.StatusBadGateway}},
		{"503 on the aggregate's update", ghfake.Fault{Operation: "checks/update", Status: http.StatusServiceUnavailable}},
		{"secondary rate limit on a create", withOp(ghfake.SecondaryRateLimit(1), "checks/create", 2)},
		{"secondary rate limit without Retry-After", withOp(ghfake.SecondaryRateLimit(-1), "checks/create", 5)},
		{"429 reading the override comments", withOp(ghfake.TooManyRequests(2), "issues/list-comments", 1)},
		{"primary rate limit used up", withOp(ghfake.PrimaryRateLimit(time.Now().Add(time.Minute)), "checks/create", 6)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.fake.Fail(tc.fault)
			srv := h.newServer(h.newApp(nil), "server")
			if code := h.deliver(srv.URL, "pull_request", "d-fault", h.synchronize(nil)); code != http.StatusAccepted {
				t.Fatalf("delivery answered %d", code)
			}
			srv.drain(t)
			if got, want := h.runs(), demoRuns(h.head); !reflect.DeepEqual(got, want) {
				t.Errorf("check runs:\n got %v\nwant %v", got, want)
			}
			var failed int
			for _, c := range h.fake.Calls() {
				if c.Status >= 400 {
					failed++
				}
			}
			if failed == 0 {
				t.Errorf("the fault was never hit: %v", h.fake.Calls())
			}
		})
	}
}

func withOp(f ghfake.Fault, op string, nth int) ghfake.Fault {
	f.Operation, f.Nth = op, nth
	return f
}

// TestShutdownMidEvaluation: a shutdown whose deadline passes while an
// evaluation waits on GitHub cancels it, and every check run of the
// evaluation ends completed as failure, none in progress.
func TestShutdownMidEvaluation(t *testing.T) {
	h := newHarness(t)
	h.fake.Fail(ghfake.Fault{Operation: "issues/list-comments", Latency: time.Minute})
	srv := h.newServer(h.newApp(nil), "server")
	if code := h.deliver(srv.URL, "pull_request", "d-shutdown", h.synchronize(nil)); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(h.fake.CallsTo("checks/create")) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the aggregate check run was never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the overrides request is on its way
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := srv.Shutdown(ctx); err == nil {
		t.Fatal("Shutdown returned nil: the evaluation finished before the deadline, so nothing was cancelled")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Shutdown took %s", d)
	}
	runs := h.fake.CheckRuns(testRepo)
	if len(runs) != 9 {
		t.Errorf("%d check runs, want 9: %v", len(runs), h.runs())
	}
	for _, cr := range runs {
		if cr.Status != "completed" || cr.Conclusion != "failure" {
			t.Errorf("%s: %s/%s %q, want completed/failure", cr.Name, cr.Status, cr.Conclusion, cr.Title)
		}
	}
	if agg := h.storedRun("swarm-gate"); !strings.Contains(agg.Summary, "cancelled") {
		t.Errorf("the aggregate does not say the job was cancelled: %q\n%s", agg.Title, agg.Summary)
	}
}

// TestPullRequestOverThreeThousandFiles: a pull request changing 3,001
// files (more than the pull request files API lists) is judged from its
// commits: every file outside the phase's scope is a finding.
func TestPullRequestOverThreeThousandFiles(t *testing.T) {
	h := newHarness(t)
	const n = 3001
	for i := range n {
		p := filepath.Join(h.dir, "bulk", fmt.Sprintf("f%04d.txt", i))
		if i == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.head = gitCommitAll(t, h.dir, demo.HeadBranch, "3,001 files")
	srv := h.newServer(h.newApp(nil), "server")
	if code := h.deliver(srv.URL, "pull_request", "d-big", h.synchronize(nil)); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	srv.drain(t)
	// Every file is counted (n and the demo's own out-of-scope file), the
	// first 1,000 shown and one finding counting the rest (swarm/scope's
	// cap on its findings).
	scope := h.storedRun("swarm/scope")
	title := fmt.Sprintf("%d changed files outside the scope", n+1)
	if scope.Status != "completed" || scope.Conclusion != "failure" || !strings.Contains(scope.Title, title) || len(scope.Annotations) != 1001 {
		t.Fatalf("swarm/scope: %s/%s %q with %d annotations, want failure, %q and 1,001 annotations", scope.Status, scope.Conclusion, scope.Title, len(scope.Annotations), title)
	}
	var counted bool
	for _, a := range scope.Annotations {
		counted = counted || strings.Contains(a.Message, "2002 changed files more not shown")
	}
	if !counted {
		t.Error("no annotation counts the 2,002 findings not shown")
	}
	for _, cr := range h.fake.CheckRuns(testRepo) {
		if cr.HeadSHA != h.head || cr.Status != "completed" || strings.HasPrefix(cr.Title, "could not evaluate") {
			t.Errorf("%s@%.7s: %s/%s %q", cr.Name, cr.HeadSHA, cr.Status, cr.Conclusion, cr.Title)
		}
	}
	if n := len(h.fake.CallsTo("pulls/list-files")); n != 0 {
		t.Errorf("%d pulls/list-files requests: the files come from the commits", n)
	}
}

// gitCommitAll commits everything in dir's working tree on branch with the
// git CLI (fast for thousands of files) and returns the commit's SHA.
func gitCommitAll(t *testing.T, dir, branch, msg string) string {
	t.Helper()
	gitRun(t, dir, "checkout", "-q", branch)
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", msg)
	return strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_DATE=2026-11-03T09:00:00Z", "GIT_COMMITTER_DATE=2026-11-03T09:00:00Z", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestOrgPolicy: a repository with no .github/swarm-gate.yml on its base
// branch gets the owner's policy (swarm-gate.yml in the owner's .github
// repository), and the report says which file applied; a broken one fails
// the checks closed, naming its line.
func TestOrgPolicy(t *testing.T) {
	for _, tt := range []struct {
		name, policy string
		planFreeze   string // the swarm/plan-freeze conclusion
		want         string // in the aggregate's summary
	}{
		{"none: the built-in defaults", "", "success", "built-in defaults (no .github/swarm-gate.yml on the base branch, and no swarm-gate.yml in the owner"},
		{"the owner's policy applies", "version: 1\nplan_freeze:\n  approval: human\n", "failure", "Codertocat/.github: swarm-gate.yml (the owner's policy: the base branch has no .github/swarm-gate.yml)"},
		{"a broken one fails closed", "version: 1\nplan_freeze:\n  approval: humans\n", "failure", "Codertocat/.github: swarm-gate.yml: line 3, column 13: plan\\_freeze.approval"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			if tt.policy != "" {
				h.fake.AddFile("Codertocat/.github", "", "swarm-gate.yml", tt.policy)
			}
			a := h.newApp(nil)
			srv := h.newServer(a, "server")
			if code := h.deliver(srv.URL, "pull_request", "d-org-1", h.synchronize(nil)); code != http.StatusAccepted {
				t.Fatalf("delivery answered %d, want 202", code)
			}
			srv.drain(t)
			if got := h.storedRun("swarm/plan-freeze").Conclusion; got != tt.planFreeze {
				t.Errorf("plan-freeze %s, want %s", got, tt.planFreeze)
			}
			if agg := h.storedRun("swarm-gate"); !strings.Contains(agg.Summary, tt.want) {
				t.Errorf("aggregate summary lacks %q:\n%s", tt.want, agg.Summary)
			}
			reads := 0
			for _, c := range h.fake.CallsTo("repos/get-content") {
				if strings.Contains(c.Path, "/repos/Codertocat/.github/contents/swarm-gate.yml") {
					reads++
				}
			}
			if reads != 1 {
				t.Errorf("%d reads of the owner's policy, want 1", reads)
			}
		})
	}
}
