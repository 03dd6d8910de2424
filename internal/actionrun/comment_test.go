package actionrun_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// summaryComments are swarm-gate's summary comments on pull request n.
func (h *harness) summaryComments(n int) []ghfake.Comment {
	var out []ghfake.Comment
	for _, c := range h.fake.Comments(h.repo, n) {
		if strings.HasPrefix(c.Body, "<!-- swarm-gate:summary -->") {
			out = append(out, c)
		}
	}
	return out
}

// TestSummaryCommentStickyAcrossPushes: the demo's failing pull request
// gets one summary comment, updated in place (same id) on the next push,
// and created again after someone deleted it. The fake validates every
// request against GitHub's API description.
func TestSummaryCommentStickyAcrossPushes(t *testing.T) {
	const repo = "Codertocat/Hello-World"
	h := newHarness(t, repo)
	h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", repo))
	if code := h.run(context.Background(), nil); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, h.log.String())
	}
	cs := h.summaryComments(2)
	if len(cs) != 1 {
		t.Fatalf("%d summary comments after the first run, want 1", len(cs))
	}
	first := cs[0]
	for _, want := range []string{"swarm-gate: ❌ failed", "Phase 1", "[`swarm/scope`](" + h.fake.WebURL + "/" + repo + "/runs/",
		"— first finding: `main.go`", "**What to do next**", "`" + h.head[:12] + "`"} {
		if !strings.Contains(first.Body, want) {
			t.Errorf("comment lacks %q:\n%s", want, first.Body)
		}
	}
	if first.User != ghfake.Login {
		t.Errorf("comment by %s", first.User)
	}

	// The next push: updated, not posted again.
	h.commitOnHead(map[string]string{"notes.txt": "more\n"})
	h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", repo))
	h.run(context.Background(), nil)
	cs = h.summaryComments(2)
	if len(cs) != 1 || cs[0].ID != first.ID {
		t.Fatalf("after a push: %d summary comments (ids %v), want comment %d updated", len(cs), cs, first.ID)
	}
	if !strings.Contains(cs[0].Body, "`"+h.head[:12]+"`") {
		t.Errorf("the updated comment does not name the new head %s:\n%s", h.head[:12], cs[0].Body)
	}
	if n := len(h.fake.CallsTo("issues/create-comment")); n != 1 {
		t.Errorf("%d comments created over two pushes, want 1", n)
	}

	// Deleted by someone: recreated by the next run.
	h.fake.DeleteComment(repo, first.ID)
	h.run(context.Background(), nil)
	cs = h.summaryComments(2)
	if len(cs) != 1 || cs[0].ID == first.ID {
		t.Fatalf("after deleting it: %v, want one new comment", cs)
	}

	// Edited by someone so that the marker is gone: no longer the
	// summary, so a new one is posted and the edited one left alone.
	h.fake.EditComment(repo, cs[0].ID, "I removed the marker")
	h.run(context.Background(), nil)
	if got := h.summaryComments(2); len(got) != 1 || got[0].ID == cs[0].ID {
		t.Fatalf("after the marker was edited away: %v, want one new comment", got)
	}
	cs = h.summaryComments(2)

	// A look-alike by another user is not swarm-gate's: a comment of its
	// own is kept up to date instead.
	h.fake.AddComment(repo, 2, "mallory", "<!-- swarm-gate:summary -->\nall checks pass")
	h.run(context.Background(), nil)
	if got := h.summaryComments(2); len(got) != 2 || got[0].ID != cs[0].ID || !strings.Contains(got[0].Body, "❌ failed") {
		t.Errorf("with a look-alike comment: %v", got)
	}
}

// TestSummaryCommentOnFailureAllPass: under the default on-failure no
// comment is created when every check passes, and one that exists is
// updated to say so (not deleted).
func TestSummaryCommentOnFailureAllPass(t *testing.T) {
	const repo = "Codertocat/Hello-World"
	h := newHarness(t, repo)
	h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", repo))
	passing := map[string]string{"checks": "swarm/critic,swarm/drift"}
	if code := h.run(context.Background(), passing); code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, h.log.String())
	}
	if cs := h.summaryComments(2); len(cs) != 0 {
		t.Fatalf("all pass under on-failure: %d comments, want none", len(cs))
	}
	h.run(context.Background(), nil) // fails: the comment is created
	cs := h.summaryComments(2)
	if len(cs) != 1 {
		t.Fatalf("%d comments after a failure, want 1", len(cs))
	}
	h.run(context.Background(), passing)
	got := h.summaryComments(2)
	if len(got) != 1 || got[0].ID != cs[0].ID || !strings.Contains(got[0].Body, "all checks pass") {
		t.Errorf("after all pass: %v, want comment %d saying all checks pass", got, cs[0].ID)
	}
}

