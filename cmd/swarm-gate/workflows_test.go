package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflow is the part of a workflow file these tests read.
type workflow struct {
	Name        string            `yaml:"name"`
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		Name  string `yaml:"name"`
		If    string `yaml:"if"`
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			If   string            `yaml:"if"`
			With map[string]string `yaml:"with"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// dormancyGuard marks the lines that keep the example workflows dormant in
// swarm-gate's own repository (which has no .swarm/); the README's copies
// are the files without them.
const dormancyGuard = "swarm-gate/swarm-gate'"

func readWorkflow(t *testing.T, name string) (workflow, string) {
	t.Helper()
	data, err := os.ReadFile("../../.github/workflows/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return w, string(data)
}

// TestREADMEWorkflowsAreTheFiles: the workflows docs/action.md tells users
// to copy are the files in .github/workflows, byte for byte, without the
// lines that keep them dormant here; and those copies parse.
func TestREADMEWorkflowsAreTheFiles(t *testing.T) {
	readme, err := os.ReadFile("../../docs/action.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"swarm-gate.yml", "swarm-gate-fork-poster.yml", "swarm-gate-phase-wrap.yml"} {
		_, text := readWorkflow(t, name)
		var kept []string
		for _, line := range strings.SplitAfter(text, "\n") {
			if !strings.Contains(line, dormancyGuard) {
				kept = append(kept, line)
			}
		}
		copyText := strings.Join(kept, "")
		if copyText == text {
			t.Errorf("%s has no dormancy guard: it would run in swarm-gate's own repository", name)
		}
		if !strings.Contains(string(readme), "```yaml\n"+copyText+"```") {
			t.Errorf("docs/action.md does not show .github/workflows/%s (without its guard lines) as a yaml block", name)
		}
		var w workflow
		if err := yaml.Unmarshal([]byte(copyText), &w); err != nil || len(w.Jobs) != 1 {
			t.Errorf("docs/action.md's copy of %s does not parse: %v", name, err)
		}
	}
}

// swarmGateStep returns the with: of the one step that uses the
// swarm-gate action.
func swarmGateStep(t *testing.T, w workflow) (with map[string]string) {
	t.Helper()
	n := 0
	for _, j := range w.Jobs {
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, "swarm-gate/swarm-gate@") {
				n++
				with = s.With
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d swarm-gate steps, want 1", n)
	}
	return with
}

// TestWorkflows checks what each workflow needs to work unchanged in
// another repository, and what keeps it safe.
func TestWorkflows(t *testing.T) {
	inputs := readActionYML(t).Inputs
	expr := regexp.MustCompile(`\$\{\{[^}]*\}\}`)
	checkout := func(t *testing.T, w workflow) map[string]string {
		for _, j := range w.Jobs {
			for _, s := range j.Steps {
				if strings.HasPrefix(s.Uses, "actions/checkout@") {
					return s.With
				}
			}
		}
		t.Fatal("no actions/checkout step")
		return nil
	}
	t.Run("swarm-gate.yml", func(t *testing.T) {
		w, _ := readWorkflow(t, "swarm-gate.yml")
		pr, _ := w.On["pull_request"].(map[string]any)
		if types := yamlString(pr["types"]); types != "[opened synchronize reopened edited ready_for_review labeled unlabeled]" {
			t.Errorf("pull_request types %q", types)
		}
		if _, ok := w.On["merge_group"]; !ok {
			t.Error("no merge_group trigger: a merge queue would wait forever for the checks")
		}
		if w.Permissions["checks"] != "write" || w.Permissions["contents"] != "read" || w.Permissions["pull-requests"] != "write" || len(w.Permissions) != 3 {
			t.Errorf("permissions %v", w.Permissions)
		}
		if c := checkout(t, w); c["fetch-depth"] != "0" || c["persist-credentials"] != "false" || c["ref"] != "" {
			t.Errorf("checkout %v", c)
		}
		for id, j := range w.Jobs {
			if id == "swarm-gate" || j.Name == "swarm-gate" {
				t.Errorf("job %q (%q) would be a check named like the aggregate", id, j.Name)
			}
			found := false
			for _, s := range j.Steps {
				if strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
					found = s.With["name"] == "swarm-gate-report" && s.With["path"] == inputs["report-dir"].Default+"/" && s.If == "always()"
				}
			}
			if !found {
				t.Error("no always() upload of the swarm-gate-report artifact from the report directory: the fork poster reads it")
			}
		}
		checkWith(t, swarmGateStep(t, w), inputs)
	})
	t.Run("swarm-gate-fork-poster.yml", func(t *testing.T) {
		w, _ := readWorkflow(t, "swarm-gate-fork-poster.yml")
		main, _ := readWorkflow(t, "swarm-gate.yml")
		wr, _ := w.On["workflow_run"].(map[string]any)
		if yamlString(wr["workflows"]) != "["+main.Name+"]" || yamlString(wr["types"]) != "[completed]" {
			t.Errorf("workflow_run trigger %v: want the workflow named %q, completed", wr, main.Name)
		}
		for _, bad := range []string{"pull_request_target", "pull_request"} {
			if _, ok := w.On[bad]; ok {
				t.Errorf("the poster runs on %s", bad)
			}
		}
		if w.Permissions["checks"] != "write" || w.Permissions["actions"] != "read" || w.Permissions["contents"] != "read" || w.Permissions["pull-requests"] != "write" || len(w.Permissions) != 4 {
			t.Errorf("permissions %v", w.Permissions)
		}
		if c := checkout(t, w); c["ref"] != "" || c["repository"] != "" {
			t.Errorf("the poster checks out %v; it must check out only this repository's default branch", c)
		}
		for _, j := range w.Jobs {
			for _, cond := range []string{"github.event.workflow_run.event == 'pull_request'", "github.event.workflow_run.head_repository.full_name != github.repository"} {
				if !strings.Contains(j.If, cond) {
					t.Errorf("job condition %q lacks %q", j.If, cond)
				}
			}
			for _, s := range j.Steps {
				if s.Run == "" {
					continue
				}
				// The only command: fetch the head commit's objects, its SHA
				// passed through the environment, never pasted into the script.
				if strings.TrimSpace(s.Run) != `git fetch --no-tags origin "$HEAD_SHA"` || s.Env["HEAD_SHA"] != "${{ github.event.workflow_run.head_sha }}" {
					t.Errorf("the poster runs %q (env %v)", s.Run, s.Env)
				}
			}
			for _, s := range j.Steps {
				if strings.HasPrefix(s.Uses, "actions/download-artifact@") {
					if s.With["name"] != "swarm-gate-report" || s.With["run-id"] != "${{ github.event.workflow_run.id }}" {
						t.Errorf("download %v", s.With)
					}
					if with := swarmGateStep(t, w); !strings.HasPrefix(with["report"], s.With["path"]+"/") {
						t.Errorf("report %q is not in the download path %q", with["report"], s.With["path"])
					}
				}
			}
		}
		with := swarmGateStep(t, w)
		if with["mode"] != "publish" || with["report"] != "swarm-gate-fork-report/report.json" {
			t.Errorf("swarm-gate step %v", with)
		}
		checkWith(t, with, inputs)
	})
	t.Run("swarm-gate-phase-wrap.yml", func(t *testing.T) {
		w, _ := readWorkflow(t, "swarm-gate-phase-wrap.yml")
		if _, ok := w.On["schedule"]; !ok {
			t.Error("no schedule trigger")
		}
		if _, ok := w.On["workflow_dispatch"]; !ok {
			t.Error("no workflow_dispatch trigger")
		}
		if w.Permissions["checks"] != "write" || w.Permissions["pull-requests"] != "read" || w.Permissions["contents"] != "read" {
			t.Errorf("permissions %v", w.Permissions)
		}
		if c := checkout(t, w); c["fetch-depth"] != "0" {
			t.Errorf("checkout %v", c)
		}
		with := swarmGateStep(t, w)
		if with["fail-on"] != "never" || with["phase"] != "${{ inputs.phase }}" {
			t.Errorf("swarm-gate step %v", with)
		}
		checkWith(t, with, inputs)
	})
	// No workflow pastes an expression into a shell script (script
	// injection); values go through env.
	for _, name := range []string{"swarm-gate.yml", "swarm-gate-fork-poster.yml", "swarm-gate-phase-wrap.yml", "ci.yml"} {
		w, _ := readWorkflow(t, name)
		for _, j := range w.Jobs {
			for _, s := range j.Steps {
				if expr.MatchString(s.Run) {
					t.Errorf("%s: a run script holds an expression: %q", name, s.Run)
				}
			}
		}
	}
}

// checkWith: every with: key of the swarm-gate step is an input of
// action.yml.
func checkWith(t *testing.T, with map[string]string, inputs map[string]struct {
	Description string `yaml:"description"`
	Default     string `yaml:"default"`
}) {
	t.Helper()
	for k := range with {
		if _, ok := inputs[k]; !ok {
			t.Errorf("with: %s is not an input of action.yml", k)
		}
	}
}

// yamlString prints a decoded YAML value in flow style, for comparisons.
func yamlString(v any) string {
	switch v := v.(type) {
	case []any:
		var parts []string
		for _, x := range v {
			parts = append(parts, yamlString(x))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case nil:
		return ""
	default:
		b, _ := yaml.Marshal(v)
		return strings.TrimSpace(string(b))
	}
}

// TestCIWorkflow: this repository's CI vets, runs the tests with the race
// detector, and builds the action's image.
func TestCIWorkflow(t *testing.T) {
	_, text := readWorkflow(t, "ci.yml")
	for _, want := range []string{"go vet ./...", "go test -race ./...", "bash .ci/run", "docker build", "test -z \"$(gofmt -l .)\""} {
		if !strings.Contains(text, want) {
			t.Errorf("ci.yml lacks %q", want)
		}
	}
}
