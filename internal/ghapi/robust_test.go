package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestCheckRunAnswersWithFieldsMissing: GitHub (or a proxy in front of a
// GitHub Enterprise Server) answers a check-run request with 200 and a
// body without output, status or even an id. Nothing panics; a run
// without an id is an error; a run completed without output in the answer
// is completed, and the Finaliser's path (Fail → update → record) is safe
// too.
func TestCheckRunAnswersWithFieldsMissing(t *testing.T) {
	cases := []struct {
		name      string
		operation string
		nth       int
		body      string
		// run: start the checks and complete them (else only start them and
		// let the Finaliser complete them as failure).
		complete bool
		wantErr  string
		want     string // the stored conclusion of every run
	}{
		{"create without id", "checks/create", 1, `{"name":"swarm-gate","status":"in_progress"}`, true, "GitHub returned a check run without an id", "failure"},
		{"create without output", "checks/create", 1, `{"id":%d,"status":"in_progress"}`, true, "", "success"},
		{"complete without output", "checks/update", 1, `{"id":%d,"status":"completed","conclusion":"success"}`, true, "", "success"},
		{"complete with nothing but the id", "checks/update", 1, `{"id":%d}`, true, "", "success"},
		{"finaliser: fail without output", "checks/update", 1, `{"id":%d,"status":"completed","conclusion":"failure"}`, false, "", "failure"},
		{"finaliser: fail answered with null", "checks/update", 1, `null`, false, "", "failure"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ghfake.New(t)
			c, _ := newClient(t, s)
			body := tc.body
			if strings.Contains(body, "%d") {
				body = fmt.Sprintf(body, 1001) // the fake's first id
			}
			s.Fail(ghfake.Fault{Operation: tc.operation, Nth: tc.nth, Status: http.StatusOK, Body: body, AfterApplying: true})
			ctx := context.Background()
			var err error
			if tc.complete {
				err = run(ctx, c, []string{"swarm-gate"}, gates.Result{Outcome: gates.Passed, Title: "ok", Findings: []gates.Finding{}})
			} else {
				fin := ghapi.NewFinaliser(c, quiet)
				runs, serr := c.StartChecks(ctx, repo, headSHA, []string{"swarm-gate"}, "x")
				if serr != nil {
					t.Fatal(serr)
				}
				fin.Track(runs...)
				err = fin.Close(ctx, errors.New("stopped"))
				if err == nil && runs[0].InProgress() {
					t.Error("the run is still in progress after Close")
				}
			}
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
			}
			for _, st := range s.CheckRuns("octo/demo") {
				if tc.wantErr != "" {
					continue // created, but unknown to the client: the post step's case
				}
				if st.Status != "completed" || st.Conclusion != tc.want {
					t.Errorf("%s: %s/%s, want completed/%s", st.Name, st.Status, st.Conclusion, tc.want)
				}
			}
		})
	}
}

// TestReadsWithFieldsMissing: a check run, a pull request or a list read
// back without the fields swarm-gate expects.
func TestReadsWithFieldsMissing(t *testing.T) {
	s := ghfake.New(t)
	c, _ := newClient(t, s)
	ctx := context.Background()
	id := s.AddCheckRun("octo/demo", ghfake.CheckRun{Name: "swarm/scope", HeadSHA: headSHA, Status: "in_progress", ExternalID: "k"})
	s.Fail(ghfake.Fault{Operation: "checks/get", Status: http.StatusOK, Body: `{}`})
	if _, err := c.CheckRun(ctx, repo, id); err == nil || !strings.Contains(err.Error(), "GitHub returned check run 0") {
		t.Errorf("check run without an id: %v", err)
	}
	s.Fail(ghfake.Fault{Operation: "checks/list-for-ref", Status: http.StatusOK, Body: `null`})
	if runs, err := c.CheckRunsOnRef(ctx, repo, headSHA, ghapi.App{Slug: ghfake.TokenAppSlug}); err != nil || len(runs) != 0 {
		t.Errorf("null list: %v, %d runs", err, len(runs))
	}
	s.Fail(ghfake.Fault{Operation: "pulls/get", Status: http.StatusOK, Body: `{"title":"x"}`})
	if _, err := c.PullRequest(ctx, repo, 7); err == nil || !strings.Contains(err.Error(), "GitHub returned pull request 0") {
		t.Errorf("pull request without a number: %v", err)
	}
	s.Fail(ghfake.Fault{Operation: "pulls/list", Status: http.StatusOK, Body: `[null,{"number":3}]`})
	if prs, err := c.OpenPullRequests(ctx, repo, ""); err != nil || len(prs) != 1 || prs[0].Number != 3 {
		t.Errorf("list with a null: %v, %+v", err, prs)
	}
	s.Fail(ghfake.Fault{Operation: "issues/list-comments", Status: http.StatusOK, Body: `[null]`})
	if list, err := c.ListComments(ctx, repo, 7); err != nil || len(list) != 0 {
		t.Errorf("comments with a null: %v, %d", err, len(list))
	}
}

