package app_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/swarm-gate/swarm-gate/internal/app"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/webhook"
)

// reconcileSetup is the harness's App and webhook server with a
// reconciler, the demo's phase pull request (#2) open on testRepo, and
// the installation able to reach testRepo.
type reconcileSetup struct {
	h   *harness
	srv *server
	rec *app.Reconciler
	reg *prometheus.Registry
}

func newReconcileSetup(t *testing.T, edit func(*app.ReconcileConfig)) *reconcileSetup {
	t.Helper()
	h := newHarness(t)
	reg := prometheus.NewRegistry()
	// A stuck evaluation's runs look like another replica's evaluation in
	// progress: the new one waits for it only briefly here.
	a := h.newApp(func(c *app.Config) { c.Registerer = reg; c.ConcurrentWait = 100 * time.Millisecond })
	srv := h.newServer(a, "replica")
	h.fake.SetInstallationRepos(installationID, testRepo)
	h.fake.AddPullRequest(testRepo, ghfake.PullRequest{Number: 2, Title: "phase 1", HeadRef: demo.HeadBranch, HeadSHA: h.head,
		BaseRef: demo.BaseBranch, BaseSHA: h.base})
	cfg := app.ReconcileConfig{Interval: time.Hour, Deadline: 10 * time.Minute, Enqueue: srv.Enqueue}
	if edit != nil {
		edit(&cfg)
	}
	rec, err := a.NewReconciler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &reconcileSetup{h: h, srv: srv, rec: rec, reg: reg}
}

func (s *reconcileSetup) pass(t *testing.T) app.PassResult {
	t.Helper()
	res, err := s.rec.Pass(context.Background())
	if err != nil {
		t.Fatalf("reconcile pass: %v", err)
	}
	if len(res.Errors) > 0 {
		t.Errorf("reconcile pass errors: %v", res.Errors)
	}
	return res
}

// uniqueCompleted fails the test unless every check run of testRepo is
// completed and no gate has two runs on one head; it returns how many.
func uniqueCompleted(t *testing.T, h *harness) int {
	t.Helper()
	seen := map[string]int{}
	for _, cr := range h.fake.CheckRuns(testRepo) {
		k := fmt.Sprintf("%s@%.7s", cr.Name, cr.HeadSHA)
		seen[k]++
		if cr.Status != "completed" {
			t.Errorf("%s is %s, want completed", k, cr.Status)
		}
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%d check runs %s, want 1", n, k)
		}
	}
	return len(seen)
}

// TestReconcileMissing: a pull request whose head has no check run of the
// App (its delivery was lost) is evaluated by the next pass; the pass
// after that finds its checks and queues nothing.
func TestReconcileMissing(t *testing.T) {
	s := newReconcileSetup(t, nil)
	res := s.pass(t)
	if res.Installations != 1 || res.Repos != 1 || res.PRs != 1 || res.Missing != 1 || res.Stuck != 0 {
		t.Fatalf("first pass %+v, want 1 installation, 1 repo, 1 pull request, 1 missing", res)
	}
	s.h.waitCompleted(s.h.head)
	// The aggregate completes before the evaluation ends (its last calls,
	// the summary comment): wait for the server to be idle, or those calls
	// count as the second pass's.
	waitFor(t, func() bool { return s.srv.idle(t) })
	before := len(s.h.fake.Calls())
	res = s.pass(t)
	if res.Missing != 0 || res.Stuck != 0 || res.PRs != 1 {
		t.Errorf("second pass %+v, want the pull request scanned and nothing queued", res)
	}
	ops := map[string]int{}
	for _, c := range s.h.fake.Calls()[before:] {
		ops[c.Operation]++
	}
	// The token is cached; the pass reads 4 lists and the budget.
	want := map[string]int{"apps/list-installations": 1, "rate-limit/get": 1, "apps/list-repos-accessible-to-installation": 1, "pulls/list": 1, "checks/list-for-ref": 1}
	if fmt.Sprint(ops) != fmt.Sprint(want) {
		t.Errorf("a pass with nothing to do made %v, want %v", ops, want)
	}
	if got := demoRuns(s.h.head); uniqueCompleted(t, s.h) != len(got) {
		t.Errorf("runs %v, want %v", s.h.runs(), got)
	}
	if n := counterOf(t, s.reg, "swarm_gate_reconcile_evaluations_total", "reason", "missing"); n != 1 {
		t.Errorf("swarm_gate_reconcile_evaluations_total{reason=missing} = %v, want 1", n)
	}
	if n := counterOf(t, s.reg, "swarm_gate_reconcile_prs_scanned_total", "", ""); n != 2 {
		t.Errorf("swarm_gate_reconcile_prs_scanned_total = %v, want 2", n)
	}
}

