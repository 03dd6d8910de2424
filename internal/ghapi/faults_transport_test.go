package ghapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
)

// TestShield: the headers go-github would act on by itself are moved out
// of its sight in the responses handed to it; the others are kept.
func TestShield(t *testing.T) {
	const reset = "1900000000"
	cases := []struct {
		name       string
		status     int
		in         http.Header
		wantReset  bool // X-RateLimit-Reset still there
		wantRetry  bool // Retry-After still there
		wantMoved  bool // X-Swarm-Gate-Ratelimit-Reset set
		wantRMoved bool // X-Swarm-Gate-Retry-After set
	}{
		{"200 with remaining left", 200, http.Header{"X-Ratelimit-Remaining": {"4999"}, "X-Ratelimit-Reset": {reset}}, true, false, false, false},
		{"200 with remaining 0", 200, http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {reset}}, false, false, true, false},
		{"200 without remaining", 200, http.Header{"X-Ratelimit-Reset": {reset}}, false, false, true, false},
		{"200 with an unreadable remaining", 200, http.Header{"X-Ratelimit-Remaining": {"lots"}, "X-Ratelimit-Reset": {reset}}, false, false, true, false},
		{"502 with Retry-After", 502, http.Header{"X-Ratelimit-Remaining": {"10"}, "X-Ratelimit-Reset": {reset}, "Retry-After": {"5"}}, true, true, false, false},
		{"403 secondary limit", 403, http.Header{"X-Ratelimit-Remaining": {"4000"}, "X-Ratelimit-Reset": {reset}, "Retry-After": {"60"}}, false, false, true, true},
		{"429", 429, http.Header{"X-Ratelimit-Remaining": {"4000"}, "X-Ratelimit-Reset": {reset}}, false, false, true, false},
		{"403 primary limit", 403, http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {reset}}, false, false, true, false},
	}
	for _, tc := range cases {
		resp := &http.Response{StatusCode: tc.status, Header: tc.in.Clone()}
		shield(resp)
		h := resp.Header
		if (h.Get("X-RateLimit-Reset") != "") != tc.wantReset || (h.Get("Retry-After") != "") != tc.wantRetry ||
			(h.Get(shieldedReset) == reset) != tc.wantMoved || (h.Get(shieldedRetryAfter) != "") != tc.wantRMoved {
			t.Errorf("%s: headers after: %v", tc.name, h)
		}
		if h.Get("X-RateLimit-Remaining") != tc.in.Get("X-RateLimit-Remaining") {
			t.Errorf("%s: x-ratelimit-remaining changed", tc.name)
		}
	}
}

// TestGivenUpPrimaryLimitHoldsTheNextRequest: a primary-limit 403 the
// transport returns (its wait did not fit) is remembered by the
// transport: the next request waits for the reset when that fits its
// context, and goes out at once when it does not (GitHub decides).
func TestGivenUpPrimaryLimitHoldsTheNextRequest(t *testing.T) {
	now := time.Unix(1_900_000_000, 0)
	cases := []struct {
		name     string
		resetIn  time.Duration
		deadline time.Duration // of the next request's context (0: none)
		wantWait bool
	}{
		{"reset beyond MaxWait", time.Hour, 0, false},
		{"reset soon", time.Minute, 0, true},
		{"reset soon, after the caller's deadline (the Finaliser's budget)", time.Minute, 30 * time.Second, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			var waits []time.Duration
			tr := &Transport{MaxAttempts: 1, Now: func() time.Time { return now },
				Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil },
				Base: rtFunc(func(r *http.Request) (*http.Response, error) {
					calls++
					h := http.Header{}
					h.Set("X-RateLimit-Remaining", "0")
					h.Set("X-RateLimit-Reset", strconv.FormatInt(now.Add(tc.resetIn).Unix(), 10))
					status := http.StatusForbidden
					if calls > 1 {
						status = http.StatusOK
						h.Set("X-RateLimit-Remaining", "5000")
					}
					return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(`{"message":"API rate limit exceeded"}`))}, nil
				})}
			req, _ := http.NewRequest(http.MethodGet, "https://api.example/x", nil)
			resp, err := tr.RoundTrip(req)
			if err != nil || resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-RateLimit-Reset") != "" {
				t.Fatalf("first: %v %v %v", resp, err, resp.Header)
			}
			waits = nil
			ctx := context.Background()
			if tc.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.deadline)
				defer cancel()
			}
			req, _ = http.NewRequestWithContext(ctx, http.MethodGet, "https://api.example/x", nil)
			if resp, err := tr.RoundTrip(req); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("second: %v %v", resp, err)
			}
			if (len(waits) == 1) != tc.wantWait || calls != 2 {
				t.Errorf("waits %v, %d calls", waits, calls)
			}
		})
	}
}

// TestPauseKeepsToTheDeadline: the client's own resend waits with backoff
// and never past its context's deadline.
func TestPauseKeepsToTheDeadline(t *testing.T) {
	var waits []time.Duration
	tr := &Transport{Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	for attempt := 1; attempt <= 3; attempt++ {
		if err := tr.pause(context.Background(), "x", attempt); err != nil {
			t.Fatal(err)
		}
	}
	if len(waits) != 3 || waits[0] < time.Second || waits[1] < 2*time.Second || waits[2] < 4*time.Second || waits[2] > 6*time.Second {
		t.Errorf("waits %v: want about 1 s, 2 s, 4 s", waits)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := tr.pause(ctx, "x", 1); err == nil || !strings.Contains(err.Error(), "after the deadline") {
		t.Errorf("a pause past the deadline: %v", err)
	}
	if tr.Stats().Retries != 3 {
		t.Errorf("stats: %+v", tr.Stats())
	}
}

// TestIsRateLimited tells rate limits from other refusals.
func TestIsRateLimited(t *testing.T) {
	resp := func(code int) *http.Response { return &http.Response{StatusCode: code, Header: http.Header{}} }
	cases := []struct {
		err  error
		want bool
	}{
		{&github.RateLimitError{Response: resp(403)}, true},
		{&github.AbuseRateLimitError{Response: resp(403)}, true},
		{&github.ErrorResponse{Response: resp(429)}, true},
		{&github.ErrorResponse{Response: resp(403), Message: "You have exceeded a secondary rate limit."}, true},
		{&github.ErrorResponse{Response: resp(403), Message: "Resource not accessible by integration"}, false},
		{&github.ErrorResponse{Response: resp(502)}, false},
		{errors.New("EOF"), false},
		{nil, false},
	}
	for _, tc := range cases {
		if got := IsRateLimited(tc.err); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.err, got, tc.want)
		}
		if tc.want && IsForbidden(tc.err) {
			t.Errorf("%v: a rate limit taken for a permission error", tc.err)
		}
	}
}
