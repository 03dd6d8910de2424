package actionrun_test

// The Action's API call sites under faults (issue 11, item 3).
//
// Each row of actionSites is one call site in one kind of run; each is run
// under every fault kind (faultKinds), against the fake GitHub, with the
// transport's waits recorded instead of slept and a short per-attempt
// timeout for the hanging faults. What a failure must lead to:
//
//	run          operation                                what a failure leads to
//	pull request checks/list-for-ref                      no run started: exit 2, conclusion output failure
//	pull request checks/create                            no run started (the aggregate is created first): exit 2
//	pull request checks/update                            the Finaliser completes what it can as failure; what it cannot, the post step does; exit 2
//	pull request issues/list-comments                     evaluated without overrides (a warning); the verdict stands
//	override     issues/list-comments                     evaluated without the override: the gate it covered fails (exit 1)
//	override     checks/list-suites-for-ref               the override is ignored (when GitHub first saw its head is unknown): the gate it covered fails (exit 1)
//	demo         checks/update (with annotations)         as above; annotations never posted twice
//	re-run       checks/list-annotations                  the reused runs are completed as failure; exit 2
//	merge group  pulls/get                                the phase comes from the plan (a warning)
//	post step    checks/get, checks/update                exit 2 (the last resort: the run stays in progress only if GitHub never answers)
//	publish      pulls/list                               nothing posted for the fork's pull request: exit 2
//	phase-wrap   pulls/list                               only the checkout's commit is checked (a warning)
//	/swarm help  reactions, pulls/get, issues/list-comments, checks/list-for-ref, issues/create-comment
//	                                                      a warning; a refusal reply; a reply without the state; exit 2 when no reply can be posted
//	/swarm recheck repos/get-collaborator-permission-level refused (fail closed): no evaluation
//	/swarm approve checks/list-suites-for-ref             refused (fail closed: when GitHub first saw the head is unknown): no record, no evaluation
//	/swarm approve git/get-ref (a deleted branch), git/create-commit, git/update-ref
//	                                                      not committed: the reply says why and is the record; the head is evaluated with it
//
// Whatever the fault: no check run is left in progress (after the post
// step, which the runner always runs), none concludes success unless its
// own result was reported, the exit code is the one above, and the step's
// conclusion output is failure whenever the exit code is 2.

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/actionrun"
	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// faultAttemptTimeout is the transport's AttemptTimeout when the fault
// hangs.
const faultAttemptTimeout = 600 * time.Millisecond

// actionFault is one kind of fault, put on the site's operation.
type actionFault struct {
	name  string
	fault ghfake.Fault
	// recovers is true when the transport (or the client) gets through:
	// the run must end as it would without the fault.
	recovers bool
}

var actionFaults = []actionFault{
	{"502 once", ghfake.Fault{Status: http.StatusBadGateway}, true},
	{"secondary rate limit (Retry-After) once", ghfake.SecondaryRateLimit(1), true},
	{"503 every time", ghfake.Fault{Status: http.StatusServiceUnavailable, Times: -1}, false},
	{"secondary rate limit (Retry-After) every time", withTimes(ghfake.SecondaryRateLimit(1), -1), false},
	{"404 every time", ghfake.Fault{Status: http.StatusNotFound, Times: -1}, false},
	{"timeout every time", ghfake.Fault{Hang: true, Times: -1}, false},
	{"connection reset every time", ghfake.Fault{Reset: true, Times: -1}, false},
}

func withTimes(f ghfake.Fault, times int) ghfake.Fault {
	f.Times = times
	return f
}

// actionWant is what a faulted run must end with.
type actionWant struct {
	code int
	// runs are the stored check runs' conclusions by name ("name" or
	// "name@<7 hex>" when a name is on several commits); nil means the
	// scenario's baseline.
	runs map[string]string
	// log is a line the step log (or the reply) must hold; "" none.
	log string
	// reply is what the one comment swarm-gate posts must hold; "" none
	// expected, "-" no comment posted.
	reply string
	// stuck: the main step leaves runs in progress that the post step
	// completes as failure.
	stuck bool
	// stays: the run the post step is about stays in progress (the post
	// step is the last resort).
	stays bool
}