// TestReconcileStuck: check runs left in progress by a replica that died
// are completed by a new evaluation once past the deadline, updating the
// dead replica's runs rather than adding some; before the deadline they
// are left alone.
func TestReconcileStuck(t *testing.T) {
	ext := "swarm-gate:pull_request:" + externalKey()
	for _, tc := range []struct {
		name    string
		age     time.Duration
		stuck   int
		runName string // in progress; a gate's comes with a completed aggregate
	}{
		{"aggregate past the deadline and its margin", 12 * time.Minute, 1, "swarm-gate"},
		// The App creates its gate runs completed: one in progress is not
		// the App's evaluation dying (and only the aggregate is read).
		{"gate run in progress, the aggregate completed", 12 * time.Minute, 0, "swarm/scope"},
		{"aggregate just past the deadline, within the margin", 10*time.Minute + 30*time.Second, 0, "swarm-gate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newReconcileSetup(t, func(c *app.ReconcileConfig) { c.Deadline = 10 * time.Minute })
			if tc.runName != app.AggregateCheck {
				s.h.fake.AddCheckRun(testRepo, ghfake.CheckRun{AppID: appID, AppSlug: appSlug, Name: app.AggregateCheck, HeadSHA: s.h.head, ExternalID: ext, Status: "completed", Conclusion: "failure"})
			}
			s.h.fake.AddCheckRun(testRepo, ghfake.CheckRun{AppID: appID, AppSlug: appSlug, Name: tc.runName, HeadSHA: s.h.head, ExternalID: ext, Status: "in_progress",
				StartedAt: time.Now().Add(-tc.age).UTC().Truncate(time.Second)})
			res := s.pass(t)
			if res.Stuck != tc.stuck || res.Missing != 0 {
				t.Fatalf("pass %+v, want %d stuck, 0 missing", res, tc.stuck)
			}
			if tc.stuck == 0 {
				return
			}
			s.h.waitCompleted(s.h.head)
			s.srv.drain(t)
			if n := uniqueCompleted(t, s.h); n != len(demoRuns(s.h.head)) {
				t.Errorf("%d check runs, want %d: %v", n, len(demoRuns(s.h.head)), s.h.runs())
			}
		})
	}
}

// TestReconcileBudget: an installation with less budget left than the
// minimum is skipped and counted; the others are scanned.
func TestReconcileBudget(t *testing.T) {
	s := newReconcileSetup(t, func(c *app.ReconcileConfig) { c.MinBudget = 100 })
	const poor = installationID + 1
	s.h.fake.AddInstallation(appID, poor)
	s.h.fake.SetInstallationRepos(poor, "someone/else")
	s.h.fake.SetRateLimitRemaining(poor, 99)
	res := s.pass(t)
	if res.Installations != 2 || res.Skipped != 1 || res.Repos != 1 || res.Missing != 1 {
		t.Errorf("pass %+v, want 2 installations, 1 skipped, 1 repository scanned, 1 missing", res)
	}
	if n := counterOf(t, s.reg, "swarm_gate_reconcile_installations_skipped_total", "reason", "budget"); n != 1 {
		t.Errorf("swarm_gate_reconcile_installations_skipped_total{reason=budget} = %v, want 1", n)
	}
	for _, c := range s.h.fake.Calls() {
		if strings.Contains(c.Path, "someone/else") {
			t.Errorf("the skipped installation's repository was read: %s %s", c.Method, c.Path)
		}
	}
}

// TestReconcileBusy: a pull request whose key has a job waiting or
// running on this replica (a delivery being evaluated) is left to it.
func TestReconcileBusy(t *testing.T) {
	var s *reconcileSetup
	s = newReconcileSetup(t, func(c *app.ReconcileConfig) {
		c.Enqueue = func(j webhook.Job) webhook.EnqueueResult {
			if j.Key != testRepo+"#2" || j.Event != "pull_request" || j.HeadSHA != s.h.head || !j.Coalesce || j.Installation != installationID {
				t.Errorf("job %+v: want pull_request, key %s#2, head %s, coalescing", j, testRepo, s.h.head)
			}
			return webhook.EnqueueBusy
		}
	})
	if res := s.pass(t); res.Busy != 1 || res.Missing != 0 {
		t.Errorf("pass %+v, want 1 busy, nothing queued", res)
	}
}

// TestReconcileSkips: a pull request updated within the grace period
// (its deliveries are on their way), and one whose App runs are completed
// while a run of another workflow (the Action's external id) is stuck, are
// not queued.
func TestReconcileSkips(t *testing.T) {
	for _, tc := range []struct {
		name  string
		grace time.Duration
		runs  []ghfake.CheckRun
	}{
		{name: "updated within the grace period", grace: 100 * 365 * 24 * time.Hour},
		{name: "another workflow's run stuck", runs: []ghfake.CheckRun{
			{Name: "swarm-gate", ExternalID: "swarm-gate:pull_request:" + externalKey(), Status: "completed", Conclusion: "success"},
			{Name: "swarm/scope", ExternalID: "swarm-gate:pull_request:0123456789ab", Status: "in_progress", StartedAt: time.Now().Add(-time.Hour)},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newReconcileSetup(t, func(c *app.ReconcileConfig) { c.Grace = tc.grace })
			for _, cr := range tc.runs {
				cr.HeadSHA, cr.AppID, cr.AppSlug = s.h.head, appID, appSlug
				s.h.fake.AddCheckRun(testRepo, cr)
			}
			if res := s.pass(t); res.PRs != 1 || res.Missing != 0 || res.Stuck != 0 {
				t.Errorf("pass %+v, want 1 pull request scanned, nothing queued", res)
			}
		})
	}
}

