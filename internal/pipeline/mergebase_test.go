package pipeline

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/demo"
)

// TestCheckGivenMergeBase: a merge base given by a trusted source
// (Options.MergeBase, the App's answer from GitHub's compare API) is used
// when it is an ancestor of the head, also in a clone whose base side does
// not reach it, and gives the report the repository's own merge base
// gives; one that is not an ancestor of the head, not in the repository or
// not a SHA fails the check, naming the SHAs.
func TestCheckGivenMergeBase(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not on PATH; the shallow clone is made with it")
	}
	dir := t.TempDir()
	fork, head, err := demo.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	var mainTip string
	for i := range 3 { // the base branch moves on after the pull request branched
		mainTip, err = demo.Commit(dir, demo.BaseBranch, map[string]string{fmt.Sprintf("docs/note%d.md", i): "note\n"}, "note", time.Date(2026, 2, 1, i, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
	}
	want, err := Check(context.Background(), Options{RepoDir: dir, Base: mainTip, Head: head})
	if err != nil {
		t.Fatal(err)
	}
	if want.MergeBase != fork {
		t.Fatalf("test setup: the merge base is %s, want the fork point %s", want.MergeBase, fork)
	}

	// A clone with the head and its parent (the fork point), and the base
	// tip alone: the repository cannot find the merge base itself.
	shallow := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = shallow
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q")
	git("fetch", "-q", "--depth", "2", "file://"+filepath.ToSlash(dir), "refs/heads/"+demo.HeadBranch+":refs/heads/h")
	git("fetch", "-q", "--depth", "1", "file://"+filepath.ToSlash(dir), "refs/heads/"+demo.BaseBranch+":refs/heads/b")
	if _, err := Check(context.Background(), Options{RepoDir: shallow, Base: mainTip, Head: head}); err == nil || !strings.Contains(err.Error(), "shallow") {
		t.Fatalf("test setup: without a given merge base the shallow clone gives %v, want the shallow-clone error", err)
	}

	cases := []struct {
		name, repo, mergeBase string
		wantErr               []string // "" parts: the report must equal want
	}{
		{"the true merge base, full history", dir, fork, nil},
		{"the true merge base, base side cut above it", shallow, fork, nil},
		{"the head itself (a head already merged): nothing to check", dir, head, []string{"empty range", "is an ancestor of base"}},
		{"a base-branch commit, not an ancestor of the head", dir, mainTip,
			[]string{"merge base " + mainTip, "head " + head, "not an ancestor of head " + head, "refusing to evaluate"}},
		{"a commit the clone does not have", shallow, strings.Repeat("ab", 20), []string{"merge base " + strings.Repeat("ab", 20), "head " + head, "not in the repository"}},
		{"not a full SHA", dir, fork[:12], []string{"merge base " + fork[:12], "not a full commit SHA"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Check(context.Background(), Options{RepoDir: tc.repo, Base: mainTip, Head: head, MergeBase: tc.mergeBase})
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("Check passed with merge base %s (outcome %s), want an error", tc.mergeBase, got.Outcome)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.MergeBase != tc.mergeBase {
				t.Errorf("report's merge base %s, want %s", got.MergeBase, tc.mergeBase)
			}
			if tc.mergeBase == head {
				if len(got.Gates) == 0 {
					t.Error("no gate ran")
				}
				return // an empty change set: another report
			}
			if !reflect.DeepEqual(outcomes(got), outcomes(want)) || got.ExitCode != want.ExitCode || !reflect.DeepEqual(got.Gates, want.Gates) {
				t.Errorf("gates %v (exit %d), want %v (exit %d) as with the repository's own merge base", outcomes(got), got.ExitCode, outcomes(want), want.ExitCode)
			}
		})
	}
}