// actionScenario is one kind of run: its setup (with the API working),
// its inputs, and its result without a fault.
type actionScenario struct {
	name     string
	setup    func(h *harness)
	inputs   map[string]string
	baseline actionWant
	// checkBaseline judges the baseline run further (nil: nothing more).
	checkBaseline func(t *testing.T, h *harness)
}

// actionSite is a call site in a scenario; want says what each fault
// kind must lead to.
type actionSite struct {
	scenario *actionScenario
	op       string
	want     func(f actionFault) actionWant
	// extra are faults for this site only; skip names faults of
	// actionFaults another site covers already (to keep the test short).
	extra []actionFault
	skip  []string
}

const passingChecks = "plan-freeze" // passes on the demo

var (
	prScenario = &actionScenario{name: "pull request",
		setup: func(h *harness) {
			h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", h.repo))
			h.env["INPUT_CHECKS"] = passingChecks
		},
		baseline: actionWant{code: 0, runs: map[string]string{"swarm-gate": "success", "swarm/plan-freeze": "success"}}}

	overrideScenario = &actionScenario{name: "override",
		setup: func(h *harness) {
			// An approval recorded by a comment only: the commit to the
			// branch is refused, so the comment is the record.
			h.editPlanOnHead()
			h.fake.ImportGit(h.repo, h.workspace)
			h.commandPR()
			h.fake.SetPermission(h.repo, "maint", "write")
			h.fake.Fail(ghfake.Fault{Operation: "git/update-ref", Status: http.StatusForbidden, Times: -1,
				Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest"}`})
			h.commentEvent("created", "maint", "/swarm approve-plan-critic the edit is bookkeeping")
			h.env["INPUT_CHECKS"] = passingChecks
			h.run(context.Background(), nil)
			h.fake.ClearFaults()
			if len(h.replies()) != 1 {
				h.t.Fatalf("the override was not recorded:\n%s", h.log.String())
			}
			h.prSeven()
		},
		baseline: actionWant{code: 0, runs: map[string]string{"swarm-gate": "success", "swarm/plan-freeze": "success"}}}

	demoScenario = &actionScenario{name: "demo",
		setup: func(h *harness) {
			h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", h.repo))
		},
		baseline: actionWant{code: 1, runs: demoConclusions}}

	rerunScenario = &actionScenario{name: "re-run",
		setup: func(h *harness) {
			h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", h.repo))
			if code := h.run(context.Background(), nil); code != 1 {
				h.t.Fatalf("first attempt: exit %d", code)
			}
		},
		baseline: actionWant{code: 1, runs: demoConclusions}}

	mergeGroupScenario = &actionScenario{name: "merge group",
		setup: func(h *harness) {
			h.event("merge_group", "merge_group/checks_requested.json", func(p map[string]any) {
				sharedtest.SetPath(p, "merge_group.base_sha", h.base)
				sharedtest.SetPath(p, "merge_group.head_sha", h.head)
				sharedtest.SetPath(p, "merge_group.head_ref", "refs/heads/gh-readonly-queue/main/pr-104-"+h.base)
				sharedtest.SetPath(p, "repository.full_name", h.repo)
			})
			h.fake.AddPullRequest(h.repo, ghfake.PullRequest{Number: 104, User: "alice", HeadRef: demo.HeadBranch, HeadSHA: h.head, BaseRef: "main", BaseSHA: h.base})
			h.env["INPUT_CHECKS"] = passingChecks
		},
		baseline: actionWant{code: 0, runs: map[string]string{"swarm-gate": "success", "swarm/plan-freeze": "success"}}}

	postStepScenario = &actionScenario{name: "post step",
		setup: func(h *harness) {
			h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", h.repo))
			id := h.fake.AddCheckRun(h.repo, ghfake.CheckRun{Name: "swarm-gate", HeadSHA: h.head, ExternalID: "x", Status: "in_progress"})
			h.env["STATE_check_runs"] = fmt.Sprintf(`{"repo":%q,"runs":[{"id":%d,"name":"swarm-gate"}]}`, h.repo, id)
		},
		inputs:   map[string]string{"mode": "cleanup"},
		baseline: actionWant{code: 0, runs: map[string]string{"swarm-gate": "failure"}}}

	publishScenario = &actionScenario{name: "publish",
		setup: func(h *harness) {
			h.fake.AddPullRequest(h.repo, ghfake.PullRequest{Number: 9, User: "mallory", HeadRepo: forkRepo, HeadRef: demo.HeadBranch, HeadSHA: h.head, BaseRef: "main", BaseSHA: h.base})
			h.workflowRun(h.head, forkRepo)
			h.env["INPUT_CHECKS"] = passingChecks
		},
		inputs:   map[string]string{"mode": "publish"},
		baseline: actionWant{code: 0, runs: map[string]string{"swarm-gate": "success", "swarm/plan-freeze": "success"}}}

	phaseWrapScenario = &actionScenario{name: "phase-wrap",
		setup: func(h *harness) {
			h.event("schedule", "", func(p map[string]any) { p["schedule"] = "17 6 * * *" })
			h.env["GITHUB_SHA"], h.env["GITHUB_REF"] = h.base, "refs/heads/main"
			h.fake.AddPullRequest(h.repo, ghfake.PullRequest{Number: 5, HeadRef: demo.HeadBranch, HeadSHA: h.head, BaseRef: "main", BaseSHA: h.base})
		},
		baseline: actionWant{code: 1, runs: nil}, // set in init: two commits
	}

	helpScenario = &actionScenario{name: "/swarm help",
		setup: func(h *harness) {
			h.commandPR()
			h.commentEvent("created", "anyone", "/swarm help")
		},
		baseline: actionWant{code: 0, runs: map[string]string{}, reply: "`/swarm recheck`"}}

	recheckScenario = &actionScenario{name: "/swarm recheck",
		setup: func(h *harness) {
			h.commandPR()
			h.fake.SetPermission(h.repo, "maint", "write")
			h.commentEvent("created", "maint", "/swarm recheck")
			h.env["INPUT_CHECKS"] = passingChecks
		},
		baseline: actionWant{code: 0, runs: map[string]string{"swarm-gate": "success", "swarm/plan-freeze": "success"}}}

	approveScenario = &actionScenario{name: "/swarm approve-plan-critic",
		setup: func(h *harness) {
			h.editPlanOnHead()
			h.fake.ImportGit(h.repo, h.workspace)
			h.commandPR()
			h.fake.SetPermission(h.repo, "maint", "write")
			h.commentEvent("created", "maint", "/swarm approve-plan-critic the edit is bookkeeping")
			h.env["INPUT_CHECKS"] = passingChecks
		},
		// On the new head, the commit the record made.
		baseline: actionWant{code: 0, runs: map[string]string{"swarm-gate": "success", "swarm/plan-freeze": "success"}, reply: "Committed to branch"},
		checkBaseline: func(t *testing.T, h *harness) {
			if h.fake.Branch(h.repo, demo.HeadBranch) == h.head {
				t.Error("the record was not committed")
			}
		}}
)

// demoConclusions are the demo's check runs' conclusions (demoRuns).
var demoConclusions = func() map[string]string {
	out := map[string]string{}
	for _, r := range demoRuns("", "") {
		out[r.Name] = r.Conclusion
	}
	return out
}()

func init() {
	phaseWrapScenario.baseline.runs = map[string]string{"swarm/phase-wrap@base": "failure", "swarm/phase-wrap@head": "failure"}
}

// Categories of outcome.
func same(s *actionScenario) actionWant { return s.baseline }

func warned(s *actionScenario, log string) actionWant {
	w := s.baseline
	w.log = log
	return w
}

func notStarted(log string) actionWant {
	return actionWant{code: 2, runs: map[string]string{}, log: log}
}

var actionSites = []actionSite{
	{scenario: prScenario, op: "checks/list-for-ref", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(prScenario)
		}
		return notStarted("::error::swarm-gate: check runs could not be started")
	}},
	{scenario: prScenario, op: "checks/create", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(prScenario)
		}
		return notStarted("::error::swarm-gate: check runs could not be started")
	}},
	{scenario: prScenario, op: "checks/update", want: func(f actionFault) actionWant {
		switch {
		case f.recovers:
			return same(prScenario)
		case f.name == "503 on one request (all its attempts)":
			// plan-freeze's report fails; the Finaliser completes it, the
			// aggregate says it could not be reported.
			return actionWant{code: 2, runs: map[string]string{"swarm-gate": "failure", "swarm/plan-freeze": "failure"},
				log: "check runs could not be reported, so those left were completed as failure"}
		}
		return actionWant{code: 2, runs: map[string]string{"swarm-gate": "failure", "swarm/plan-freeze": "failure"}, stuck: true,
			log: "could not be completed as failure either"}
	}, extra: []actionFault{{"503 on one request (all its attempts)", ghfake.Fault{Status: http.StatusServiceUnavailable, Times: 3}, false}}},
	{scenario: prScenario, op: "issues/list-comments", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(prScenario)
		}
		return warned(prScenario, "::warning::swarm-gate: reading the human overrides recorded on pull request #2")
	}},
	{scenario: overrideScenario, op: "issues/list-comments", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(overrideScenario)
		}
		// Fail closed: without the override, plan-freeze fails.
		return actionWant{code: 1, runs: map[string]string{"swarm-gate": "failure", "swarm/plan-freeze": "failure"},
			log: "::warning::swarm-gate: reading the human overrides recorded on pull request #7"}
	}},
	{scenario: overrideScenario, op: "checks/list-suites-for-ref", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(overrideScenario)
		}
		// Fail closed: the marker's head cannot be dated, so the
		// override does not hold and plan-freeze fails.
		return actionWant{code: 1, runs: map[string]string{"swarm-gate": "failure", "swarm/plan-freeze": "failure"},
			log: "swarm-gate cannot tell when GitHub first saw its head"}
	}},
	{scenario: demoScenario, op: "checks/update", want: func(f actionFault) actionWant {
		if f.recovers || strings.HasPrefix(f.name, "502 once on an update with annotations") {
			return same(demoScenario)
		}
		all := map[string]string{}
		for name := range demoConclusions {
			all[name] = "failure"
		}
		return actionWant{code: 2, runs: all, stuck: true, log: "could not be completed as failure either"}
	}, extra: []actionFault{
		// swarm/scope's update, the third, carries its annotation.
		{"502 once on an update with annotations (not applied)", ghfake.Fault{Status: http.StatusBadGateway, Nth: 3}, true},
		{"502 once on an update with annotations (applied)", ghfake.Fault{Status: http.StatusBadGateway, Nth: 3, AfterApplying: true}, true},
	},
		// Nine runs completed one after another, each waiting out its
		// attempts: the pull request scenario shows the same in less time.
		skip: []string{"timeout every time"}},
	{scenario: rerunScenario, op: "checks/list-annotations", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(rerunScenario)
		}
		// The runs reused with annotations could not be reported: they
		// are failures anyway, now saying so; the aggregate says which.
		return actionWant{code: 2, runs: demoConclusions, log: "could not be reported"}
	}},
	{scenario: mergeGroupScenario, op: "pulls/get", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(mergeGroupScenario)
		}
		return warned(mergeGroupScenario, "::warning::swarm-gate: reading pull request #104 of the merge group")
	}},
	{scenario: postStepScenario, op: "checks/get", want: postStepWant},
	{scenario: postStepScenario, op: "checks/update", want: postStepWant},
	{scenario: publishScenario, op: "pulls/list", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(publishScenario)
		}
		return notStarted("finding the pull request of workflow run 777")
	}},
	{scenario: phaseWrapScenario, op: "pulls/list", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(phaseWrapScenario)
		}
		return actionWant{code: 1, runs: map[string]string{"swarm/phase-wrap": "failure"},
			log: "::warning::swarm-gate: phase-wrap: listing the open pull requests"}
	}},
	{scenario: helpScenario, op: "reactions/create-for-issue-comment", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(helpScenario)
		}
		w := warned(helpScenario, "::warning::swarm-gate: reacting")
		return w
	}},
	{scenario: helpScenario, op: "pulls/get", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(helpScenario)
		}
		return actionWant{code: 0, runs: map[string]string{}, reply: "swarm-gate refused this command: swarm-gate could not read the pull request"}
	}},
	{scenario: helpScenario, op: "issues/list-comments", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(helpScenario)
		}
		return actionWant{code: 0, runs: map[string]string{}, reply: "`/swarm recheck`", log: "::warning::swarm-gate: reading the human overrides"}
	}},
	{scenario: helpScenario, op: "checks/list-for-ref", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(helpScenario)
		}
		return actionWant{code: 0, runs: map[string]string{}, reply: "The state of the checks could not be read"}
	}},
	{scenario: helpScenario, op: "issues/create-comment", want: func(f actionFault) actionWant {
		if f.name == "secondary rate limit (Retry-After) once" {
			return same(helpScenario) // GitHub applied nothing: resent
		}
		// Never resent after a failure that leaves it open: no reply
		// rather than two.
		return actionWant{code: 2, runs: map[string]string{}, reply: "-", log: "::error::replying to comment"}
	}},
	{scenario: recheckScenario, op: "repos/get-collaborator-permission-level", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(recheckScenario)
		}
		return actionWant{code: 0, runs: map[string]string{}, reply: "could not read @maint's permission on the repository, so it refuses (fail closed)"}
	}},
	{scenario: approveScenario, op: "checks/list-suites-for-ref", want: func(f actionFault) actionWant {
		if f.recovers {
			return same(approveScenario)
		}
		// Fail closed: when GitHub first saw the head is unknown, so the
		// command is refused: no record, no commit, no evaluation.
		return actionWant{code: 0, runs: map[string]string{}, reply: "swarm-gate refused this command: swarm-gate could not read when GitHub first saw head "}
	}},
	{scenario: approveScenario, op: "git/get-ref", want: approveWant},
	{scenario: approveScenario, op: "git/create-commit", want: approveWant},
	{scenario: approveScenario, op: "git/update-ref", want: approveWant},
}