// counterOf is the value of a registered counter (with one label, or
// none).
func counterOf(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			ok := label == ""
			for _, lp := range m.GetLabel() {
				if lp.GetName() == label && lp.GetValue() == value {
					ok = true
				}
			}
			if ok {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no metric %s{%s=%q}", name, label, value)
	return 0
}

// reconcileCost sets up n open pull requests whose heads all have the
// App's completed checks (the steady state) and returns a reconciler that
// fails the test if it queues anything.
func reconcileCost(tb testing.TB, h *harness, n int) *app.Reconciler {
	tb.Helper()
	h.fake.SetInstallationRepos(installationID, testRepo)
	ext := "swarm-gate:pull_request:" + externalKey()
	for i := 1; i <= n; i++ {
		head := fmt.Sprintf("%040x", 0xc0ffee00+i)
		h.fake.AddPullRequest(testRepo, ghfake.PullRequest{Number: i, HeadRef: fmt.Sprintf("topic-%d", i), HeadSHA: head, BaseRef: demo.BaseBranch, BaseSHA: h.base})
		h.fake.AddCheckRun(testRepo, ghfake.CheckRun{AppID: appID, AppSlug: appSlug, Name: app.AggregateCheck, HeadSHA: head, ExternalID: ext, Status: "completed", Conclusion: "success"})
	}
	a := h.newApp(nil)
	rec, err := a.NewReconciler(app.ReconcileConfig{Deadline: 10 * time.Minute, Enqueue: func(j webhook.Job) webhook.EnqueueResult {
		tb.Errorf("the steady state queued %s", j.Delivery)
		return webhook.EnqueueBusy
	}})
	if err != nil {
		tb.Fatal(err)
	}
	return rec
}

// TestReconcileCost measures the API requests of a reconcile pass over
// 100 open pull requests whose checks are all there (bench/RESULTS.md,
// docs/app.md): GET /app/installations, GET /rate_limit, GET
// /installation/repositories, one page of GET .../pulls, and one GET
// .../commits/{sha}/check-runs per pull request; the installation token is
// minted on the first pass only (it lives an hour).
func TestReconcileCost(t *testing.T) {
	const prs = 100
	h := newHarness(t)
	rec := reconcileCost(t, h, prs)
	for pass := 1; pass <= 2; pass++ {
		before := len(h.fake.Calls())
		res, err := rec.Pass(context.Background())
		if err != nil || len(res.Errors) > 0 || res.PRs != prs {
			t.Fatalf("pass %d: %+v, %v", pass, res, err)
		}
		ops := map[string]int{}
		calls := h.fake.Calls()[before:]
		notModified, charged := 0, 0
		for _, c := range calls {
			ops[c.Operation]++
			switch {
			case c.Status == http.StatusNotModified:
				notModified++
			case c.Operation != "rate-limit/get" && c.Operation != "apps/list-installations" && c.Operation != "apps/create-installation-access-token":
				charged++ // on the installation's budget
			}
		}
		want, wantCharged := prs+4, prs+2
		if pass == 1 {
			want++ // the installation token
		} else {
			// Nothing changed: every list is 304 but the page of open pull
			// requests, too large to keep (100 of them, 2 MB here).
			wantCharged = 1
		}
		t.Logf("reconcile pass %d over %d open pull requests: %d API requests, %d of them 304 Not Modified, %d on the installation's rate limit: %v",
			pass, prs, len(calls), notModified, charged, ops)
		if len(calls) != want || ops["checks/list-for-ref"] != prs || charged != wantCharged {
			t.Errorf("pass %d: %d requests, %d charged, want %d and %d (one check-run list per pull request): %v", pass, len(calls), charged, want, wantCharged, ops)
		}
	}
}

// TestReconcileBudgetFalls: when an answer during the pass says the
// installation's budget fell under the minimum, the installation's pass
// stops there (skipped, counted), leaving the requests to the evaluations.
func TestReconcileBudgetFalls(t *testing.T) {
	h := newHarness(t)
	rec := reconcileCost(t, h, 3)
	h.fake.Fail(ghfake.Fault{Method: "GET", Operation: "checks/list-for-ref", Header: ghfake.RateLimitHeaders(50, time.Now().Add(time.Hour))})
	res, err := rec.Pass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.PRs != 1 || res.Skipped != 1 || len(res.Errors) != 0 {
		t.Errorf("pass %+v, want 1 pull request scanned, then the installation skipped, no errors", res)
	}
	if n := len(h.fake.CallsTo("checks/list-for-ref")); n != 1 {
		t.Errorf("%d check-run lists, want 1: the pass goes on under the budget", n)
	}
}
