package app_test

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/app"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// TestTwoReplicas: two App servers behind one GitHub, each receiving part
// of the deliveries, and then each the other's delivery again (GitHub's
// redelivery reaching the other replica after the first one finished):
// every evaluation happens, and no check run is duplicated (the external id
// makes the second evaluation update the first's runs).
func TestTwoReplicas(t *testing.T) {
	h := newHarness(t)
	a := h.newServer(h.newApp(nil), "replica-a")
	b := h.newServer(h.newApp(nil), "replica-b")

	head1 := h.head
	d1 := h.synchronize(nil)
	if code := h.deliver(a.URL, "pull_request", "d-1", d1); code != http.StatusAccepted {
		t.Fatalf("d-1 to replica A answered %d", code)
	}
	h.waitCompleted(head1)
	head2 := h.commitOnHead(map[string]string{"internal/export/csv_test.go": "package export\n"})
	d2 := h.synchronize(nil)
	if code := h.deliver(b.URL, "pull_request", "d-2", d2); code != http.StatusAccepted {
		t.Fatalf("d-2 to replica B answered %d", code)
	}
	h.waitCompleted(head2)
	// The redeliveries, each to the replica that did not see it.
	if code := h.deliver(b.URL, "pull_request", "d-1", d1); code != http.StatusAccepted {
		t.Fatalf("d-1 again, to replica B, answered %d", code)
	}
	if code := h.deliver(a.URL, "pull_request", "d-2", d2); code != http.StatusAccepted {
		t.Fatalf("d-2 again, to replica A, answered %d", code)
	}
	// And once more to the replica that did see it: a duplicate.
	if code := h.deliver(a.URL, "pull_request", "d-1", d1); code != http.StatusOK {
		t.Errorf("d-1 again to replica A answered %d, want 200 (duplicate)", code)
	}
	a.drain(t)
	b.drain(t)

	seen := map[string]int{}
	for _, cr := range h.fake.CheckRuns(testRepo) {
		seen[fmt.Sprintf("%s@%.7s %s", cr.Name, cr.HeadSHA, cr.ExternalID)]++
		if cr.Status != "completed" {
			t.Errorf("%s@%.7s is %s", cr.Name, cr.HeadSHA, cr.Status)
		}
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%d check runs %s, want 1", n, k)
		}
	}
	if len(seen) != 18 {
		t.Errorf("%d distinct check runs, want 18 (9 per head, two heads): %v", len(seen), h.runs())
	}
	if n := len(h.fake.CallsTo("checks/create")); n != 18 {
		t.Errorf("%d check runs created, want 18: the redeliveries update the runs they find", n)
	}
	// Both redeliveries were evaluated: four aggregates were started.
	started := 0
	for _, c := range h.fake.Calls() {
		if c.Get("name") == "swarm-gate" && c.Get("status") == "in_progress" {
			started++
		}
	}
	if started != 4 {
		t.Errorf("the aggregate was put in progress %d times, want 4 (two deliveries, each evaluated by both replicas)", started)
	}
}

// steps is a replica's API transport with two places where the test holds
// its evaluation: around the first list of the commit's check runs (at
// the evaluation's start), and before the first list again before the gate
// runs are posted (ghapi sends it with Cache-Control: no-cache). It also signals when the replica has started its aggregate.
type steps struct {
	next http.RoundTripper
	// beforeStart and afterStart, when set, are called before the first
	// list is sent and once its answer is in; atRelist before the first
	// re-list is sent. They may block.
	beforeStart, afterStart, atRelist func()
	// started is closed once the replica's aggregate is created or put
	// back in progress.
	started chan struct{}

	mu             sync.Mutex
	lists, relists int
	startedOnce    sync.Once
}

func newSteps() *steps {
	return &steps{next: http.DefaultTransport, started: make(chan struct{})}
}

