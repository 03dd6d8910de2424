package evaluate_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// fakeChecks implements the check-run port in memory; the other ports are
// left nil (a test that reaches them panics).
type fakeChecks struct {
	evaluate.API

	mu        sync.Mutex
	started   []string // StartChecks and BeginChecks' started names
	posted    []string // PostCheck's names
	completed map[string]string
	nextID    int64
}

func (f *fakeChecks) run(name, status string) *ghapi.CheckRun {
	f.nextID++
	return &ghapi.CheckRun{ID: f.nextID, Name: name, Status: status}
}

func (f *fakeChecks) StartChecks(_ context.Context, _ ghapi.Repo, _ string, names []string, _ string) ([]*ghapi.CheckRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var runs []*ghapi.CheckRun
	for _, n := range names {
		f.started = append(f.started, n)
		runs = append(runs, f.run(n, "in_progress"))
	}
	return runs, nil
}

func (f *fakeChecks) BeginChecks(ctx context.Context, repo ghapi.Repo, sha string, start, _ []string, ext string) ([]*ghapi.CheckRun, map[string]*ghapi.CheckRun, error) {
	runs, err := f.StartChecks(ctx, repo, sha, start, ext)
	return runs, nil, err
}

func (f *fakeChecks) PostCheck(_ context.Context, _ ghapi.Repo, _, _ string, _ *ghapi.CheckRun, name string, out ghapi.CheckOutput) (*ghapi.CheckRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posted = append(f.posted, name)
	f.completed[name] = out.Conclusion
	return f.run(name, ghapi.StatusCompleted), nil
}

func (f *fakeChecks) Complete(_ context.Context, run *ghapi.CheckRun, out ghapi.CheckOutput) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	run.Status, run.Conclusion = ghapi.StatusCompleted, out.Conclusion
	f.completed[run.Name] = out.Conclusion
	return nil
}

func (f *fakeChecks) Fail(ctx context.Context, run *ghapi.CheckRun, reason string) error {
	return f.Complete(ctx, run, ghapi.CheckOutput{Conclusion: "failure", Title: reason})
}

var sha = strings.Repeat("a", 40)

func results() *report.Report {
	return &report.Report{Head: sha, Gates: []gates.Result{
		{Name: "swarm/scope", Outcome: gates.Passed, Title: "ok"},
		{Name: "swarm/sast", Outcome: gates.Failed, Title: "1 new finding"},
	}}
}

// TestPostDeferred: with DeferGateRuns only the aggregate is started; each
// gate's run is posted once, completed; the aggregate is completed last
// with the verdict, and nothing is left in progress.
func TestPostDeferred(t *testing.T) {
	for _, deferred := range []bool{false, true} {
		f := &fakeChecks{completed: map[string]string{}}
		var tracked int
		d := &evaluate.Deps{API: f, DeferGateRuns: deferred, Track: func(runs ...*ghapi.CheckRun) { tracked += len(runs) }}
		names := []string{evaluate.AggregateCheck, "swarm/scope", "swarm/sast"}
		cs := evaluate.Start(context.Background(), d, sha, names, "pull_request")
		agg, res := evaluate.Post(context.Background(), results(), cs, time.Minute, nil, nil)
		wantStarted := 3
		if deferred {
			wantStarted = 1
			if len(f.posted) != 2 {
				t.Errorf("deferred: posted %v, want the two gates", f.posted)
			}
		}
		if len(f.started) != wantStarted || tracked != wantStarted {
			t.Errorf("deferred %v: started %v (tracked %d), want %d", deferred, f.started, tracked, wantStarted)
		}
		if agg.Outcome != gates.Failed || len(res) != 2 || cs.Status != evaluate.Posted || cs.Stuck != 0 {
			t.Errorf("deferred %v: aggregate %s, %d results, status %d, stuck %d", deferred, agg.Outcome, len(res), cs.Status, cs.Stuck)
		}
		if f.completed[evaluate.AggregateCheck] != "failure" || f.completed["swarm/scope"] != "success" {
			t.Errorf("deferred %v: completed %v", deferred, f.completed)
		}
	}
}

// TestStartWithoutAPI: no client is no token: nothing is posted, the set
// says why, and the aggregate is still the verdict.
func TestStartWithoutAPI(t *testing.T) {
	d := &evaluate.Deps{NoAPI: errors.New("no token")}
	cs := evaluate.Start(context.Background(), d, sha, evaluate.CheckNames([]gates.Gate{gates.Scope{}}), "push")
	if cs.Status != evaluate.NoToken || cs.Why() != evaluate.NoTokenChecks {
		t.Fatalf("status %d, why %q", cs.Status, cs.Why())
	}
	agg, _ := evaluate.Post(context.Background(), results(), cs, time.Minute, nil, nil)
	if agg.Name != evaluate.AggregateCheck || agg.Outcome != gates.Passed {
		t.Errorf("aggregate %s %s, want swarm-gate passed (the report's swarm/scope)", agg.Name, agg.Outcome)
	}
}

// TestExternalIDs: the check runs' external ids tell evaluations, and
// workflows and jobs, apart.
func TestExternalIDs(t *testing.T) {
	key := evaluate.WorkflowKey("swarm-gate", "verify")
	cases := []struct{ kind, want string }{
		{"pull_request", "swarm-gate:pull_request:9e993e2f32cd"},
		{"merge_group", "swarm-gate:merge_group:9e993e2f32cd"},
	}
	for _, tc := range cases {
		if got := evaluate.ExternalID(tc.kind, key); got != tc.want {
			t.Errorf("ExternalID(%s) = %s, want %s", tc.kind, got, tc.want)
		}
	}
	if key == evaluate.WorkflowKey("swarm-gate", "other") || key == evaluate.WorkflowKey("poster", "verify") {
		t.Error("two jobs share a key")
	}
}
