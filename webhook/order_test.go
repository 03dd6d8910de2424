package webhook

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// prBodyAt is prBody with pull_request.updated_at (RFC 3339; "" for none).
func prBodyAt(action, repo string, pr int, head, updated string) []byte {
	p := map[string]any{"number": pr, "head": map[string]any{"sha": head}}
	if updated != "" {
		p["updated_at"] = updated
	}
	return mustJSON(map[string]any{
		"action": action, "number": pr, "installation": map[string]any{"id": 42},
		"repository": map[string]any{"full_name": repo}, "pull_request": p,
	})
}

// checkSuiteBody is a check_suite delivery for PR #pr at head.
func checkSuiteBody(action, repo string, pr int, head string) []byte {
	return mustJSON(map[string]any{
		"action": action, "installation": map[string]any{"id": 42}, "repository": map[string]any{"full_name": repo},
		"check_suite": map[string]any{"head_sha": head, "updated_at": "2026-01-01T00:00:00Z", "pull_requests": []any{map[string]any{"number": pr}}},
	})
}

// Deliveries for one pull request arriving out of order while another job
// for it runs: a pull_request delivery older (updated_at) than the one
// waiting is not queued (200, counted as superseded), whichever order they
// came in; without both times, or with equal ones, the later arrival
// replaces the waiting job as before.
func TestOutOfOrderPullRequestDeliveries(t *testing.T) {
	const t1, t2 = "2026-03-01T10:00:00Z", "2026-03-01T10:05:00Z"
	for _, tc := range []struct {
		name string
		// first and second are sent, in this order, while "running" runs:
		// head sha(2) and sha(3), with these updated_at values.
		firstAt, secondAt string
		// secondCode is the answer to the second; want the delivery
		// evaluated after "running".
		secondCode int
		want       string
	}{
		{"newer waits, older arrives late", t2, t1, http.StatusOK, "first"},
		{"older waits, newer arrives", t1, t2, http.StatusAccepted, "second"},
		{"same updated_at: arrival order", t1, t1, http.StatusAccepted, "second"},
		{"no updated_at: arrival order", "", "", http.StatusAccepted, "second"},
		{"only the late one has updated_at", "", t1, http.StatusAccepted, "second"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := newBlockingEvaluator()
			h := newHarness(t, Config{Evaluator: ev, Workers: 1})
			h.Start()
			h.mustSend(t, delivery{event: "pull_request", id: "running", body: prBodyAt("synchronize", "octo/repo", 5, sha(1), "2026-03-01T09:00:00Z")}, http.StatusAccepted)
			recv(t, "the running job to start", ev.started)
			h.mustSend(t, delivery{event: "pull_request", id: "first", body: prBodyAt("synchronize", "octo/repo", 5, sha(2), tc.firstAt)}, http.StatusAccepted)
			got := h.mustSend(t, delivery{event: "pull_request", id: "second", body: prBodyAt("synchronize", "octo/repo", 5, sha(3), tc.secondAt)}, tc.secondCode)
			if tc.secondCode == http.StatusOK && !strings.Contains(got, "delivery first, waiting for the same pull request, is newer") {
				t.Errorf("the late delivery was answered %q", got)
			}
			close(ev.release)
			j := recv(t, "the waiting job to start", ev.started)
			if j.Delivery != tc.want {
				t.Errorf("evaluated %s (head %.7s) after the running job, want %s", j.Delivery, j.HeadSHA, tc.want)
			}
			if err := h.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			close(ev.started)
			for j := range ev.started {
				t.Errorf("%s was evaluated too", j.Delivery)
			}
			if n := h.metric(t, "swarm_gate_jobs_coalesced_total"); n != 1 {
				t.Errorf("swarm_gate_jobs_coalesced_total = %v, want 1", n)
			}
			if tc.secondCode == http.StatusOK {
				if n := h.metric(t, `swarm_gate_deliveries_total{event="pull_request",outcome="stale"}`); n != 1 {
					t.Errorf("stale deliveries counted %v, want 1", n)
				}
				// The late delivery's id is remembered: GitHub's redelivery
				// of it is a duplicate.
				if !h.q.duplicate("second") {
					t.Error("the stale delivery's id was not remembered")
				}
			}
		})
	}
}

// recordingEvaluator records the deliveries it evaluates.
type recordingEvaluator struct {
	mu  sync.Mutex
	got []string
}

func (r *recordingEvaluator) Evaluate(_ context.Context, j Job) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, j.Delivery)
	return nil
}

func (r *recordingEvaluator) evaluated() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.got, " ")
}

