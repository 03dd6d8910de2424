package ghapi

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFailTitle(t *testing.T) {
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
