package actionrun_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

const forkRepo = "fork-owner/Hello-World"

// workflowRun points the environment at a workflow_run event for the
// fork's pull request run 777 on commit head.
func (h *harness) workflowRun(head, headRepo string) {
	h.event("workflow_run", "", func(p map[string]any) {
		p["action"] = "completed"
		p["workflow_run"] = map[string]any{
			"id": 777, "name": "swarm-gate", "event": "pull_request", "status": "completed", "conclusion": "failure",
			"run_attempt": 1, "head_sha": head, "head_branch": demo.HeadBranch, "html_url": h.fake.WebURL + "/" + h.repo + "/actions/runs/777",
			"head_repository": map[string]any{"full_name": headRepo}, "repository": map[string]any{"full_name": h.repo},
			"pull_requests": []any{},
		}
		sharedtest.SetPath(p, "repository.full_name", h.repo)
	})
	// The poster is another workflow: its runs have their own key.
	h.env["GITHUB_WORKFLOW"], h.env["GITHUB_JOB"] = "swarm-gate fork poster", "publish"
}

// writeArtifact writes a report as the fork's run would have (edit may
// forge it) and returns its path relative to the workspace.
func (h *harness) writeArtifact(rep map[string]any) string {
	h.t.Helper()
	data, err := json.Marshal(rep)
	if err != nil {
		h.t.Fatal(err)
	}
	dir := filepath.Join(h.workspace, "fork-report")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), data, 0o644); err != nil {
		h.t.Fatal(err)
	}
	return "fork-report/report.json"
}

// artifactReport is a report in the JSON contract's shape: every default
// gate with outcome, scope failing with one finding when failScope.
func artifactReport(base, head string, failScope bool) map[string]any {
	var gs []any
	outcome := "passed"
	for _, name := range []string{"swarm/plan-freeze", "swarm/critic", "swarm/scope", "swarm/placeholders", "swarm/sast", "swarm/evidence", "swarm/drift", "swarm/plan-lint"} {
		g := map[string]any{"name": name, "outcome": "passed", "title": "ok", "summary": "<img src=https://evil.example/x.png> [click](https://evil.example)", "findings": []any{}}
		if name == "swarm/scope" && failScope {
			g["outcome"], g["title"] = "failed", "1 changed file outside the scope of phase 1"
			g["findings"] = []any{map[string]any{"path": "main.go", "rule": "scope/out-of-scope", "severity": "error", "message": "main.go is outside the scope"}}
			outcome = "failed"
		}
		gs = append(gs, g)
	}
	return map[string]any{"version": 1, "outcome": outcome, "exit_code": 0, "base": base, "head": head, "merge_base": base,
		"phase": 1, "phase_source": "branch", "gates": gs, "tool": map[string]any{"name": "swarm-gate", "version": "x"}}
}

// TestPublishReEvaluates: with the fork's head commit fetched into the
// checkout, the poster evaluates it itself and posts that verdict, not the
// (here forged) report of the fork's run.
func TestPublishReEvaluates(t *testing.T) {
	h := newHarness(t, "Codertocat/Hello-World")
	h.fake.AddPullRequest(h.repo, ghfake.PullRequest{Number: 9, Title: "phase 1", User: "mallory", HeadRepo: forkRepo,
		HeadRef: demo.HeadBranch, HeadSHA: h.head, BaseRef: "main", BaseSHA: h.base})
	h.workflowRun(h.head, forkRepo)
	report := h.writeArtifact(artifactReport(h.base, h.head, false)) // claims all passed
	if code := h.run(context.Background(), map[string]string{"mode": "publish", "report": report}); code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, h.log.String(), h.logs.String())
	}
	key := "swarm-gate:pull_request:" + externalKey("swarm-gate fork poster", "publish")
	if got, want := h.runs(), demoRuns(h.head, key); !reflect.DeepEqual(got, want) {
		t.Errorf("check runs:\n got %v\nwant %v", got, want)
	}
	agg := h.storedRun("swarm-gate")
	if agg.Title != demoTitle || !strings.Contains(agg.Summary, "Evaluated here, from the pull request's commits read as data") {
		t.Errorf("aggregate %q:\n%s", agg.Title, agg.Summary)
	}
	if !strings.Contains(h.log.String(), "::warning::swarm-gate: swarm/scope: the pull request's own run reported passed, the evaluation here says failed") {
		t.Errorf("the forged report is not called out:\n%s", h.log.String())
	}
	if c := h.fake.CallsTo("pulls/list"); len(c) != 1 || c[0].Query.Get("head") != "fork-owner:"+demo.HeadBranch || c[0].Query.Get("state") != "open" {
		t.Errorf("pull request lookup: %+v", c)
	}
}

