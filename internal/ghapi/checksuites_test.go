package ghapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestFirstCheckSuite: when GitHub first saw a commit is the earliest
// created_at of its check suites, over every page (100 a page), whatever
// their order; no suite is the zero time without an error; an error names
// the repository and the commit.
func TestFirstCheckSuite(t *testing.T) {
	ctx := context.Background()
	t.Run("no suite", func(t *testing.T) {
		s := ghfake.New(t)
		c, _ := newClient(t, s)
		at, err := c.FirstCheckSuite(ctx, repo, headSHA)
		if err != nil || !at.IsZero() {
			t.Fatalf("%v %v, want the zero time and no error", at, err)
		}
	})
	t.Run("several suites over pages", func(t *testing.T) {
		s := ghfake.New(t)
		c, _ := newClient(t, s)
		base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		earliest := base.Add(-time.Hour)
		for i := range 150 {
			at := base.Add(time.Duration(i) * time.Minute)
			if i == 120 { // on the second page
				at = earliest
			}
			s.AddCheckSuite("octo/demo", ghfake.CheckSuite{HeadSHA: headSHA, CreatedAt: at})
		}
		s.Pushed("octo/demo", strings.Repeat("b", 40), earliest.Add(-time.Hour)) // another commit's
		at, err := c.FirstCheckSuite(ctx, repo, headSHA)
		if err != nil || !at.Equal(earliest) {
			t.Fatalf("%v %v, want %v", at, err, earliest)
		}
		calls := s.CallsTo("checks/list-suites-for-ref")
		if len(calls) != 2 || calls[0].Query.Get("per_page") != "100" || calls[1].Query.Get("page") != "2" || calls[0].Params["ref"] != headSHA {
			t.Errorf("calls %+v, want two pages of 100", calls)
		}
	})
	t.Run("GitHub's answer is an error", func(t *testing.T) {
		s := ghfake.New(t)
		c, _ := newClient(t, s)
		s.Fail(ghfake.Fault{Operation: "checks/list-suites-for-ref", Status: http.StatusForbidden, Times: -1, Body: `{"message":"Resource not accessible by integration"}`})
		at, err := c.FirstCheckSuite(ctx, repo, headSHA)
		if err == nil || !at.IsZero() || !strings.Contains(err.Error(), "listing the check suites of octo/demo@3dca65fa3e8d") || !strings.Contains(err.Error(), "Resource not accessible") {
			t.Fatalf("%v %v", at, err)
		}
	})
}
