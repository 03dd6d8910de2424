package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Three pushes to one pull request while a job for it runs: the running one
// and the newest are evaluated, the middle one never.
func TestCoalescing(t *testing.T) {
	for _, tc := range []struct {
		name string
		// sends after push-1 has started, in order: "push-N" is a
		// synchronize to PR #5 with head sha(N), "comment-N" a comment
		// on PR #5.
		sends []string
		// want is the deliveries evaluated, in order.
		want       []string
		superseded int
	}{
		{"three pushes", []string{"push-2", "push-3"}, []string{"push-1", "push-3"}, 1},
		{"four pushes", []string{"push-2", "push-3", "push-4"}, []string{"push-1", "push-4"}, 2},
		// The newest push takes the superseded one's place in line, ahead
		// of the comment; comments are never superseded.
		{"push, comment, push", []string{"push-2", "comment-1", "push-3"}, []string{"push-1", "push-3", "comment-1"}, 1},
		{"comments each run", []string{"comment-1", "comment-2"}, []string{"push-1", "comment-1", "comment-2"}, 0},
		// A check suite re-requested for the head being evaluated supersedes
		// the push waiting for the same head.
		{"push, rerun of its head", []string{"push-2", "rerun-2"}, []string{"push-1", "rerun-2"}, 1},
		// A re-run of an older head must not cancel the evaluation of a
		// newer push: it queues behind it; the next push supersedes the
		// waiting push only.
		{"push, rerun of an older head, push", []string{"push-2", "rerun-1", "push-3"}, []string{"push-1", "push-3", "rerun-1"}, 1},
		// A push supersedes a waiting re-run of an older head.
		{"rerun, push", []string{"rerun-1", "push-2"}, []string{"push-1", "push-2"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := newBlockingEvaluator()
			h := newHarness(t, Config{Evaluator: ev, Workers: 2})
			h.Start()
			heads := map[string]string{} // push delivery → its head SHA
			send := func(id string) {
				if n, ok := strings.CutPrefix(id, "push-"); ok {
					heads[id] = sha(int(n[0] - '0'))
					h.mustSend(t, delivery{event: "pull_request", id: id, body: prBody("synchronize", "octo/repo", 5, heads[id])}, http.StatusAccepted)
					return
				}
				if n, ok := strings.CutPrefix(id, "rerun-"); ok {
					heads[id] = sha(int(n[0] - '0'))
					h.mustSend(t, delivery{event: "check_suite", id: id, body: mustJSON(map[string]any{
						"action": "rerequested", "installation": map[string]any{"id": 42}, "repository": map[string]any{"full_name": "octo/repo"},
						"check_suite": map[string]any{"head_sha": heads[id], "pull_requests": []any{map[string]any{"number": 5}}},
					})}, http.StatusAccepted)
					return
				}
				h.mustSend(t, delivery{event: "issue_comment", id: id, body: commentBody("created", "octo/repo", 5, "/swarm-gate recheck")}, http.StatusAccepted)
			}
			send("push-1")
			if j := recv(t, "push-1 to start", ev.started); j.Delivery != "push-1" || j.HeadSHA != sha(1) {
				t.Fatalf("started %s at %s, want push-1", j.Delivery, j.HeadSHA)
			}
			for _, id := range tc.sends {
				send(id)
			}
			got := []string{"push-1"}
			for range tc.want[1:] {
				ev.release <- struct{}{} // ends the running job
				j := recv(t, "the next job to start", ev.started)
				got = append(got, j.Delivery)
				if want := heads[j.Delivery]; want != "" && j.HeadSHA != want {
					t.Errorf("%s evaluated head %s, want %s", j.Delivery, j.HeadSHA, want)
				}
			}
			close(ev.release)
			if err := h.Shutdown(context.Background()); err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
			close(ev.started)
			for j := range ev.started {
				got = append(got, j.Delivery)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("evaluated %v, want %v", got, tc.want)
			}
			if n := h.metric(t, "swarm_gate_jobs_coalesced_total"); n != float64(tc.superseded) {
				t.Errorf("swarm_gate_jobs_coalesced_total = %v, want %d", n, tc.superseded)
			}
			if tc.superseded > 0 && !strings.Contains(h.logs.String(), `"superseded_delivery":"`+tc.sends[0]+`"`) {
				t.Errorf("no log line names the superseded delivery %s:\n%s", tc.sends[0], h.logs)
			}
		})
	}
}

