package source

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestIsAncestor: the walk from head finds its ancestors through merges,
// not its descendants nor another branch's commits, and in a shallow
// clone not the commits beyond the cut.
func TestIsAncestor(t *testing.T) {
	needGit(t)
	r := newTestRepo(t)
	root := r.commit(tree{"a.txt": {content: "root\n"}}, "root")
	fork := r.commit(tree{"a.txt": {content: "fork\n"}}, "fork", root)
	main1 := r.commit(tree{"a.txt": {content: "main 1\n"}}, "main 1", fork)
	side := r.commit(tree{"b.txt": {content: "side\n"}}, "side", fork)
	f1 := r.commit(tree{"a.txt": {content: "feature 1\n"}}, "feature 1", fork)
	f2 := r.commit(tree{"a.txt": {content: "feature 2\n"}}, "feature 2", f1, side) // a merge
	r.setRef("refs/heads/main", main1)
	r.setRef("refs/heads/feature", f2)

	full := r.open()
	shallowDir := filepath.Join(t.TempDir(), "clone")
	runGit(t, t.TempDir(), "clone", "--quiet", "--no-checkout", "--depth", "2", "--branch", "feature", "file://"+r.dir, shallowDir)
	shallow, err := OpenGit(shallowDir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name           string
		g              *Git
		ancestor, head plumbing.Hash
		want           bool
	}{
		{"the commit itself", full, f2, f2, true},
		{"first parent's parent", full, fork, f2, true},
		{"the root", full, root, f2, true},
		{"through the merge's second parent", full, side, f2, true},
		{"another branch's commit", full, main1, f2, false},
		{"a descendant", full, f2, fork, false},
		{"shallow clone: within the fetched history", shallow, f1, f2, true},
		{"shallow clone: beyond the cut", shallow, root, f2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.g.IsAncestor(tt.ancestor, tt.head)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("IsAncestor(%.7s, %.7s) = %v, want %v", tt.ancestor, tt.head, got, tt.want)
			}
		})
	}
	missing := plumbing.NewHash(strings.Repeat("12", 20))
	if _, err := full.IsAncestor(root, missing); err == nil || !strings.Contains(err.Error(), "1212121") {
		t.Errorf("IsAncestor from a missing head: error %v, want one naming it", err)
	}
}
