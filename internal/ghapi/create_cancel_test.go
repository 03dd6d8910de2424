package ghapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// cancelOnCreate cancels the evaluation's context the moment a create
// request is sent, as a shutdown landing mid-request would.
type cancelOnCreate struct {
	cancel context.CancelFunc
}

func (c cancelOnCreate) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/check-runs") {
		c.cancel()
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestCreateSeenThroughWhenCancelled: a create sent before the evaluation
// is cancelled still returns the run, so that the finaliser can complete
// it; a run GitHub created whose id swarm-gate never learnt would stay in
// progress. Once cancelled, nothing more is created.
func TestCreateSeenThroughWhenCancelled(t *testing.T) {
	s := ghfake.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := ghapi.NewClient(s.URL, ghfake.Token, &http.Client{Transport: cancelOnCreate{cancel}}, ghapi.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := c.StartChecks(ctx, repo, headSHA, []string{"swarm-gate", "swarm/scope"}, "swarm-gate:cancel:1")
	stored := s.CheckRuns(repo.String())
	if len(stored) != 1 {
		t.Fatalf("%d runs stored, want 1 (the create in flight, not the next)", len(stored))
	}
	if len(runs) == 0 || runs[0] == nil || runs[0].ID != stored[0].ID {
		t.Fatalf("StartChecks = %+v, %v; want the stored run %d among the runs returned", runs, err, stored[0].ID)
	}
	if err == nil {
		t.Error("StartChecks reported no error although it was cancelled before the second create")
	}
}
