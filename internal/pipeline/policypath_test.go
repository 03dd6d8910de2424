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

// TestCheckConfigPath: Options.ConfigPath (the Action's config input)
// names the policy file, still read from the base commit only.
func TestCheckConfigPath(t *testing.T) {
	const strict = "plan_freeze:\n  approval: human\n"
	cases := []struct {
		name       string
		base, head map[string]string // files committed on each side
		configPath string
		wantErr    string
		planFrz    gates.Outcome
		wantFrom   string
	}{
		{"the named file at base applies", map[string]string{"policy/swarm.yml": strict}, nil, "policy/swarm.yml", "", gates.Failed, "policy/swarm.yml at base "},
		{"the default file is not read when another is named", map[string]string{"policy/swarm.yml": "", ".github/swarm-gate.yml": strict}, nil, "policy/swarm.yml", "", gates.Passed, "policy/swarm.yml at base "},
		{"a named file only the pull request adds is an error", nil, map[string]string{"policy/swarm.yml": "plan_freeze:\n  approval: any\n"}, "policy/swarm.yml", "policy/swarm.yml: the policy file named by the config input is not in the base commit", "", ""},
		{"the pull request's copy of the named file is ignored", map[string]string{"policy/swarm.yml": strict}, map[string]string{"policy/swarm.yml": "plan_freeze:\n  approval: any\n"}, "policy/swarm.yml", "", gates.Failed, "the pull request's own policy/swarm.yml differs and is not used"},
		{"a broken named file stops the check", map[string]string{"policy/swarm.yml": "plan_freeze:\n  approval: humans\n"}, nil, "policy/swarm.yml", "policy/swarm.yml: line 2, column 13: plan_freeze.approval", "", ""},
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
			for _, side := range []struct {
				branch string
				files  map[string]string
			}{{demo.BaseBranch, c.base}, {demo.HeadBranch, c.head}} {
				if side.files == nil {
					continue
				}
				wt, err := g.Worktree()
				if err != nil {
					t.Fatal(err)
				}
				if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(side.branch), Force: true}); err != nil {
					t.Fatal(err)
				}
				files := map[string]string{}
				for p, content := range side.files {
					if content == "" {
						content = "# defaults\n"
					}
					files[p] = content
				}
				r.commit("", files)
			}
			rep, err := Check(context.Background(), Options{RepoDir: dir, Base: demo.BaseBranch, Head: demo.HeadBranch, DiffEngine: "go-git", ConfigPath: c.configPath})
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
		})
	}
}