// keyTracker is an Evaluator that reports a clash when two jobs with one
// key run at once, and holds each job until the test opens its gate.
type keyTracker struct {
	mu      sync.Mutex
	running map[string]int
	gates   map[string]chan struct{}
	started chan string
	clash   chan string
}

func (k *keyTracker) gate(delivery string) chan struct{} {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.gates[delivery] == nil {
		k.gates[delivery] = make(chan struct{})
	}
	return k.gates[delivery]
}

func (k *keyTracker) Evaluate(ctx context.Context, j Job) error {
	k.mu.Lock()
	k.running[j.Key]++
	n := k.running[j.Key]
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.running[j.Key]--
		k.mu.Unlock()
	}()
	if n > 1 {
		k.clash <- j.Delivery
	}
	k.started <- j.Delivery
	select {
	case <-k.gate(j.Delivery):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Never two running jobs with one key, even with idle workers; a job whose
// key is busy does not hold up the jobs behind it.
func TestPerKeySerialisation(t *testing.T) {
	k := &keyTracker{running: map[string]int{}, gates: map[string]chan struct{}{}, started: make(chan string, 16), clash: make(chan string, 16)}
	h := newHarness(t, Config{Evaluator: k, Workers: 4})
	comment := func(id string, pr int) {
		h.mustSend(t, delivery{event: "issue_comment", id: id, body: commentBody("created", "octo/repo", pr, "/swarm-gate recheck")}, http.StatusAccepted)
	}
	// Four commands on PR #7 (they never coalesce), then one on PR #8,
	// queued before any worker runs.
	for i := 1; i <= 4; i++ {
		comment(fmt.Sprintf("pr7-%d", i), 7)
	}
	comment("pr8", 8)
	h.Start()
	next := func() string {
		t.Helper()
		select {
		case d := <-k.clash:
			t.Fatalf("%s started while another job for its key was running", d)
		case d := <-k.started:
			return d
		case <-time.After(10 * time.Second):
			t.Fatal("gave up waiting for the next job to start")
		}
		return ""
	}
	// pr7-1 and pr8 start (in either order): pr8 overtakes pr7-2..4.
	first := map[string]bool{next(): true, next(): true}
	if !first["pr7-1"] || !first["pr8"] {
		t.Fatalf("first two jobs started: %v, want pr7-1 and pr8", first)
	}
	// A job on a free key, behind pr7-2..4 in line: when it starts, the
	// two idle workers have passed over them.
	comment("pr9", 9)
	if d := next(); d != "pr9" {
		t.Fatalf("started %s, want pr9 (pr7-1 still runs)", d)
	}
	close(k.gate("pr8"))
	close(k.gate("pr9"))
	// The PR #7 commands follow each other in arrival order, each once the
	// one before has ended.
	for i := 2; i <= 4; i++ {
		close(k.gate(fmt.Sprintf("pr7-%d", i-1)))
		if d, want := next(), fmt.Sprintf("pr7-%d", i); d != want {
			t.Fatalf("started %s, want %s", d, want)
		}
	}
	close(k.gate("pr7-4"))
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case d := <-k.clash:
		t.Fatalf("%s started while another job for its key was running", d)
	default:
	}
}

