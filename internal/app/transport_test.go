package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
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

// TestRunLog: the runner's annotations become log records; masks and the
// report between stop-commands markers do not; the token is redacted.
func TestRunLog(t *testing.T) {
	var out strings.Builder
	w := &runLog{log: newTextLogger(&out), secrets: []string{"tok-123"}}
	input := "::add-mask::tok-123\n" +
		"::stop-commands::abc\n::error::from the repository, not a command\n::abc::\n" +
		"::error file=a.go,line=3::scope%0Asecond line\n" +
		"::warning::a warning about tok-123\n" +
		"plain text\n::notice::done"
	for _, chunk := range []string{input[:10], input[10:50], input[50:], "\n"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	got := out.String()
	for _, want := range []string{`level=ERROR msg="scope\nsecond line"`, `level=WARN msg="a warning about [redacted]"`, "level=INFO msg=done"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %s:\n%s", want, got)
		}
	}
	for _, bad := range []string{"tok-123", "from the repository", "plain text", "add-mask"} {
		if strings.Contains(got, bad) {
			t.Errorf("log holds %q:\n%s", bad, got)
		}
	}
	if w.LastError() != "scope\nsecond line" {
		t.Errorf("LastError %q", w.LastError())
	}
}
