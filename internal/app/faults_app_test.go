package app_test

// The App's API call sites under faults (issue 11, item 3). An App job is
// one Evaluate: mint the installation token, learn the App's bot login
// (once), fetch the commits (git over HTTPS, not the REST API: see
// TestFetchFailureFailsTheChecks), then the Action's runner with deferred
// gate runs. What a failure must lead to:
//
//	operation                              what a failure leads to
//	apps/create-installation-access-token  no run started; Evaluate fails (the delivery is redelivered)
//	apps/get-authenticated                 the bot login is unknown: override records are not trusted (fail closed); the verdict stands
//	checks/list-for-ref                    no run started; Evaluate fails
//	checks/create                          no run started (the aggregate is created first), or a gate's run posted as failure; Evaluate fails
//	checks/update                          the aggregate is completed as failure when it can be; when GitHub never answers, it stays in
//	                                       progress, Evaluate fails, and the redelivery completes it
//	issues/list-comments                   evaluated without overrides (a warning); the verdict stands
//
// Whatever the fault: no run concludes success unless its own result was
// reported, and after the redelivery of a failed job (the App's recovery)
// no run is left in progress.

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/app"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/webhook"
)

// appFault is one kind of fault, put on the site's operation.
type appFault struct {
	name     string
	fault    ghfake.Fault
	recovers bool
}

var appFaults = []appFault{
	{"502 once", ghfake.Fault{Status: http.StatusBadGateway}, true},
	{"secondary rate limit (Retry-After) once", ghfake.SecondaryRateLimit(1), true},
	{"503 every time", ghfake.Fault{Status: http.StatusServiceUnavailable, Times: -1}, false},
	{"secondary rate limit (Retry-After) every time", appTimes(ghfake.SecondaryRateLimit(1), -1), false},
	{"404 every time", ghfake.Fault{Status: http.StatusNotFound, Times: -1}, false},
	{"timeout every time", ghfake.Fault{Hang: true, Times: -1}, false},
	{"connection reset every time", ghfake.Fault{Reset: true, Times: -1}, false},
}

func appTimes(f ghfake.Fault, n int) ghfake.Fault {
	f.Times = n
	return f
}

// appWant is what a faulted job must end with.
type appWant struct {
	// err is what Evaluate's error must hold ("" : no error).
	err string
	// runs are the stored conclusions by check name; nil means the demo's
	// (demoRuns); "" is a run in progress.
	runs map[string]string
	// redeliver: the job failed with runs in progress; its redelivery,
	// with the API back, completes them as the demo's.
	redeliver bool
	// log is a record the App's log must hold ("" none).
	log string
}

type appSite struct {
	op    string
	want  func(f appFault) appWant
	extra []appFault
}

var noRuns = map[string]string{}

var appSites = []appSite{
	{op: "apps/create-installation-access-token", want: func(f appFault) appWant {
		if f.recovers || strings.HasSuffix(f.name, "once") {
			return appWant{}
		}
		return appWant{err: "minting an installation token for installation 77", runs: noRuns}
	}, extra: []appFault{
		// A second token does no harm: a mint is resent after a broken
		// connection too.
		{"timeout once", ghfake.Fault{Hang: true}, true},
		{"connection reset once", ghfake.Fault{Reset: true}, true},
	}},
	{op: "apps/get-authenticated", want: func(f appFault) appWant {
		if f.recovers {
			return appWant{}
		}
		return appWant{log: "the App's bot login is unknown: override records are not trusted in this evaluation"}
	}},
	{op: "checks/list-for-ref", want: func(f appFault) appWant {
		if f.recovers {
			return appWant{}
		}
		return appWant{err: "check runs could not be started", runs: noRuns}
	}},
	{op: "checks/create", want: func(f appFault) appWant {
		if f.recovers {
			return appWant{}
		}
		return appWant{err: "check runs could not be started", runs: noRuns}
	}},
	{op: "checks/update", want: func(f appFault) appWant {
		if f.recovers {
			return appWant{}
		}
		runs := map[string]string{}
		for _, r := range demoRuns("") {
			runs[r.Name] = r.Conclusion
		}
		runs["swarm-gate"] = "" // its completion never got through
		return appWant{err: "exited 2", runs: runs, redeliver: true}
	}},
	{op: "issues/list-comments", want: func(f appFault) appWant {
		if f.recovers {
			return appWant{}
		}
		return appWant{log: "reading the human overrides recorded on pull request #2"}
	}},
}

