package actionrun_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// TestUnusableAPIURL: a GITHUB_API_URL that parses but is not GitHub's
// REST API (the web site, another path, another scheme, a query) is the
// workflow's mistake: exit 3 with a message naming GITHUB_API_URL and why,
// in the main step and in the post step, without a panic and without
// evaluating as if there were no token.
func TestUnusableAPIURL(t *testing.T) {
	cases := []struct{ url, why string }{
		{"https://github.com", "that is the web site, not the API"},
		{"https://api.github.com/v3", "the path must be empty or /api/v3"},
		{"https://host/some/path", "the path must be empty or /api/v3"},
		{"ftp://x", "the scheme must be https or http"},
		{"https://ghe.example.com/api/v3?x=1", "no query or fragment allowed"},
	}
	for _, mode := range []string{"check", "cleanup"} {
		for _, tc := range cases {
			t.Run(mode+" "+tc.url, func(t *testing.T) {
				h := newHarness(t, "Codertocat/Hello-World")
				h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
				h.env["GITHUB_API_URL"] = tc.url
				var overrides map[string]string
				if mode == "cleanup" {
					overrides = map[string]string{"mode": "cleanup"}
					h.env["STATE_check_runs"] = `{"repo":"Codertocat/Hello-World","runs":[{"id":1001,"name":"swarm-gate"}]}`
				}
				if code := h.run(context.Background(), overrides); code != 3 {
					t.Fatalf("exit %d, want 3\n%s", code, h.log.String())
				}
				log := h.log.String()
				want := fmt.Sprintf("GITHUB_API_URL %q is not the URL of GitHub's REST API: %s", tc.url, tc.why)
				if !strings.Contains(log, "::error::") || !strings.Contains(log, want) || strings.Contains(log, "no token") {
					t.Errorf("log lacks %q (or talks of no token):\n%s", want, log)
				}
				out := h.outputs()
				if mode == "check" && out["conclusion"] != "failure" {
					t.Errorf("conclusion output %q, want failure", out["conclusion"])
				}
				if mode == "cleanup" && len(out) != 0 {
					t.Errorf("the post step set outputs: %v", out)
				}
			})
		}
	}
}

// TestNoCheckPostedIsNoPass: gates that pass do not make the step pass
// when no check could be posted: without a token (exit 2, unless fail-on:
// never) and when the API fails (exit 2); the conclusion output is failure
// in both, since the checks did not reach the pull request. A fork's
// read-only token keeps its leniency (TestForkPullRequestFallsBack).
func TestNoCheckPostedIsNoPass(t *testing.T) {
	cases := []struct {
		name     string
		setup    func(h *harness)
		failOn   string
		wantCode int
		wantLog  string
	}{
		{"no token", func(h *harness) { delete(h.env, "INPUT_GITHUB-TOKEN") }, "", 2,
			"::error::swarm-gate: no token: the checks could not be posted; pass github-token or give the workflow a GITHUB_TOKEN"},
		{"no token, fail-on never", func(h *harness) { delete(h.env, "INPUT_GITHUB-TOKEN") }, "never", 0,
			"::error::swarm-gate: no token: the checks could not be posted"},
		{"the API answers 500", func(h *harness) {
			h.fake.Fail(ghfake.Fault{Operation: "checks/list-for-ref", Times: -1, Status: http.StatusInternalServerError})
		}, "", 2, "::error::swarm-gate: check runs could not be started"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
			h.env["INPUT_CHECKS"] = "plan-freeze" // passes on the demo
			if tc.failOn != "" {
				h.env["INPUT_FAIL-ON"] = tc.failOn
			}
			tc.setup(h)
			if code := h.run(context.Background(), nil); code != tc.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tc.wantCode, h.log.String())
			}
			if !strings.Contains(h.log.String(), tc.wantLog) {
				t.Errorf("log lacks %q:\n%s", tc.wantLog, h.log.String())
			}
			if out := h.outputs(); out["conclusion"] != "failure" || out["plan-freeze"] != "success" {
				t.Errorf("outputs %v: want conclusion failure (not reported) and plan-freeze success (the gate's own)", out)
			}
			if len(h.runs()) != 0 {
				t.Errorf("runs %v", h.runs())
			}
		})
	}
}

// panicOnce is a transport that panics on the nth request matching
// method, once, and passes every other request on.
type panicOnce struct {
	method string
	nth    int32
	seen   atomic.Int32
}

