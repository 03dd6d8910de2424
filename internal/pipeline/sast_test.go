package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
)

// TestCheckSAST runs swarm/sast end to end on git repositories: a new
// exec.Command fails with one annotation; moving existing code does not; a
// baseline edited in the pull request does not launder a finding; a SARIF
// log's result on an added line is new.
func TestCheckSAST(t *testing.T) {
	const run = "package app\n\nimport \"os/exec\"\n\nfunc Run() error {\n\treturn exec.Command(\"make\").Run()\n}\n"
	sastOnly := []gates.Gate{gates.SAST{}}
	cases := []struct {
		name    string
		head    map[string]string
		sarif   string
		want    gates.Outcome
		errors  []string // path:line of failing findings
		mention string
	}{
		{"a new exec.Command", map[string]string{"app/new.go": "package app\n\nimport \"os/exec\"\n\nfunc New() { _ = exec.Command(\"sh\", \"-c\", cmd) }\n"},
			"", gates.Failed, []string{"app/new.go:5"}, "sast/go-shell-injection"},
		{"existing code moved down", map[string]string{"app/run.go": strings.Replace(run, "func Run", "// Run runs make.\n//\n// It blocks.\nfunc Run", 1)},
			"", gates.Passed, nil, "**Pre-existing**: 1"},
		{"a file renamed as a whole keeps its findings", map[string]string{"app/run.go": "", "app/build.go": run},
			"", gates.Passed, nil, "**Pre-existing**: 1"},
		{"the pull request puts its finding in its own baseline", map[string]string{
			"app/new.go":                           "package app\n\nimport \"os/exec\"\n\nfunc New() { _ = exec.Command(\"sh\") }\n",
			".swarm/evidence/1/sast-baseline.json": `{"schema_version":"1.1.0","phase":1,"created_at":"x","updated_at":"x","engine":"tier_a","files_indexed":["app/new.go"],"fingerprints":["app/new.go|sast/go-shell-injection|0000000000000000|#0"],"reflow_keys":[""],"findings_snapshot":[],"triage_log":[],"truncated":false}`,
		}, "", gates.Failed, []string{".swarm/evidence/1/sast-baseline.json:0", "app/new.go:5"}, "without a triage rationale"},
		{"a SARIF result on an added line", map[string]string{"app/run.go": run + "\nfunc Other() {}\n"},
			`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"gosec","rules":[{"id":"G999"}]}},"results":[{"ruleId":"G999","level":"error","message":{"text":"bad"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"app/run.go"},"region":{"startLine":9}}}]},{"ruleId":"G999","level":"error","message":{"text":"old"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"app/run.go"},"region":{"startLine":6}}}]}]}]}`,
			gates.Failed, []string{"app/run.go:9"}, "2 results in changed files"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.commit("", map[string]string{"app/run.go": run, ".swarm/plan.json": miniPlan})
			r.commit("swarm/phase-1", c.head)
			opts := Options{RepoDir: r.dir, Base: "main", Head: "swarm/phase-1", Phase: 1, Gates: sastOnly, DiffEngine: "go-git"}
			if c.sarif != "" {
				p := filepath.Join(t.TempDir(), "gosec.sarif")
				if err := os.WriteFile(p, []byte(c.sarif), 0o644); err != nil {
					t.Fatal(err)
				}
				opts.SARIF = []string{p}
			}
			rep, err := Check(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			g := rep.Gates[0]
			if g.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%+v\n%s", g.Outcome, g.Title, c.want, g.Findings, g.Summary)
			}
			var errs []string
			for _, f := range g.Findings {
				if f.Severity == gates.SeverityError {
					errs = append(errs, fmt.Sprintf("%s:%d", f.Path, f.Line))
				}
			}
			if strings.Join(errs, " ") != strings.Join(c.errors, " ") {
				t.Errorf("failing findings at %v, want %v\n%+v", errs, c.errors, g.Findings)
			}
			var all strings.Builder
			all.WriteString(g.Title + "\n" + g.Summary)
			for _, f := range g.Findings {
				all.WriteString("\n" + f.Message)
			}
			if !strings.Contains(all.String(), c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all.String())
			}
		})
	}
}
