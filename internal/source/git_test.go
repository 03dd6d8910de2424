package source

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func TestOpenGit(t *testing.T) {
	r := newTestRepo(t)
	r.commit(tree{"sub/dir/a.txt": {content: "a\n"}}, "one")
	notRepo := t.TempDir()
	tests := []struct {
		name    string
		dir     string
		wantErr string
	}{
		{"repository root", r.dir, ""},
		{"subdirectory: found like git finds it", filepath.Join(r.dir, "sub", "dir"), ""},
		{"not a repository", notRepo, notRepo + " is not a git repository"},
		{"missing directory", filepath.Join(notRepo, "nope"), "nope does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := OpenGit(tt.dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("OpenGit(%s): err = %v, want one containing %q", tt.dir, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("OpenGit(%s): %v", tt.dir, err)
			}
			if want := filepath.Join(r.dir, ".git"); g.gitDir != want {
				t.Errorf("git dir = %q, want %q", g.gitDir, want)
			}
		})
	}
}

func TestResolveCommit(t *testing.T) {
	r := newTestRepo(t)
	first := r.commit(tree{"a.txt": {content: "1\n"}}, "first")
	second := r.commit(tree{"a.txt": {content: "2\n"}}, "second")
	r.setRef("refs/heads/feature", first)
	r.setRef("refs/remotes/origin/main", first)
	r.setRef("refs/tags/v1", first)
	sig := &object.Signature{Name: "Tagger", Email: "t@example.com", When: r.when}
	if _, err := r.repo.CreateTag("v2-light", second, nil); err != nil {
		t.Fatal(err)
	}
	tagRef, err := r.repo.CreateTag("v2-annotated", second, &git.CreateTagOptions{Tagger: sig, Message: "release"})
	if err != nil {
		t.Fatal(err)
	}
	commit, _ := r.repo.CommitObject(second)
	treeHash := commit.TreeHash

	tests := []struct {
		ref     string
		want    plumbing.Hash
		wantErr []string
	}{
		{ref: second.String(), want: second},
		{ref: first.String()[:7], want: first},
		{ref: "HEAD", want: second},
		{ref: "HEAD~1", want: first},
		{ref: "master", want: second},
		{ref: "feature", want: first},
		{ref: "refs/heads/feature", want: first},
		{ref: "origin/main", want: first},
		{ref: "v1", want: first},
		{ref: "v2-light", want: second},
		{ref: "v2-annotated", want: second},
		{ref: tagRef.Hash().String(), want: second},
		{ref: "main", wantErr: []string{`"main"`, "git fetch origin main"}},
		{ref: "origin/feature", wantErr: []string{`"origin/feature"`, "git fetch <remote> <branch>"}},
		{ref: strings.Repeat("ab", 20), wantErr: []string{strings.Repeat("ab", 20), "git fetch origin"}},
		{ref: "HEAD~5", wantErr: []string{`"HEAD~5"`, "history", "ends before"}},
		{ref: treeHash.String(), wantErr: []string{treeHash.String()}},
		{ref: "", wantErr: []string{"empty revision"}},
	}
	g := r.open()
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			got, err := g.ResolveCommit(tt.ref)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("ResolveCommit(%q) = %s, want an error", tt.ref, got)
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not contain %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("ResolveCommit(%q): %v", tt.ref, err)
			}
			if got != tt.want {
				t.Errorf("ResolveCommit(%q) = %s, want %s", tt.ref, got, tt.want)
			}
		})
	}
}

