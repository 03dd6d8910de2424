package ghfake_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestCheckSuites: the fake's token gets a check suite on a commit with
// its first check run there (created then, one per commit however many
// runs); Pushed dates the suite GitHub Actions gets on a push, creating it
// or moving it; list-suites-for-ref answers with them, oldest first,
// filtered by app_id and check_name, in responses validated against
// GitHub's description.
func TestCheckSuites(t *testing.T) {
	s := ghfake.New(t)
	gh := client(t, s)
	ctx := context.Background()
	list := func(opts *github.ListCheckSuiteOptions) []*github.CheckSuite {
		t.Helper()
		res, _, err := gh.Checks.ListCheckSuitesForRef(ctx, "octo", "demo", sha, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.GetTotal() != len(res.CheckSuites) {
			t.Errorf("total_count %d, %d suites", res.GetTotal(), len(res.CheckSuites))
		}
		return res.CheckSuites
	}
	if got := list(nil); len(got) != 0 {
		t.Fatalf("suites before any push or run: %+v", got)
	}

	before := time.Now().UTC().Truncate(time.Second)
	for _, name := range []string{"a", "b"} {
		if _, _, err := gh.Checks.CreateCheckRun(ctx, "octo", "demo", github.CreateCheckRunOptions{Name: name, HeadSHA: sha, Status: github.String("in_progress")}); err != nil {
			t.Fatal(err)
		}
	}
	got := list(nil)
	if len(got) != 1 || got[0].GetHeadSHA() != sha || got[0].GetApp().GetID() != ghfake.OwnAppID ||
		got[0].GetCreatedAt().Time.Before(before) || got[0].GetCreatedAt().Time.After(time.Now()) {
		t.Fatalf("the suite of the token's runs: %+v", got)
	}
	own := got[0].GetID()
	if runs := s.CheckRuns("octo/demo"); runs[0].SuiteID != own || runs[1].SuiteID != own {
		t.Errorf("runs' suites %d, %d, want %d", runs[0].SuiteID, runs[1].SuiteID, own)
	}

	pushed := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	s.Pushed("octo/demo", sha, pushed.Add(time.Hour))
	s.Pushed("octo/demo", sha, pushed) // moved, not added
	got = list(nil)
	if len(got) != 2 || got[1].GetApp().GetSlug() != ghfake.ActionsAppSlug || !got[1].GetCreatedAt().Time.Equal(pushed) {
		t.Fatalf("after Pushed: %+v", got)
	}
	if cs := s.CheckSuites("octo/demo", sha); len(cs) != 2 || cs[0].ID != own || !cs[1].CreatedAt.Equal(pushed) {
		t.Errorf("stored suites %+v", cs)
	}
	if got := list(&github.ListCheckSuiteOptions{AppID: github.Int(ghfake.ActionsAppID)}); len(got) != 1 || got[0].GetApp().GetID() != ghfake.ActionsAppID {
		t.Errorf("app_id filter: %+v", got)
	}
	if got := list(&github.ListCheckSuiteOptions{CheckName: github.String("b")}); len(got) != 1 || got[0].GetID() != own {
		t.Errorf("check_name filter: %+v", got)
	}

	// Another commit's suites are its own.
	other := "1111111111111111111111111111111111111111"
	id := s.AddCheckSuite("octo/demo", ghfake.CheckSuite{HeadSHA: other, CreatedAt: pushed})
	res, _, err := gh.Checks.ListCheckSuitesForRef(ctx, "octo", "demo", other, nil)
	if err != nil || len(res.CheckSuites) != 1 || res.CheckSuites[0].GetID() != id || res.CheckSuites[0].GetApp().GetID() != ghfake.ActionsAppID {
		t.Fatalf("%+v %v", res, err)
	}
	if got := list(nil); len(got) != 2 {
		t.Errorf("%d suites on %s after adding one on another commit", len(got), sha)
	}
}
