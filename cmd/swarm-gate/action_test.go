package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/swarm-gate/swarm-gate/internal/demo"
)

// TestActionArgs runs the arguments action.yml gives the container, with
// the inputs filled in as GitHub would for a pull request, against the demo
// repository: they must parse and reach the check.
func TestActionArgs(t *testing.T) {
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Using string   `yaml:"using"`
			Image string   `yaml:"image"`
			Args  []string `yaml:"args"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if action.Runs.Using != "docker" || action.Runs.Image != "Dockerfile" {
		t.Errorf("runs: %+v", action.Runs)
	}
	dir := t.TempDir()
	base, head, err := demo.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	// What GitHub substitutes for the defaults on a pull_request event.
	github := map[string]string{
		"github.event.pull_request.base.sha": base,
		"github.event.pull_request.head.sha": head,
		"github.head_ref":                    demo.HeadBranch,
	}
	expr := regexp.MustCompile(`\$\{\{\s*([^}]+?)\s*\}\}`)
	inputs := map[string]string{}
	for name, in := range action.Inputs {
		inputs[name] = expr.ReplaceAllStringFunc(in.Default, func(m string) string {
			return github[expr.FindStringSubmatch(m)[1]]
		})
	}
	var args []string
	for _, a := range action.Runs.Args {
		args = append(args, expr.ReplaceAllStringFunc(a, func(m string) string {
			key := expr.FindStringSubmatch(m)[1]
			v, ok := inputs[strings.TrimPrefix(key, "inputs.")]
			if !ok {
				t.Fatalf("action.yml uses %s, which is not an input", key)
			}
			return v
		}))
	}
	t.Chdir(dir)
	code, out, stderr := runCLI(t, args...)
	if code != 1 || !strings.Contains(out, "phase 1 (from branch)") {
		t.Errorf("args %q: exit %d\n%s%s", args, code, out, stderr)
	}
}
