package ghapi_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestRateLimitAnswersDoNotPoisonTheClient: a rate-limit (or rate-limit
// shaped) answer that the transport gives up on is returned as an error,
// and the very next requests, the Finaliser's included, are sent to GitHub:
// go-github never refuses them locally on the strength of that answer's
// Retry-After or x-ratelimit-reset (its secondary-limit and primary-limit
// memories), so a run is never left in progress because of it.
//
// The fault hits the first check-run update on each of its attempts, then
// the API works again: the first gate's run is completed as failure by the
// Finaliser, the others as the Finaliser completes them too (run stops at
// the first error).
func TestRateLimitAnswersDoNotPoisonTheClient(t *testing.T) {
	soon := time.Now().Add(time.Minute)
	late := time.Now().Add(time.Hour) // beyond the transport's MaxWait
	noRemaining := http.Header{"X-Ratelimit-Remaining": {""}, "X-Ratelimit-Reset": {unix(late)}}
	cases := []struct {
		name  string
		fault ghfake.Fault
		// attempts is how many times the transport sends the update: 3
		// when it waits and resends, 1 when it returns the answer at once.
		attempts int
	}{
		{"403 secondary limit without Retry-After (x-ratelimit-reset in an hour)", ghfake.SecondaryRateLimit(-1), 3},
		{"403 secondary limit with Retry-After", ghfake.SecondaryRateLimit(60), 3},
		{"429 without Retry-After", ghfake.TooManyRequests(-1), 3},
		{"429 with Retry-After", ghfake.TooManyRequests(30), 3},
		{"429 with x-ratelimit-remaining 0, reset in an hour", ghfake.Fault{Status: http.StatusTooManyRequests, Header: ghfake.RateLimitHeaders(0, late)}, 1},
		{"403 primary limit resetting in an hour", ghfake.PrimaryRateLimit(late), 1},
		{"403 primary limit resetting in a minute", ghfake.PrimaryRateLimit(soon), 3},
		{"403 permission error from a proxy without x-ratelimit-remaining", ghfake.Fault{Status: http.StatusForbidden, Header: noRemaining,
			Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest"}`}, 1},
		{"502 from a proxy without x-ratelimit-remaining", ghfake.Fault{Status: http.StatusBadGateway, Header: noRemaining}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ghfake.New(t)
			c, w := newClient(t, s)
			f := tc.fault
			f.Operation, f.Times = "checks/update", tc.attempts // every attempt of the first update
			s.Fail(f)
			err := run(context.Background(), c, fiveGates, gates.Result{Outcome: gates.Passed, Title: "ok", Findings: []gates.Finding{}})
			if err == nil {
				t.Fatal("no error: the fault was not hit")
			}
			if strings.Contains(err.Error(), "not making remote request") || strings.Contains(err.Error(), "finalising") {
				t.Errorf("a request was refused locally, or the Finaliser failed: %v", err)
			}
			for _, st := range s.CheckRuns("octo/demo") {
				if st.Status != "completed" || st.Conclusion != "failure" || !strings.HasPrefix(st.Title, "could not evaluate: swarm-gate stopped before reporting this check") {
					t.Errorf("%s: %s/%s %q", st.Name, st.Status, st.Conclusion, st.Title)
				}
			}
			// Bounded: the first update's attempts, then the Finaliser's one
			// request per run.
			if n := len(s.CallsTo("checks/update")); n != tc.attempts+len(fiveGates) {
				t.Errorf("%d updates, want %d: %d attempts of the first, then one per run", n, tc.attempts+len(fiveGates), tc.attempts)
			}
			for _, d := range w.all() {
				if d > 15*time.Minute+time.Second {
					t.Errorf("a wait of %s: longer than MaxWait", d)
				}
			}
		})
	}
}

func unix(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// TestRateLimitErrorsAreNamed: a rate limit the transport gave up on is
// still a rate-limit error (not a permission error: IsForbidden is false)
// and says when to expect the limit to lift.
func TestRateLimitErrorsAreNamed(t *testing.T) {
	late := time.Now().Add(time.Hour).Truncate(time.Second)
	cases := []struct {
		name      string
		fault     ghfake.Fault
		wantInErr string
	}{
		{"primary limit", ghfake.PrimaryRateLimit(late), "resets at " + late.UTC().Format(time.RFC3339)},
		{"secondary limit with Retry-After", ghfake.SecondaryRateLimit(3600), "GitHub asked to wait 1h0m0s"},
		{"secondary limit without headers", ghfake.SecondaryRateLimit(-1), "secondary rate limit"},
		{"secondary limit whose documentation URL go-github does not know", ghfake.Fault{Status: http.StatusForbidden,
			Body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits"}`},
			"secondary rate limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ghfake.New(t)
			c, _ := newClient(t, s)
			f := tc.fault
			f.Operation, f.Times = "repos/get-collaborator-permission-level", -1
			s.Fail(f)
			_, err := c.Permission(context.Background(), repo, "alice")
			if err == nil || ghapi.IsForbidden(err) || !strings.Contains(err.Error(), tc.wantInErr) {
				t.Errorf("got %v (forbidden %v), want a rate-limit error saying %q", err, ghapi.IsForbidden(err), tc.wantInErr)
			}
		})
	}
}