func (p *panicOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == p.method && p.seen.Add(1) == p.nth {
		panic("injected panic")
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestCrashIsRecovered: a panic (here in the transport, during the third
// check-run update) is recovered: the panic and its stack are logged at
// error level, every check run still in progress is completed as failure
// with "swarm-gate crashed: ...; this is a bug, please report it", the
// conclusion output is failure, and the step exits 2 even with fail-on:
// never. The post step recovers the same way.
func TestCrashIsRecovered(t *testing.T) {
	const title = "could not evaluate: swarm-gate crashed: injected panic; this is a bug, please report it"
	t.Run("main step", func(t *testing.T) {
		h := newHarness(t, "Codertocat/Hello-World")
		h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
		h.env["INPUT_FAIL-ON"] = "never"
		h.hc = &http.Client{Transport: &panicOnce{method: http.MethodPatch, nth: 3}}
		if code := h.run(context.Background(), nil); code != 2 {
			t.Fatalf("exit %d, want 2\n%s", code, h.log.String())
		}
		crashed := 0
		for _, r := range h.fake.CheckRuns(h.repo) {
			if r.Status != "completed" {
				t.Errorf("%s left %s", r.Name, r.Status)
			}
			if r.Title == title {
				crashed++
				if r.Conclusion != "failure" {
					t.Errorf("%s: %s", r.Name, r.Conclusion)
				}
			}
		}
		// The gates are reported a few at once: the other gates' updates
		// went through; the panicking one's run and the aggregate's (sent
		// after the gates) were completed as crashed.
		if crashed != 2 {
			t.Errorf("%d runs completed as crashed, want 2", crashed)
		}
		if out := h.outputs(); out["conclusion"] != "failure" {
			t.Errorf("outputs %v", out)
		}
		logs := h.logs.String()
		if !strings.Contains(logs, "level=ERROR") || !strings.Contains(logs, "panic=\"injected panic\"") || !strings.Contains(logs, "stack=") {
			t.Errorf("slog output lacks the panic and its stack:\n%s", logs)
		}
		if !strings.Contains(h.log.String(), "::error::swarm-gate crashed: injected panic; this is a bug, please report it") {
			t.Errorf("log:\n%s", h.log.String())
		}
		if s := h.summary(); !strings.Contains(s, "swarm-gate crashed") {
			t.Errorf("summary:\n%s", s)
		}
	})
	t.Run("post step", func(t *testing.T) {
		h := newHarness(t, "Codertocat/Hello-World")
		h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
		id := h.fake.AddCheckRun(h.repo, ghfake.CheckRun{Name: "swarm/scope", HeadSHA: h.head, Status: "in_progress", ExternalID: "k"})
		h.env["STATE_check_runs"] = fmt.Sprintf(`{"repo":"Codertocat/Hello-World","runs":[{"id":%d,"name":"swarm/scope"}]}`, id)
		h.hc = &http.Client{Transport: &panicOnce{method: http.MethodPatch, nth: 1}}
		if code := h.run(context.Background(), map[string]string{"mode": "cleanup"}); code != 2 {
			t.Fatalf("exit %d, want 2\n%s", code, h.log.String())
		}
		if r := h.storedRun("swarm/scope"); r.Status != "completed" || r.Conclusion != "failure" || r.Title != title {
			t.Errorf("swarm/scope: %s/%s %q", r.Status, r.Conclusion, r.Title)
		}
	})
}

// TestStopBeforeEvaluating: a run that stops before evaluating (a bad
// input, a missing or malformed event, a mode the event cannot serve)
// still sets the conclusion output to failure and says why in the step
// summary, so that later steps and the run's page show it.
func TestStopBeforeEvaluating(t *testing.T) {
	cases := []struct {
		name      string
		overrides map[string]string
		edit      func(h *harness)
		wantCode  int
		want      string
	}{
		{"bad input", map[string]string{"phase": "two"}, nil, 3, `input phase: "two" is not a phase number`},
		{"no event payload", nil, func(h *harness) { delete(h.env, "GITHUB_EVENT_PATH") }, 3, "GITHUB_EVENT_PATH is not set"},
		{"no event payload file", nil, func(h *harness) { h.env["GITHUB_EVENT_PATH"] = filepath.Join(h.t.TempDir(), "missing.json") }, 3, "missing.json"},
		{"a pull_request payload without its pull request", nil, func(h *harness) {
			h.event("pull_request", "", func(p map[string]any) { p["action"] = "synchronize" })
		}, 3, "the pull_request payload at GITHUB_EVENT_PATH has no pull_request object"},
		{"mode command on a pull request", map[string]string{"mode": "command"}, nil, 3, "mode command runs on issue_comment events, not pull_request"},
		{"mode publish on a pull request", map[string]string{"mode": "publish"}, nil, 3, "mode publish runs on workflow_run events, not pull_request"},
		{"report-dir with a line break", map[string]string{"report-dir": "out\nx"}, nil, 3, "input report-dir: \"out\\nx\" holds a line break"},
		{"report-dir inside .git", map[string]string{"report-dir": ".git/hooks"}, nil, 3, "input report-dir: \".git/hooks\" is inside .git"},
		{"report-dir .GIT", map[string]string{"report-dir": ".GIT"}, nil, 3, "is inside .git"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
			if tc.edit != nil {
				tc.edit(h)
			}
			if code := h.run(context.Background(), tc.overrides); code != tc.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tc.wantCode, h.log.String())
			}
			if !strings.Contains(h.log.String(), tc.want) {
				t.Errorf("log lacks %q:\n%s", tc.want, h.log.String())
			}
			if out := h.outputs(); out["conclusion"] != "failure" {
				t.Errorf("outputs %v, want conclusion failure", out)
			}
			s := h.summary()
			if !strings.Contains(s, "## swarm-gate: the action is misconfigured") || !strings.Contains(s, tc.want[:min(20, len(tc.want))]) {
				t.Errorf("summary:\n%s", s)
			}
			if len(h.fake.Calls()) != 0 {
				t.Errorf("%d API requests", len(h.fake.Calls()))
			}
		})
	}
}