// Jobs with different keys run at once, up to Workers.
func TestDifferentKeysRunInParallel(t *testing.T) {
	ev := newBlockingEvaluator()
	h := newHarness(t, Config{Evaluator: ev, Workers: 3})
	h.Start()
	for i := 1; i <= 3; i++ {
		h.mustSend(t, delivery{event: "pull_request", id: fmt.Sprintf("pr-%d", i), body: prBody("opened", "octo/repo", i, sha(i))}, http.StatusAccepted)
	}
	seen := map[string]bool{}
	for range 3 { // all three start before any is released
		seen[recv(t, "three jobs running at once", ev.started).Key] = true
	}
	if len(seen) != 3 {
		t.Errorf("keys started: %v, want three different", seen)
	}
	if n := h.metric(t, "swarm_gate_jobs_running"); n != 3 {
		t.Errorf("swarm_gate_jobs_running = %v, want 3", n)
	}
	close(ev.release)
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

// Each evaluation's context carries JobTimeout as its deadline.
func TestJobDeadline(t *testing.T) {
	const timeout = 50 * time.Millisecond
	type seen struct {
		hasDeadline bool
		left        time.Duration
		err         error
	}
	got := make(chan seen, 1)
	h := newHarness(t, Config{JobTimeout: timeout, Evaluator: EvaluatorFunc(func(ctx context.Context, j Job) error {
		dl, ok := ctx.Deadline()
		left := time.Until(dl)
		<-ctx.Done()
		got <- seen{ok, left, ctx.Err()}
		return fmt.Errorf("evaluating %s: %w", j.Key, ctx.Err())
	})})
	h.Start()
	h.mustSend(t, delivery{event: "pull_request", id: "slow", body: prBody("opened", "octo/repo", 1, sha(1))}, http.StatusAccepted)
	s := recv(t, "the evaluator to see its deadline", got)
	if !s.hasDeadline || s.left <= 0 || s.left > timeout {
		t.Errorf("deadline: set %v, %v left, want set with at most %v left", s.hasDeadline, s.left, timeout)
	}
	if !errors.Is(s.err, context.DeadlineExceeded) {
		t.Errorf("ctx.Err() = %v, want DeadlineExceeded", s.err)
	}
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := h.metric(t, `swarm_gate_evaluations_total{event="pull_request",result="timeout"}`); n != 1 {
		t.Errorf("timeouts counted %v, want 1", n)
	}
	if !strings.Contains(h.logs.String(), `"delivery":"slow"`) || !strings.Contains(h.logs.String(), `"result":"timeout"`) {
		t.Errorf("no log line for the timed-out job:\n%s", h.logs)
	}
}

// A panicking Evaluator is an error, not a crash.
func TestEvaluatorPanic(t *testing.T) {
	h := newHarness(t, Config{Evaluator: EvaluatorFunc(func(context.Context, Job) error { panic("boom") })})
	h.Start()
	h.mustSend(t, delivery{event: "merge_group", id: "p1", body: mustJSON(map[string]any{
		"action": "checks_requested", "installation": map[string]any{"id": 1},
		"repository": map[string]any{"full_name": "octo/repo"}, "merge_group": map[string]any{"head_sha": sha(9)},
	})}, http.StatusAccepted)
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := h.metric(t, `swarm_gate_evaluations_total{event="merge_group",result="error"}`); n != 1 {
		t.Errorf("errors counted %v, want 1", n)
	}
	if !strings.Contains(h.logs.String(), "evaluator panicked: boom") {
		t.Errorf("the panic is not logged:\n%s", h.logs)
	}
}

// Shutdown mid-evaluation: deliveries get 503, and once the drain deadline
// passes the running job's context is cancelled and Shutdown returns.
func TestShutdownCancelsRunningJob(t *testing.T) {
	ev := newBlockingEvaluator()
	h := newHarness(t, Config{Evaluator: ev, Workers: 1})
	h.Start()
	h.mustSend(t, delivery{event: "pull_request", id: "running", body: prBody("opened", "octo/repo", 1, sha(1))}, http.StatusAccepted)
	recv(t, "the job to start", ev.started)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Shutdown(ctx) }()
	waitUntil(t, "Shutdown to begin", func() bool { _, closing := h.q.state(); return closing })

	rec := h.send(t, delivery{event: "pull_request", id: "during", body: prBody("opened", "octo/repo", 2, sha(2))})
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("delivery during shutdown: %d Retry-After %q, want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if rec := h.get(t, "/readyz"); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("readyz during shutdown: %d, want 503", rec.Code)
	}
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned %v while the job still ran and its deadline had not passed", err)
	case <-ev.ended:
		t.Fatal("the job ended before the shutdown deadline")
	default:
	}

	cancel() // the drain deadline passes
	if err := recv(t, "the job's context to be cancelled", ev.ended); !errors.Is(err, context.Canceled) {
		t.Errorf("the evaluator saw %v, want context.Canceled", err)
	}
	if err := recv(t, "Shutdown to return", done); !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown = %v, want context.Canceled", err)
	}
	if n := h.metric(t, `swarm_gate_evaluations_total{event="pull_request",result="canceled"}`); n != 1 {
		t.Errorf("canceled evaluations counted %v, want 1", n)
	}
	if n := h.metric(t, `swarm_gate_deliveries_total{event="unknown",outcome="shutting_down"}`); n != 1 {
		t.Errorf("shutting_down counted %v, want 1", n)
	}
}

