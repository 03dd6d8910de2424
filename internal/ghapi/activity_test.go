package ghapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestBranchActivity: the changes of one branch from a time on, newest
// first, over cursor pages, and the newest change before that time; other
// branches are not mixed in; an error names the branch and repository.
func TestBranchActivity(t *testing.T) {
	ctx := context.Background()
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	sha := func(i int) string { return fmt.Sprintf("%040x", i+1) }
	s := ghfake.New(t)
	c, _ := newClient(t, s)
	for i := range 150 {
		s.RecordActivity("octo/demo", ghfake.Activity{Branch: "swarm/phase-1", Before: sha(i - 1), After: sha(i), At: base.Add(time.Duration(i) * time.Minute), Type: "push"})
		s.RecordActivity("octo/demo", ghfake.Activity{Branch: "main", Before: sha(1000 + i), After: sha(1001 + i), At: base.Add(time.Duration(i) * time.Minute), Type: "push"})
	}
	since := base.Add(20 * time.Minute) // 130 changes at or after it: two pages of 100
	changes, before, err := c.BranchActivity(ctx, repo, "swarm/phase-1", since)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 130 || changes[0].After != sha(149) || changes[129].After != sha(20) {
		t.Fatalf("%d changes (%v .. %v), want 130 from %s back to %s", len(changes), changes[0], changes[len(changes)-1], sha(149)[:8], sha(20)[:8])
	}
	if before == nil || before.After != sha(19) || !before.At.Equal(base.Add(19*time.Minute)) {
		t.Fatalf("before %+v, want the change to %s at 09:19", before, sha(19)[:8])
	}
	if n := len(s.CallsTo("repos/list-activities")); n != 2 {
		t.Errorf("%d requests, want 2 pages", n)
	}
	// Nothing before the log starts: the branch's state then is unknown.
	changes, before, err = c.BranchActivity(ctx, repo, "swarm/phase-1", base.Add(-time.Hour))
	if err != nil || len(changes) != 150 || before != nil {
		t.Fatalf("%d changes, before %v, err %v: want all 150 and no earlier change", len(changes), before, err)
	}

	s.Fail(ghfake.Fault{Operation: "repos/list-activities", Times: -1, Status: http.StatusForbidden, Body: `{"message":"Resource not accessible by integration"}`})
	_, _, err = c.BranchActivity(ctx, repo, "swarm/phase-1", since)
	if err == nil || !strings.Contains(err.Error(), "activity of branch swarm/phase-1 in octo/demo") {
		t.Fatalf("error %v, want one naming the branch and repository", err)
	}
}
