package app

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// history writes a repository with git fast-import: main has trunk
// commits; branch feature forks from main at fork (counting from the
// root, 1-based) and has feature commits; after the fork main gets after
// more commits. It returns main's and feature's tips.
func history(t *testing.T, dir string, trunk, fork, feature, after int) (base, head string) {
	t.Helper()
	var b strings.Builder
	mark := 0
	commit := func(branch string, from int, msg string) int {
		mark++
		fmt.Fprintf(&b, "commit refs/heads/%s\nmark :%d\ncommitter t <t@example.com> %d +0000\ndata %d\n%s\n", branch, mark, 1700000000+mark*60, len(msg), msg)
		if from > 0 {
			fmt.Fprintf(&b, "from :%d\n", from)
		}
		content := fmt.Sprintf("%s %d\n", branch, mark)
		fmt.Fprintf(&b, "M 644 inline %s/f%d.txt\ndata %d\n%s\n", branch, mark, len(content), content)
		return mark
	}
	prev, forkMark := 0, 0
	for i := 1; i <= trunk; i++ {
		prev = commit("main", prev, fmt.Sprintf("main %d", i))
		if i == fork {
			forkMark = prev
		}
	}
	for i := 1; i <= after; i++ {
		prev = commit("main", prev, fmt.Sprintf("main after %d", i))
	}
	f := forkMark
	for i := 1; i <= feature; i++ {
		f = commit("feature", f, fmt.Sprintf("feature %d", i))
	}
	run := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("", "init", "-q", "--bare")
	run(b.String(), "fast-import", "--quiet")
	return run("", "rev-parse", "main"), run("", "rev-parse", "feature")
}

// TestFetchCommits: the commits are fetched shallow when the first depth
// reaches the merge base, deeper when it does not, whole when the newer
// commit's history must be walked to its root, and by ref when the server
// does not serve commits by SHA; the merge base is then found as the
// pipeline finds it.
func TestFetchCommits(t *testing.T) {
	cases := []struct {
		name                        string
		trunk, fork, feature, after int
		opts                        []ghfake.GitOption
		refs                        []string
		wantMode                    string
		wantDepth                   int
	}{
		{"head descends from base within the depth", 30, 30, 5, 0, nil, nil, "shallow", 10},
		{"head descends from base beyond the depth", 30, 30, 25, 0, nil, nil, "deepened", 80},
		{"diverged, short history", 30, 20, 5, 5, nil, nil, "deepened", 80},
		{"diverged, history longer than the deepened fetch", 120, 100, 5, 5, nil, nil, "full", 0},
		{"server without fetch by SHA", 30, 20, 5, 5, []ghfake.GitOption{ghfake.GitTipsOnly()}, []string{"refs/heads/feature", "refs/heads/main"}, "refs", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := ghfake.New(t)
			src := t.TempDir()
			base, head := history(t, src, tc.trunk, tc.fork, tc.feature, tc.after)
			fake.ServeGit("o/r", src, tc.opts...)
			dir := filepath.Join(t.TempDir(), "repo")
			res, err := fetchCommits(context.Background(), dir, fetchSpec{URL: fake.WebURL + "/o/r.git", Token: ghfake.Token, Base: base, Head: head, Refs: tc.refs, Depth: 10})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := res.close(); err != nil {
					t.Errorf("closing the fetched repository: %v", err)
				}
			}()
			if res.Mode != tc.wantMode || res.Depth != tc.wantDepth {
				t.Errorf("fetched %s at depth %d, want %s at depth %d", res.Mode, res.Depth, tc.wantMode, tc.wantDepth)
			}
			// The repository comes opened, the commits readable through it.
			if res.Repo == nil {
				t.Fatal("fetchCommits returned no opened repository")
			}
			for _, sha := range []string{base, head} {
				if _, err := res.Repo.ResolveCommit(sha); err != nil {
					t.Errorf("the opened repository: %v", err)
				}
			}
			g, ok := ready(dir, fetchSpec{Base: base, Head: head})
			if !ok {
				t.Error("the merge base cannot be found in the fetched repository")
			}
			if g == nil {
				t.Error("ready returned no opened repository")
			} else if err := g.Close(); err != nil {
				t.Error(err)
			}
			repo, err := git.PlainOpen(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, sha := range []string{base, head} {
				if _, err := repo.CommitObject(plumbing.NewHash(sha)); err != nil {
					t.Errorf("commit %s is missing: %v", sha, err)
				}
			}
			if cfg, err := os.ReadFile(filepath.Join(dir, ".git", "config")); err != nil || strings.Contains(string(cfg), ghfake.Token) {
				t.Errorf("the repository's config holds the token (or cannot be read: %v)", err)
			}
		})
	}
}

// TestFetchErrors: a fetch that cannot get the commits says why, names
// the URL and never the token.
func TestFetchErrors(t *testing.T) {
	fake := ghfake.New(t)
	src := t.TempDir()
	base, head := history(t, src, 5, 5, 2, 0)
	fake.ServeGit("o/r", src)
	cases := []struct {
		name string
		spec fetchSpec
		want string
	}{
		{"bad token", fetchSpec{URL: fake.WebURL + "/o/r.git", Token: "wrong-" + ghfake.Token, Base: base, Head: head}, "authentication required"},
		{"unknown repository", fetchSpec{URL: fake.WebURL + "/o/none.git", Token: ghfake.Token, Base: base, Head: head, Refs: []string{"refs/heads/main"}}, "repository not found"},
		{"unknown commit, its ref does not hold it", fetchSpec{URL: fake.WebURL + "/o/r.git", Token: ghfake.Token, Base: base, Head: strings.Repeat("1", 40),
			Refs: []string{"refs/heads/feature"}}, "commit 111111111111 is not in refs/heads/feature"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := fetchCommits(context.Background(), filepath.Join(t.TempDir(), "repo"), tc.spec)
			if res.Repo != nil {
				t.Errorf("a failed fetch returned an opened repository")
				_ = res.close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), tc.spec.Token) || !strings.Contains(err.Error(), tc.spec.URL) {
				t.Errorf("error %q: it must name the URL and not the token", err)
			}
		})
	}
}
