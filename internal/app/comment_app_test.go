package app_test

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestSummaryCommentInTheApp: the App posts the pull request summary
// comment once as its bot, updates the same comment on the next
// evaluation, and links it as the check runs' details_url.
func TestSummaryCommentInTheApp(t *testing.T) {
	h := newHarness(t)
	a := h.newApp(nil)
	if _, err := a.Identify(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"d-comment-1", "d-comment-2"} {
		srv := h.newServer(a, "server-"+id) // drain stops a server
		if code := h.deliver(srv.URL, "pull_request", id, h.synchronize(nil)); code != http.StatusAccepted {
			t.Fatalf("delivery %s answered %d, want 202", id, code)
		}
		srv.drain(t)
	}
	var ids []int64
	for _, c := range h.fake.Comments(testRepo, 2) {
		if strings.HasPrefix(c.Body, "<!-- swarm-gate:summary -->") {
			ids = append(ids, c.ID)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("summary comments %v, want one updated", ids)
	}
	if n := len(h.fake.CallsTo("issues/create-comment")); n != 1 {
		t.Errorf("%d comments created over two evaluations, want 1", n)
	}
	if n := len(h.fake.CallsTo("issues/update-comment")); n > 1 {
		t.Errorf("%d comment updates, want at most 1 (none when nothing changed)", n)
	}
	agg := h.storedRun("swarm-gate")
	if !strings.Contains(agg.DetailsURL, "#issuecomment-") || !strings.HasSuffix(agg.DetailsURL, "-"+strconv.FormatInt(ids[0], 10)) {
		t.Errorf("aggregate details_url %q, want the summary comment %d", agg.DetailsURL, ids[0])
	}
}

// TestSummaryCommentForbiddenInTheApp: an installation without issues:
// write gets its checks all the same; the aggregate says the comment
// could not be posted.
func TestSummaryCommentForbiddenInTheApp(t *testing.T) {
	h := newHarness(t)
	a := h.newApp(nil)
	if _, err := a.Identify(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.fake.Fail(ghfake.Fault{Operation: "issues/create-comment", Status: http.StatusForbidden, Times: -1,
		Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/issues/comments#create-an-issue-comment"}`})
	srv := h.newServer(a, "server")
	if code := h.deliver(srv.URL, "pull_request", "d-forbidden", h.synchronize(nil)); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	srv.drain(t)
	if got, want := h.runs(), demoRuns(h.head); !reflect.DeepEqual(got, want) {
		t.Errorf("check runs:\n got %v\nwant %v", got, want)
	}
	if agg := h.storedRun("swarm-gate"); !strings.Contains(agg.Summary, "summary comment could not be posted") || agg.DetailsURL != "" {
		t.Errorf("aggregate (details_url %q):\n%s", agg.DetailsURL, agg.Summary)
	}
}
