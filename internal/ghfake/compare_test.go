package ghfake_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestCompareCommits: the compare API is answered from the served
// repository (the answers are validated against GitHub's description by
// the fake itself): the merge base, the counts and status of each side,
// base..head's commits oldest first; unrelated histories and unknown
// commits get 404, a repository not served too.
func TestCompareCommits(t *testing.T) {
	h := newGitHistory(t)
	s := ghfake.New(t)
	s.ServeGit("o/r", h.dir)
	c := client(t, s)
	type want struct {
		mergeBase, status      string
		ahead, behind          int
		commits, parentsOfLast []string
	}
	cases := []struct {
		name, repo, base, head string
		want                   *want // nil: 404
	}{
		{"diverged", "o/r", h.second, h.third, &want{h.first, "diverged", 1, 1, []string{h.third}, []string{h.first}}},
		{"ahead, by branch names", "o/r", h.first, "main", &want{h.first, "ahead", 1, 0, []string{h.second}, []string{h.first}}},
		{"behind", "o/r", h.second, h.first, &want{h.first, "behind", 0, 1, nil, nil}},
		{"identical", "o/r", h.first, h.first, &want{h.first, "identical", 0, 0, nil, nil}},
		{"unrelated histories", "o/r", h.second, h.dangling, nil},
		{"unknown commit", "o/r", h.second, strings.Repeat("1", 40), nil},
		{"repository not served", "o/other", h.second, h.third, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			owner, name, _ := strings.Cut(tc.repo, "/")
			got, _, err := c.Repositories.CompareCommits(context.Background(), owner, name, tc.base, tc.head, nil)
			if tc.want == nil {
				if !isStatus(err, http.StatusNotFound) {
					t.Fatalf("error %v, want 404", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var commits, parents []string
			for _, cm := range got.Commits {
				commits = append(commits, cm.GetSHA())
				parents = nil
				for _, p := range cm.Parents {
					parents = append(parents, p.GetSHA())
				}
			}
			w := tc.want
			if got.GetMergeBaseCommit().GetSHA() != w.mergeBase || got.GetStatus() != w.status || got.GetAheadBy() != w.ahead || got.GetBehindBy() != w.behind ||
				got.GetTotalCommits() != w.ahead || strings.Join(commits, " ") != strings.Join(w.commits, " ") || strings.Join(parents, " ") != strings.Join(w.parentsOfLast, " ") {
				t.Errorf("merge base %s, %s, ahead %d, behind %d, total %d, commits %v (last's parents %v); want %+v",
					got.GetMergeBaseCommit().GetSHA(), got.GetStatus(), got.GetAheadBy(), got.GetBehindBy(), got.GetTotalCommits(), commits, parents, *w)
			}
			if tc.base == h.second && got.GetBaseCommit().GetSHA() != h.second {
				t.Errorf("base commit %s, want %s", got.GetBaseCommit().GetSHA(), h.second)
			}
		})
	}
}