func (s *steps) RoundTrip(req *http.Request) (*http.Response, error) {
	var after func()
	if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/check-runs") && strings.Contains(req.URL.Path, "/commits/") {
		s.mu.Lock()
		fresh := req.Header.Get("Cache-Control") == "no-cache"
		var before func()
		switch {
		case !fresh && s.lists == 0:
			before, after = s.beforeStart, s.afterStart
		case fresh && s.relists == 0:
			before = s.atRelist
		}
		if fresh {
			s.relists++
		} else {
			s.lists++
		}
		s.mu.Unlock()
		if before != nil {
			before()
		}
	}
	resp, err := s.next.RoundTrip(req)
	if after != nil {
		after()
	}
	if err == nil && (req.Method == http.MethodPost || req.Method == http.MethodPatch) && strings.Contains(req.URL.Path, "/check-runs") && resp.StatusCode < 300 {
		s.startedOnce.Do(func() { close(s.started) }) // the aggregate is the first run written
	}
	return resp, err
}

func (s *steps) relisted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.relists
}

// barrier lets n goroutines through once all n have arrived (or after a
// guard, so that a broken case fails instead of hanging).
type barrier struct {
	mu      sync.Mutex
	n       int
	arrived int
	open    chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, open: make(chan struct{})} }

func (b *barrier) wait() {
	b.mu.Lock()
	b.arrived++
	if b.arrived == b.n {
		close(b.open)
	}
	b.mu.Unlock()
	select {
	case <-b.open:
	case <-time.After(30 * time.Second):
	}
}

// checkSuiteRequested is the check_suite requested delivery GitHub sends
// with the pull_request synchronize of the same push.
func (h *harness) checkSuiteRequested() []byte {
	return h.payload("check_suite/requested.json", func(p map[string]any) {
		sharedtest.SetPath(p, "check_suite.head_sha", h.head)
		sharedtest.SetPath(p, "check_suite.head_branch", demo.HeadBranch)
		sharedtest.SetPath(p, "check_suite.pull_requests", []any{map[string]any{
			"number": 2, "url": h.fake.URL + "repos/" + testRepo + "/pulls/2", "id": 2,
			"head": map[string]any{"ref": demo.HeadBranch, "sha": h.head, "repo": map[string]any{"id": 1, "name": "Hello-World", "url": h.fake.URL + "repos/" + testRepo}},
			"base": map[string]any{"ref": demo.BaseBranch, "sha": h.base, "repo": map[string]any{"id": 1, "name": "Hello-World", "url": h.fake.URL + "repos/" + testRepo}},
		}})
	})
}

