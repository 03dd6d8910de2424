package evaluate

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
)

// labelsAPI answers PullRequest with a pull request's labels and records
// the options the pipeline is given; the check-run calls do nothing.
type labelsAPI struct {
	API
	asked []int
}

func (f *labelsAPI) PullRequest(_ context.Context, _ ghapi.Repo, n int) (*ghapi.PullRequest, error) {
	f.asked = append(f.asked, n)
	return &ghapi.PullRequest{Number: n, HeadRef: "feature", Labels: []string{"swarm:phase-2"}}, nil
}

func (f *labelsAPI) PullRequestsWithCommit(context.Context, ghapi.Repo, string) ([]*ghapi.PullRequest, error) {
	return nil, nil
}

func (f *labelsAPI) StartChecks(context.Context, ghapi.Repo, string, []string, string) ([]*ghapi.CheckRun, error) {
	return nil, errors.New("no check runs in this test")
}

func (f *labelsAPI) BeginChecks(context.Context, ghapi.Repo, string, []string, []string, string) ([]*ghapi.CheckRun, map[string]*ghapi.CheckRun, error) {
	return nil, nil, errors.New("no check runs in this test")
}

// TestCheckReadsLabels: a check_run or check_suite payload lists the pull
// request without its labels, so Check reads them (a swarm:phase-<N>
// label names the phase when the branch does not): a re-run, or the App's
// check_suite requested that wins the race with the push's pull_request
// delivery, evaluates the phase the pull_request evaluation does.
func TestCheckReadsLabels(t *testing.T) {
	head := "d6fde92930d4715a2b49857d24b940956b26d2d3"
	ev := &actions.Event{Name: "check_suite", Action: "rerequested", CheckSuite: &actions.CheckSuite{HeadSHA: head,
		PullRequests: []actions.PullRequestRef{{Number: 3, Head: actions.Branch{Ref: "feature", SHA: head}, Base: actions.Branch{Ref: "main", SHA: head[:39] + "0"}}}}}
	w := event.Route(ev, "o/r", event.App)
	if w.Kind != event.Check {
		t.Fatalf("routed %s: %s", w.Kind, w.Reason)
	}
	f := &labelsAPI{}
	var seen []string
	onRun = func(o pipeline.Options) { seen = o.Labels }
	defer func() { onRun = nil }()
	d := &Deps{API: f, Checkout: Checkout{SourceError: errors.New("no checkout in this test")}}
	if _, err := Check(context.Background(), d, Settings{Gates: []gates.Gate{gates.Scope{}}, ReportTimeout: time.Second}, w.Target); err != nil {
		t.Fatal(err)
	}
	if len(f.asked) != 1 || f.asked[0] != 3 || len(seen) != 1 || seen[0] != "swarm:phase-2" {
		t.Errorf("asked for pull requests %v, the pipeline got labels %q; want #3's swarm:phase-2", f.asked, seen)
	}
}
