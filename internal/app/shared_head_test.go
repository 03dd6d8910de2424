package app_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// TestSecondPullRequestIntoALaxBase: check runs belong to a commit, not
// to a pull request, and branch protection reads the newest run named
// swarm-gate on the head commit. Whoever can push a branch can open a
// second pull request of the same head into a branch of their own whose
// .github/swarm-gate.yml relaxes every rule; evaluated with that base's
// policy, its verdict would post over the runs of the pull request into
// main. While both are open, every evaluation of that head fails closed,
// naming the other pull request.
func TestSecondPullRequestIntoALaxBase(t *testing.T) {
	h := newHarness(t)
	a := h.newApp(nil)
	if _, err := a.Identify(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The head completes its tasks with their evidence: what still fails
	// on it (a file outside the phase's scope, a TODO) only a policy can
	// let pass.
	ev, err := os.ReadFile("../demo/_example/head/.swarm/evidence/1.1.json")
	if err != nil {
		t.Fatal(err)
	}
	h.commitOnHead(map[string]string{".swarm/evidence/1.2.json": strings.Replace(string(ev), `"1.1"`, `"1.2"`, 1)})
	h.fake.AddPullRequest(testRepo, ghfake.PullRequest{Number: 2, User: "author", HeadRef: demo.HeadBranch, HeadSHA: h.head, BaseRef: demo.BaseBranch, BaseSHA: h.base})
	srv := h.newServer(a, "server")
	if code := h.deliver(srv.URL, "pull_request", "d-pr2", h.synchronize(nil)); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	srv.drain(t)
	if agg := h.storedRun("swarm-gate"); agg.Conclusion != "failure" {
		t.Fatalf("control: the phase pull request into main should fail, got %s %q", agg.Conclusion, agg.Title)
	}

	// The attacker's branch: main plus a policy that lets everything pass.
	gitRun(t, h.dir, "branch", "-f", "lax", demo.BaseBranch)
	lax, err := demo.Commit(h.dir, "lax", map[string]string{".github/swarm-gate.yml": `version: 1
scope:
  extras: ["**"]
placeholders:
  allow: ["**"]
qa_gates:
  sast_enabled: false
`}, "lax policy", time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	gitRun(t, h.dir, "checkout", "-q", demo.HeadBranch)
	h.fake.Pushed(testRepo, lax, time.Now())
	h.fake.AddPullRequest(testRepo, ghfake.PullRequest{Number: 3, User: "author", HeadRef: demo.HeadBranch, HeadSHA: h.head, BaseRef: "lax", BaseSHA: lax})
	body := h.synchronize(func(p map[string]any) {
		sharedtest.SetPath(p, "number", 3)
		sharedtest.SetPath(p, "pull_request.number", 3)
		sharedtest.SetPath(p, "pull_request.base.sha", lax)
		sharedtest.SetPath(p, "pull_request.base.ref", "lax")
		sharedtest.SetPath(p, "pull_request.updated_at", time.Now().UTC().Format(time.RFC3339))
	})
	srv2 := h.newServer(a, "server2")
	if code := h.deliver(srv2.URL, "pull_request", "d-pr3", body); code != http.StatusAccepted {
		t.Fatalf("second delivery answered %d", code)
	}
	srv2.drain(t)
	agg := h.storedRun("swarm-gate")
	var runs []string
	for _, r := range h.runs() {
		runs = append(runs, r.String())
	}
	if agg.HeadSHA != h.head || agg.Conclusion != "failure" || !strings.Contains(agg.Summary+agg.Text, `#2 into "main"`) {
		t.Errorf("the evaluation of #3 into lax: %s %q, want a failure naming #2 into main\n%s\n%s", agg.Conclusion, agg.Title, agg.Summary, strings.Join(runs, "\n"))
	}
	// And the pull request into main, evaluated again, names #3.
	srv3 := h.newServer(a, "server3")
	if code := h.deliver(srv3.URL, "pull_request", "d-pr2-again", h.synchronize(nil)); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	srv3.drain(t)
	if agg := h.storedRun("swarm-gate"); agg.Conclusion != "failure" || !strings.Contains(agg.Summary+agg.Text, `#3 into "lax"`) {
		t.Errorf("the evaluation of #2 into main: %s %q, want a failure naming #3 into lax\n%s", agg.Conclusion, agg.Title, agg.Summary)
	}
}
