// Package demo builds the throwaway git repository that `swarm-gate demo`
// checks: an example embedded in the binary, with a base commit holding a
// critic-approved phase plan and a "phase PR" commit on branch swarm/phase-1
// that changes code inside and outside the phase's scope, adds a TODO, and
// completes a task without its evidence.
package demo

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

//go:embed all:_example
var example embed.FS

// Branch names of the demo repository.
const (
	BaseBranch = "main"
	HeadBranch = "swarm/phase-1"
)

// Build creates the demo repository in dir (which must exist and be empty):
// commit 1 on BaseBranch from _example/base, commit 2 on HeadBranch from
// _example/base overlaid with _example/head. It returns the two commit SHAs.
func Build(dir string) (base, head string, err error) {
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		return "", "", fmt.Errorf("creating the demo repository: %w", err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return "", "", err
	}
	// Point HEAD at BaseBranch before the first commit.
	if err := repo.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName(BaseBranch))); err != nil {
		return "", "", err
	}
	when := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	commit := func(msg string) (plumbing.Hash, error) {
		if err := wt.AddGlob("."); err != nil {
			return plumbing.ZeroHash, err
		}
		sig := &object.Signature{Name: "swarm-gate demo", Email: "demo@example.com", When: when}
		when = when.Add(3 * time.Hour)
		return wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: false})
	}
	if err := copyTree(dir, "_example/base"); err != nil {
		return "", "", err
	}
	b, err := commit("phase 1 plan approved by the critic")
	if err != nil {
		return "", "", fmt.Errorf("committing the base: %w", err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(HeadBranch), Create: true}); err != nil {
		return "", "", err
	}
	if err := copyTree(dir, "_example/head"); err != nil {
		return "", "", err
	}
	h, err := commit("phase 1: CSV writer and export command")
	if err != nil {
		return "", "", fmt.Errorf("committing the phase PR: %w", err)
	}
	return b.String(), h.String(), nil
}

// copyTree writes every embedded file under root into dir.
func copyTree(dir, root string) error {
	return fs.WalkDir(example, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := example.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		dst := filepath.Join(dir, filepath.FromSlash(path.Clean(filepath.ToSlash(rel))))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

// Commit checks out branch in the repository at dir, writes files (path
// relative to the repository, slash-separated, to content), commits them
// with msg at time when (author and committer "t"), and returns the new
// commit's SHA; the branch is left checked out. Tests use it to move the
// demo's branches.
func Commit(dir, branch string, files map[string]string, msg string, when time.Time) (string, error) {
	g, err := git.PlainOpen(dir)
	if err != nil {
		return "", err
	}
	wt, err := g.Worktree()
	if err != nil {
		return "", err
	}
	if err := checkout(wt, branch); err != nil {
		return "", err
	}
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return "", err
		}
		if _, err := wt.Add(p); err != nil {
			return "", err
		}
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: when}
	sha, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		return "", err
	}
	return sha.String(), nil
}

// Checkout checks out branch in the repository at dir, discarding changes
// to the work tree.
func Checkout(dir, branch string) error {
	g, err := git.PlainOpen(dir)
	if err != nil {
		return err
	}
	wt, err := g.Worktree()
	if err != nil {
		return err
	}
	return checkout(wt, branch)
}

func checkout(wt *git.Worktree, branch string) error {
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(branch), Force: true}); err != nil {
		return fmt.Errorf("checking out %s: %w", branch, err)
	}
	return nil
}
