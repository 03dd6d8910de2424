package evaluate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/fdtest"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
	"github.com/swarm-gate/swarm-gate/internal/source"
)

// The tests in this file evaluate the demo repository against the fake
// GitHub API with the options a front door sets in Deps and Checkout
// (the GitHub App sets them all; the Action none of them).

const testRepo = "Codertocat/Hello-World"

// door is an evaluation's surroundings: the demo repository as the
// checkout, the fake GitHub, and the Deps a front door would give.
type door struct {
	t          *testing.T
	fake       *ghfake.Server
	dir        string
	base, head string
	repo       ghapi.Repo
}

func newDoor(t *testing.T) *door {
	t.Helper()
	dir := t.TempDir()
	base, head, err := demo.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := &door{t: t, fake: ghfake.New(t), dir: dir, base: base, head: head, repo: ghapi.Repo{Owner: "Codertocat", Name: "Hello-World"}}
	d.fake.Pushed(testRepo, base, time.Now())
	d.fake.Pushed(testRepo, head, time.Now())
	return d
}

// deps are the Deps of one evaluation, changed by edit.
func (d *door) deps(edit func(*evaluate.Deps)) *evaluate.Deps {
	d.t.Helper()
	c, err := ghapi.NewClient(strings.TrimSuffix(d.fake.URL, "/"), ghfake.Token, nil,
		ghapi.WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() }))
	if err != nil {
		d.t.Fatal(err)
	}
	deps := &evaluate.Deps{
		API: c, Repo: d.repo, WorkflowKey: evaluate.WorkflowKey("swarm-gate", "verify"), FinaliseTimeout: 5 * time.Second,
		Checkout:     evaluate.Checkout{Dir: d.dir, Version: "test"},
		Conversation: &evaluate.Conversation{BotLogin: ghfake.Login},
	}
	if edit != nil {
		edit(deps)
	}
	return deps
}

func settings() evaluate.Settings {
	return evaluate.Settings{Gates: gates.Default(), ReportTimeout: evaluate.DefaultReportTimeout}
}

// pullRequest is the target of the demo's pull request (base main, head
// swarm/phase-1).
func (d *door) pullRequest() event.Target {
	return event.Target{Kind: "pull_request", What: "pull request #1", PR: 1, Base: d.base, Head: d.head, HeadBranch: demo.HeadBranch, PostSHA: d.head}
}

// check evaluates the demo's pull request and returns the exit code.
func (d *door) check(deps *evaluate.Deps) int {
	d.t.Helper()
	res, err := evaluate.Check(context.Background(), deps, settings(), d.pullRequest())
	if err != nil {
		d.t.Fatal(err)
	}
	code, _ := res.Verdict()
	return code
}

// demoConclusions are the conclusions of the demo's check runs, by name.
var demoConclusions = map[string]string{
	"swarm-gate": "failure", "swarm/critic": "success", "swarm/drift": "success", "swarm/evidence": "failure",
	"swarm/placeholders": "failure", "swarm/plan-freeze": "success", "swarm/plan-lint": "success",
	"swarm/sast": "success", "swarm/scope": "failure",
}

// conclusions are the fake's check runs on the head, by name; a run not
// completed is its status.
func (d *door) conclusions() map[string]string {
	out := map[string]string{}
	for _, cr := range d.fake.CheckRuns(testRepo) {
		if cr.HeadSHA != d.head {
			continue
		}
		if _, dup := out[cr.Name]; dup {
			d.t.Errorf("two check runs named %s", cr.Name)
		}
		out[cr.Name] = cr.Conclusion
		if cr.Status != "completed" {
			out[cr.Name] = cr.Status
		}
	}
	return out
}

func (d *door) wantDemoRuns(what string) {
	d.t.Helper()
	got := d.conclusions()
	if fmt.Sprint(got) != fmt.Sprint(demoConclusions) {
		d.t.Errorf("%s: check runs\n got %v\nwant %v", what, got, demoConclusions)
	}
}

func (d *door) storedRun(name string) ghfake.CheckRun {
	d.t.Helper()
	for _, cr := range d.fake.CheckRuns(testRepo) {
		if cr.Name == name {
			return cr
		}
	}
	d.t.Fatalf("no check run %s", name)
	return ghfake.CheckRun{}
}

