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
		// The report's policy_change: "" none, else its status and the
		// first problem or change; and the overall outcome when set.
		policyStatus, policyItem string
		outcome                  gates.Outcome
		headPath                 string // where the head's config goes ("" the default path)
	}{
		{"no config anywhere", "", "", "", gates.Passed, "", "built-in defaults", "", "", "", ""},
		{"the head's broken config is not used, and fails the check", "", "plan_freeze:\n  approval: whatever\n", "", gates.Passed, "", "built-in defaults (no .github/swarm-gate.yml on the base branch); the pull request adds .github/swarm-gate.yml, which is not used yet",
			"added", `line 2, column 13: plan_freeze.approval: "whatever" is not one of any, base-anchored, human`, gates.Failed, ""},
		{"the head cannot relax the base's policy, and the summary says it tries", "plan_freeze:\n  approval: human\n", "plan_freeze:\n  approval: any\n", "", gates.Failed, gates.RuleApprovalSource, "differs and is not used",
			"added", "loosens plan_freeze.approval: human → any", gates.Failed, ""},
		{"a valid head policy passes, described", "", "scope:\n  widened_by_pr: fail\n", "", gates.Passed, "", "the pull request adds .github/swarm-gate.yml, which is not used yet",
			"added", "tightens scope.widened_by_pr: warn → fail", gates.Passed, ""},
		{"a policy the base branch changed since the fork is not the pull request's change", "scope:\n  widened_by_pr: fail\n", "", "", gates.Passed, "", ".github/swarm-gate.yml at base", "", "", gates.Passed, ""},
		{"a head policy over the size limit is not read, and fails the check", "", "# " + strings.Repeat("x", 1<<20) + "\n", "", gates.Passed, "", "the pull request adds .github/swarm-gate.yml, which is not used yet",
			"added", "is 1048579 bytes, over the 1048576-byte limit (over the policy size limit)", gates.Failed, ""},
		{"a head policy spelled .yaml fails the check: once merged every check would", "", "version: 1\n", "", gates.Passed, "", "built-in defaults",
			"added", "swarm-gate reads .github/swarm-gate.yml (with .yml); rename the file, or every check fails once it is merged", gates.Failed, ".github/swarm-gate.yaml"},
		{"a broken base config stops the check", "version: 1\nplan_freeze:\n  approval: humans\n", "", ".github/swarm-gate.yml: line 3, column 13: plan_freeze.approval", "", "", "", "", "", "", ""},
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
			for _, side := range []struct{ branch, config, path string }{{demo.BaseBranch, c.base, ""}, {demo.HeadBranch, c.head, c.headPath}} {
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
				path := side.path
				if path == "" {
					path = ".github/swarm-gate.yml"
				}
				r.commit("", map[string]string{path: side.config})
			}
			// Only plan-freeze, which the demo passes: the outcome then
			// shows what the policy change does to it.
			var only []gates.Gate
			for _, g := range gates.Registry() {
				if g.Name() == "swarm/plan-freeze" {
					only = append(only, g)
				}
			}
			rep, err := Check(context.Background(), Options{RepoDir: dir, Base: demo.BaseBranch, Head: demo.HeadBranch, DiffEngine: "go-git", Gates: only})
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
			if c.outcome != "" && rep.Outcome != c.outcome {
				t.Errorf("outcome %s, want %s", rep.Outcome, c.outcome)
			}
			switch pc := rep.PolicyChange; {
			case c.policyStatus == "" && pc != nil:
				t.Errorf("policy_change %+v, want none", pc)
			case c.policyStatus != "" && pc == nil:
				t.Errorf("no policy_change, want %s", c.policyStatus)
			case pc != nil:
				items := append(append([]string{}, pc.Problems...), pc.Changes...)
				if pc.Status != c.policyStatus || len(items) == 0 || items[0] != c.policyItem {
					t.Errorf("policy_change %+v, want %s with first item %q", pc, c.policyStatus, c.policyItem)
				}
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

// TestCheckOrgPolicyRepo: in the owner's .github repository, a pull
// request that changes the root swarm-gate.yml (the owner's policy, which
// the App reads for repositories without their own) is validated and
// described like a change to .github/swarm-gate.yml: an invalid one fails
// the check, with or without a .swarm/ folder. Elsewhere a root
// swarm-gate.yml is an ordinary file.
func TestCheckOrgPolicyRepo(t *testing.T) {
	const (
		invalid = "plan_freeze:\n  approval: whatever\n"
		tighter = "scope:\n  widened_by_pr: fail\n"
	)
	for _, c := range []struct {
		name      string
		orgRepo   bool
		swarm     bool
		base      map[string]string // besides the .swarm/ folder
		head      map[string]string
		want      gates.Outcome
		path      string // policy_change's path, "" = none
		status    string
		firstItem string
	}{
		{"an invalid owner's policy fails", true, true, nil, map[string]string{"swarm-gate.yml": invalid}, gates.Failed,
			"swarm-gate.yml", "added", `line 2, column 13: plan_freeze.approval: "whatever" is not one of any, base-anchored, human`},
		{"an invalid owner's policy fails without a .swarm/ folder", true, false, map[string]string{"README.md": "org\n"}, map[string]string{"swarm-gate.yml": invalid}, gates.Failed,
			"swarm-gate.yml", "added", `line 2, column 13: plan_freeze.approval: "whatever" is not one of any, base-anchored, human`},
		{"a valid owner's policy is described", true, false, map[string]string{"README.md": "org\n"}, map[string]string{"swarm-gate.yml": tighter}, gates.Passed,
			"swarm-gate.yml", "added", "tightens scope.widened_by_pr: warn → fail"},
		{"loosening the owner's policy is compared with the base's", true, false, map[string]string{"swarm-gate.yml": tighter}, map[string]string{"swarm-gate.yml": "scope:\n  widened_by_pr: warn\n"}, gates.Passed,
			"swarm-gate.yml", "modified", "loosens scope.widened_by_pr: fail → warn"},
		{"the .yaml spelling fails: it is not read", true, true, nil, map[string]string{"swarm-gate.yaml": tighter}, gates.Failed,
			"swarm-gate.yaml", "added", "swarm-gate reads swarm-gate.yml (with .yml); rename the file, or the owner's repositories without a policy of their own get the built-in defaults instead"},
		{"another repository's root swarm-gate.yml is not a policy", false, true, nil, map[string]string{"swarm-gate.yml": invalid}, gates.Passed, "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			base := map[string]string{}
			if c.swarm {
				base[".swarm/plan.json"] = miniPlan
			}
			for p, d := range c.base {
				base[p] = d
			}
			r.commit("", base)
			r.commit("swarm/phase-1", c.head)
			var only []gates.Gate
			for _, g := range gates.Registry() {
				if g.Name() == "swarm/plan-freeze" {
					only = append(only, g)
				}
			}
			rep, err := Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: "swarm/phase-1", Phase: 1, DiffEngine: "go-git", Gates: only, OrgPolicyRepo: c.orgRepo})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Outcome != c.want {
				t.Errorf("outcome %s, want %s (%+v)", rep.Outcome, c.want, rep.PolicyChange)
			}
			switch pc := rep.PolicyChange; {
			case c.path == "" && pc != nil:
				t.Errorf("policy_change %+v, want none", pc)
			case c.path != "" && pc == nil:
				t.Errorf("no policy_change, want %s %s", c.status, c.path)
			case pc != nil:
				items := append(append([]string{}, pc.Problems...), pc.Changes...)
				if pc.Path != c.path || pc.Status != c.status || len(items) == 0 || items[0] != c.firstItem {
					t.Errorf("policy_change %+v, want %s %s with first item %q", pc, c.status, c.path, c.firstItem)
				}
			}
		})
	}
}