// With time to spare, Shutdown runs every queued job before returning.
func TestShutdownDrainsQueue(t *testing.T) {
	ev := newBlockingEvaluator()
	h := newHarness(t, Config{Evaluator: ev, Workers: 1})
	h.Start()
	for i := 1; i <= 4; i++ {
		h.mustSend(t, delivery{event: "pull_request", id: fmt.Sprintf("q%d", i), body: prBody("opened", "octo/repo", i, sha(i))}, http.StatusAccepted)
	}
	recv(t, "the first job to start", ev.started)
	done := make(chan error, 1)
	go func() { done <- h.Shutdown(context.Background()) }()
	waitUntil(t, "Shutdown to begin", func() bool { _, closing := h.q.state(); return closing })
	close(ev.release)
	if err := recv(t, "Shutdown to return", done); err != nil {
		t.Fatalf("Shutdown = %v, want nil", err)
	}
	close(ev.ended)
	n := 0
	for err := range ev.ended {
		if err != nil {
			t.Errorf("a drained job ended with %v", err)
		}
		n++
	}
	if n != 4 {
		t.Errorf("%d jobs ran, want 4", n)
	}
}

// Jobs still waiting when the drain deadline passes are dropped, counted
// and logged, never run.
func TestShutdownDropsWaitingJobsAtDeadline(t *testing.T) {
	ev := newBlockingEvaluator()
	h := newHarness(t, Config{Evaluator: ev, Workers: 1})
	h.Start()
	h.mustSend(t, delivery{event: "pull_request", id: "runs", body: prBody("opened", "octo/repo", 1, sha(1))}, http.StatusAccepted)
	recv(t, "the first job to start", ev.started)
	h.mustSend(t, delivery{event: "pull_request", id: "waits", body: prBody("opened", "octo/repo", 2, sha(2))}, http.StatusAccepted)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown = %v, want context.Canceled", err)
	}
	close(ev.started)
	for j := range ev.started {
		t.Errorf("%s ran after the shutdown deadline", j.Delivery)
	}
	if n := h.metric(t, "swarm_gate_jobs_dropped_total"); n != 1 {
		t.Errorf("swarm_gate_jobs_dropped_total = %v, want 1", n)
	}
	if !strings.Contains(h.logs.String(), `"delivery":"waits"`) {
		t.Errorf("the dropped delivery is not logged:\n%s", h.logs)
	}
}

// Many deliveries over a few keys from several senders: every queued job
// runs or is superseded, none runs beside another with its key, and
// Shutdown drains them all (a lost wake-up would leave jobs waiting until
// the drain deadline).
func TestSchedulerUnderLoad(t *testing.T) {
	var (
		mu        sync.Mutex
		running   = map[string]int{}
		evaluated int
		clashes   int
	)
	h := newHarness(t, Config{Workers: 4, QueueSize: 10_000, Evaluator: EvaluatorFunc(func(ctx context.Context, j Job) error {
		mu.Lock()
		running[j.Key]++
		if running[j.Key] > 1 {
			clashes++
		}
		evaluated++
		mu.Unlock()
		runtime.Gosched()
		mu.Lock()
		running[j.Key]--
		mu.Unlock()
		return nil
	})})
	h.Start()
	const senders, each = 4, 250
	var wg sync.WaitGroup
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := fmt.Sprintf("s%d-%d", s, i)
				pr := 1 + (s*each+i)%7
				d := delivery{event: "pull_request", id: id, body: prBody("synchronize", "octo/repo", pr, sha(s*each+i))}
				if i%3 == 0 {
					d = delivery{event: "issue_comment", id: id, body: commentBody("created", "octo/repo", pr, "/swarm-gate recheck")}
				}
				if rec := h.send(t, d); rec.Code != http.StatusAccepted {
					t.Errorf("%s: %d %s", id, rec.Code, rec.Body.String())
				}
			}
		}()
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v (jobs were left waiting)", err)
	}
	coalesced := int(h.metric(t, "swarm_gate_jobs_coalesced_total"))
	if evaluated+coalesced != senders*each {
		t.Errorf("%d evaluated + %d superseded, want %d", evaluated, coalesced, senders*each)
	}
	if clashes != 0 {
		t.Errorf("%d jobs ran beside another with their key", clashes)
	}
}
