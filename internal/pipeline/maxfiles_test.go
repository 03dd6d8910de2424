package pipeline

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
)

// TestCheckMaxChangedFiles: a pull request over the base policy's
// limits.max_changed_files has every gate that reads the change set could
// not evaluate, with the count, the limit and the way out; the others
// (plan-freeze) still judge the artifacts. In both engines.
func TestCheckMaxChangedFiles(t *testing.T) {
	for _, c := range []struct {
		files int
		over  bool
	}{{100, false}, {101, true}} {
		r := newRepo(t)
		r.commit("", map[string]string{"README.md": "x\n", ".swarm/plan.json": miniPlan, ".github/swarm-gate.yml": "limits:\n  max_changed_files: 100\n"})
		files := map[string]string{}
		for i := 0; i < c.files; i++ {
			files[fmt.Sprintf("b/f%03d.go", i)] = "package b\n"
		}
		head := r.commit("swarm/phase-2", files)
		for _, engine := range []string{"git", "go-git"} {
			t.Run(fmt.Sprintf("%d files/%s", c.files, engine), func(t *testing.T) {
				rep, err := Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: head, Phase: 2, DiffEngine: engine})
				if err != nil {
					t.Fatal(err)
				}
				got := outcomes(rep)
				if got["swarm/plan-freeze"] == gates.Error || got["swarm/plan-freeze"] == "" {
					t.Errorf("plan-freeze %q, want it evaluated", got["swarm/plan-freeze"])
				}
				for _, name := range []string{"swarm/scope", "swarm/placeholders", "swarm/sast"} {
					g := gateResult(rep, name)
					if !c.over {
						if g.Outcome != gates.Passed {
							t.Errorf("%s: %s (%s), want passed", name, g.Outcome, g.Title)
						}
						continue
					}
					if g.Outcome != gates.Error {
						t.Errorf("%s: %s (%s), want error", name, g.Outcome, g.Title)
					}
					for _, want := range []string{"could not evaluate: the pull request changes at least 101 files", "limits.max_changed_files (100)", "raise limits.max_changed_files in the base branch's policy (.github/swarm-gate.yml)"} {
						if !strings.Contains(g.Title, want) {
							t.Errorf("%s: title %q lacks %q", name, g.Title, want)
						}
					}
				}
				if c.over && rep.Outcome != gates.Error {
					t.Errorf("report outcome %s, want error", rep.Outcome)
				}
			})
		}
	}
}
