package ghapi_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// deferredNames are an aggregate started at once and two gates posted later.
var (
	aggregate  = "swarm-gate"
	laterGates = []string{"swarm/scope", "swarm/sast"}
)

const deferredExt = "swarm-gate:pull_request:0123456789ab"

// evaluation is one evaluation with deferred gate runs, as the App's
// runner does it: BeginChecks, PostCheck per gate, Complete the aggregate.
type evaluation struct {
	c       *ghapi.Client
	started []*ghapi.CheckRun
	earlier map[string]*ghapi.CheckRun
}

func begin(t *testing.T, s *ghfake.Server, opts ...ghapi.Option) *evaluation {
	t.Helper()
	c, _ := newClient(t, s, opts...)
	runs, earlier, err := c.BeginChecks(context.Background(), repo, headSHA, []string{aggregate}, laterGates, deferredExt)
	if err != nil {
		t.Fatal(err)
	}
	return &evaluation{c: c, started: runs, earlier: earlier}
}

func (e *evaluation) finish(t *testing.T, outcome gates.Outcome) {
	t.Helper()
	ctx := context.Background()
	for _, name := range laterGates {
		res := gates.Result{Name: name, Outcome: outcome, Title: name + " " + string(outcome), Findings: findings(1)}
		if _, err := e.c.PostCheck(ctx, repo, headSHA, deferredExt, e.earlier[name], res.Name, report.CheckOutput(res, "")); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.c.Complete(ctx, e.started[0], report.CheckOutput(gates.Result{Name: aggregate, Outcome: outcome, Title: "verdict " + string(outcome)}, "")); err != nil {
		t.Fatal(err)
	}
}

// runsByName is the fake's runs of the commit: "name status/conclusion",
// sorted, with how many runs each name has.
func runsByName(s *ghfake.Server) (map[string]int, []string) {
	count := map[string]int{}
	var all []string
	for _, cr := range s.CheckRuns("octo/demo") {
		count[cr.Name]++
		all = append(all, fmt.Sprintf("%s#%d %s/%s %d annotations", cr.Name, cr.ID, cr.Status, cr.Conclusion, len(cr.Annotations)))
	}
	sort.Strings(all)
	return count, all
}

// Two evaluations of one commit with deferred gate runs, the second
// starting while the first runs: the gate runs are created once, by
// whichever posts first; the other completes them. Before the re-list,
// the second created its own from the lookup at its start.
func TestConcurrentEvaluationsShareGateRuns(t *testing.T) {
	for _, tc := range []struct {
		name string
		// order of the two finishes: "a" then "b", or "b" waits for "a"
		bFirst bool
	}{
		{"the first to start finishes first", false},
		{"the second to start finishes first, waiting for the first", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ghfake.New(t)
			a := begin(t, s)
			b := begin(t, s) // finds a's aggregate in progress, and reuses it
			if b.started[0].ID != a.started[0].ID {
				t.Fatalf("b started aggregate %d, a %d: want one run", b.started[0].ID, a.started[0].ID)
			}
			if tc.bFirst {
				done := make(chan struct{})
				go func() {
					defer close(done)
					b.finish(t, gates.Failed) // waits: a leads
				}()
				time.Sleep(50 * time.Millisecond) // b lists, sees a running, waits
				a.finish(t, gates.Failed)
				select {
				case <-done:
				case <-time.After(30 * time.Second):
					t.Fatal("b never finished")
				}
			} else {
				a.finish(t, gates.Failed)
				b.finish(t, gates.Failed)
			}
			count, all := runsByName(s)
			for _, name := range append([]string{aggregate}, laterGates...) {
				if count[name] != 1 {
					t.Errorf("%d runs of %s, want 1: %v", count[name], name, all)
				}
			}
			for _, cr := range s.CheckRuns("octo/demo") {
				if cr.Status != "completed" || cr.Conclusion != "failure" {
					t.Errorf("%s is %s/%s", cr.Name, cr.Status, cr.Conclusion)
				}
				if cr.Name != aggregate && len(cr.Annotations) != 1 {
					t.Errorf("%s has %d annotations, want 1 (not posted twice)", cr.Name, len(cr.Annotations))
				}
			}
			if n := len(s.CallsTo("checks/create")); n != 3 {
				t.Errorf("%d check runs created, want 3", n)
			}
		})
	}
}

