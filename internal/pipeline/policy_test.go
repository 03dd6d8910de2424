package pipeline

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/demo"
)

// TestCheckPolicyFromBase checks DESIGN.md section 3.1: the policy is the
// base branch's .github/swarm-gate.yml; the pull request's own copy never
// counts.
func TestCheckPolicyFromBase(t *testing.T) {
	cases := []struct {
		name     string
		base     string // config committed on the base branch ("" none)
		head     string // config committed on the head branch ("" none)
		wantErr  string
		planFrz  gates.Outcome
		wantRule string
		wantFrom string
	}{
		{"no config anywhere", "", "", "", gates.Passed, "", "built-in defaults"},
		{"the head's config is ignored, even a broken one", "", "plan_freeze:\n  approval: whatever\n", "", gates.Passed, "", "built-in defaults (no .github/swarm-gate.yml on the base branch); the pull request's own .github/swarm-gate.yml differs and is not used"},
		{"the head cannot relax the base's policy", "plan_freeze:\n  approval: human\n", "plan_freeze:\n  approval: any\n", "", gates.Failed, gates.RuleApprovalSource, "differs and is not used"},
		{"a broken base config stops the check", "version: 1\nplan_freeze:\n  approval: humans\n", "", ".github/swarm-gate.yml: line 3, column 13: plan_freeze.approval", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, _, err := demo.Build(dir); err != nil {
				t.Fatal(err)
			}
			g, err := git.PlainOpen(dir)
			if err != nil {
				t.Fatal(err)
			}
			r := &repo{t: t, dir: dir, git: g, when: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
			for _, side := range []struct{ branch, config string }{{demo.BaseBranch, c.base}, {demo.HeadBranch, c.head}} {
				if side.config == "" {
					continue
				}
				wt, err := g.Worktree()
				if err != nil {
					t.Fatal(err)
				}
				if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(side.branch), Force: true}); err != nil {
					t.Fatal(err)
				}
				r.commit("", map[string]string{".github/swarm-gate.yml": side.config})
			}
			rep, err := Check(context.Background(), Options{RepoDir: dir, Base: demo.BaseBranch, Head: demo.HeadBranch, DiffEngine: "go-git"})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := outcomes(rep)["swarm/plan-freeze"]; got != c.planFrz {
				t.Errorf("plan-freeze %s, want %s", got, c.planFrz)
			}
			if !strings.Contains(rep.Config, c.wantFrom) {
				t.Errorf("config %q, want it from %q", rep.Config, c.wantFrom)
			}
			if c.wantRule != "" {
				found := false
				for _, g := range rep.Gates {
					for _, f := range g.Findings {
						found = found || f.Rule == c.wantRule
					}
				}
				if !found {
					t.Errorf("no %s finding", c.wantRule)
				}
			}
		})
	}
}
