package source

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// BranchName returns the branch a ref names, without refs/heads/ or a
// remote's prefix: "HEAD" gives the checked-out branch, "origin/swarm/phase-2"
// and "refs/remotes/origin/swarm/phase-2" give "swarm/phase-2", a local
// branch name or "refs/heads/<name>" gives the name. It returns "" when the
// ref is not a branch (a SHA, a tag, a detached HEAD).
func (g *Git) BranchName(ref string) string {
	if name, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		ref = name
	} else if name, ok := strings.CutPrefix(ref, "refs/remotes/"); ok {
		ref = name
	}
	if ref == "HEAD" {
		h, err := g.repo.Storer.Reference(plumbing.HEAD)
		if err != nil || h.Type() != plumbing.SymbolicReference || !h.Target().IsBranch() {
			return ""
		}
		return h.Target().Short()
	}
	if _, err := g.repo.Reference(plumbing.NewBranchReferenceName(ref), false); err == nil {
		return ref
	}
	remotes, err := g.repo.Remotes()
	if err != nil {
		return ""
	}
	for _, r := range remotes {
		prefix := r.Config().Name + "/"
		if name, ok := strings.CutPrefix(ref, prefix); ok {
			if _, err := g.repo.Reference(plumbing.NewRemoteReferenceName(r.Config().Name, name), false); err == nil {
				return name
			}
		}
	}
	return ""
}
