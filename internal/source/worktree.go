package source

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/go-git/go-git/v5"
)

// UncommittedChanges counts the paths of the work tree around dir that
// differ from its HEAD commit: modified, staged, deleted or untracked
// (ignored files excepted), as `git status --porcelain` lists them; the
// git CLI is used when present, else go-git. A bare repository has none.
// swarm-gate checks commits only, so the CLI says when these are left out.
func UncommittedChanges(ctx context.Context, dir string) (int, error) {
	if gitPath, err := exec.LookPath("git"); err == nil {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		// The work tree's own config applies (its index and excludes are
		// what the count is about); an fsmonitor hook would run a command.
		cmd := exec.CommandContext(ctx, gitPath, "-C", dir, "-c", "core.fsmonitor=false", "status", "--porcelain=v1", "-z", "--untracked-files=normal", "--ignore-submodules=none")
		// No index refresh written back: this is a read-only look.
		cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
		out, err := cmd.Output()
		if err == nil {
			return countPorcelainZ(out), nil
		}
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return 0, fmt.Errorf("opening git repository at %s: %w", dir, err)
	}
	w, err := repo.Worktree()
	if err == git.ErrIsBareRepository {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading the work tree of %s: %w", dir, err)
	}
	st, err := w.Status()
	if err != nil {
		return 0, fmt.Errorf("reading the work tree status of %s: %w", dir, err)
	}
	n := 0
	for _, s := range st {
		if s.Staging != git.Unmodified || s.Worktree != git.Unmodified {
			n++
		}
	}
	return n, nil
}

// countPorcelainZ counts the entries of `git status --porcelain=v1 -z`: NUL-
// terminated "XY path" records, a rename or copy followed by one more NUL-
// terminated field (its old path).
func countPorcelainZ(out []byte) int {
	n := 0
	for len(out) > 0 {
		i := bytes.IndexByte(out, 0)
		if i < 0 {
			i = len(out)
		}
		rec := out[:i]
		out = out[min(i+1, len(out)):]
		if len(rec) < 3 {
			continue
		}
		n++
		if rec[0] == 'R' || rec[0] == 'C' {
			if j := bytes.IndexByte(out, 0); j >= 0 {
				out = out[j+1:]
			} else {
				out = nil
			}
		}
	}
	return n
}
