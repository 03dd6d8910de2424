package source

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// file is one path of a test tree: a regular file (executable when exec is
// set), a symlink to link when link is set, or a submodule at commit gitlink
// when gitlink is set.
type file struct {
	content string
	exec    bool
	link    string
	gitlink string
}

// tree is a whole commit's files by path.
type tree map[string]file

// testRepo is a repository built in the test with go-git's worktree.
type testRepo struct {
	t     *testing.T
	dir   string
	repo  *git.Repository
	wt    *git.Worktree
	files tree // what the worktree and index hold now
	when  time.Time
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	return &testRepo{t: t, dir: dir, repo: repo, wt: wt, files: tree{},
		when: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// commit makes the worktree hold exactly files and commits it. With no
// parents given, the parent is HEAD (none for the first commit).
func (r *testRepo) commit(files tree, msg string, parents ...plumbing.Hash) plumbing.Hash {
	r.t.Helper()
	for _, p := range sortedPaths(r.files) {
		if r.files[p].gitlink != "" {
			continue // submodules live only in the index; see setGitlinks
		}
		if _, keep := files[p]; keep && files[p].link == "" && r.files[p].link == "" && files[p].gitlink == "" {
			continue
		}
		if _, err := r.wt.Remove(p); err != nil {
			r.t.Fatalf("removing %s: %v", p, err)
		}
		_ = os.Remove(filepath.Join(r.dir, p))
	}
	for _, p := range sortedPaths(files) {
		f := files[p]
		if f.gitlink != "" {
			continue
		}
		full := filepath.Join(r.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if f.link != "" {
			if err := os.Symlink(f.link, full); err != nil {
				r.t.Fatal(err)
			}
		} else {
			mode := os.FileMode(0o644)
			if f.exec {
				mode = 0o755
			}
			if err := os.WriteFile(full, []byte(f.content), mode); err != nil {
				r.t.Fatal(err)
			}
			if err := os.Chmod(full, mode); err != nil {
				r.t.Fatal(err)
			}
		}
		if _, err := r.wt.Add(p); err != nil {
			r.t.Fatalf("adding %s: %v", p, err)
		}
	}
	r.setGitlinks(files)
	r.files = files
	r.when = r.when.Add(time.Minute)
	sig := &object.Signature{Name: "Test Author", Email: "author@example.com", When: r.when}
	h, err := r.wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, Parents: parents, AllowEmptyCommits: true})
	if err != nil {
		r.t.Fatalf("committing %q: %v", msg, err)
	}
	return h
}

// setGitlinks makes the index's submodule entries those of files.
func (r *testRepo) setGitlinks(files tree) {
	r.t.Helper()
	idx, err := r.repo.Storer.Index()
	if err != nil {
		r.t.Fatal(err)
	}
	kept := idx.Entries[:0]
	for _, e := range idx.Entries {
		if e.Mode != filemode.Submodule {
			kept = append(kept, e)
		}
	}
	idx.Entries = kept
	for _, p := range sortedPaths(files) {
		if h := files[p].gitlink; h != "" {
			idx.Entries = append(idx.Entries, &index.Entry{Name: p, Hash: plumbing.NewHash(h), Mode: filemode.Submodule})
		}
	}
	sort.Slice(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
	if err := r.repo.Storer.SetIndex(idx); err != nil {
		r.t.Fatal(err)
	}
}

// orphan writes a commit without parents that has the tree of like.
func (r *testRepo) orphan(like plumbing.Hash, msg string) plumbing.Hash {
	r.t.Helper()
	c, err := r.repo.CommitObject(like)
	if err != nil {
		r.t.Fatal(err)
	}
	r.when = r.when.Add(time.Minute)
	sig := object.Signature{Name: "Test Author", Email: "author@example.com", When: r.when}
	orphan := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: c.TreeHash}
	obj := r.repo.Storer.NewEncodedObject()
	if err := orphan.Encode(obj); err != nil {
		r.t.Fatal(err)
	}
	h, err := r.repo.Storer.SetEncodedObject(obj)
	if err != nil {
		r.t.Fatal(err)
	}
	return h
}

// setRef points a reference (refs/heads/x, refs/remotes/origin/x, ...) at h.
func (r *testRepo) setRef(name string, h plumbing.Hash) {
	r.t.Helper()
	if err := r.repo.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(name), h)); err != nil {
		r.t.Fatal(err)
	}
}

func (r *testRepo) open() *Git {
	r.t.Helper()
	g, err := OpenGit(r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	return g
}

func sortedPaths(files tree) []string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// needGit skips the test when the git CLI is not on PATH.
func needGit(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("git")
	if err != nil {
		t.Skip("the git CLI is not on PATH; skipping the git-engine half (the go-git half still runs)")
	}
	return path
}

// runGit runs the git CLI in dir and returns its output.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