// TestSummaryCommentForbidden: a token that may not write comments does
// not fail the checks: a warning in the log and a line in the aggregate's
// summary say so.
func TestSummaryCommentForbidden(t *testing.T) {
	const repo = "Codertocat/Hello-World"
	h := newHarness(t, repo)
	h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", repo))
	h.fake.Fail(ghfake.Fault{Operation: "issues/create-comment", Status: http.StatusForbidden, Times: -1,
		Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/issues/comments#create-an-issue-comment"}`})
	if code := h.run(context.Background(), nil); code != 1 {
		t.Fatalf("exit %d, want 1 (the gates' verdict, not an error)\n%s", code, h.log.String())
	}
	if got, want := h.runs(), demoRuns(h.head, "swarm-gate:pull_request:"+workflowKey); len(got) != len(want) || got[0].Conclusion != "failure" {
		t.Errorf("check runs %v", got)
	}
	if !strings.Contains(h.log.String(), "::warning::swarm-gate: creating the summary comment of pull request #2") || !strings.Contains(h.log.String(), "pull-requests: write") {
		t.Errorf("no warning naming the permission:\n%s", h.log.String())
	}
	if agg := h.storedRun("swarm-gate"); !strings.Contains(agg.Summary, "summary comment could not be posted") {
		t.Errorf("the aggregate does not say the comment was not posted:\n%s", agg.Summary)
	}
}

// TestSummaryCommentOff: comment: off on the base branch posts none.
func TestSummaryCommentOff(t *testing.T) {
	const repo = "Codertocat/Hello-World"
	h := newHarness(t, repo)
	h.commitOnBase(map[string]string{".github/swarm-gate.yml": "version: 1\ncomment: off\n"})
	h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", repo))
	h.run(context.Background(), nil)
	if cs := h.summaryComments(2); len(cs) != 0 {
		t.Errorf("comment: off: %d comments", len(cs))
	}
}

// TestDetailsURLIsTheWorkflowRun: in the Action every check run's
// details_url is the workflow run's attempt.
func TestDetailsURLIsTheWorkflowRun(t *testing.T) {
	const repo = "Codertocat/Hello-World"
	h := newHarness(t, repo)
	h.env["GITHUB_RUN_ATTEMPT"] = "2"
	h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", repo))
	h.run(context.Background(), nil)
	want := h.fake.WebURL + "/" + repo + "/actions/runs/4242/attempts/2"
	for _, cr := range h.fake.CheckRuns(repo) {
		if cr.DetailsURL != want {
			t.Errorf("%s: details_url %q, want %q", cr.Name, cr.DetailsURL, want)
		}
	}
	for _, c := range h.fake.CallsTo("checks/create") {
		if c.Get("details_url") != want {
			t.Errorf("create %v sent details_url %v", c.Get("name"), c.Get("details_url"))
		}
	}
}

// TestSummaryCommentForkGoesThroughThePoster: a fork's own run, whose
// token may not create check runs, posts no comment; the workflow_run
// poster, with this repository's code, posts it.
func TestSummaryCommentForkGoesThroughThePoster(t *testing.T) {
	h := newHarness(t, "Codertocat/Hello-World")
	h.fake.Fail(ghfake.Fault{Operation: "checks/create", Status: http.StatusForbidden, Times: -1,
		Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/checks/runs#create-a-check-run"}`})
	h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", forkRepo))
	h.run(context.Background(), nil)
	if n := len(h.fake.CallsTo("issues/create-comment")); n != 0 {
		t.Fatalf("the fork's own run tried to comment %d times", n)
	}
	h.fake.ClearFaults()
	h.fake.AddPullRequest(h.repo, ghfake.PullRequest{Number: 9, Title: "phase 1", User: "mallory", HeadRepo: forkRepo,
		HeadRef: demo.HeadBranch, HeadSHA: h.head, BaseRef: "main", BaseSHA: h.base})
	h.workflowRun(h.head, forkRepo)
	report := h.writeArtifact(artifactReport(h.base, h.head, false))
	if code := h.run(context.Background(), map[string]string{"mode": "publish", "report": report}); code != 1 {
		t.Fatalf("poster: exit %d, want 1\n%s", code, h.log.String())
	}
	if cs := h.summaryComments(9); len(cs) != 1 || !strings.Contains(cs[0].Body, "❌ failed") {
		t.Errorf("the poster's summary comments on #9: %v", cs)
	}
}