// TestDeferGateRuns: with DeferGateRuns (the App's option) only the
// aggregate is created in progress; each gate's run is created completed
// with its result, in one request; a second evaluation of the same head
// updates those runs instead of creating more. The verdict is the same
// as without it.
func TestDeferGateRuns(t *testing.T) {
	d := newDoor(t)
	for attempt := 1; attempt <= 2; attempt++ {
		if code := d.check(d.deps(func(deps *evaluate.Deps) { deps.DeferGateRuns = true })); code != 1 {
			t.Fatalf("attempt %d: exit %d, want 1", attempt, code)
		}
		d.wantDemoRuns(fmt.Sprintf("attempt %d", attempt))
	}
	creates := d.fake.CallsTo("checks/create")
	if len(creates) != 9 {
		t.Fatalf("%d creates over two attempts, want 9", len(creates))
	}
	for _, c := range creates {
		want := "completed"
		if c.Get("name") == "swarm-gate" {
			want = "in_progress"
		}
		if c.Get("status") != want {
			t.Errorf("created %v as %v, want %s", c.Get("name"), c.Get("status"), want)
		}
	}
	// Attempt 1: the aggregate completed; attempt 2: the aggregate put
	// back in progress and completed, each gate's run completed again.
	if n := len(d.fake.CallsTo("checks/update")); n != 1+2+8 {
		t.Errorf("%d updates, want 11", n)
	}
	if agg := d.storedRun("swarm-gate"); !strings.Contains(agg.Summary, "| [`swarm/scope`](") {
		t.Errorf("the aggregate does not link the gates' runs:\n%s", agg.Summary)
	}
}

// TestSourceError: told that the commits could not be put in the
// checkout (the App's fetch failed), an evaluation posts every check as
// "could not evaluate" with the reason, with or without deferred gate
// runs.
func TestSourceError(t *testing.T) {
	for _, deferred := range []bool{false, true} {
		t.Run(map[bool]string{false: "gate runs started first", true: "gate runs deferred"}[deferred], func(t *testing.T) {
			d := newDoor(t)
			code := d.check(d.deps(func(deps *evaluate.Deps) {
				deps.DeferGateRuns = deferred
				deps.Checkout.SourceError = errors.New("fetching the commits from https://ghe.example/o/r.git: repository not found")
			}))
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			runs := d.fake.CheckRuns(testRepo)
			if len(runs) != 9 {
				t.Fatalf("%d check runs, want 9", len(runs))
			}
			for _, cr := range runs {
				if cr.Status != "completed" || cr.Conclusion != "failure" || !strings.HasPrefix(cr.Title, "could not evaluate: fetching the commits") {
					t.Errorf("%s: %s/%s %q", cr.Name, cr.Status, cr.Conclusion, cr.Title)
				}
			}
		})
	}
}

// TestCommandSourceError: when the commits of the pull request could not
// be fetched (the App), a command is refused with that reason, not with
// advice about a workflow's checkout.
func TestCommandSourceError(t *testing.T) {
	d := newDoor(t)
	d.fake.AddPullRequest(testRepo, ghfake.PullRequest{Number: 7, User: "author", HeadRef: demo.HeadBranch, HeadSHA: strings.Repeat("c", 40), BaseRef: "main", BaseSHA: d.base})
	d.fake.SetPermission(testRepo, "maint", "write")
	ev := d.comment("maint", "/swarm approve-plan-critic lost verdict")
	deps := d.deps(func(deps *evaluate.Deps) {
		deps.Checkout.SourceError = errors.New("fetching Codertocat/Hello-World: authentication required")
	})
	if _, err := evaluate.Command(context.Background(), deps, settings(), ev); err != nil {
		t.Logf("Command: %v", err)
	}
	var replies []string
	for _, c := range d.fake.Comments(testRepo, 7) {
		if c.User == ghfake.Login {
			replies = append(replies, c.Body)
		}
	}
	if len(replies) != 1 || !strings.Contains(replies[0], "could not read the pull request's commits: fetching Codertocat/Hello-World: authentication required") || strings.Contains(replies[0], "fetch-depth") {
		t.Fatalf("replies %q", replies)
	}
}

