package pipeline

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

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
	// HeadTime is the head commit's committer time: an override is refused
	// when the head is newer than the command comment (the person did not
	// see it).
	HeadTime time.Time
	// SpecStale is true when the head has spec drift to acknowledge: the
	// plan's specHash does not match spec.md (recomputed, whatever the
	// marker says), or, for a plan without a specHash,
	// .swarm/spec-staleness.json exists. SpecStaleness is then
	// gates.SpecDriftKey ("" when it cannot be told: an acknowledgment
	// cannot bind to it).
	SpecStale     bool
	SpecStaleness string
	Policy        *gates.Config
}

// BindingAt reads the binding of an override from the repository at
// repoDir: the plan at head (a commit that must be in the repository) and
// the policy at base. configPath is Options.ConfigPath, org
// Options.OrgPolicy.
func BindingAt(ctx context.Context, repoDir, base, head, configPath string, org OrgPolicy) (*Binding, error) {
	repo, err := source.OpenGit(repoDir)
	if err != nil {
		return nil, err
	}
	h, err := repo.ResolveCommit(head)
	if err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	cfg, err := PolicyAt(ctx, repoDir, base, configPath, org)
	if err != nil {
		return nil, err
	}
	headFS, err := repo.Snapshot(h)
	if err != nil {
		return nil, fmt.Errorf("reading head commit %s: %w", h.String()[:12], err)
	}
	structure, err := structureAt(headFS, h)
	if err != nil {
		return nil, err
	}
	b := &Binding{HeadSHA: h.String(), StructureHash: structure, Policy: cfg}
	// The base side only lends a specHash the head plan dropped.
	var baseFS fs.FS
	if bh, err := repo.ResolveCommit(base); err == nil {
		if snap, err := repo.Snapshot(bh); err == nil {
			baseFS = snap
		}
	}
	b.SpecStale, b.SpecStaleness = stalenessAt(headFS, baseFS)
	gr, err := git.PlainOpenWithOptions(repoDir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("opening git repository at %s: %w", repoDir, err)
	}
	c, err := gr.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("reading head commit %s: %w", h.String()[:12], err)
	}
	b.HeadTime = c.Committer.When
	return b, nil
}

// structureAt is the structure hash of the plan in a commit's tree.
func structureAt(fsys fs.FS, h plumbing.Hash) (string, error) {
	data, err := fs.ReadFile(fsys, swarm.PlanPath)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s is missing at head %s, so there is no plan to bind the override to", swarm.PlanPath, h.String()[:12])
	}
	if err != nil {
		return "", fmt.Errorf("reading %s at head %s: %w", swarm.PlanPath, h.String()[:12], err)
	}
	plan, err := swarm.ParsePlan(swarm.PlanPath, data)
	if err != nil {
		return "", fmt.Errorf("the head plan cannot be read: %w; %s", err, RepairHint)
	}
	return plan.Digests.Structure, nil
}

// stalenessAt reports whether the tree has spec drift to acknowledge, and
// its gates.SpecDriftKey as the gates compute it ("" when it cannot be
// told). baseFS is the merge base's tree, or nil: without it a head plan
// that dropped its specHash is judged by the marker alone, so an
// acknowledgment recorded with the base may not verify without it (which
// fails closed).
func stalenessAt(fsys, baseFS fs.FS) (bool, string) {
	a := swarm.Load(fsys)
	var base *swarm.Artifacts
	if baseFS != nil {
		base = swarm.Load(baseFS)
	}
	if d := gates.SpecDriftOf(a, base); d.Checked {
		return d.Stale || d.Err != nil, d.Key()
	}
	if a.SpecStaleness == nil && a.SpecStalenessErr == nil {
		return false, ""
	}
	data, err := fs.ReadFile(fsys, swarm.SpecStalenessPath)
	return true, gates.SpecDriftKey(a, base, data, err == nil)
}

// PolicyAt reads the policy of the base commit; configPath is
// Options.ConfigPath and org Options.OrgPolicy (nil: none).
func PolicyAt(ctx context.Context, repoDir, base, configPath string, org OrgPolicy) (*gates.Config, error) {
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
	cfg, err := loadPolicy(ctx, baseFS, policyPath(configPath), "base "+b.String()[:12], org)
	if err != nil {
		if errors.Is(err, ErrOrgPolicy) {
			return nil, fmt.Errorf("reading the policy: %w", err)
		}
		return nil, fmt.Errorf("reading the policy from the base branch: %w", err)
	}
	return cfg, nil
}

// MaxHistoryWalk bounds the commits History visits looking for a marker's
// head SHA; a commit further down is treated as not in the pull request's
// history (fail closed).
const MaxHistoryWalk = 100_000

