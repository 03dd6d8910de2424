package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// Issue 20, B9: a pull request that replaces .github/swarm-gate.yml with a
// symlink or a submodule (or makes .github one) was described as deleting
// the policy ("once merged the built-in defaults apply"). swarm-gate reads
// neither, so once merged every check would fail closed: the change is
// named for what it is, as a problem of the new policy, and this run still
// uses the base branch's policy.
func TestPolicyReplacedBySymlinkOrSubmodule(t *testing.T) {
	const policy = ".github/swarm-gate.yml"
	base, head := demoTrees(t)
	base[policy] = file("scope:\n  widened_by_pr: fail\n")
	cases := []struct {
		name   string
		mutate func(g *hostileGit, h hostileTree)
		want   string // in the problem
	}{
		{"symlink", func(_ *hostileGit, h hostileTree) { h[policy] = symlink("../policy/loose.yml") }, "is replaced by a symlink"},
		{"submodule", func(g *hostileGit, h hostileTree) {
			h[policy] = gitlink(g.commit("other", g.writeTree(hostileTree{"x": file("x")}), ""))
		}, "is replaced by a git submodule"},
		{"symlinked folder", func(_ *hostileGit, h hostileTree) {
			delete(h, policy)
			h[".github"] = symlink("elsewhere")
		}, "is inside .github, which the pull request makes a symlink"},
	}
	var only []gates.Gate
	for _, g := range gates.Registry() {
		if g.Name() == "swarm/plan-freeze" {
			only = append(only, g)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, h := base.clone(), head.clone()
			h[policy] = base[policy]
			g := newHostileGit(t)
			c.mutate(g, h)
			bc := g.commit("main", g.writeTree(b), "")
			g.commit("swarm/phase-1", g.writeTree(h), bc)
			for _, engine := range []string{"git", "go-git"} {
				t.Run(engine, func(t *testing.T) {
					r, err := Check(context.Background(), Options{RepoDir: g.dir, Base: "main", Head: "swarm/phase-1", DiffEngine: engine, Gates: only})
					if err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(r.Config, policy+" at ") {
						t.Errorf("policy read from %q, want the base's %s", r.Config, policy)
					}
					pc := r.PolicyChange
					if pc == nil {
						t.Fatal("no policy_change")
					}
					heading, _ := report.PolicyChangeText(pc)
					if pc.Status == "deleted" || strings.Contains(heading, "deletes") || strings.Contains(heading, "built-in defaults") {
						t.Errorf("described as a deletion: %s %+v", heading, pc)
					}
					if pc.Status != "modified" || len(pc.Problems) != 1 || !strings.Contains(pc.Problems[0], c.want) ||
						!strings.Contains(pc.Problems[0], "reads the policy from the base branch") || !strings.Contains(pc.Problems[0], "fails closed") {
						t.Errorf("policy_change %+v, want modified with a problem containing %q", pc, c.want)
					}
					if r.Outcome != gates.Failed {
						t.Errorf("outcome %s, want failed (the new policy would not apply once merged)", r.Outcome)
					}
				})
			}
		})
	}
}
