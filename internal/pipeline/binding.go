package pipeline

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/source"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// Binding is what a human override made on a pull request is bound to:
// the head commit and its plan's structure hash, with the policy of the
// base commit (which says who may make it).
type Binding struct {
	HeadSHA       string
	StructureHash string
	Policy        *gates.Config
}

// BindingAt reads the binding of an override from the repository at
// repoDir: the plan at head (a commit that must be in the repository) and
// the policy at base. configPath is Options.ConfigPath.
func BindingAt(repoDir, base, head, configPath string) (*Binding, error) {
	repo, err := source.OpenGit(repoDir)
	if err != nil {
		return nil, err
	}
	h, err := repo.ResolveCommit(head)
	if err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	b, err := repo.ResolveCommit(base)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	headFS, err := repo.Snapshot(h)
	if err != nil {
		return nil, fmt.Errorf("reading head commit %s: %w", h.String()[:12], err)
	}
	baseFS, err := repo.Snapshot(b)
	if err != nil {
		return nil, fmt.Errorf("reading base commit %s: %w", b.String()[:12], err)
	}
	cfg, err := loadPolicy(baseFS, policyPath(configPath), "base "+b.String()[:12])
	if err != nil {
		return nil, fmt.Errorf("reading the policy from the base branch: %w", err)
	}
	data, err := fs.ReadFile(headFS, swarm.PlanPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is missing at head %s, so there is no plan to bind the override to", swarm.PlanPath, h.String()[:12])
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s at head %s: %w", swarm.PlanPath, h.String()[:12], err)
	}
	plan, err := swarm.ParsePlan(swarm.PlanPath, data)
	if err != nil {
		return nil, fmt.Errorf("the head plan cannot be read: %w; %s", err, RepairHint)
	}
	return &Binding{HeadSHA: h.String(), StructureHash: plan.Digests.Structure, Policy: cfg}, nil
}

// PolicyAt reads the policy of the base commit; configPath is
// Options.ConfigPath.
func PolicyAt(repoDir, base, configPath string) (*gates.Config, error) {
	repo, err := source.OpenGit(repoDir)
	if err != nil {
		return nil, err
	}
	b, err := repo.ResolveCommit(base)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	baseFS, err := repo.Snapshot(b)
	if err != nil {
		return nil, fmt.Errorf("reading base commit %s: %w", b.String()[:12], err)
	}
	cfg, err := loadPolicy(baseFS, policyPath(configPath), "base "+b.String()[:12])
	if err != nil {
		return nil, fmt.Errorf("reading the policy from the base branch: %w", err)
	}
	return cfg, nil
}
