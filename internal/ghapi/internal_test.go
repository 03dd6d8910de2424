package ghapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
)

func TestTruncateSummary(t *testing.T) {
	items := func(prefix string, n int) string {
		var l []string
		for i := range n {
			l = append(l, fmt.Sprintf("%s%d", prefix, i))
		}
		return strings.Join(l, "\n")
	}
	cases := []struct {
		name, in, want string
	}{
		{"cut at a line", items("line", 30), "line0\nline1\n\n… 28 more items dropped; the full report is in R"},
		{"blank lines are not items", "l1\n\n\n" + items("l", 30), "l1\n\n\n\n… 30 more items dropped; the full report is in R"},
		{"one item", "l1\n" + strings.Repeat("x", 100), "l1\n\n… 1 more item dropped; the full report is in R"},
		{"open fence closed", "intro\n````\n" + items("code", 20) + "\n````", "intro\n````\ncode0\n````\n\n… 20 more items dropped; the full report is in R"},
		{"closed fence left alone", "```\nx\n```\n" + items("after", 20), "```\nx\n```\n\n… 20 more items dropped; the full report is in R"},
		{"open details closed", "intro\n<details><summary>all</summary>\n\n" + items("- f", 20) + "\n\n</details>", "intro\n<details><summary>all</summary>\n\n- f0\n\n</details>\n\n… 19 more items dropped; the full report is in R"},
		{"details inside code are not blocks", "```\n<details>\n```\n" + items("after", 20), "```\n<details>\n```\n\n… 20 more items dropped; the full report is in R"},
		{"first line too long", strings.Repeat("é", 100), strings.Repeat("é", 3) + "…\n\n… 1 more item dropped; the full report is in R"},
	}
	for _, tc := range cases {
		limit := len(tc.want)
		if len(tc.in) <= limit {
			t.Fatalf("%s: the input fits", tc.name)
		}
		got := truncateSummary(tc.in, limit, "R")
		if got != tc.want {
			t.Errorf("%s:\ngot  %q (%d bytes)\nwant %q", tc.name, got, len(got), tc.want)
		}
		if got := truncateSummary(tc.in, limit+1, "R"); len(got) > limit+1 {
			t.Errorf("%s: %d bytes over a limit of %d", tc.name, len(got), limit+1)
		}
	}
	if got := truncateSummary("short", 10, "R"); got != "short" {
		t.Errorf("a summary that fits was changed: %q", got)
	}
}

func TestTitles(t *testing.T) {
	cases := []struct {
		res  gates.Result
		want string
	}{
		{gates.Result{Outcome: gates.Passed}, "passed"},
		{gates.Result{Outcome: gates.NotApplicable}, "not applicable"},
		{gates.Result{Outcome: gates.Error, Title: "could not evaluate: x"}, "could not evaluate: x"},
		{gates.Result{Outcome: gates.Error, Title: "x"}, "could not evaluate: x"},
		{gates.Result{Outcome: gates.Error}, "could not evaluate"},
		{gates.Result{Outcome: "bogus", Title: "fine"}, `could not evaluate: unknown outcome "bogus"`},
		{gates.Result{Outcome: gates.Failed, Title: "first\nsecond\x1b[2J"}, "first"},
		{gates.Result{Outcome: gates.Failed, Title: strings.Repeat("ab", 200)}, strings.Repeat("ab", 127) + "…"},
	}
	for _, tc := range cases {
		out := Output(tc.res, "R")
		if out.Title != tc.want {
			t.Errorf("%+v: title %q, want %q", tc.res, out.Title, tc.want)
		}
		if tc.res.Outcome == "bogus" && out.Conclusion != ConclusionFailure {
			t.Errorf("unknown outcome concludes %s", out.Conclusion)
		}
	}
	if got := failOutput("").Title; got != "could not evaluate: swarm-gate stopped before reporting this check" {
		t.Errorf("fail title %q", got)
	}
}

// TestTransportConnectionErrors: a request that never left is resent even
// when it is a POST; a POST whose connection broke after sending is not.
func TestTransportConnectionErrors(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	cases := []struct {
		name      string
		method    string
		policy    retryPolicy
		err       error
		wantCalls int
	}{
		{"POST, connection refused", http.MethodPost, byMethod, dial, 2},
		{"POST, connection reset", http.MethodPost, byMethod, reset, 1},
		{"GET, connection reset", http.MethodGet, byMethod, reset, 2},
		{"appending PATCH, connection reset", http.MethodPatch, appending, reset, 1},
		{"repeatable POST, connection reset", http.MethodPost, repeatable, reset, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			var bodies []string
			tr := &Transport{Sleep: func(context.Context, time.Duration) error { return nil },
				Base: rtFunc(func(r *http.Request) (*http.Response, error) {
					calls++
					b, _ := io.ReadAll(r.Body)
					bodies = append(bodies, string(b))
					if calls == 1 {
						return nil, tc.err
					}
					return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}"))}, nil
				})}
			ctx := withPolicy(context.Background(), tc.policy)
			req, _ := http.NewRequestWithContext(ctx, tc.method, "https://api.example/x", strings.NewReader(`{"a":1}`))
			resp, err := tr.RoundTrip(req)
			if resp != nil {
				resp.Body.Close()
			}
			if calls != tc.wantCalls || (tc.wantCalls == 1) != (err != nil) || !errors.Is(err, tc.err) && err != nil {
				t.Errorf("%d calls, err %v", calls, err)
			}
			for _, b := range bodies {
				if b != `{"a":1}` {
					t.Errorf("resent body %q", b)
				}
			}
		})
	}
}

type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestAttemptTimeout: an attempt that hangs is cut; a GET is resent, a
// POST is not, and its error leaves open whether it was applied (unlike
// the caller's own deadline).
func TestAttemptTimeout(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		calls := 0
		tr := &Transport{AttemptTimeout: 10 * time.Millisecond, Sleep: func(context.Context, time.Duration) error { return nil },
			Base: rtFunc(func(r *http.Request) (*http.Response, error) {
				calls++
				<-r.Context().Done()
				return nil, r.Context().Err()
			})}
		req, _ := http.NewRequest(method, "https://api.example/x", nil)
		_, err := tr.RoundTrip(req)
		want := map[string]int{http.MethodGet: 3, http.MethodPost: 1}[method]
		if !errors.Is(err, ErrAttemptTimeout) || !ambiguous(err) || calls != want {
			t.Errorf("%s: %d calls, err %v (ambiguous %v)", method, calls, err, ambiguous(err))
		}
	}
}