// GitHub sends pull_request synchronize (opened, reopened) and check_suite
// requested for every push: whichever comes second, for the same pull
// request and head, is answered 200 and not evaluated again, for
// sameCommitTTL. Re-runs and base changes are never suppressed.
func TestOnePushOneEvaluation(t *testing.T) {
	head, other := sha(7), sha(8)
	edited := mustJSON(map[string]any{
		"action": "edited", "number": 5, "installation": map[string]any{"id": 42}, "repository": map[string]any{"full_name": "octo/repo"},
		"pull_request": map[string]any{"number": 5, "head": map[string]any{"sha": head}}, "changes": map[string]any{"base": map[string]any{"ref": map[string]any{"from": "dev"}}},
	})
	checkRun := mustJSON(map[string]any{
		"action": "rerequested", "installation": map[string]any{"id": 42}, "repository": map[string]any{"full_name": "octo/repo"},
		"check_run": map[string]any{"head_sha": head, "pull_requests": []any{map[string]any{"number": 5}}},
	})
	type send struct {
		event string
		body  []byte
		code  int
	}
	sync5 := func(action, h string) []byte { return prBody(action, "octo/repo", 5, h) }
	for _, tc := range []struct {
		name  string
		sends []send
		later time.Duration // the second delivery arrives this long after the first
		want  string        // deliveries evaluated (d0, d1, ... in sending order)
	}{
		{"synchronize, then check_suite requested", []send{{"pull_request", sync5("synchronize", head), 202}, {"check_suite", checkSuiteBody("requested", "octo/repo", 5, head), 200}}, 0, "d0"},
		{"check_suite requested, then synchronize", []send{{"check_suite", checkSuiteBody("requested", "octo/repo", 5, head), 202}, {"pull_request", sync5("synchronize", head), 200}}, 0, "d0"},
		{"opened, then check_suite requested", []send{{"pull_request", sync5("opened", head), 202}, {"check_suite", checkSuiteBody("requested", "octo/repo", 5, head), 200}}, 0, "d0"},
		{"check_suite requested, then reopened", []send{{"check_suite", checkSuiteBody("requested", "octo/repo", 5, head), 202}, {"pull_request", sync5("reopened", head), 200}}, 0, "d0"},
		{"another head is another push", []send{{"pull_request", sync5("synchronize", head), 202}, {"check_suite", checkSuiteBody("requested", "octo/repo", 5, other), 202}}, 0, "d0 d1"},
		{"another pull request", []send{{"pull_request", sync5("synchronize", head), 202}, {"check_suite", checkSuiteBody("requested", "octo/repo", 6, head), 202}}, 0, "d0 d1"},
		{"after sameCommitTTL", []send{{"pull_request", sync5("synchronize", head), 202}, {"check_suite", checkSuiteBody("requested", "octo/repo", 5, head), 202}}, sameCommitTTL + time.Second, "d0 d1"},
		{"check_suite rerequested is a re-run", []send{{"pull_request", sync5("synchronize", head), 202}, {"check_suite", checkSuiteBody("rerequested", "octo/repo", 5, head), 202}}, 0, "d0 d1"},
		{"check_run rerequested is a re-run", []send{{"check_suite", checkSuiteBody("requested", "octo/repo", 5, head), 202}, {"check_run", checkRun, 202}}, 0, "d0 d1"},
		{"base changed", []send{{"pull_request", sync5("synchronize", head), 202}, {"pull_request", edited, 202}}, 0, "d0 d1"},
		{"recheck command", []send{{"pull_request", sync5("synchronize", head), 202}, {"issue_comment", commentBody("created", "octo/repo", 5, "/swarm recheck"), 202}}, 0, "d0 d1"},
		{"a second synchronize of the same head", []send{{"pull_request", sync5("synchronize", head), 202}, {"pull_request", sync5("synchronize", head), 202}}, 0, "d0 d1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
			var mu sync.Mutex
			ev := &recordingEvaluator{}
			h := newHarness(t, Config{Evaluator: ev, Workers: 1, Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
			h.Start()
			for i, s := range tc.sends {
				if i > 0 {
					mu.Lock()
					now = now.Add(tc.later)
					mu.Unlock()
				}
				id := "d" + string(rune('0'+i))
				got := h.mustSend(t, delivery{event: s.event, id: id, body: s.body}, s.code)
				if s.code == http.StatusOK && !strings.Contains(got, "already queued for this commit by delivery d0") {
					t.Errorf("%s answered %q", id, got)
				}
				// Let the first finish before the second arrives: the
				// suppression does not depend on the first still waiting.
				waitUntil(t, "the queue to empty", func() bool { return h.q.depth() == 0 && h.q.runningCount() == 0 })
			}
			if err := h.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			// Two jobs with the same head may coalesce; count the queued.
			if got := ev.evaluated(); got != tc.want {
				t.Errorf("evaluated %q, want %q", got, tc.want)
			}
		})
	}
}