// TestAppUnderAPIFaults: every REST call site of an App job under every
// fault kind; see the file's comment for what each must lead to. The
// transport's waits are recorded, not slept; a hanging request is cut
// after a short per-attempt timeout.
func TestAppUnderAPIFaults(t *testing.T) {
	sem := make(chan struct{}, 6)
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, site := range appSites {
		for _, f := range append(append([]appFault(nil), appFaults...), site.extra...) {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				t.Run(site.op+"/"+f.name, func(t *testing.T) { runAppFault(t, site, f) })
			}()
		}
	}
}

// runAppFault runs one job under one fault on one call site.
func runAppFault(t *testing.T, site appSite, f appFault) {
	want := site.want(f)
	h := newHarness(t)
	var mu sync.Mutex
	var waits []time.Duration
	a := h.newApp(func(cfg *app.Config) {
		cfg.Sleep = func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			waits = append(waits, d)
			mu.Unlock()
			return ctx.Err()
		}
		if f.fault.Hang {
			cfg.AttemptTimeout = 600 * time.Millisecond
		}
	})
	fault := f.fault
	fault.Operation = site.op
	h.fake.Fail(fault)
	job := h.job("d-fault")
	start := time.Now()
	err := a.Evaluate(context.Background(), job)
	if d := time.Since(start); d > time.Minute {
		t.Errorf("the job took %s", d)
	}
	if (err == nil) != (want.err == "") || (err != nil && !strings.Contains(err.Error(), want.err)) {
		t.Errorf("Evaluate: %v, want an error holding %q", err, want.err)
	}
	calls := 0
	for _, c := range h.fake.CallsTo(site.op) {
		if c.Status == 0 || c.Status >= 400 {
			calls++
		}
	}
	if calls == 0 {
		t.Errorf("the fault was never hit: %v", h.fake.Calls())
	}
	if calls > 30 {
		t.Errorf("%d faulted %s requests", calls, site.op)
	}
	mu.Lock()
	for _, d := range waits {
		if d > time.Minute+time.Second {
			t.Errorf("a wait of %s", d)
		}
	}
	mu.Unlock()
	if want.log != "" && !strings.Contains(h.logs.String(), want.log) {
		t.Errorf("the log lacks %q", want.log)
	}
	wantRuns := want.runs
	if wantRuns == nil {
		wantRuns = demoConclusions()
	}
	checkConclusions(t, h, wantRuns)
	if want.redeliver {
		h.fake.ClearFaults()
		if err := a.Evaluate(context.Background(), job); err != nil {
			t.Errorf("the redelivery: %v", err)
		}
		checkConclusions(t, h, demoConclusions())
	}
}

// job is the demo's pull_request synchronize as the webhook server queues
// it.
func (h *harness) job(delivery string) webhook.Job {
	return webhook.Job{Delivery: delivery, Event: "pull_request", Action: "synchronize", Repo: testRepo, Installation: installationID,
		PR: 2, HeadSHA: h.head, Key: testRepo + "#2", Coalesce: true, Payload: h.synchronize(nil), Received: time.Now()}
}

func demoConclusions() map[string]string {
	out := map[string]string{}
	for _, r := range demoRuns("") {
		out[r.Name] = r.Conclusion
	}
	return out
}

// checkConclusions compares the stored runs' conclusions by name ("" for
// a run in progress) and refuses duplicates and unearned successes.
func checkConclusions(t *testing.T, h *harness, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, cr := range h.fake.CheckRuns(testRepo) {
		if _, dup := got[cr.Name]; dup {
			t.Errorf("%s is duplicated", cr.Name)
		}
		c := cr.Conclusion
		if cr.Status != "completed" {
			c = ""
		}
		got[cr.Name] = c
	}
	if len(got) != len(want) {
		t.Errorf("check runs %v, want %v", got, want)
	}
	for name, c := range want {
		if got[name] != c {
			t.Errorf("%s: %q, want %q", name, got[name], c)
		}
	}
	for name, c := range got {
		if c == "success" && want[name] != "success" {
			t.Errorf("%s concluded success", name)
		}
	}
}
