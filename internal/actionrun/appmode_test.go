package actionrun_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/actionrun"
	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/fdtest"
	"github.com/swarm-gate/swarm-gate/internal/report"
	"github.com/swarm-gate/swarm-gate/internal/source"
)

// TestNoReportFiles: with NoReportFiles (the App's setting) the runner
// posts the same check runs and writes no report file; the report-json
// and sarif outputs are empty. Without it (the Action) both files are
// written, as TestPullRequestSynchronize checks in detail.
func TestNoReportFiles(t *testing.T) {
	for _, skip := range []bool{false, true} {
		h := newHarness(t, "Codertocat/Hello-World")
		h.noReportFiles = skip
		h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
		if code := h.run(context.Background(), nil); code != 1 {
			t.Fatalf("NoReportFiles %v: exit %d, want 1 (gates failed)\n%s\n%s", skip, code, h.log.String(), h.logs.String())
		}
		if got, want := h.runs(), demoRuns(h.head, "swarm-gate:pull_request:"+workflowKey); !reflect.DeepEqual(got, want) {
			t.Errorf("NoReportFiles %v: check runs:\n got %v\nwant %v", skip, got, want)
		}
		out := h.outputs()
		for _, name := range []string{"report.json", "report.sarif"} {
			_, err := os.Stat(filepath.Join(h.workspace, "swarm-gate-report", name))
			if skip && err == nil {
				t.Errorf("NoReportFiles: %s was written", name)
			}
			if !skip && err != nil {
				t.Errorf("without NoReportFiles: %v", err)
			}
		}
		wantJSON, wantSARIF := "swarm-gate-report/report.json", "swarm-gate-report/report.sarif"
		if skip {
			wantJSON, wantSARIF = "", ""
			if _, err := os.Stat(filepath.Join(h.workspace, "swarm-gate-report")); err == nil {
				t.Errorf("NoReportFiles: the report directory was made")
			}
		}
		if out["report-json"] != wantJSON || out["sarif"] != wantSARIF || out["conclusion"] != "failure" {
			t.Errorf("NoReportFiles %v: outputs report-json %q, sarif %q, conclusion %q; want %q, %q, failure", skip, out["report-json"], out["sarif"], out["conclusion"], wantJSON, wantSARIF)
		}
	}
}

// TestRunnerRepo: a Runner given the workspace's repository, opened with
// its pack files kept open (as the App does), evaluates through it: the
// same check runs, the pack read through the given Git (its descriptor is
// open after Run, until the caller closes the Git), and nothing else left
// open.
func TestRunnerRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not on PATH")
	}
	h := newHarness(t, "Codertocat/Hello-World")
	cmd := exec.Command("git", "repack", "-a", "-d", "-q")
	cmd.Dir = h.workspace
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git repack: %v\n%s", err, out)
	}
	cmd = exec.Command("git", "prune-packed")
	cmd.Dir = h.workspace
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git prune-packed: %v\n%s", err, out)
	}
	g, err := source.OpenGitWith(h.workspace, source.OpenOptions{KeepFilesOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	h.gitRepo = g
	h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
	if code := h.run(context.Background(), nil); code != 1 {
		t.Fatalf("exit %d, want 1 (gates failed)\n%s\n%s", code, h.log.String(), h.logs.String())
	}
	if got, want := h.runs(), demoRuns(h.head, "swarm-gate:pull_request:"+workflowKey); !reflect.DeepEqual(got, want) {
		t.Errorf("check runs:\n got %v\nwant %v", got, want)
	}
	gitDir := filepath.Join(h.workspace, ".git")
	if n := fdtest.Under(t, gitDir); n != 1 {
		t.Errorf("%d files open in .git after Run, want 1: the pack, read through the Runner's Repo", n)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if n := fdtest.Under(t, gitDir); n != 0 {
		t.Errorf("%d files open in .git after closing the Repo, want 0", n)
	}
}

// TestRunnerEvent: a Runner given the parsed event (the App's) evaluates
// it without reading GITHUB_EVENT_PATH, with the same check runs as when
// it reads the file; without it, a missing event file is a usage error.
func TestRunnerEvent(t *testing.T) {
	h := newHarness(t, "Codertocat/Hello-World")
	h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
	ev, err := actions.NewEnv(actions.MapLookup(h.env)).Event()
	if err != nil {
		t.Fatal(err)
	}
	h.env["GITHUB_EVENT_PATH"] = filepath.Join(t.TempDir(), "missing.json")
	if code := h.run(context.Background(), nil); code != report.ExitUsage {
		t.Fatalf("without Event and without the event file: exit %d, want %d (usage)\n%s", code, report.ExitUsage, h.log.String())
	}
	h.parsedEvent = ev
	if code := h.run(context.Background(), nil); code != 1 {
		t.Fatalf("with Event: exit %d, want 1 (gates failed)\n%s\n%s", code, h.log.String(), h.logs.String())
	}
	if got, want := h.runs(), demoRuns(h.head, "swarm-gate:pull_request:"+workflowKey); !reflect.DeepEqual(got, want) {
		t.Errorf("with Event: check runs:\n got %v\nwant %v", got, want)
	}
}

// TestRunnerMergeBase: the merge base the App got from GitHub's compare
// API is used for the commits it was given for: the true one gives the
// usual check runs; one that is not an ancestor of the head fails every
// check run as "could not evaluate", naming both SHAs, never a pass; one
// given for other commits is not used.
func TestRunnerMergeBase(t *testing.T) {
	cases := []struct {
		name     string
		known    func(h *harness, other string) actionrun.KnownMergeBase
		wantCode int
		wantErr  bool
	}{
		{"the true merge base", func(h *harness, _ string) actionrun.KnownMergeBase {
			return actionrun.KnownMergeBase{Base: h.base, Head: h.head, SHA: h.base}
		}, 1, false},
		{"a base-branch commit that is not an ancestor of the head", func(h *harness, other string) actionrun.KnownMergeBase {
			return actionrun.KnownMergeBase{Base: h.base, Head: h.head, SHA: other}
		}, 2, true},
		{"given for other commits: not used", func(h *harness, other string) actionrun.KnownMergeBase {
			return actionrun.KnownMergeBase{Base: other, Head: h.head, SHA: other}
		}, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			other, err := demo.Commit(h.workspace, demo.BaseBranch, map[string]string{"docs/later.md": "later\n"}, "later", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			h.mergeBase = tc.known(h, other)
			h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
			if code := h.run(context.Background(), nil); code != tc.wantCode {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.wantCode, h.log.String(), h.logs.String())
			}
			if !tc.wantErr {
				if got, want := h.runs(), demoRuns(h.head, "swarm-gate:pull_request:"+workflowKey); !reflect.DeepEqual(got, want) {
					t.Errorf("check runs:\n got %v\nwant %v", got, want)
				}
				return
			}
			for _, r := range h.runs() {
				if r.Status != "completed" || r.Conclusion != "failure" {
					t.Errorf("%s: %s/%s, want completed/failure (could not evaluate)", r.Name, r.Status, r.Conclusion)
				}
			}
			agg := h.storedRun("swarm-gate")
			for _, w := range []string{"merge base " + other, "head " + h.head, "not an ancestor"} {
				if !strings.Contains(agg.Title+agg.Summary+agg.Text, w) {
					t.Errorf("the aggregate check run does not say %q:\n%s\n%s\n%s", w, agg.Title, agg.Summary, agg.Text)
				}
			}
		})
	}
}
