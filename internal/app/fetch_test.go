package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
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

// TestFetchToMergeBase: when the base branch moved on beyond the deepened
// fetch after the pull request branched, GitHub's compare API gives the
// merge base (one call) and the head's history is fetched down to it,
// never the whole history: with no second fetch when the first already
// holds it, else one at depth ahead_by+1. A compare API that fails leaves
// the fetch as it was (deeper, then whole); a merge base it gives that is
// not an ancestor of the head fails the fetch, naming both SHAs, without
// trying the refs either.
func TestFetchToMergeBase(t *testing.T) {
	const depth = 10
	cases := []struct {
		name                        string
		trunk, fork, feature, after int
		compare                     string // "api": the fake's compare API; "fail": an error; "base": the base tip as merge base
		wantMode                    string
		wantDepth                   int
		wantCompares, wantFetches   int
		wantErr                     []string // {base} and {head} stand for the SHAs
	}{
		{"short pull request: the first fetch holds the merge base", 60, 60, 3, 100, "api", "merge-base", depth, 1, 1, nil},
		{"long pull request: the head fetched again at depth ahead_by+1", 60, 60, 25, 100, "api", "merge-base", 26, 1, 2, nil},
		{"head descends from base within the depth: no compare call", 30, 30, 5, 0, "api", "shallow", depth, 0, 1, nil},
		{"diverged by a few commits (go-git's merge base walks to the root): one compare call, no second fetch", 30, 28, 2, 2, "api", "merge-base", depth, 1, 1, nil},
		{"the compare API fails: deeper, then the whole history", 60, 60, 3, 100, "fail", "full", 0, 1, 3, nil},
		{"a merge base that is not an ancestor of the head", 60, 60, 3, 100, "base", "", 0, 1, 2,
			[]string{"gives {base} as the merge base of base {base} and head {head}", "not an ancestor of head {head}", "cannot check"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := ghfake.New(t)
			src := t.TempDir()
			base, head := history(t, src, tc.trunk, tc.fork, tc.feature, tc.after)
			fake.ServeGit("o/r", src)
			client, err := ghapi.NewClient(fake.URL, ghfake.Token, nil)
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			compare := func(ctx context.Context) (*ghapi.Comparison, error) {
				calls++
				switch tc.compare {
				case "fail":
					return nil, errors.New("comparing: 500 Internal Server Error")
				case "base":
					return &ghapi.Comparison{MergeBase: base, AheadBy: tc.feature, BehindBy: 0, Status: "behind"}, nil
				}
				return client.Compare(ctx, ghapi.Repo{Owner: "o", Name: "r"}, base, head)
			}
			dir := filepath.Join(t.TempDir(), "repo")
			res, err := fetchCommits(context.Background(), dir, fetchSpec{URL: fake.WebURL + "/o/r.git", Token: ghfake.Token, Base: base, Head: head,
				Refs: []string{"refs/heads/feature", "refs/heads/main"}, Depth: depth, Compare: compare})
			defer func() { _ = res.close() }()
			fetches := 0
			for _, r := range fake.GitRequests() {
				if r.Path == "/git-upload-pack" {
					fetches++
				}
			}
			if calls != tc.wantCompares || fetches != tc.wantFetches {
				t.Errorf("%d compare calls and %d fetches, want %d and %d", calls, fetches, tc.wantCompares, tc.wantFetches)
			}
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("fetched %s at depth %d, want an error", res.Mode, res.Depth)
				}
				for _, w := range tc.wantErr {
					w = strings.NewReplacer("{base}", base, "{head}", head).Replace(w)
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Mode != tc.wantMode || res.Depth != tc.wantDepth {
				t.Errorf("fetched %s at depth %d, want %s at depth %d", res.Mode, res.Depth, tc.wantMode, tc.wantDepth)
			}
			if (tc.compare == "fail") != (res.CompareErr != nil) {
				t.Errorf("CompareErr %v", res.CompareErr)
			}
			mergeBase := gitOut(t, src, "merge-base", base, head)
			all, _ := strconv.Atoi(gitOut(t, src, "rev-list", "--count", "--all"))
			n := commitCount(t, dir)
			switch tc.wantMode {
			case "merge-base":
				if res.MergeBase != mergeBase {
					t.Errorf("merge base %s, want %s", res.MergeBase, mergeBase)
				}
				// The head's history down to the merge base, the base's
				// first fetch, and as much of the merge base's own.
				if max := tc.feature + 1 + depth + res.Depth; n > max || n >= all {
					t.Errorf("%d commits fetched, want at most %d (the repository has %d)", n, max, all)
				}
				if ok, err := res.Repo.IsAncestor(plumbing.NewHash(mergeBase), plumbing.NewHash(head)); err != nil || !ok {
					t.Errorf("the merge base is not in the head's fetched history: %v %v", ok, err)
				}
			case "full":
				if n != all {
					t.Errorf("%d commits fetched, want all %d", n, all)
				}
				fallthrough
			default:
				if res.MergeBase != "" {
					t.Errorf("merge base %s given in mode %s: the pipeline finds it itself", res.MergeBase, res.Mode)
				}
			}
		})
	}
}

// gitOut runs git in dir and returns its trimmed output.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// commitCount is the number of commits in the repository at dir.
func commitCount(t *testing.T, dir string) int {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	iter, err := repo.CommitObjects()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	_ = iter.ForEach(func(*object.Commit) error { n++; return nil })
	return n
}
