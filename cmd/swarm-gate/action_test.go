package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// TestMain lets the tests run this test binary as the swarm-gate command
// (SWARM_GATE_TEST_MAIN=1), so that the action runs in a process of its
// own that can be signalled and killed.
func TestMain(m *testing.M) {
	if os.Getenv("SWARM_GATE_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// actionYML is action.yml as the runner reads it.
type actionYML struct {
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
	} `yaml:"outputs"`
	Runs struct {
		Using          string   `yaml:"using"`
		Image          string   `yaml:"image"`
		Args           []string `yaml:"args"`
		PostEntrypoint string   `yaml:"post-entrypoint"`
	} `yaml:"runs"`
}

func readActionYML(t *testing.T) actionYML {
	t.Helper()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionYML
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// runner is what a GitHub runner gives a container action step: the
// demo repository as the workspace, GitHub's pull_request synchronize
// example pointed at it, the fake API, the file commands, and the inputs
// with action.yml's defaults.
type runner struct {
	t          *testing.T
	fake       *ghfake.Server
	workspace  string
	base, head string
	env        map[string]string
	args       []string
	post       string
}

const ghRepo = "Codertocat/Hello-World"

func newRunner(t *testing.T) *runner {
	t.Helper()
	r := &runner{t: t, fake: ghfake.New(t), workspace: t.TempDir()}
	var err error
	if r.base, r.head, err = demo.Build(r.workspace); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../../shared/github/webhooks/pull_request/synchronize.json")
	if err != nil {
		sharedtest.Skip(t, "GitHub's example payloads are not available: %v", err)
	}
	var p map[string]any
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	pr := p["pull_request"].(map[string]any)
	pr["base"].(map[string]any)["sha"] = r.base
	pr["head"].(map[string]any)["sha"] = r.head
	pr["head"].(map[string]any)["ref"] = demo.HeadBranch
	files := t.TempDir()
	file := func(name string, content []byte) string {
		path := filepath.Join(files, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	event, _ := json.Marshal(p)
	r.env = map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": t.TempDir(), "TMPDIR": os.TempDir(),
		"SWARM_GATE_TEST_MAIN": "1",
		"GITHUB_ACTIONS":       "true",
		"GITHUB_EVENT_NAME":    "pull_request",
		"GITHUB_EVENT_PATH":    file("event.json", event),
		"GITHUB_REPOSITORY":    ghRepo,
		"GITHUB_WORKSPACE":     r.workspace,
		"GITHUB_API_URL":       strings.TrimSuffix(r.fake.URL, "/"),
		"GITHUB_SERVER_URL":    r.fake.WebURL,
		"GITHUB_RUN_ID":        "4242",
		"GITHUB_RUN_ATTEMPT":   "1",
		"GITHUB_WORKFLOW":      "swarm-gate",
		"GITHUB_JOB":           "verify",
		"GITHUB_HEAD_REF":      demo.HeadBranch,
		"GITHUB_OUTPUT":        file("output", nil),
		"GITHUB_STEP_SUMMARY":  file("summary", nil),
		"GITHUB_STATE":         file("state", nil),
	}
	// The runner sets INPUT_<NAME> from the step's with: and action.yml's
	// defaults, evaluating expressions (here: ${{ github.token }}).
	a := readActionYML(t)
	expr := regexp.MustCompile(`\$\{\{\s*([^}]+?)\s*\}\}`)
	for name, in := range a.Inputs {
		r.env["INPUT_"+strings.ToUpper(name)] = expr.ReplaceAllStringFunc(in.Default, func(m string) string {
			switch key := expr.FindStringSubmatch(m)[1]; key {
			case "github.token":
				return ghfake.Token
			default:
				t.Fatalf("action.yml input %s uses ${{ %s }}, which this test does not know", name, key)
				return ""
			}
		})
	}
	r.args, r.post = a.Runs.Args, a.Runs.PostEntrypoint
	return r
}

// start runs the step's container command (ENTRYPOINT swarm-gate with the
// args) as a process of its own.
func (r *runner) start(args ...string) (*exec.Cmd, *strings.Builder) {
	r.t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = r.workspace
	for k, v := range r.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	return cmd, &out
}

func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// runs lists the fake's check runs as "name status/conclusion".
func (r *runner) runs() []string {
	var out []string
	for _, cr := range r.fake.CheckRuns(ghRepo) {
		out = append(out, fmt.Sprintf("%s %s/%s", cr.Name, cr.Status, cr.Conclusion))
	}
	sort.Strings(out)
	return out
}

// TestActionYML: action.yml is a container action running `swarm-gate
// action` on the repository's Dockerfile, with a post step, and its inputs
// are exactly the action command's flags plus the token.
func TestActionYML(t *testing.T) {
	a := readActionYML(t)
	if a.Runs.Using != "docker" || a.Runs.Image != "Dockerfile" || strings.Join(a.Runs.Args, " ") != "action" || a.Runs.PostEntrypoint != "/usr/local/bin/swarm-gate-post" {
		t.Errorf("runs: %+v", a.Runs)
	}
	flags := map[string]bool{"github-token": true}
	for _, in := range actionInputs {
		flags[in.name] = true
		if _, ok := a.Inputs[in.name]; !ok {
			t.Errorf("flag --%s is not an input of action.yml", in.name)
		}
	}
	for name, in := range a.Inputs {
		if !flags[name] {
			t.Errorf("input %s is not a flag of swarm-gate action", name)
		}
		if strings.TrimSpace(in.Description) == "" {
			t.Errorf("input %s has no description", name)
		}
	}
	for _, name := range []string{"conclusion", "conclusions", "plan-freeze", "critic", "scope", "placeholders", "sast", "evidence", "drift", "plan-lint", "phase-wrap", "findings-count", "report-json", "sarif"} {
		if o, ok := a.Outputs[name]; !ok || o.Description == "" {
			t.Errorf("output %s is not documented in action.yml", name)
		}
	}
	dockerfile, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(dockerfile)
	// The default target (the last stage) and the stages it is built on
	// must not set USER; the App's stage may.
	stages := map[string]string{}
	fromRe := regexp.MustCompile(`(?m)^FROM (\S+)(?: AS (\S+))?$`)
	locs := fromRe.FindAllStringSubmatchIndex(df, -1)
	if len(locs) == 0 {
		t.Fatal("the Dockerfile has no FROM")
	}
	var last string
	for i, l := range locs {
		end := len(df)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		name := "final"
		if l[4] >= 0 {
			name = df[l[4]:l[5]]
		}
		stages[name] = df[l[0]:end]
		last = name
	}
	for name, seen := last, map[string]bool{}; name != "" && !seen[name]; {
		seen[name] = true
		body, ok := stages[name]
		if !ok {
			break // a registry image
		}
		if regexp.MustCompile(`(?m)^USER\b`).MatchString(body) {
			t.Errorf("the Dockerfile's stage %s sets USER, and the default target is built on it: GitHub runs container actions as root, and another user cannot write GITHUB_OUTPUT or the workspace", name)
		}
		name = fromRe.FindStringSubmatch(body)[1]
	}
	for _, want := range []string{`ENTRYPOINT ["/usr/local/bin/swarm-gate"]`, "apk add --no-cache git", "> " + a.Runs.PostEntrypoint, "chmod 755 " + a.Runs.PostEntrypoint, "'exec /usr/local/bin/swarm-gate action --mode cleanup'"} {
		if !strings.Contains(df, want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
}

// TestActionEndToEnd runs the container's command line (action.yml's
// args) as its own process with the environment a runner sets for a
// pull_request synchronize, against the fake API, and checks the exact
// check runs it leaves.
func TestActionEndToEnd(t *testing.T) {
	r := newRunner(t)
	cmd, out := r.start(r.args...)
	if code := exitCode(t, cmd); code != 1 {
		t.Fatalf("exit %d, want 1 (three gates fail)\n%s", code, out)
	}
	want := []string{
		"swarm-gate completed/failure", "swarm/critic completed/success", "swarm/drift completed/success", "swarm/evidence completed/failure",
		"swarm/placeholders completed/failure", "swarm/plan-freeze completed/success", "swarm/plan-lint completed/success",
		"swarm/sast completed/success", "swarm/scope completed/failure",
	}
	if got := r.runs(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("check runs:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, cr := range r.fake.CheckRuns(ghRepo) {
		if cr.HeadSHA != r.head || cr.ExternalID != "swarm-gate:pull_request:9e993e2f32cd" {
			t.Errorf("%s on %s with external id %q", cr.Name, cr.HeadSHA, cr.ExternalID)
		}
	}
	// The post step after a normal run finds nothing to do.
	state := readState(t, r.env["GITHUB_STATE"])
	if state != "" {
		t.Errorf("saved state after a normal run: %q", state)
	}
}

// readState returns the last check_runs value in a GITHUB_STATE file.
func readState(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	value := ""
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok || name != "check_runs" {
			continue
		}
		var v []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			v = append(v, lines[i])
		}
		value = strings.Join(v, "\n")
	}
	return value
}

// waitFor polls cond for up to 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestActionKilled: the job is cancelled while the action reports its
// first check. SIGTERM (what the runner sends after SIGINT) lets the
// process complete every run it has not reported as failure; SIGKILL
// gives it no chance, and the post step (action.yml's post-entrypoint,
// `swarm-gate action --mode cleanup`) completes them from the saved state.
// Either way no check is left in progress.
func TestActionKilled(t *testing.T) {
	cases := []struct {
		name           string
		signal         syscall.Signal
		wantCode       int
		wantTitle      string
		wantConclusion string
	}{
		// The runner cancels a job with SIGINT, then SIGTERM: the runs left
		// are cancelled, not failure (no verdict).
		{"SIGTERM", syscall.SIGTERM, 2, "cancelled: the job was cancelled before swarm-gate reported this check (terminated signal received)", "cancelled"},
		{"SIGKILL, then the post step", syscall.SIGKILL, -1, "could not evaluate: the swarm-gate step ended before completing this check", "failure"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRunner(t)
			// Every gate's update is held (they are sent a few at once); the
			// finaliser's and the post step's go through.
			r.fake.Fail(ghfake.Fault{Operation: "checks/update", Times: -1, Latency: time.Minute, Match: func(c *ghfake.Call) bool {
				b, _ := c.Body.(map[string]any)
				out, _ := b["output"].(map[string]any)
				title, _ := out["title"].(string)
				return b["conclusion"] != "cancelled" && !strings.HasPrefix(title, "could not evaluate")
			}})
			cmd, out := r.start(r.args...)
			waitFor(t, "the check runs to be created", func() bool { return len(r.fake.CallsTo("checks/create")) == 9 })
			waitFor(t, "the state to be saved", func() bool { return readState(t, r.env["GITHUB_STATE"]) != "" })
			waitFor(t, "the first update to be held by the fake", func() bool { return r.fake.Seen("checks/update") >= 1 })
			if err := cmd.Process.Signal(tc.signal); err != nil {
				t.Fatal(err)
			}
			if code := exitCode(t, cmd); code != tc.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tc.wantCode, out)
			}
			if tc.signal == syscall.SIGKILL {
				inProgress := 0
				for _, cr := range r.fake.CheckRuns(ghRepo) {
					if cr.Status == "in_progress" {
						inProgress++
					}
				}
				// The (up to 4) held updates are applied as the connection
				// drops; the others stay in progress for the post step.
				if inProgress < 5 {
					t.Fatalf("%d runs in progress after SIGKILL, want at least 5 (the test does not test the post step)", inProgress)
				}
				// The update the fake held is applied once the connection
				// drops; the post step runs after it, as after a job.
				waitFor(t, "the held update", func() bool { return len(r.fake.CallsTo("checks/update")) >= 1 })
				r.env["STATE_check_runs"] = readState(t, r.env["GITHUB_STATE"])
				post, postOut := r.start("action", "--mode", "cleanup") // what swarm-gate-post runs
				if code := exitCode(t, post); code != 0 {
					t.Errorf("post step: exit %d\n%s", code, postOut)
				}
			}
			closed := 0
			for _, cr := range r.fake.CheckRuns(ghRepo) {
				if cr.Status != "completed" {
					t.Errorf("%s left %s", cr.Name, cr.Status)
				}
				if strings.HasPrefix(cr.Title, tc.wantTitle) {
					closed++
					if cr.Conclusion != tc.wantConclusion {
						t.Errorf("%s: %s", cr.Name, cr.Conclusion)
					}
				}
			}
			// The updates held when the connection dropped may be applied
			// (up to reportConcurrency, 4), the rest are completed by the
			// finaliser or the post step.
			if closed < 5 {
				t.Errorf("%d runs completed as %q, want at least 5\n%s", closed, tc.wantTitle, strings.Join(r.runs(), "\n"))
			}
		})
	}
}
