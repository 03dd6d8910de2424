package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/app"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestBaseMovedOnFarSinceBranching: the base branch moved on by 40
// commits after the pull request branched, beyond the deepened fetch
// (FetchDepth 2, so 16 commits). GitHub's compare API gives the merge
// base, in one call, and the evaluation gets the demo's check runs without
// fetching the whole history; when the compare API fails, the App fetches
// the whole history as before and gets the same check runs; a merge base
// the API gives that is not an ancestor of the head fails every check run
// as "could not evaluate", naming both SHAs, never a pass.
func TestBaseMovedOnFarSinceBranching(t *testing.T) {
	const fetchDepth, movedOn = 2, 40
	if movedOn <= fetchDepth*8 {
		t.Fatal("test setup: the base must move on beyond the deepened fetch")
	}
	cases := []struct {
		name string
		// fault is the compare API's ("" none); wrongMergeBase answers it
		// with the base tip as the merge base.
		fault          int
		wrongMergeBase bool
		wantFetch      string
		wantCompares   int // -1: at least one
	}{
		{"GitHub gives the merge base", 0, false, "merge-base", 1},
		{"the compare API answers 500: the whole history", http.StatusInternalServerError, false, "full", -1},
		{"the compare API answers 404: the whole history", http.StatusNotFound, false, "full", 1},
		{"a merge base that is not an ancestor of the head", 0, true, "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			fork := h.base
			for i := range movedOn {
				sha, err := demo.Commit(h.dir, demo.BaseBranch, map[string]string{fmt.Sprintf("docs/notes/%02d.md", i): "note\n"}, "note",
					time.Date(2026, 11, 4, 9, i, 0, 0, time.UTC))
				if err != nil {
					t.Fatal(err)
				}
				h.base = sha
			}
			switch {
			case tc.fault != 0:
				h.fake.Fail(ghfake.Fault{Operation: "repos/compare-commits", Status: tc.fault, Times: -1})
			case tc.wrongMergeBase:
				h.fake.Fail(ghfake.Fault{Operation: "repos/compare-commits", Status: http.StatusOK, Times: -1,
					Body: fmt.Sprintf(`{"status":"diverged","ahead_by":1,"behind_by":0,"total_commits":1,"merge_base_commit":{"sha":%q},"base_commit":{"sha":%q},"commits":[]}`, h.base, h.base)})
			}
			a := h.newApp(func(c *app.Config) { c.FetchDepth = fetchDepth })
			srv := h.newServer(a, "server")
			if code := h.deliver(srv.URL, "pull_request", "d-moved-on", h.synchronize(nil)); code != http.StatusAccepted {
				t.Fatalf("delivery answered %d, want 202", code)
			}
			srv.drain(t)

			compares := h.fake.CallsTo("repos/compare-commits")
			if tc.wantCompares >= 0 && len(compares) != tc.wantCompares || len(compares) == 0 {
				t.Errorf("%d compare calls, want %d", len(compares), tc.wantCompares)
			}
			for _, c := range compares {
				if want := "/repos/" + testRepo + "/compare/" + h.base + "..." + h.head; c.Path != want || c.Query.Get("per_page") != "1" {
					t.Errorf("compare call %s?%s, want %s?per_page=1", c.Path, c.Query.Encode(), want)
				}
			}
			rec := evaluationRecord(t, h.logs.String())
			if tc.wrongMergeBase {
				for _, r := range h.runs() {
					if r.Status != "completed" || r.Conclusion != "failure" {
						t.Errorf("%s: %s/%s, want completed/failure (could not evaluate)", r.Name, r.Status, r.Conclusion)
					}
				}
				agg := h.storedRun("swarm-gate")
				text := agg.Title + "\n" + agg.Summary + "\n" + agg.Text
				for _, w := range []string{"merge base of base " + h.base + " and head " + h.head, "not an ancestor of head " + h.head} {
					if !strings.Contains(text, w) {
						t.Errorf("the aggregate check run does not say %q:\n%s", w, text)
					}
				}
				if rec["msg"] != "evaluation ended with an error" || !strings.Contains(fmt.Sprint(rec["error"]), "not an ancestor") {
					t.Errorf("evaluation record %v, want an error saying the merge base is not an ancestor", rec)
				}
				return
			}
			if got, want := h.runs(), demoRuns(h.head); !reflect.DeepEqual(got, want) {
				t.Errorf("check runs:\n got %v\nwant %v", got, want)
			}
			if agg := h.storedRun("swarm-gate"); !strings.Contains(agg.Summary, fork[:7]) {
				t.Errorf("the aggregate does not name the merge base %s (the fork point):\n%s", fork[:7], agg.Summary)
			}
			if rec["fetch"] != tc.wantFetch {
				t.Errorf("fetched %v (depth %v), want %s", rec["fetch"], rec["fetch_depth"], tc.wantFetch)
			}
			// The API budget (calls_test.go): the compare call is one more
			// than the common path's 15 (13, the summary comment and the
			// head commit's pull requests),
			// minting the token aside, and the first evaluation reads the
			// owner's policy once.
			var calls []string
			for _, c := range h.fake.Calls() {
				if !strings.HasPrefix(c.Operation, "apps/") {
					calls = append(calls, c.Operation)
				}
			}
			if tc.wantFetch == "merge-base" && len(calls) != 17 {
				t.Errorf("%d REST calls besides the App's own, want 17 (15 + the compare call + the owner's policy): %v", len(calls), calls)
			}
		})
	}
}

// evaluationRecord is the last evaluation's closing log record, decoded.
func evaluationRecord(t *testing.T, logs string) map[string]any {
	t.Helper()
	var rec map[string]any
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, `"component":"app"`) || !strings.Contains(line, `"msg":"evaluation finished"`) && !strings.Contains(line, `"msg":"evaluation ended with an error"`) {
			continue
		}
		rec = nil
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log record %s: %v", line, err)
		}
	}
	if rec == nil {
		t.Fatalf("no evaluation record in the logs:\n%s", logs)
	}
	return rec
}