// TestTwoReplicasAtOnce: two replicas evaluate the same head at the same
// time: the same delivery reaching both (a redelivery while the first is
// still running), or the pull_request and check_suite deliveries of one
// push reaching one each. Both evaluations are held until the other has
// started too, then both are held again just before posting their gate
// runs and let go together: the worst moment. Each gate gets exactly one
// run, none is left in progress, and both evaluations run to the end.
//
// The aggregate: when the second replica lists the commit's runs after the
// first created its aggregate, it updates that one (one aggregate); when
// both list before either created it ("together"), each creates one: the
// documented bound, one extra aggregate per evaluation so started, both
// completed with the same verdict.
func TestTwoReplicasAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name       string
		eventB     string // what replica B receives (A: the pull_request delivery)
		together   bool   // both list the commit's runs before either creates the aggregate
		aggregates int
	}{
		{"same delivery, B starts while A runs", "pull_request", false, 1},
		{"same delivery, both start together", "pull_request", true, 2},
		{"pull_request and check_suite of one push, B starts while A runs", "check_suite", false, 1},
		{"pull_request and check_suite of one push, both start together", "check_suite", true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			sa, sb := newSteps(), newSteps()
			start, relist := newBarrier(2), newBarrier(2)
			if tc.together {
				// Neither creates its aggregate before both have listed.
				sa.afterStart, sb.afterStart = start.wait, start.wait
			} else {
				// B lists the commit's runs once A's aggregate exists.
				sb.beforeStart = func() {
					select {
					case <-sa.started:
					case <-time.After(30 * time.Second):
					}
				}
			}
			sa.atRelist, sb.atRelist = relist.wait, relist.wait
			withSteps := func(s *steps) func(*app.Config) {
				return func(c *app.Config) { c.Transport = s }
			}
			a := h.newServer(h.newApp(withSteps(sa)), "replica-a")
			b := h.newServer(h.newApp(withSteps(sb)), "replica-b")

			bodyB, idB := h.synchronize(nil), "d-push"
			if tc.eventB == "check_suite" {
				bodyB, idB = h.checkSuiteRequested(), "d-suite"
			}
			var wg sync.WaitGroup
			for _, d := range []struct {
				url, event, id string
				body           []byte
			}{{a.URL, "pull_request", "d-push", h.synchronize(nil)}, {b.URL, tc.eventB, idB, bodyB}} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if code := h.deliver(d.url, d.event, d.id, d.body); code != http.StatusAccepted {
						t.Errorf("%s to %s answered %d", d.id, d.url, code)
					}
				}()
			}
			wg.Wait()
			a.drain(t)
			b.drain(t)

			count := map[string]int{}
			conclusions := map[string]map[string]bool{}
			for _, cr := range h.fake.CheckRuns(testRepo) {
				count[cr.Name]++
				if cr.Status != "completed" || cr.HeadSHA != h.head {
					t.Errorf("%s#%d@%.7s is %s", cr.Name, cr.ID, cr.HeadSHA, cr.Status)
				}
				if conclusions[cr.Name] == nil {
					conclusions[cr.Name] = map[string]bool{}
				}
				conclusions[cr.Name][cr.Conclusion] = true
			}
			var names []string
			for _, r := range demoRuns(h.head) {
				names = append(names, r.Name)
				want := 1
				if r.Name == app.AggregateCheck {
					want = tc.aggregates
				}
				if count[r.Name] != want {
					t.Errorf("%d runs of %s, want %d", count[r.Name], r.Name, want)
				}
				if len(conclusions[r.Name]) != 1 || !conclusions[r.Name][r.Conclusion] {
					t.Errorf("%s concluded %v, want only %s", r.Name, conclusions[r.Name], r.Conclusion)
				}
			}
			if len(count) != len(names) {
				t.Errorf("check runs %v, want only %v", count, names)
			}
			// Both evaluated to the end, and they overlapped: both reached
			// the list before posting the gates, where they were held
			// together.
			logs := h.logs.String()
			for _, who := range []string{"replica-a", "replica-b"} {
				if !strings.Contains(logs, `"msg":"evaluation finished","component":"`+who+`"`) || strings.Contains(logs, `"msg":"evaluation failed","component":"`+who+`"`) {
					t.Errorf("%s did not finish its evaluation", who)
				}
			}
			if ra, rb := sa.relisted(), sb.relisted(); ra == 0 || rb == 0 {
				t.Errorf("relists: A %d, B %d: both evaluations must list the runs again before posting", ra, rb)
			}
			if t.Failed() {
				t.Logf("runs: %v", h.runs())
			}
		})
	}
}

// TestRefusedThenRedeliveredToTheOther: a delivery refused with 503 by a
// replica that is stopping is redelivered to the other, which evaluates
// it: once, with one run per check.
func TestRefusedThenRedeliveredToTheOther(t *testing.T) {
	h := newHarness(t)
	a := h.newServer(h.newApp(nil), "replica-a")
	b := h.newServer(h.newApp(nil), "replica-b")
	a.drain(t) // replica A is stopping
	body := h.synchronize(nil)
	if code := h.deliver(a.URL, "pull_request", "d-1", body); code != http.StatusServiceUnavailable {
		t.Fatalf("d-1 to the stopping replica answered %d, want 503", code)
	}
	if code := h.deliver(b.URL, "pull_request", "d-1", body); code != http.StatusAccepted {
		t.Fatalf("d-1 redelivered to replica B answered %d, want 202", code)
	}
	b.drain(t)
	var got []string
	for _, r := range h.runs() {
		got = append(got, r.Name+" "+r.Status+"/"+r.Conclusion)
	}
	var want []string
	for _, r := range demoRuns(h.head) {
		want = append(want, r.Name+" "+r.Status+"/"+r.Conclusion)
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("check runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := strings.Count(h.logs.String(), `"msg":"evaluation finished","component":"replica-b"`); n != 1 {
		t.Errorf("replica B finished %d evaluations, want 1", n)
	}
}

// waitCompleted waits until the aggregate check run of head is completed.
func (h *harness) waitCompleted(head string) {
	h.t.Helper()
	waitFor(h.t, func() bool {
		for _, cr := range h.fake.CheckRuns(testRepo) {
			if cr.Name == "swarm-gate" && cr.HeadSHA == head && cr.Status == "completed" {
				return true
			}
		}
		return false
	})
}
