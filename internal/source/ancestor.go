package source

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
)

// IsAncestor reports whether commit ancestor is head or one of head's
// ancestors in the history this repository holds: it walks from head
// through every parent that is in the repository, so in a shallow clone
// the walk ends where the fetched history was cut, and an ancestor beyond
// the cut is reported as not one (false, nil). It visits each commit at
// most once: at most the repository's commits.
//
// An error means the walk could not be made: head is not in the
// repository (the error names it), or a commit could not be read.
func (g *Git) IsAncestor(ancestor, head plumbing.Hash) (bool, error) {
	if _, err := g.repo.CommitObject(head); err != nil {
		return false, fmt.Errorf("walking the history of %s: reading commit %s: %w", short(head), short(head), err)
	}
	seen := map[plumbing.Hash]bool{head: true}
	queue := []plumbing.Hash{head}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		if h == ancestor {
			return true, nil
		}
		c, err := g.repo.CommitObject(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			continue // where a shallow clone's history was cut
		}
		if err != nil {
			return false, fmt.Errorf("walking the history of %s: reading commit %s: %w", short(head), short(h), err)
		}
		for _, p := range c.ParentHashes {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return false, nil
}
