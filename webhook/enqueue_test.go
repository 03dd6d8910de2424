package webhook

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// TestEnqueue: a job queued by the App's reconciler shares the queue and
// the key serialisation of the deliveries: while a delivery of its pull
// request waits or runs it is left to it (busy), so the two never run at
// once; a second job with its id is a duplicate; after Shutdown nothing
// is queued.
func TestEnqueue(t *testing.T) {
	ev := newBlockingEvaluator()
	h := newHarness(t, Config{Evaluator: ev, Workers: 1, JobTimeout: time.Minute})
	h.Start()
	repo, head := "octo/app", sha(1)
	job := func(id string, pr int) Job {
		return Job{Delivery: id, Event: "pull_request", Action: "reconcile", Repo: repo, PR: pr, HeadSHA: head,
			Key: repo + "#" + strconv.Itoa(pr), Coalesce: true, Payload: prBody("synchronize", repo, pr, head)}
	}
	h.mustSend(t, delivery{event: "pull_request", id: "d-1", body: prBody("synchronize", repo, 1, head)}, http.StatusAccepted)
	recv(t, "the delivery's evaluation", ev.started)
	// #1 runs; #2 waits behind it (one worker) once queued.
	for _, tc := range []struct {
		name string
		job  Job
		want EnqueueResult
	}{
		{"the delivery of #1 is running", job("r-1", 1), EnqueueBusy},
		{"nothing of #2 waits or runs", job("r-2", 2), Enqueued},
		{"#2 waits now", job("r-2b", 2), EnqueueBusy},
		{"same id again", job("r-2", 3), EnqueueDuplicate},
	} {
		if got := h.Enqueue(tc.job); got != tc.want {
			t.Errorf("%s: Enqueue = %s, want %s", tc.name, got, tc.want)
		}
	}
	ev.release <- struct{}{}
	if j := recv(t, "the reconciler's job", ev.started); j.Delivery != "r-2" || j.Received.IsZero() {
		t.Errorf("second job %s (received %v), want r-2 with its time set", j.Delivery, j.Received)
	}
	ev.release <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if got := h.Enqueue(job("r-4", 4)); got != EnqueueClosing {
		t.Errorf("after Shutdown: Enqueue = %s, want %s", got, EnqueueClosing)
	}
}
