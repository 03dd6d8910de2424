package actionrun_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/actionrun"
	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// webhooksDir holds GitHub's example payloads, read in place.
const webhooksDir = "../../../shared/github/webhooks"

// harness is a runner's environment around a temporary checkout and the
// fake GitHub API: what a workflow step sees.
type harness struct {
	t         *testing.T
	fake      *ghfake.Server
	workspace string
	repo      string // GITHUB_REPOSITORY
	base      string // the demo's base commit (main)
	head      string // the demo's phase PR commit (swarm/phase-1)
	env       map[string]string
	log       bytes.Buffer
	logs      bytes.Buffer // slog output
	// hc, when set, sends the API requests (tests that break the transport).
	hc *http.Client
}

// newHarness builds the demo repository as the workspace and a runner
// environment for repo (owner/name) with a fresh fake API.
func newHarness(t *testing.T, repo string) *harness {
	t.Helper()
	workspace := t.TempDir()
	base, head, err := demo.Build(workspace)
	if err != nil {
		t.Fatal(err)
	}
	return newHarnessIn(t, repo, workspace, base, head)
}

// newHarnessIn is a harness on the repository already in workspace, whose
// base and head commits are given: the fake GitHub, both branches pushed
// now, before any comment (GitHub created their first check suites), and
// the Actions environment of a run.
func newHarnessIn(t *testing.T, repo, workspace, base, head string) *harness {
	t.Helper()
	h := &harness{t: t, fake: ghfake.New(t), workspace: workspace, repo: repo, base: base, head: head}
	h.fake.Pushed(repo, h.base, time.Now())
	h.fake.Pushed(repo, h.head, time.Now())
	files := t.TempDir()
	touch := func(name string) string {
		p := filepath.Join(files, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	h.env = map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_REPOSITORY":   repo,
		"GITHUB_WORKSPACE":    h.workspace,
		"GITHUB_API_URL":      strings.TrimSuffix(h.fake.URL, "/"),
		"GITHUB_SERVER_URL":   h.fake.WebURL,
		"GITHUB_RUN_ID":       "4242",
		"GITHUB_RUN_ATTEMPT":  "1",
		"GITHUB_WORKFLOW":     "swarm-gate",
		"GITHUB_JOB":          "verify",
		"GITHUB_OUTPUT":       touch("output"),
		"GITHUB_STEP_SUMMARY": touch("summary"),
		"GITHUB_STATE":        touch("state"),
		"INPUT_GITHUB-TOKEN":  ghfake.Token,
	}
	return h
}

// event writes the payload file (GitHub's example at webhooksDir/name, or
// "" for an empty object) changed by edit, and points the environment at
// it.
func (h *harness) event(eventName, name string, edit func(p map[string]any)) {
	h.t.Helper()
	p := map[string]any{}
	if name != "" {
		data, err := os.ReadFile(filepath.Join(webhooksDir, name))
		if err != nil {
			sharedtest.Skip(h.t, "GitHub's example payloads are not available: %v", err)
		}
		if err := json.Unmarshal(data, &p); err != nil {
			h.t.Fatal(err)
		}
	}
	if edit != nil {
		edit(p)
	}
	data, err := json.Marshal(p)
	if err != nil {
		h.t.Fatal(err)
	}
	path := filepath.Join(h.t.TempDir(), "event.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		h.t.Fatal(err)
	}
	h.env["GITHUB_EVENT_NAME"] = eventName
	h.env["GITHUB_EVENT_PATH"] = path
}

// run runs the action with overrides (command-line inputs) and returns its
// exit code.
func (h *harness) run(ctx context.Context, overrides map[string]string) int {
	h.t.Helper()
	r := &actionrun.Runner{
		Env:             actions.NewEnv(actions.MapLookup(h.env)),
		Stdout:          &h.log,
		Logger:          slog.New(slog.NewTextHandler(&h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Overrides:       overrides,
		Version:         "test",
		BotLogin:        ghfake.Login,
		HTTPClient:      h.hc,
		ClientOptions:   []ghapi.Option{ghapi.WithSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() })},
		FinaliseTimeout: 5 * time.Second,
	}
	return r.Run(ctx)
}

// pullRequest points GitHub's pull_request example at the demo's commits:
// base main, head swarm/phase-1 in headRepo.
func (h *harness) pullRequest(action string, headRepo string) func(p map[string]any) {
	return func(p map[string]any) {
		p["action"] = action
		sharedtest.SetPath(p, "pull_request.base.sha", h.base)
		sharedtest.SetPath(p, "pull_request.base.ref", "main")
		sharedtest.SetPath(p, "pull_request.head.sha", h.head)
		sharedtest.SetPath(p, "pull_request.head.ref", demo.HeadBranch)
		sharedtest.SetPath(p, "pull_request.head.repo.full_name", headRepo)
		sharedtest.SetPath(p, "repository.full_name", h.repo)
	}
}

// outputs reads GITHUB_OUTPUT back (the last value of each name wins, as
// in the runner).
func (h *harness) outputs() map[string]string {
	return parseHeredocFile(h.t, h.env["GITHUB_OUTPUT"])
}

// parseHeredocFile reads a GITHUB_OUTPUT or GITHUB_STATE file of
// name<<DELIMITER records.
func parseHeredocFile(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			continue
		}
		var value []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			value = append(value, lines[i])
		}
		out[name] = strings.Join(value, "\n")
	}
	return out
}