// postStepWant: the post step cannot complete the run when GitHub does not
// answer: it says so and exits 2; the run stays in progress.
func postStepWant(f actionFault) actionWant {
	if f.recovers {
		return same(postStepScenario)
	}
	return actionWant{code: 2, runs: map[string]string{"swarm-gate": ""}, stays: true,
		log: "post step: completing the check runs left in progress"}
}

// approveWant: when the record cannot be committed, the reply says so and
// is the record: the old head is evaluated with it (plan-freeze passes).
func approveWant(f actionFault) actionWant {
	if f.recovers {
		return same(approveScenario)
	}
	return actionWant{code: 0, runs: map[string]string{"swarm-gate": "success", "swarm/plan-freeze": "success"}, reply: "Not committed to the branch"}
}

// prSeven points the environment at a pull_request synchronize of #7.
func (h *harness) prSeven() {
	edit := h.pullRequest("synchronize", h.repo)
	h.event("pull_request", "pull_request/synchronize.json", func(p map[string]any) {
		edit(p)
		p["number"] = 7
		sharedtest.SetPath(p, "pull_request.number", 7)
	})
}

// demoRepo is the demo repository built once, copied into each case's
// workspace (building it is most of a case's time).
type demoRepo struct {
	dir, base, head string
}

func buildDemo(t *testing.T) demoRepo {
	t.Helper()
	d := demoRepo{dir: t.TempDir()}
	var err error
	if d.base, d.head, err = demo.Build(d.dir); err != nil {
		t.Fatal(err)
	}
	return d
}