// TestFinaliserCompletesAllWithinOneBudget: nine runs left in progress
// (the aggregate and eight gates) and an API that takes longer than a
// ninth of the budget per request: completed one after another only a few
// would make it; completed concurrently, all do.
func TestFinaliserCompletesAllWithinOneBudget(t *testing.T) {
	s := ghfake.New(t)
	c, _ := newClient(t, s)
	ctx := context.Background()
	names := []string{"swarm-gate", "swarm/plan-freeze", "swarm/critic", "swarm/scope", "swarm/placeholders", "swarm/sast", "swarm/evidence", "swarm/drift", "swarm/plan-lint"}
	runs, err := c.StartChecks(ctx, repo, headSHA, names, "x")
	if err != nil {
		t.Fatal(err)
	}
	const budget = 2 * time.Second
	s.SetLatency(600 * time.Millisecond) // > budget/9, < budget
	fin := ghapi.NewFinaliser(c, quiet)
	fin.Timeout = budget
	fin.Track(runs...)
	if err := fin.Close(ctx, context.Canceled); err != nil {
		t.Fatalf("close: %v", err)
	}
	for _, st := range s.CheckRuns("octo/demo") {
		if st.Status != "completed" || st.Conclusion != "failure" {
			t.Errorf("%s: %s/%s", st.Name, st.Status, st.Conclusion)
		}
	}
	if n := len(s.CallsTo("checks/update")); n != len(names) {
		t.Errorf("%d updates, want %d", n, len(names))
	}
}

// panicky panics on Fail for one run, to show that a panic in one of the
// Finaliser's goroutines is an error, not a crash, and the others still
// complete.
type panicky struct {
	ghapi.Checks
	name string
}

func (p panicky) Fail(ctx context.Context, run *ghapi.CheckRun, reason string) error {
	if run.Name == p.name {
		panic("injected")
	}
	return p.Checks.Fail(ctx, run, reason)
}

func TestFinaliserRecoversAPanic(t *testing.T) {
	s := ghfake.New(t)
	c, _ := newClient(t, s)
	ctx := context.Background()
	runs, err := c.StartChecks(ctx, repo, headSHA, fiveGates, "x")
	if err != nil {
		t.Fatal(err)
	}
	fin := ghapi.NewFinaliser(panicky{Checks: c, name: "swarm/scope"}, quiet)
	fin.Track(runs...)
	err = fin.Close(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "completing check swarm/scope") || !strings.Contains(err.Error(), "panic: injected") {
		t.Fatalf("got %v", err)
	}
	for _, st := range s.CheckRuns("octo/demo") {
		if want := st.Name != "swarm/scope"; (st.Status == "completed") != want {
			t.Errorf("%s: %s", st.Name, st.Status)
		}
	}
}

// TestCheckBaseURL: the check NewClient makes, on its own, with the reason
// as a field.
func TestCheckBaseURL(t *testing.T) {
	for url, why := range map[string]string{
		"https://github.com":             "that is the web site, not the API",
		"https://api.github.com/v3":      "the path must be empty or /api/v3",
		"https://host/some/path":         "the path must be empty or /api/v3",
		"ftp://x":                        "the scheme must be https or http",
		"https://ghe.example.com/?x=1":   "no query or fragment allowed",
		"https://ghe.example.com/api/v3": "",
		"":                               "",
	} {
		err := ghapi.CheckBaseURL(url)
		var be *ghapi.BaseURLError
		switch {
		case why == "" && err != nil:
			t.Errorf("%q: %v", url, err)
		case why != "" && (!errors.As(err, &be) || be.Why != why || be.URL != url):
			t.Errorf("%q: got %v, want %q", url, err, why)
		}
	}
}