// Two evaluations that both list the commit before either created the
// aggregate each create one (the bound: one extra aggregate per such
// evaluation). The later one follows the earlier: it waits for its gate
// runs and updates them; each writes its verdict on the other's aggregate
// too while that is in progress, so none is left in progress.
func TestConcurrentAggregatesAreTwins(t *testing.T) {
	s := ghfake.New(t)
	a := begin(t, s)
	// b's list does not show a's aggregate yet: as if both listed at once.
	s.Fail(ghfake.Fault{Operation: "checks/list-for-ref", Status: http.StatusOK, Body: `{"total_count":0,"check_runs":[]}`})
	b := begin(t, s)
	if b.started[0].ID == a.started[0].ID {
		t.Fatal("b reused a's aggregate: the case needs two")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.finish(t, gates.Passed) // follower: waits for a
	}()
	time.Sleep(50 * time.Millisecond)
	a.finish(t, gates.Passed)
	<-done
	count, all := runsByName(s)
	if count[aggregate] != 2 {
		t.Errorf("%d aggregates, want 2: %v", count[aggregate], all)
	}
	for _, name := range laterGates {
		if count[name] != 1 {
			t.Errorf("%d runs of %s, want 1: %v", count[name], name, all)
		}
	}
	for _, cr := range s.CheckRuns("octo/demo") {
		if cr.Status != "completed" || cr.Conclusion != "success" {
			t.Errorf("%s#%d is %s/%s, want completed/success", cr.Name, cr.ID, cr.Status, cr.Conclusion)
		}
	}
	// a wrote its verdict on b's aggregate (in progress when a listed).
	var onB int
	for _, c := range s.CallsTo("checks/update") {
		if c.Params["check_run_id"] == fmt.Sprint(b.started[0].ID) && c.Get("status") == "completed" {
			onB++
		}
	}
	if onB != 2 {
		t.Errorf("b's aggregate was completed %d times, want 2 (by a, as its twin, and by b)", onB)
	}
}

// A follower whose leader never posts (it died) waits at most the
// concurrent wait, then creates the gate runs: no check is lost, and the
// leader's aggregate, left in progress, gets the follower's verdict.
func TestFollowerStopsWaitingForADeadLeader(t *testing.T) {
	s := ghfake.New(t)
	a := begin(t, s) // dies: never posts
	s.Fail(ghfake.Fault{Operation: "checks/list-for-ref", Status: http.StatusOK, Body: `{"total_count":0,"check_runs":[]}`})
	b := begin(t, s, ghapi.WithConcurrentWait(600*time.Millisecond))
	start := time.Now()
	b.finish(t, gates.Failed)
	if waited := time.Since(start); waited < 500*time.Millisecond {
		t.Errorf("b waited %v, want about the concurrent wait (600ms)", waited)
	}
	for _, cr := range s.CheckRuns("octo/demo") {
		if cr.Status != "completed" {
			t.Errorf("%s#%d is %s", cr.Name, cr.ID, cr.Status)
		}
		if cr.ID == a.started[0].ID && !strings.HasPrefix(cr.Title, "verdict") {
			t.Errorf("a's aggregate says %q, want b's verdict", cr.Title)
		}
	}
	count, all := runsByName(s)
	if count[aggregate] != 2 || count["swarm/scope"] != 1 || count["swarm/sast"] != 1 {
		t.Errorf("runs %v, want 2 aggregates and one of each gate", all)
	}
}

// ReportCheck completes the run with its name and external id when the
// commit has one, and creates it completed otherwise: one list and one
// write.
func TestReportCheck(t *testing.T) {
	s := ghfake.New(t)
	c, _ := newClient(t, s)
	ctx := context.Background()
	res := gates.Result{Name: aggregate, Outcome: gates.Error, Title: "not evaluated", Summary: "the server shut down"}
	first, err := c.ReportCheck(ctx, repo, headSHA, deferredExt, res.Name, report.CheckOutput(res, ""))
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.ReportCheck(ctx, repo, headSHA, deferredExt, res.Name, report.CheckOutput(res, ""))
	if err != nil {
		t.Fatal(err)
	}
	if first.ID != second.ID || !second.Reused {
		t.Errorf("second report made run %d (reused %v), want run %d again", second.ID, second.Reused, first.ID)
	}
	runs := s.CheckRuns("octo/demo")
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "failure" {
		t.Errorf("runs %+v, want one completed failure", runs)
	}
	if n := len(s.Calls()); n != 4 {
		t.Errorf("%d calls, want 4 (a list and a write, twice)", n)
	}
	if _, err := c.ReportCheck(ctx, repo, "abc", deferredExt, res.Name, report.CheckOutput(res, "")); err == nil || !strings.Contains(err.Error(), "not a full 40-hex commit SHA") {
		t.Errorf("short SHA: %v", err)
	}
}
