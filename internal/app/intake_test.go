package app_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
	"github.com/swarm-gate/swarm-gate/webhook"
)

// TestIntakeAgrees: for the deliveries webhook/ queues, its intake routing
// (which must not import internal/event) and event.Route by the App door
// agree on the pull request, the commit, the coalescing key and whether
// the job coalesces.
func TestIntakeAgrees(t *testing.T) {
	h := newHarness(t)
	var mu sync.Mutex
	var jobs []webhook.Job
	record := webhook.EvaluatorFunc(func(ctx context.Context, job webhook.Job) error {
		mu.Lock()
		defer mu.Unlock()
		jobs = append(jobs, job)
		return nil
	})
	prRef := map[string]any{"number": 2, "url": h.fake.URL + "repos/" + testRepo + "/pulls/2", "id": 2,
		"head": map[string]any{"ref": demo.HeadBranch, "sha": h.head, "repo": map[string]any{"id": 1, "name": "Hello-World", "url": h.fake.URL + "repos/" + testRepo}},
		"base": map[string]any{"ref": demo.BaseBranch, "sha": h.base, "repo": map[string]any{"id": 1, "name": "Hello-World", "url": h.fake.URL + "repos/" + testRepo}}}
	deliveries := []struct {
		event string
		body  []byte
	}{
		{"pull_request", h.synchronize(nil)},
		{"pull_request", h.synchronize(func(p map[string]any) {
			p["action"] = "labeled"
			sharedtest.SetPath(p, "label", map[string]any{"name": "swarm:phase-2"})
		})},
		{"check_suite", h.payload("check_suite/requested.json", func(p map[string]any) {
			sharedtest.SetPath(p, "check_suite.head_sha", h.head)
			sharedtest.SetPath(p, "check_suite.pull_requests", []any{prRef})
		})},
		{"check_run", h.payload("check_run/rerequested.json", func(p map[string]any) {
			sharedtest.SetPath(p, "check_run.name", "swarm-gate")
			sharedtest.SetPath(p, "check_run.head_sha", h.head)
			sharedtest.SetPath(p, "check_run.pull_requests", []any{prRef})
		})},
		{"merge_group", h.payload("merge_group/checks_requested.json", nil)},
		{"issue_comment", h.commentOn("octocat", "/swarm recheck")},
	}
	for i, d := range deliveries {
		// A server each: one would not queue two deliveries of one push.
		srv := h.newServer(record, "server")
		if code := h.deliver(srv.URL, d.event, fmt.Sprintf("d-intake-%d", i), d.body); code != http.StatusAccepted {
			t.Fatalf("%s delivery answered %d", d.event, code)
		}
		srv.drain(t)
	}
	if len(jobs) != len(deliveries) {
		t.Fatalf("%d jobs for %d deliveries (a coalesced one?)", len(jobs), len(deliveries))
	}
	for _, job := range jobs {
		ev, err := actions.ParseEvent(job.Payload)
		if err != nil {
			t.Fatal(err)
		}
		ev.Name = job.Event
		w := event.Route(ev, job.Repo, event.App)
		if w.Kind != event.Check && w.Kind != event.Command {
			t.Errorf("%s %s: queued, but event.Route says %s %q", job.Event, job.Action, w.Kind, w.Reason)
			continue
		}
		if w.Key != job.Key || w.Coalesce != job.Coalesce || w.Target.PR != job.PR || w.Target.PostSHA != job.HeadSHA {
			t.Errorf("%s %s: intake key %q coalesce %v PR %d head %q; event.Route %q %v %d %q",
				job.Event, job.Action, job.Key, job.Coalesce, job.PR, job.HeadSHA, w.Key, w.Coalesce, w.Target.PR, w.Target.PostSHA)
		}
	}
}
