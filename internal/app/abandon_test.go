package app_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/swarm-gate/swarm-gate/internal/app"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
	"github.com/swarm-gate/swarm-gate/webhook"
)

// TestAbandonAtShutdown: deliveries answered 202 and still waiting when
// the server shuts down leave the aggregate check run completed as
// failure, saying the server shut down and how to re-run, on the run the
// evaluation would have used (updated when the commit has one); comment
// commands and deliveries the evaluation would skip get no run, and say
// so in the log.
func TestAbandonAtShutdown(t *testing.T) {
	ext := "swarm-gate:pull_request:" + externalKey()
	for _, tc := range []struct {
		name     string
		before   bool // evaluate the head first, so that the aggregate exists
		event    string
		body     func(h *harness) []byte
		wantRuns int    // aggregates of the head afterwards
		wantExt  string // their external id
		wantLog  string
	}{
		{"pull_request", false, "pull_request", func(h *harness) []byte { return h.synchronize(nil) }, 1, ext, "its check run is completed as failure"},
		{"pull_request after an evaluation of the head", true, "pull_request", func(h *harness) []byte {
			return h.synchronize(func(p map[string]any) { sharedtest.SetPath(p, "action", "reopened") })
		}, 1, ext, "its check run is completed as failure"},
		{"merge group", false, "merge_group", func(h *harness) []byte {
			return h.payload("merge_group/checks_requested.json", func(p map[string]any) {
				sharedtest.SetPath(p, "merge_group.head_sha", h.head)
				sharedtest.SetPath(p, "merge_group.base_sha", h.base)
			})
		}, 1, "swarm-gate:merge_group:" + externalKey(), "its check run is completed as failure"},
		{"comment command", false, "issue_comment", func(h *harness) []byte { return h.commentOn("maint", "/swarm recheck") }, 0, "", "a comment command"},
		{"check suite without a pull request", false, "check_suite", func(h *harness) []byte {
			return h.payload("check_suite/requested.json", func(p map[string]any) { sharedtest.SetPath(p, "check_suite.head_sha", h.head) })
		}, 0, "", "its evaluation would have done nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.newApp(nil)
			if tc.before {
				srv := h.newServer(a, "first")
				if code := h.deliver(srv.URL, "pull_request", "d-first", h.synchronize(nil)); code != http.StatusAccepted {
					t.Fatalf("first delivery answered %d", code)
				}
				srv.drain(t)
			}
			// A server whose workers never start: the delivery waits until
			// the shutdown drops it.
			reg := prometheus.NewRegistry()
			s, err := webhook.New(webhook.Config{Secret: h.secret, Evaluator: a, Logger: h.logger("stopping"), Registerer: reg, Gatherer: reg})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(s.Handler())
			defer ts.Close()
			if code := h.deliver(ts.URL, tc.event, "d-dropped", tc.body(h)); code != http.StatusAccepted {
				t.Fatalf("delivery answered %d", code)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := s.Shutdown(ctx); err == nil || !strings.Contains(err.Error(), "1 queued jobs were dropped") {
				t.Errorf("Shutdown: %v, want it to say the job was dropped", err)
			}
			var aggs []string
			for _, cr := range h.fake.CheckRuns(testRepo) {
				if cr.Name != app.AggregateCheck || cr.HeadSHA != h.head {
					continue
				}
				aggs = append(aggs, cr.ExternalID)
				if cr.Status != "completed" || cr.Conclusion != "failure" || !strings.HasPrefix(cr.Title, "could not evaluate: ") ||
					!strings.Contains(cr.Summary, "did not evaluate it: the swarm-gate server shut down") || !strings.Contains(cr.Summary, "`/swarm recheck`") ||
					!strings.Contains(cr.Summary, "d-dropped") {
					t.Errorf("aggregate %s/%s %q:\n%s", cr.Status, cr.Conclusion, cr.Title, cr.Summary)
				}
			}
			if len(aggs) != tc.wantRuns || tc.wantRuns > 0 && aggs[0] != tc.wantExt {
				t.Errorf("aggregates with external ids %v, want %d with %s", aggs, tc.wantRuns, tc.wantExt)
			}
			if !strings.Contains(h.logs.String(), tc.wantLog) {
				t.Errorf("the log does not say %q", tc.wantLog)
			}
		})
	}
}
