package app_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// TestCheckSuiteRequested: a check_suite requested delivery that names the
// pull request is evaluated like the pull_request delivery of the same
// push (the webhook queue may let one supersede the other), with the same
// external id.
func TestCheckSuiteRequested(t *testing.T) {
	for _, action := range []string{"requested", "rerequested"} {
		t.Run(action, func(t *testing.T) {
			h := newHarness(t)
			srv := h.newServer(h.newApp(nil), "server")
			body := h.payload("check_suite/"+action+".json", func(p map[string]any) {
				sharedtest.SetPath(p, "check_suite.head_sha", h.head)
				sharedtest.SetPath(p, "check_suite.head_branch", demo.HeadBranch)
				sharedtest.SetPath(p, "check_suite.pull_requests", []any{map[string]any{
					"number": 2, "url": h.fake.URL + "repos/" + testRepo + "/pulls/2", "id": 2,
					"head": map[string]any{"ref": demo.HeadBranch, "sha": h.head, "repo": map[string]any{"id": 1, "name": "Hello-World", "url": h.fake.URL + "repos/" + testRepo}},
					"base": map[string]any{"ref": demo.BaseBranch, "sha": h.base, "repo": map[string]any{"id": 1, "name": "Hello-World", "url": h.fake.URL + "repos/" + testRepo}},
				}})
			})
			if code := h.deliver(srv.URL, "check_suite", "d-suite", body); code != http.StatusAccepted {
				t.Fatalf("delivery answered %d", code)
			}
			srv.drain(t)
			if got, want := h.runs(), demoRuns(h.head); !reflect.DeepEqual(got, want) {
				t.Errorf("check runs:\n got %v\nwant %v", got, want)
			}
		})
	}
}

// commentOn is GitHub's issue_comment created example moved onto pull
// request #2 with body by user, as the comment the fake holds, made now.
func (h *harness) commentOn(user, body string) []byte {
	return h.payload("issue_comment/created.json", func(p map[string]any) {
		sharedtest.SetPath(p, "issue.pull_request.url", h.fake.URL+"repos/"+testRepo+"/pulls/2")
		sharedtest.SetPath(p, "issue.number", 2)
		sharedtest.SetPath(p, "comment.body", body)
		sharedtest.SetPath(p, "comment.user.login", user)
		sharedtest.SetPath(p, "comment.user.type", "User")
		// The comment is on GitHub too: a command is checked against it
		// (its author, that it is unedited), and its reply records its id.
		sharedtest.SetPath(p, "comment.id", h.fake.AddComment(testRepo, 2, user, body))
		sharedtest.SetPath(p, "comment.created_at", time.Now().UTC().Format(time.RFC3339))
	})
}

// TestCommentCommands: /swarm recheck and /swarm approve-plan-critic in
// pull request comments run through the App as through the Action: the
// pull request's commits are fetched (read through the API once: the
// runner's own read is a cache hit), the override is recorded by the
// App's bot and trusted when read back.
func TestCommentCommands(t *testing.T) {
	h := newHarness(t)
	h.fake.AddPullRequest(testRepo, ghfake.PullRequest{Number: 2, User: "author", HeadRef: demo.HeadBranch, HeadSHA: h.head, BaseRef: demo.BaseBranch, BaseSHA: h.base})
	h.fake.SetPermission(testRepo, "maint", "write")
	srv := h.newServer(h.newApp(nil), "server")

	if code := h.deliver(srv.URL, "issue_comment", "d-recheck", h.commentOn("maint", "/swarm recheck")); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	waitFor(t, func() bool {
		return len(h.fake.CallsTo("checks/update")) > 0 && !h.storedRun("swarm-gate").CompletedAt.IsZero()
	})
	if got, want := h.runs(), demoRuns(h.head); !reflect.DeepEqual(got, want) {
		t.Errorf("check runs after /swarm recheck:\n got %v\nwant %v", got, want)
	}
	if n := len(h.fake.CallsTo("pulls/get")); n != 1 {
		t.Errorf("%d pulls/get requests, want 1 (the runner's read is answered from the evaluation's cache)", n)
	}

	if code := h.deliver(srv.URL, "issue_comment", "d-approve", h.commentOn("maint", "/swarm approve-plan-critic reviewed by hand")); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	srv.drain(t)
	// The commands' replies are comments too: one of them is the record.
	comments := h.fake.Comments(testRepo, 2)
	records := 0
	for _, c := range comments {
		if strings.Contains(c.Body, "swarm-gate:override") {
			records++
			if c.User != ghfake.Login {
				t.Errorf("the override record is by %s, want the App's bot %s", c.User, ghfake.Login)
			}
		}
	}
	if records != 1 {
		t.Fatalf("comments: %+v, want the App's one override record", comments)
	}
	if pf := h.storedRun("swarm/plan-freeze"); !strings.Contains(pf.Summary, "**Human override**: `/swarm approve-plan-critic` by @maint") {
		t.Errorf("plan-freeze does not show the override recorded by the App's bot:\n%s", pf.Summary)
	}
	if n := len(h.fake.CheckRuns(testRepo)); n != 9 {
		t.Errorf("%d check runs after two evaluations of one head, want 9 (updated, not duplicated)", n)
	}
}

// waitFor polls cond for up to 30 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHelpShowsOnlyTheAppsRuns: `/swarm help` in the App shows the state
// of the App's own check runs; another App's newer runs under the same
// names (even one whose slug reads swarm-gate) are not shown (issue 20).
func TestHelpShowsOnlyTheAppsRuns(t *testing.T) {
	h := newHarness(t)
	h.fake.AddPullRequest(testRepo, ghfake.PullRequest{Number: 2, User: "author", HeadRef: demo.HeadBranch, HeadSHA: h.head, BaseRef: demo.BaseBranch, BaseSHA: h.base})
	h.fake.SetPermission(testRepo, "maint", "write")
	srv := h.newServer(h.newApp(nil), "server")
	if code := h.deliver(srv.URL, "issue_comment", "d-recheck", h.commentOn("maint", "/swarm recheck")); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	waitFor(t, func() bool {
		return len(h.fake.CallsTo("checks/update")) > 0 && !h.storedRun("swarm-gate").CompletedAt.IsZero()
	})
	if r := h.storedRun("swarm-gate"); r.Conclusion != "failure" || r.AppID != appID {
		t.Fatalf("the App's aggregate: %+v", r)
	}
	h.fake.AddCheckRun(testRepo, ghfake.CheckRun{Name: "swarm-gate", HeadSHA: h.head, Conclusion: "success", AppID: 77, AppSlug: "other"})
	h.fake.AddCheckRun(testRepo, ghfake.CheckRun{Name: "swarm/scope", HeadSHA: h.head, Conclusion: "success", AppID: 78, AppSlug: appSlug})
	if code := h.deliver(srv.URL, "issue_comment", "d-help", h.commentOn("anyone", "/swarm help")); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	srv.drain(t)
	var help string
	for _, c := range h.fake.Comments(testRepo, 2) {
		if strings.Contains(c.Body, "swarm-gate comment commands") {
			help = c.Body
		}
	}
	for _, want := range []string{"| `swarm-gate` | completed: **failure**", "| `swarm/scope` | completed: **failure**", "Only the check runs of this GitHub App (app id 4242) are shown"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	for _, foreign := range []string{"| `swarm-gate` | completed: **success**", "| `swarm/scope` | completed: **success**"} {
		if strings.Contains(help, foreign) {
			t.Errorf("help shows another App's run %q:\n%s", foreign, help)
		}
	}
}
