package webhook

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// abandoningEvaluator is a blockingEvaluator that is also an Abandoner.
type abandoningEvaluator struct {
	*blockingEvaluator
	mu        sync.Mutex
	abandoned []string
	deadlines []time.Duration // how far each Abandon's deadline was
	reasons   []string
}

func (a *abandoningEvaluator) Abandon(ctx context.Context, j Job, reason string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.abandoned = append(a.abandoned, j.Delivery)
	a.reasons = append(a.reasons, reason)
	d := time.Duration(-1)
	if dl, ok := ctx.Deadline(); ok && ctx.Err() == nil {
		d = time.Until(dl)
	}
	a.deadlines = append(a.deadlines, d)
}

// Jobs dropped at shutdown (answered 202, never run) are each handed to
// the Evaluator's Abandon with a live context that has a short deadline of
// its own, and Shutdown says how many were dropped; jobs that ran are
// never abandoned.
func TestShutdownAbandonsDroppedJobs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		start   bool // start the workers (one), so that "runs" runs
		drain   bool // let everything run: nothing is abandoned
		want    []string
		sayErr  string
		running int
	}{
		{"deadline passes", true, false, []string{"waits-2", "waits-3", "comment"}, "1 running jobs cancelled (their check runs are completed as failure), 3 waiting jobs dropped", 1},
		{"never started", false, false, []string{"runs", "waits-2", "waits-3", "comment"}, "4 queued jobs were dropped: the workers were never started", 0},
		{"drained", true, true, nil, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := &abandoningEvaluator{blockingEvaluator: newBlockingEvaluator()}
			h := newHarness(t, Config{Evaluator: ev, Workers: 1, AbandonTimeout: 3 * time.Second})
			if tc.start {
				h.Start()
			}
			h.mustSend(t, delivery{event: "pull_request", id: "runs", body: prBody("opened", "octo/repo", 1, sha(1))}, http.StatusAccepted)
			if tc.start {
				recv(t, "the first job to start", ev.started)
			}
			h.mustSend(t, delivery{event: "pull_request", id: "waits-2", body: prBody("opened", "octo/repo", 2, sha(2))}, http.StatusAccepted)
			h.mustSend(t, delivery{event: "pull_request", id: "waits-3", body: prBody("opened", "octo/repo", 3, sha(3))}, http.StatusAccepted)
			h.mustSend(t, delivery{event: "issue_comment", id: "comment", body: commentBody("created", "octo/repo", 4, "/swarm recheck")}, http.StatusAccepted)
			ctx, cancel := context.WithCancel(context.Background())
			if tc.drain {
				close(ev.release)
				ctx = context.Background()
			} else {
				cancel()
			}
			defer cancel()
			err := h.Shutdown(ctx)
			switch {
			case tc.sayErr == "" && err != nil:
				t.Errorf("Shutdown: %v, want nil", err)
			case tc.sayErr != "" && (err == nil || !strings.Contains(err.Error(), tc.sayErr)):
				t.Errorf("Shutdown: %v, want an error saying %q", err, tc.sayErr)
			case tc.start && !tc.drain && !errors.Is(err, context.Canceled):
				t.Errorf("Shutdown: %v, want it to wrap the context's error", err)
			}
			ev.mu.Lock()
			defer ev.mu.Unlock()
			for i, d := range ev.deadlines {
				if d <= 0 || d > 3*time.Second {
					t.Errorf("Abandon(%s) had %v left on its context, want a live deadline of at most AbandonTimeout", ev.abandoned[i], d)
				}
				if !strings.Contains(ev.reasons[i], "shut down") {
					t.Errorf("Abandon(%s) reason %q does not say the server shut down", ev.abandoned[i], ev.reasons[i])
				}
			}
			sort.Strings(ev.abandoned) // abandoned concurrently
			sort.Strings(tc.want)
			if strings.Join(ev.abandoned, " ") != strings.Join(tc.want, " ") {
				t.Errorf("abandoned %v, want %v", ev.abandoned, tc.want)
			}
			if n := h.metric(t, "swarm_gate_jobs_dropped_total"); n != float64(len(tc.want)) {
				t.Errorf("swarm_gate_jobs_dropped_total = %v, want %d", n, len(tc.want))
			}
		})
	}
}

// Unready turns /readyz to 503 while deliveries are still taken, so that a
// load balancer stops routing here before Shutdown refuses them.
func TestUnreadyKeepsTakingDeliveries(t *testing.T) {
	h := newHarness(t, Config{})
	h.Start()
	h.Unready()
	if rec := h.get(t, "/readyz"); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "still taken") {
		t.Errorf("readyz after Unready: %d %q, want 503", rec.Code, rec.Body.String())
	}
	if rec := h.get(t, "/healthz"); rec.Code != http.StatusOK {
		t.Errorf("healthz after Unready: %d, want 200", rec.Code)
	}
	h.mustSend(t, delivery{event: "pull_request", id: "during-delay", body: prBody("opened", "octo/repo", 1, sha(1))}, http.StatusAccepted)
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rec := h.send(t, delivery{event: "pull_request", id: "after", body: prBody("opened", "octo/repo", 2, sha(2))}); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("delivery after Shutdown: %d, want 503", rec.Code)
	}
}
