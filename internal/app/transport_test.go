package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// recordingRT answers every request 200 with a body naming the request
// number, and records the requests.
type recordingRT struct {
	got []string
}

func (r *recordingRT) RoundTrip(req *http.Request) (*http.Response, error) {
	r.got = append(r.got, req.Method+" "+req.URL.Path)
	h := http.Header{}
	h.Set("X-RateLimit-Remaining", fmt.Sprint(5000-len(r.got)))
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Header: h, Request: req,
		Body: io.NopCloser(strings.NewReader(fmt.Sprintf("answer %d", len(r.got))))}, nil
}

// TestGetCache: within one evaluation a GET is sent once while no write
// could have changed its answer; a write drops the cached reads of the
// same repository that share a resource word with it.
func TestGetCache(t *testing.T) {
	const api = "https://ghe.example/api/v3/repos/o/r/"
	cases := []struct {
		name     string
		requests []string // "METHOD path" under api
		wantSent []string
	}{
		{"a repeated read is sent once",
			[]string{"GET pulls/2", "GET pulls/2", "GET pulls/2"},
			[]string{"GET pulls/2"}},
		{"a check-run write drops the cached list of the commit's check runs",
			[]string{"GET commits/" + strings.Repeat("a", 40) + "/check-runs", "POST check-runs", "GET commits/" + strings.Repeat("a", 40) + "/check-runs"},
			[]string{"GET commits/" + strings.Repeat("a", 40) + "/check-runs", "POST check-runs", "GET commits/" + strings.Repeat("a", 40) + "/check-runs"}},
		{"a reaction does not drop the pull request",
			[]string{"GET pulls/2", "POST issues/comments/9/reactions", "GET pulls/2", "GET issues/2/comments", "POST issues/2/comments", "GET issues/2/comments"},
			[]string{"GET pulls/2", "POST issues/comments/9/reactions", "GET issues/2/comments", "POST issues/2/comments", "GET issues/2/comments"}},
		{"an update read back after it",
			[]string{"GET check-runs/5", "PATCH check-runs/5", "GET check-runs/5"},
			[]string{"GET check-runs/5", "PATCH check-runs/5", "GET check-runs/5"}},
		{"another repository's write drops nothing",
			[]string{"GET pulls/2", "POST ../x/check-runs", "GET pulls/2"},
			[]string{"GET pulls/2", "POST ../x/check-runs"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := newMetrics(nil)
			if err != nil {
				t.Fatal(err)
			}
			rec := &recordingRT{}
			e := &evaluation{}
			c := newGetCache(&counting{next: rec, m: m}, m)
			var bodies []string
			for _, r := range tc.requests {
				method, path, _ := strings.Cut(r, " ")
				req, _ := http.NewRequestWithContext(withEvaluation(context.Background(), e), method, api+path, nil)
				req.URL.Path = strings.Replace(req.URL.Path, "/r/../x/", "/x/", 1)
				resp, err := c.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				bodies = append(bodies, string(b))
			}
			var want []string
			for _, w := range tc.wantSent {
				method, path, _ := strings.Cut(w, " ")
				want = append(want, method+" "+strings.Replace("/api/v3/repos/o/r/"+path, "/r/../x/", "/x/", 1))
			}
			if fmt.Sprint(rec.got) != fmt.Sprint(want) {
				t.Errorf("sent\n %v\nwant\n %v", rec.got, want)
			}
			if hits := int(e.cacheHits.Load()); hits != len(tc.requests)-len(tc.wantSent) || e.Calls() != int64(len(tc.wantSent)) {
				t.Errorf("evaluation counted %d calls and %d cache hits, want %d and %d", e.Calls(), hits, len(tc.wantSent), len(tc.requests)-len(tc.wantSent))
			}
			if tc.requests[0] == tc.requests[1] && bodies[0] != bodies[1] {
				t.Errorf("a cache hit answered %q, the first request %q", bodies[1], bodies[0])
			}
		})
	}
}

// TestGetCacheNoCache: a GET with Cache-Control: no-cache (ghapi's re-list
// of a commit's check runs) is always sent, and its answer is the one
// kept for the next plain GET.
func TestGetCacheNoCache(t *testing.T) {
	m, err := newMetrics(nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingRT{}
	c := newGetCache(&counting{next: rec, m: m, limit: "1"}, m)
	const url = "https://ghe.example/api/v3/repos/o/r/commits/" + "0123456789012345678901234567890123456789" + "/check-runs"
	var bodies []string
	for _, fresh := range []bool{false, true, true, false} {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if fresh {
			req.Header.Set("Cache-Control", "no-cache")
		}
		resp, err := c.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		bodies = append(bodies, string(b))
	}
	if len(rec.got) != 3 {
		t.Errorf("%d requests sent, want 3 (the first, then both no-cache ones)", len(rec.got))
	}
	if want := []string{"answer 1", "answer 2", "answer 3", "answer 3"}; fmt.Sprint(bodies) != fmt.Sprint(want) {
		t.Errorf("answers %v, want %v", bodies, want)
	}
}

// TestRateLimitGaugePerInstallation: x-ratelimit-remaining is kept per
// rate limit: each installation's, and the App's own ("app").
func TestRateLimitGaugePerInstallation(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := newMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []string{"77", "78", appLimit, "77"} {
		rec := &recordingRT{}
		req, _ := http.NewRequest(http.MethodGet, "https://api.github.com/repos/o/r", nil)
		if _, err := (&counting{next: rec, m: m, limit: limit}).RoundTrip(req); err != nil {
			t.Fatal(err)
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "swarm_gate_rate_limit_remaining" {
			continue
		}
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				got[l.GetName()+"="+l.GetValue()] = s.GetGauge().GetValue()
			}
		}
	}
	if want := map[string]float64{"installation=77": 4999, "installation=78": 4999, "installation=app": 4999}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("swarm_gate_rate_limit_remaining %v, want %v", got, want)
	}
}