// History answers, for the override markers read back on a pull request,
// whether a commit is in the history of the evaluated head and what the
// override bound to there. It walks the head's history once, lazily,
// newest committer time first, so a marker bound to a recent head is
// found after a few commits. A parent the checkout lacks (a shallow
// clone) ends that line of the walk; a commit not found is then an error
// (the history is incomplete), not a "no". A History is used by one
// goroutine.
type History struct {
	dir     string
	src     *source.Git
	repo    *git.Repository
	head    plumbing.Hash
	seen    map[plumbing.Hash]bool
	queue   commitQueue
	started bool
	missing int // parents the checkout lacks
}

// MarkedCommit is what History tells of one commit.
type MarkedCommit struct {
	// InHistory is true when the commit is the head or one of its
	// ancestors; the other fields are set only then.
	InHistory bool
	// StructureHash is the plan's structure hash in the commit ("" when
	// the plan is missing or unreadable; PlanErr says why).
	StructureHash string
	PlanErr       error
	// SpecStale and SpecStaleness are Binding's, at the commit.
	SpecStale     bool
	SpecStaleness string
	// CommitTime is the commit's committer time.
	CommitTime time.Time
}

// OpenHistory opens the repository at repoDir for the history of head (a
// revision the repository holds).
func OpenHistory(repoDir, head string) (*History, error) {
	src, err := source.OpenGit(repoDir)
	if err != nil {
		return nil, err
	}
	h, err := src.ResolveCommit(head)
	if err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	repo, err := git.PlainOpenWithOptions(repoDir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("opening git repository at %s: %w", repoDir, err)
	}
	return &History{dir: repoDir, src: src, repo: repo, head: h, seen: map[plumbing.Hash]bool{}}, nil
}

// Head is the evaluated head commit's SHA.
func (h *History) Head() string { return h.head.String() }

// Commit tells what History knows of sha (a full commit SHA): not in the
// history (InHistory false) when the checkout holds its whole history and
// sha is not in it; an error when the walk could not tell (the checkout
// lacks part of the history, or it is longer than MaxHistoryWalk).
func (h *History) Commit(sha string) (*MarkedCommit, error) {
	want := plumbing.NewHash(sha)
	if len(sha) != 40 || want.String() != sha {
		return &MarkedCommit{}, nil
	}
	in, err := h.reaches(want)
	if err != nil || !in {
		return &MarkedCommit{}, err
	}
	c, err := h.repo.CommitObject(want)
	if err != nil {
		return &MarkedCommit{}, fmt.Errorf("reading commit %s: %w", sha[:12], err)
	}
	out := &MarkedCommit{InHistory: true, CommitTime: c.Committer.When}
	fsys, err := h.src.Snapshot(want)
	if err != nil {
		out.PlanErr = fmt.Errorf("reading commit %s: %w", sha[:12], err)
		return out, nil
	}
	out.StructureHash, out.PlanErr = structureAt(fsys, want)
	out.SpecStale, out.SpecStaleness = stalenessAt(fsys, nil)
	return out, nil
}

// reaches walks the head's history, newest committer time first, until it
// meets want.
func (h *History) reaches(want plumbing.Hash) (bool, error) {
	if h.seen[want] {
		return true, nil
	}
	if !h.started {
		h.started = true
		if !h.push(h.head) {
			return false, fmt.Errorf("reading head commit %s in %s: the checkout does not hold it", h.head.String()[:12], h.dir)
		}
		if h.seen[want] {
			return true, nil
		}
	}
	for h.queue.Len() > 0 {
		c := heap.Pop(&h.queue).(*object.Commit)
		for _, p := range c.ParentHashes {
			if !h.seen[p] && !h.push(p) {
				h.missing++
			}
		}
		if len(h.seen) > MaxHistoryWalk {
			return false, fmt.Errorf("the history of %s has more than %d commits; swarm-gate stopped looking for the override's head", h.head.String()[:12], MaxHistoryWalk)
		}
		if h.seen[want] {
			return true, nil
		}
	}
	if h.missing > 0 {
		return false, fmt.Errorf("the checkout at %s lacks part of the history of %s (a shallow clone), so swarm-gate cannot tell whether %s is in it; check out with fetch-depth: 0", h.dir, h.head.String()[:12], want.String()[:12])
	}
	return false, nil
}

// push queues a commit of the walk; false when the checkout lacks it.
func (h *History) push(hash plumbing.Hash) bool {
	c, err := h.repo.CommitObject(hash)
	if err != nil {
		return false
	}
	h.seen[hash] = true
	heap.Push(&h.queue, c)
	return true
}

// commitQueue is a heap of commits, newest committer time first.
type commitQueue []*object.Commit

func (q commitQueue) Len() int           { return len(q) }
func (q commitQueue) Less(i, j int) bool { return q[i].Committer.When.After(q[j].Committer.When) }
func (q commitQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)        { *q = append(*q, x.(*object.Commit)) }
func (q *commitQueue) Pop() any {
	old := *q
	c := old[len(old)-1]
	*q = old[:len(old)-1]
	return c
}
