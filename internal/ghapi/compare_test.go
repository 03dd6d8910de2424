package ghapi_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestCompare asks the fake's compare API (answered from the served
// repository) for the merge base of two commits: one call with
// per_page=1, the merge base and the counts of each side; an unknown
// commit, a server error and an answer without a merge base SHA are
// errors that name the comparison.
func TestCompare(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git CLI is not on PATH")
	}
	dir, first, second := gitRepo(t) // main: first; feature: first, second
	cmd := exec.Command("git", "commit", "-q", "--allow-empty", "-m", "third")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := exec.Command("git", "-C", dir, "checkout", "-q", "main").CombinedOutput(); err != nil {
		t.Fatalf("git checkout main: %v\n%s", err, out)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	third, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	mainTip := strings.TrimSpace(string(third))
	unknown := strings.Repeat("1", 40)

	cases := []struct {
		name       string
		base, head string
		fault      *ghfake.Fault
		want       ghapi.Comparison
		wantErr    []string
	}{
		{"head ahead of base", first, second, nil, ghapi.Comparison{MergeBase: first, AheadBy: 1, Status: "ahead"}, nil},
		{"diverged", mainTip, second, nil, ghapi.Comparison{MergeBase: first, AheadBy: 1, BehindBy: 1, Status: "diverged"}, nil},
		{"branch names", "main", "feature", nil, ghapi.Comparison{MergeBase: first, AheadBy: 1, BehindBy: 1, Status: "diverged"}, nil},
		{"head behind base", second, first, nil, ghapi.Comparison{MergeBase: first, BehindBy: 1, Status: "behind"}, nil},
		{"unknown commit", mainTip, unknown, nil, ghapi.Comparison{}, []string{"comparing " + mainTip + "..." + unknown + " of octo/demo", "404"}},
		{"server error", mainTip, second, &ghfake.Fault{Operation: "repos/compare-commits", Status: http.StatusInternalServerError, Times: -1}, ghapi.Comparison{},
			[]string{"comparing " + mainTip + "..." + second, "500"}},
		{"no merge base in the answer", mainTip, second, &ghfake.Fault{Operation: "repos/compare-commits", Status: http.StatusOK, Body: `{"status":"diverged","ahead_by":1,"behind_by":1,"merge_base_commit":{}}`},
			ghapi.Comparison{}, []string{"comparing " + mainTip + "..." + second, "no merge base commit SHA"}},
		{"no counts in the answer", mainTip, second, &ghfake.Fault{Operation: "repos/compare-commits", Status: http.StatusOK, Body: `{"status":"diverged","merge_base_commit":{"sha":"` + first + `"}}`},
			ghapi.Comparison{}, []string{"no valid ahead_by and behind_by (none, none)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ghfake.New(t)
			s.ServeGit(repo.String(), dir)
			if tc.fault != nil {
				s.Fail(*tc.fault)
			}
			c, _ := newClient(t, s, ghapi.WithMaxAttempts(1))
			got, err := c.Compare(context.Background(), repo, tc.base, tc.head)
			calls := s.CallsTo("repos/compare-commits")
			if len(calls) != 1 || calls[0].Query.Get("per_page") != "1" {
				t.Errorf("calls %+v, want one with per_page=1", calls)
			}
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("Compare = %+v, want an error", got)
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
			if *got != tc.want {
				t.Errorf("Compare = %+v, want %+v", *got, tc.want)
			}
		})
	}
}