// newHarnessFrom is newHarness with a copy of the demo repository d.
func newHarnessFrom(t *testing.T, d demoRepo) *harness {
	t.Helper()
	workspace := t.TempDir()
	if err := os.CopyFS(workspace, os.DirFS(d.dir)); err != nil {
		t.Fatal(err)
	}
	return newHarnessIn(t, "Codertocat/Hello-World", workspace, d.base, d.head)
}

// faultRun runs the action as h.run does, recording the transport's waits
// instead of sleeping, with attemptTimeout per attempt (0: the default).
func (h *harness) faultRun(overrides map[string]string, attemptTimeout time.Duration, waits *waitLog) int {
	h.t.Helper()
	opts := []ghapi.Option{ghapi.WithSleep(waits.sleep)}
	if attemptTimeout > 0 {
		opts = append(opts, ghapi.WithAttemptTimeout(attemptTimeout))
	}
	r := &actionrun.Runner{
		Env:             actions.NewEnv(actions.MapLookup(h.env)),
		Stdout:          &h.log,
		Logger:          slog.New(slog.NewTextHandler(&h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Overrides:       overrides,
		Version:         "test",
		BotLogin:        ghfake.Login,
		HTTPClient:      &http.Client{Transport: &http.Transport{DisableKeepAlives: true}},
		ClientOptions:   opts,
		FinaliseTimeout: 5 * time.Second,
	}
	return r.Run(context.Background())
}

// waitLog records the transport's waits.
type waitLog struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waitLog) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

func (w *waitLog) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

// conclusions are the stored runs' conclusions by name, or by name@base /
// name@head when a name is on more than one commit.
func (h *harness) conclusions() (map[string]string, []string) {
	out := map[string]string{}
	count := map[string]int{}
	runs := h.fake.CheckRuns(h.repo)
	for _, cr := range runs {
		count[cr.Name]++
	}
	var inProgress []string
	for _, cr := range runs {
		key := cr.Name
		if count[cr.Name] > 1 {
			switch cr.HeadSHA {
			case h.base:
				key += "@base"
			case h.head:
				key += "@head"
			default:
				key += "@" + cr.HeadSHA[:7]
			}
		}
		if _, dup := out[key]; dup {
			key += "(again)"
		}
		out[key] = cr.Conclusion
		if cr.Status != "completed" {
			inProgress = append(inProgress, key)
		}
	}
	return out, inProgress
}

// TestActionUnderAPIFaults: every call site of the Action under every
// fault kind (see the file's comment for what each must lead to).
func TestActionUnderAPIFaults(t *testing.T) {
	tmpl := buildDemo(t)
	t.Run("baselines", func(t *testing.T) {
		seen := map[*actionScenario]bool{}
		for _, site := range actionSites {
			if seen[site.scenario] {
				continue
			}
			seen[site.scenario] = true
			sc := site.scenario
			t.Run(sc.name, func(t *testing.T) {
				h := newHarnessFrom(t, tmpl)
				sc.setup(h)
				code := h.faultRun(sc.inputs, 0, &waitLog{})
				checkActionRun(t, h, sc, code, sc.baseline, nil)
				if sc.checkBaseline != nil {
					sc.checkBaseline(t, h)
				}
			})
		}
	})
	// The cases run a few at a time: most of their time is spent waiting
	// on hanging requests, which t.Parallel's limit would serialise.
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, site := range actionSites {
		for _, f := range append(append([]actionFault(nil), actionFaults...), site.extra...) {
			if slices.Contains(site.skip, f.name) {
				continue
			}
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				t.Run(site.scenario.name+"/"+site.op+"/"+f.name, func(t *testing.T) { runActionFault(t, tmpl, site, f) })
			}()
		}
	}
}