func (h *harness) summary() string {
	data, err := os.ReadFile(h.env["GITHUB_STEP_SUMMARY"])
	if err != nil {
		h.t.Fatal(err)
	}
	return string(data)
}

// commitOnHead adds a commit to the demo's head branch, pushed now (GitHub
// creates its first check suite), and returns its SHA.
func (h *harness) commitOnHead(files map[string]string) string {
	h.t.Helper()
	sha, err := demo.Commit(h.workspace, demo.HeadBranch, files, "more", time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC))
	if err != nil {
		h.t.Fatal(err)
	}
	h.fake.Pushed(h.repo, sha, time.Now())
	h.head = sha
	return sha
}

// run is a check run as the assertions see it: its place, state, and each
// annotation as level path:line.
type run struct {
	Name, HeadSHA, ExternalID, Status, Conclusion string
	Annotations                                   []string
}

func (r run) String() string {
	return fmt.Sprintf("%s@%.7s [%s] %s/%s %v", r.Name, r.HeadSHA, r.ExternalID, r.Status, r.Conclusion, r.Annotations)
}

// runs returns the fake's check runs of the harness's repository, sorted
// by name then commit.
func (h *harness) runs() []run {
	var out []run
	for _, cr := range h.fake.CheckRuns(h.repo) {
		r := run{Name: cr.Name, HeadSHA: cr.HeadSHA, ExternalID: cr.ExternalID, Status: cr.Status, Conclusion: cr.Conclusion}
		for _, a := range cr.Annotations {
			r.Annotations = append(r.Annotations, fmt.Sprintf("%s %s:%d", a.Level, a.Path, a.StartLine))
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].HeadSHA < out[j].HeadSHA
	})
	return out
}

// storedRun returns the fake's run named name (the newest).
func (h *harness) storedRun(name string) ghfake.CheckRun {
	h.t.Helper()
	var found *ghfake.CheckRun
	for _, cr := range h.fake.CheckRuns(h.repo) {
		if cr.Name == name {
			c := cr
			found = &c
		}
	}
	if found == nil {
		h.t.Fatalf("no check run %s", name)
	}
	return *found
}

// externalKey is the key part of external ids for a workflow and job.
func externalKey(workflow, job string) string {
	sum := sha256.Sum256([]byte(workflow + "\x00" + job))
	return hex.EncodeToString(sum[:6])
}