// TestPublishFromTheArtifact: without the head commit, the checks come
// from the fork's report, checked and bound to the commit, and say that
// they were not re-evaluated: its failures are shown, and what it says
// passed could not be evaluated (so a forged report cannot pass); a report
// that fails the checks fails every check closed.
func TestPublishFromTheArtifact(t *testing.T) {
	absent := strings.Repeat("c0ffee", 6) + "c0ff"
	cases := []struct {
		name        string
		report      func(base string) map[string]any
		wantCode    int
		wantRuns    map[string]string // name -> conclusion
		wantAggHas  string
		wantAggHead string
	}{
		{"a valid report", func(base string) map[string]any { return artifactReport(base, absent, true) }, 2,
			map[string]string{"swarm-gate": "failure", "swarm/scope": "failure", "swarm/plan-freeze": "failure"},
			"**Not re-evaluated:**", "could not evaluate 7 of 8 checks"},
		// A forged report can claim anything: without the head commit,
		// nothing it says passed may pass.
		{"a report claiming every check passed", func(base string) map[string]any { return artifactReport(base, absent, false) }, 2,
			map[string]string{"swarm-gate": "failure", "swarm/scope": "failure", "swarm/plan-freeze": "failure", "swarm/critic": "failure"},
			"which it could have forged", "could not evaluate 8 of 8 checks"},
		{"a report about another commit", func(base string) map[string]any { return artifactReport(base, strings.Repeat("d", 40), false) }, 2,
			map[string]string{"swarm-gate": "failure", "swarm/scope": "failure", "swarm/plan-freeze": "failure"},
			"cannot be used: head", "could not evaluate: the head commit c0ffeec0ffee is not in the checkout and the report of workflow run 777 cannot be used: head"},
		{"a report with a gate missing", func(base string) map[string]any {
			r := artifactReport(base, absent, false)
			r["gates"] = r["gates"].([]any)[1:]
			return r
		}, 2, map[string]string{"swarm-gate": "failure", "swarm/plan-freeze": "failure", "swarm/critic": "failure"},
			"the report has no result for this check", "could not evaluate 8 of 8 checks: swarm/plan-freeze"},
		{"a report against another base (here the head itself)", func(base string) map[string]any {
			r := artifactReport(base, absent, true)
			r["base"], r["merge_base"] = absent, absent
			return r
		}, 2, map[string]string{"swarm-gate": "failure", "swarm/scope": "failure", "swarm/plan-freeze": "failure"},
			"but the pull request's base is", "could not evaluate: the head commit c0ffeec0ffee is not in the checkout"},
		{"a report with a path outside the repository", func(base string) map[string]any {
			r := artifactReport(base, absent, true)
			g := r["gates"].([]any)[2].(map[string]any)
			g["findings"].([]any)[0].(map[string]any)["path"] = "../../etc/passwd"
			return r
		}, 2, map[string]string{"swarm-gate": "failure", "swarm/scope": "failure"},
			"is not a clean repository-relative path", "could not evaluate: the head commit c0ffeec0ffee is not in the checkout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			h.fake.AddPullRequest(h.repo, ghfake.PullRequest{Number: 9, Title: "phase 1", User: "mallory", HeadRepo: forkRepo,
				HeadRef: demo.HeadBranch, HeadSHA: absent, BaseRef: "main", BaseSHA: h.base})
			h.workflowRun(absent, forkRepo)
			report := h.writeArtifact(tc.report(h.base))
			if code := h.run(context.Background(), map[string]string{"mode": "publish", "report": report}); code != tc.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tc.wantCode, h.log.String())
			}
			runs := h.runs()
			if len(runs) != 9 {
				t.Fatalf("%d runs: %v", len(runs), runs)
			}
			for _, r := range runs {
				if r.HeadSHA != absent || r.Status != "completed" {
					t.Errorf("run %v", r)
				}
				if want, ok := tc.wantRuns[r.Name]; ok && r.Conclusion != want {
					t.Errorf("%s: %s, want %s", r.Name, r.Conclusion, want)
				}
			}
			agg := h.storedRun("swarm-gate")
			if !strings.HasPrefix(agg.Title, tc.wantAggHead) || !strings.Contains(agg.Summary, tc.wantAggHas) {
				t.Errorf("aggregate %q:\n%s", agg.Title, agg.Summary)
			}
			for _, cr := range h.fake.CheckRuns(h.repo) {
				if strings.Contains(cr.Summary, "evil.example") {
					t.Errorf("%s shows the report's own Markdown:\n%s", cr.Name, cr.Summary)
				}
			}
		})
	}
}

// TestPublishNothingToDo: runs that are not a fork's pull request, or
// whose pull request moved on, post nothing.
func TestPublishNothingToDo(t *testing.T) {
	cases := []struct {
		name       string
		headRepo   string
		addPR      bool
		wantNotice string
		wantCalls  int
	}{
		{"a branch of this repository", "Codertocat/Hello-World", true, "was for a branch of this repository", 0},
		{"no open pull request at that commit", forkRepo, false, "nothing to publish: no open pull request has fork-owner/Hello-World:swarm/phase-1", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			if tc.addPR {
				h.fake.AddPullRequest(h.repo, ghfake.PullRequest{Number: 9, HeadRepo: forkRepo, HeadRef: demo.HeadBranch, HeadSHA: h.head, BaseRef: "main", BaseSHA: h.base})
			}
			h.workflowRun(h.head, tc.headRepo)
			if code := h.run(context.Background(), nil); code != 0 {
				t.Fatalf("exit %d\n%s", code, h.log.String())
			}
			if !strings.Contains(h.log.String(), "::notice::swarm-gate: ") || !strings.Contains(h.log.String(), tc.wantNotice) {
				t.Errorf("log lacks %q:\n%s", tc.wantNotice, h.log.String())
			}
			if n := len(h.fake.Calls()); n != tc.wantCalls {
				t.Errorf("%d API requests, want %d", n, tc.wantCalls)
			}
		})
	}
}