// runActionFault runs one call site under one fault.
func runActionFault(t *testing.T, tmpl demoRepo, site actionSite, f actionFault) {
	want := site.want(f)
	h := newHarnessFrom(t, tmpl)
	site.scenario.setup(h)
	before := len(h.fake.CallsTo(site.op))
	fault := f.fault
	fault.Operation = site.op
	h.fake.Fail(fault)
	var timeout time.Duration
	if fault.Hang {
		timeout = faultAttemptTimeout
	}
	waits := &waitLog{}
	start := time.Now()
	code := h.faultRun(site.scenario.inputs, timeout, waits)
	elapsed := time.Since(start)
	calls := len(h.fake.CallsTo(site.op)) - before
	checkActionRun(t, h, site.scenario, code, want, waits.all())
	if calls == 0 {
		t.Errorf("the fault was never hit: no %s request", site.op)
	}
	// Bounded: each logical request is sent at most 3 times
	// (MaxAttempts), and a run makes only so many.
	if calls > 60 {
		t.Errorf("%d %s requests", calls, site.op)
	}
	if elapsed > 30*time.Second {
		t.Errorf("the step took %s", elapsed)
	}
}

// checkActionRun judges a run (and the post step, when the main step left
// runs in progress) against want.
func checkActionRun(t *testing.T, h *harness, sc *actionScenario, code int, want actionWant, waits []time.Duration) {
	t.Helper()
	log := h.log.String()
	if code != want.code {
		t.Errorf("exit %d, want %d\n%s", code, want.code, log)
	}
	if want.log != "" && !strings.Contains(log, want.log) {
		t.Errorf("log lacks %q:\n%s", want.log, log)
	}
	if sc.inputs["mode"] != "cleanup" {
		out := h.outputs()
		if code == 2 && out["conclusion"] != "" && out["conclusion"] != "failure" {
			t.Errorf("exit 2 with conclusion output %q", out["conclusion"])
		}
	}
	for _, d := range waits {
		if d > time.Minute+time.Second {
			t.Errorf("a wait of %s", d)
		}
	}
	_, inProgress := h.conclusions()
	state := parseHeredocFile(t, h.env["GITHUB_STATE"])["check_runs"]
	switch {
	case want.stuck:
		if len(inProgress) == 0 || state == "" {
			t.Errorf("want runs left in progress for the post step (in progress %v, state %q)", inProgress, state)
		}
		// The runner's post step, with the API back.
		h.fake.ClearFaults()
		h.env["STATE_check_runs"] = state
		h.log.Reset()
		if pcode := h.faultRun(map[string]string{"mode": "cleanup"}, 0, &waitLog{}); pcode != 0 {
			t.Errorf("post step: exit %d\n%s", pcode, h.log.String())
		}
	case len(inProgress) > 0 && !want.stays:
		t.Errorf("runs left in progress: %v (state %q)", inProgress, state)
	}
	got, inProgress := h.conclusions()
	if len(inProgress) > 0 && !want.stays {
		t.Errorf("runs in progress at the end: %v", inProgress)
	}
	wantRuns := want.runs
	if wantRuns == nil {
		wantRuns = sc.baseline.runs
	}
	if fmt.Sprint(got) != fmt.Sprint(wantRuns) {
		t.Errorf("check runs %v, want %v\n%s", got, wantRuns, log)
	}
	for name, c := range got {
		if c == "success" && wantRuns[name] != "success" {
			t.Errorf("%s concluded success", name)
		}
	}
	for _, cr := range h.fake.CheckRuns(h.repo) {
		if cr.Status == "completed" && cr.Conclusion == "failure" && want.code == 2 && sc.baseline.runs[cr.Name] == "success" &&
			!strings.HasPrefix(cr.Title, "could not evaluate") && !strings.Contains(cr.Title, "could not be reported") {
			t.Errorf("%s: failure without saying it could not evaluate or report: %q", cr.Name, cr.Title)
		}
	}
	comments := h.fake.Comments(h.repo, 7)
	var replies []string
	for _, c := range comments {
		if c.User == ghfake.Login {
			replies = append(replies, c.Body)
		}
	}
	switch want.reply {
	case "":
	case "-":
		if len(replies) != 0 {
			t.Errorf("replies posted: %q", replies)
		}
	default:
		if len(replies) != 1 || !strings.Contains(replies[0], want.reply) {
			t.Errorf("replies %q, want one holding %q", replies, want.reply)
		}
	}
}