func TestMergeBase(t *testing.T) {
	r := newTestRepo(t)
	root := r.commit(tree{"a.txt": {content: "root\n"}}, "root")
	b1 := r.commit(tree{"a.txt": {content: "b1\n"}}, "b1", root)
	c1 := r.commit(tree{"a.txt": {content: "c1\n"}}, "c1", root)
	// Criss-cross: each side merges the other's first commit.
	b2 := r.commit(tree{"a.txt": {content: "b2\n"}}, "b2", b1, c1)
	c2 := r.commit(tree{"a.txt": {content: "c2\n"}}, "c2", c1, b1)
	b3 := r.commit(tree{"a.txt": {content: "b3\n"}}, "b3", b2)
	orphan := r.orphan(b1, "unrelated root")
	// c1 has the later committer time of the two merge bases.
	if c, _ := r.repo.CommitObject(c1); !c.Committer.When.After(mustCommit(t, r, b1).Committer.When) {
		t.Fatal("test setup: c1 should be newer than b1")
	}

	tests := []struct {
		name       string
		base, head plumbing.Hash
		want       plumbing.Hash
		wantErr    []string
	}{
		{name: "fork point", base: b1, head: c1, want: root},
		{name: "base is an ancestor of head", base: root, head: b3, want: root},
		{name: "same commit", base: b3, head: b3, want: b3},
		{name: "head is an ancestor of base", base: b3, head: b1, want: b1},
		{name: "criss-cross: latest committer time wins", base: b3, head: c2, want: c1},
		{name: "criss-cross, sides swapped", base: c2, head: b3, want: c1},
		{name: "unrelated histories", base: b3, head: orphan, wantErr: []string{"no common ancestor"}},
		{name: "missing commit", base: b3, head: plumbing.NewHash(strings.Repeat("12", 20)), wantErr: []string{"reading commit 1212121"}},
	}
	g := r.open()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := g.MergeBase(tt.base, tt.head)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("MergeBase = %s, want an error", got)
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not contain %q", err, want)
					}
				}
				if strings.Contains(err.Error(), "shallow") {
					t.Errorf("error %q blames a shallow clone; this clone is full", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("MergeBase: %v", err)
			}
			if got != tt.want {
				t.Errorf("MergeBase = %s, want %s", got, tt.want)
			}
		})
	}
}

func mustCommit(t *testing.T, r *testRepo, h plumbing.Hash) *object.Commit {
	t.Helper()
	c, err := r.repo.CommitObject(h)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMergeBaseShallowClone makes a depth-1 clone (with the git CLI) of a
// repository whose branches forked two commits back, so the merge base is
// not in the clone.
func TestMergeBaseShallowClone(t *testing.T) {
	needGit(t)
	r := newTestRepo(t)
	fork := r.commit(tree{"a.txt": {content: "fork\n"}}, "fork")
	r.commit(tree{"a.txt": {content: "main 1\n"}}, "main 1")
	mainTip := r.commit(tree{"a.txt": {content: "main 2\n"}}, "main 2")
	r.commit(tree{"a.txt": {content: "feature 1\n"}}, "feature 1", fork)
	featureTip := r.commit(tree{"a.txt": {content: "feature 2\n"}}, "feature 2")
	r.setRef("refs/heads/main", mainTip)
	r.setRef("refs/heads/feature", featureTip)

	clone := filepath.Join(t.TempDir(), "clone")
	runGit(t, t.TempDir(), "clone", "--quiet", "--depth", "1", "--no-single-branch", "file://"+r.dir, clone)
	if _, err := os.Stat(filepath.Join(clone, ".git", "shallow")); err != nil {
		t.Fatalf("the clone is not shallow: %v", err)
	}

	g, err := OpenGit(clone)
	if err != nil {
		t.Fatal(err)
	}
	base, err := g.ResolveCommit("origin/main")
	if err != nil {
		t.Fatal(err)
	}
	head, err := g.ResolveCommit("origin/feature")
	if err != nil {
		t.Fatal(err)
	}
	if base != mainTip || head != featureTip {
		t.Fatalf("resolved %s and %s, want %s and %s", base, head, mainTip, featureTip)
	}
	_, err = g.MergeBase(base, head)
	if err == nil {
		t.Fatal("MergeBase in a shallow clone without the fork point succeeded")
	}
	for _, want := range []string{"shallow", "fetch-depth: 0", "git fetch --unshallow"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}

	// After unshallowing, the same call finds the fork point.
	runGit(t, clone, "fetch", "--quiet", "--unshallow")
	g, err = OpenGit(clone)
	if err != nil {
		t.Fatal(err)
	}
	got, err := g.MergeBase(base, head)
	if err != nil {
		t.Fatalf("MergeBase after unshallowing: %v", err)
	}
	if got != fork {
		t.Errorf("MergeBase after unshallowing = %s, want %s", got, fork)
	}
}

func TestCommitTime(t *testing.T) {
	r := newTestRepo(t)
	first := r.commit(tree{"a.txt": {content: "one\n"}}, "first")
	second := r.commit(tree{"a.txt": {content: "two\n"}}, "second")
	g, err := OpenGit(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []plumbing.Hash{first, second} {
		got, err := g.CommitTime(h)
		if want := mustCommit(t, r, h).Committer.When; err != nil || !got.Equal(want) {
			t.Errorf("CommitTime(%s) = %v, %v: want %v", h, got, err, want)
		}
	}
	missing := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	if got, err := g.CommitTime(missing); err == nil || !got.IsZero() || !strings.Contains(err.Error(), "0123456") {
		t.Errorf("CommitTime(a missing commit) = %v, %v: want the zero time and an error naming the commit", got, err)
	}
}