// TestLogIsGroupedAndErrorsAreAnnotated: the text report and the API
// diagnostics are collapsed groups of the log; "could not evaluate" is an
// ::error:: annotation titled swarm-gate, so it shows among the run's
// annotations.
func TestLogIsGroupedAndErrorsAreAnnotated(t *testing.T) {
	h := newHarness(t, "Codertocat/Hello-World")
	missing := strings.Repeat("ab", 20)
	h.event("pull_request", "pull_request/synchronize.json", func(p map[string]any) {
		h.pullRequest("synchronize", "Codertocat/Hello-World")(p)
		sharedtest.SetPath(p, "pull_request.base.sha", missing)
	})
	if code := h.run(context.Background(), nil); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	log := h.log.String()
	for _, want := range []string{
		"::group::swarm-gate: the report of " + h.head[:12] + "\n::stop-commands::",
		"::endgroup::\n::error title=swarm-gate::could not evaluate: base: ",
		"::group::swarm-gate: GitHub API\n::stop-commands::",
		"requests sent: ",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if g, e := strings.Count(log, "::group::"), strings.Count(log, "::endgroup::"); g != 2 || e != 2 {
		t.Errorf("%d groups, %d ends", g, e)
	}
}

// TestMessagesNameTheActionsInputs: errors a gate gives about the sarif
// and phase settings name the Action's inputs, not only the CLI's flags.
func TestMessagesNameTheActionsInputs(t *testing.T) {
	cases := []struct {
		name  string
		check string
		edit  func(h *harness)
		want  string
	}{
		{"an unreadable SARIF log", "swarm/sast", func(h *harness) {
			if err := os.WriteFile(filepath.Join(h.workspace, "bad.sarif"), []byte("not json"), 0o644); err != nil {
				t.Fatal(err)
			}
			h.env["INPUT_SARIF"] = "bad.sarif"
			h.env["INPUT_CHECKS"] = "sast"
		}, "the Action's sarif input"},
		{"a branch naming a phase the plan lacks", "swarm-gate", func(h *harness) {
			h.env["INPUT_HEAD-BRANCH"] = "swarm/phase-9"
		}, "the Action's phase input"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
			tc.edit(h)
			h.run(context.Background(), nil)
			r := h.storedRun(tc.check)
			if !strings.Contains(r.Title+r.Summary, tc.want) {
				t.Errorf("%s: %q\n%s", tc.check, r.Title, r.Summary)
			}
		})
	}
}

// TestPermissionAdviceOnlyForRefusals: reading the queued pull request of
// a merge group fails; only a 403 or 404 is answered with "give the
// workflow permissions: pull-requests: read", not a 401 or a 500.
func TestPermissionAdviceOnlyForRefusals(t *testing.T) {
	for _, tc := range []struct {
		status int
		advice bool
	}{{http.StatusForbidden, true}, {http.StatusNotFound, true}, {http.StatusUnauthorized, false}, {http.StatusInternalServerError, false}} {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			h := newHarness(t, "octo-org/octo-repo")
			h.event("merge_group", "merge_group/checks_requested.json", func(p map[string]any) {
				sharedtest.SetPath(p, "merge_group.base_sha", h.base)
				sharedtest.SetPath(p, "merge_group.head_sha", h.head)
				sharedtest.SetPath(p, "repository.full_name", h.repo)
			})
			h.fake.Fail(ghfake.Fault{Operation: "pulls/get", Times: -1, Status: tc.status})
			h.run(context.Background(), nil)
			log := h.log.String()
			if !strings.Contains(log, "reading pull request #104 of the merge group") {
				t.Fatalf("log:\n%s", log)
			}
			if got := strings.Contains(log, "permissions: pull-requests: read"); got != tc.advice {
				t.Errorf("advice given: %v, want %v:\n%s", got, tc.advice, log)
			}
		})
	}
}