// comment adds user's comment body to pull request #7 and returns its
// issue_comment event (GitHub's example, pointed at it).
func (d *door) comment(user, body string) *actions.Event {
	d.t.Helper()
	id := d.fake.AddComment(testRepo, 7, user, body)
	var stored ghfake.Comment
	for _, c := range d.fake.Comments(testRepo, 7) {
		if c.ID == id {
			stored = c
		}
	}
	data, err := os.ReadFile("../../../shared/github/webhooks/issue_comment/created.json")
	if err != nil {
		sharedtest.Skip(d.t, "GitHub's example payloads are not available: %v", err)
	}
	p := map[string]any{}
	if err := json.Unmarshal(data, &p); err != nil {
		d.t.Fatal(err)
	}
	sharedtest.SetPath(p, "issue.pull_request.url", "https://api.github.com/repos/"+testRepo+"/pulls/7")
	sharedtest.SetPath(p, "issue.number", 7)
	sharedtest.SetPath(p, "comment.body", body)
	sharedtest.SetPath(p, "comment.user.login", user)
	sharedtest.SetPath(p, "comment.user.type", "User")
	sharedtest.SetPath(p, "comment.id", stored.ID)
	sharedtest.SetPath(p, "comment.created_at", stored.CreatedAt.Format(time.RFC3339))
	sharedtest.SetPath(p, "comment.updated_at", stored.UpdatedAt.Format(time.RFC3339))
	sharedtest.SetPath(p, "comment.html_url", fmt.Sprintf("%s/%s/pull/7#issuecomment-%d", d.fake.WebURL, testRepo, stored.ID))
	if data, err = json.Marshal(p); err != nil {
		d.t.Fatal(err)
	}
	ev, err := actions.ParseEvent(data)
	if err != nil {
		d.t.Fatal(err)
	}
	ev.Name = "issue_comment"
	return ev
}

// TestCheckoutGit: an evaluation given the checkout's repository, opened
// with its pack files kept open (as the App does), reads through it: the
// same check runs, the pack read through the given Git (its descriptor is
// open after Check, until the caller closes the Git), and nothing else
// left open.
func TestCheckoutGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not on PATH")
	}
	d := newDoor(t)
	for _, args := range [][]string{{"repack", "-a", "-d", "-q"}, {"prune-packed"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = d.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args[0], err, out)
		}
	}
	g, err := source.OpenGitWith(d.dir, source.OpenOptions{KeepFilesOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	if code := d.check(d.deps(func(deps *evaluate.Deps) { deps.Checkout.Git = g })); code != 1 {
		t.Fatalf("exit %d, want 1 (gates failed)", code)
	}
	d.wantDemoRuns("with the Git")
	gitDir := filepath.Join(d.dir, ".git")
	if n := fdtest.Under(t, gitDir); n != 1 {
		t.Errorf("%d files open in .git after Check, want 1: the pack, read through Checkout.Git", n)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if n := fdtest.Under(t, gitDir); n != 0 {
		t.Errorf("%d files open in .git after closing the Git, want 0", n)
	}
}

// TestKnownMergeBase: the merge base the App got from GitHub's compare API
// is used for the commits it was given for: the true one gives the usual
// check runs; one that is not an ancestor of the head fails every check
// run as "could not evaluate", naming both SHAs, never a pass; one given
// for other commits is not used.
func TestKnownMergeBase(t *testing.T) {
	cases := []struct {
		name     string
		known    func(d *door, other string) evaluate.KnownMergeBase
		wantCode int
		wantErr  bool
	}{
		{"the true merge base", func(d *door, _ string) evaluate.KnownMergeBase {
			return evaluate.KnownMergeBase{Base: d.base, Head: d.head, SHA: d.base}
		}, 1, false},
		{"a base-branch commit that is not an ancestor of the head", func(d *door, other string) evaluate.KnownMergeBase {
			return evaluate.KnownMergeBase{Base: d.base, Head: d.head, SHA: other}
		}, 2, true},
		{"given for other commits: not used", func(d *door, other string) evaluate.KnownMergeBase {
			return evaluate.KnownMergeBase{Base: other, Head: d.head, SHA: other}
		}, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDoor(t)
			other, err := demo.Commit(d.dir, demo.BaseBranch, map[string]string{"docs/later.md": "later\n"}, "later", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			known := tc.known(d, other)
			if code := d.check(d.deps(func(deps *evaluate.Deps) { deps.Checkout.MergeBase = known })); code != tc.wantCode {
				t.Fatalf("exit %d, want %d", code, tc.wantCode)
			}
			if !tc.wantErr {
				d.wantDemoRuns(tc.name)
				return
			}
			for name, c := range d.conclusions() {
				if c != "failure" {
					t.Errorf("%s: %s, want completed/failure (could not evaluate)", name, c)
				}
			}
			agg := d.storedRun("swarm-gate")
			for _, w := range []string{"merge base " + other, "head " + d.head, "not an ancestor"} {
				if !strings.Contains(agg.Title+agg.Summary+agg.Text, w) {
					t.Errorf("the aggregate check run does not say %q:\n%s\n%s\n%s", w, agg.Title, agg.Summary, agg.Text)
				}
			}
		})
	}
}
